package view

import (
	"encoding/json"
	"os"
	"regexp"
	"testing"
)

// TestFuncsAreWhatThePageCalls: the functions calc.wasm and planner.wasm
// export are those calc.js calls (api.NAME), and calc.js calls nothing
// else; each answers missing arguments
// rather than panicking: the planner's with JSON, the calculator's with a
// string (markup, CSV, the calibration's JSON answer) or render's object.
func TestFuncsAreWhatThePageCalls(t *testing.T) {
	_, api := newCalc(t)
	js, err := os.ReadFile("../../../site/assets/calc.js")
	if err != nil {
		t.Fatal(err)
	}
	calls := func(re string, called map[string]bool) map[string]bool {
		for _, m := range regexp.MustCompile(re).FindAllSubmatch(js, -1) {
			called[string(m[1])] = true
		}
		return called
	}
	// App calls both programs' functions as api.NAME.
	calc, planner, called := CalcFuncs(api), PlanFuncs(api), calls(`\bapi\.([A-Za-z]+)\b`, map[string]bool{})
	for name := range called {
		if calc[name] == nil && planner[name] == nil {
			t.Errorf("calc.js calls %s, which neither calc.wasm nor planner.wasm exports", name)
		}
	}
	planCalled, calcCalled := called, called
	for name, f := range planner {
		if !planCalled[name] {
			t.Errorf("planner.wasm exports %s but the planner never calls it", name)
		}
		if out := f(nil); !json.Valid(out) {
			t.Errorf("planner %s(nil) = %.200q, want JSON", name, out)
		}
	}
	for name, f := range calc {
		if !calcCalled[name] {
			t.Errorf("calc.wasm exports %s but the calculator never calls it", name)
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
