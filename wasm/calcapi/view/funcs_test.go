package view

import (
	"encoding/json"
	"os"
	"regexp"
	"testing"
)

// TestFuncsAreWhatThePageCalls: the functions the calculator and planner
// WebAssembly export are those calc.js calls (api.NAME, wattscale.meta
// for the planner), the planner's those of calcapi's calculator and its
// own; each answers missing arguments rather than panicking: the
// planner's with JSON, the calculator's with a string (markup, CSV, the
// calibration's JSON answer) or render's object.
func TestFuncsAreWhatThePageCalls(t *testing.T) {
	_, api := newCalc(t)
	calc, planner := CalcFuncs(api), api.PlannerFuncs()
	for name := range api.CalcFuncs() {
		if _, ok := planner[name]; !ok {
			t.Errorf("the planner does not export the calculator's %s", name)
		}
	}
	js, err := os.ReadFile("../../../site/assets/calc.js")
	if err != nil {
		t.Fatal(err)
	}
	called := map[string]bool{"meta": true}
	for _, m := range regexp.MustCompile(`\bapi\.([A-Za-z]+)\b`).FindAllSubmatch(js, -1) {
		called[string(m[1])] = true
	}
	for name := range called {
		if calc[name] == nil && planner[name] == nil {
			t.Errorf("calc.js calls %s, which neither WebAssembly exports", name)
		}
	}
	for name, f := range planner {
		if !called[name] {
			t.Errorf("planner.wasm exports %s but calc.js never calls it", name)
		}
		if out := f(nil); name != "sampleCSV" && !json.Valid(out) {
			t.Errorf("planner %s(nil) = %.200q, want JSON", name, out)
		}
	}
	for name, f := range calc {
		if !called[name] {
			t.Errorf("calc.wasm exports %s but calc.js never calls it", name)
		}
		switch out := f(nil).(type) {
		case string:
			if out == "" {
				t.Errorf("calc %s() is empty", name)
			}
		case map[string]any:
			switch {
			case name == "render" && out["state"] != "ok":
				t.Errorf("calc render() state = %v, want the default form's estimate", out["state"])
			case name == "addCalibration" && out["error"] == nil:
				t.Errorf("calc addCalibration() = %v, want an error (no calibrations given)", out)
			}
		default:
			t.Errorf("calc %s() = %T, want a string or an object", name, out)
		}
	}
}
