package view

import (
	"encoding/json"
	"os"
	"regexp"
	"testing"
)

// TestFuncsAreWhatThePageCalls: the functions the calculator and planner
// WebAssembly export are those calc.js calls (api.NAME, wattscale.meta),
// the planner's those of calcapi's calculator and its own, and each
// answers a missing argument with JSON (sampleCSV with its CSV) rather
// than a panic.
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
	all := map[string]func([]byte) []byte{}
	for name, f := range planner {
		all[name] = f
	}
	for name, f := range calc {
		all[name] = f
	}
	for name := range called {
		if _, ok := all[name]; !ok {
			t.Errorf("calc.js calls %s, which neither WebAssembly exports", name)
		}
	}
	for name, f := range all {
		if !called[name] {
			t.Errorf("%s is exported but calc.js never calls it", name)
		}
		out := f(nil)
		if name == "sampleCSV" { // CSV text, not JSON
			if len(out) == 0 {
				t.Errorf("sampleCSV() is empty")
			}
		} else if !json.Valid(out) {
			t.Errorf("%s(nil) = %.200q, want JSON", name, out)
		}
	}
}
