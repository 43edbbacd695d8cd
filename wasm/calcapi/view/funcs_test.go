package view

import (
	"encoding/json"
	"os"
	"regexp"
	"testing"
)

// TestFuncsAreWhatThePageCalls: the functions calc.wasm exports are those
// calc.js's calculator calls (api.NAME), planner.wasm's
// those its planner calls (wasm.NAME); each answers missing arguments
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
	calc, calcCalled := CalcFuncs(api), calls(`\bapi\.([A-Za-z]+)\b`, map[string]bool{})
	planner, planCalled := PlanFuncs(api), calls(`\bwasm\.([A-Za-z]+)\b`, map[string]bool{})
	for name := range calcCalled {
		if calc[name] == nil {
			t.Errorf("calc.js: the calculator calls %s, which calc.wasm does not export", name)
		}
	}
	for name := range planCalled {
		if planner[name] == nil {
			t.Errorf("calc.js: the planner calls %s, which planner.wasm does not export", name)
		}
	}
	if len(planCalled) == 0 {
		t.Errorf("calc.js: the planner calls nothing")
	}
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
