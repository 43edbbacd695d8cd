package calcapi

import (
	"encoding/json"
	"os"
	"regexp"
	"testing"
)

// TestFuncsAreWhatThePageCalls: the functions the calculator and planner
// WebAssembly export are those calc.js calls (api.NAME, wattscale.meta),
// the planner's a superset of the calculator's, and each answers a
// missing argument with JSON (sampleCSV with its CSV) rather than a panic.
func TestFuncsAreWhatThePageCalls(t *testing.T) {
	api := newAPI(t)
	calc, planner := api.CalcFuncs(), api.PlannerFuncs()
	for name := range calc {
		if _, ok := planner[name]; !ok {
			t.Errorf("the planner does not export the calculator's %s", name)
		}
	}
	js, err := os.ReadFile("../../site/assets/calc.js")
	if err != nil {
		t.Fatal(err)
	}
	called := map[string]bool{"meta": true}
	for _, m := range regexp.MustCompile(`\bapi\.([A-Za-z]+)\b`).FindAllSubmatch(js, -1) {
		called[string(m[1])] = true
	}
	for name := range called {
		if _, ok := planner[name]; !ok {
			t.Errorf("calc.js calls %s, which neither WebAssembly exports", name)
		}
	}
	for name, f := range planner {
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
