package view

import (
	"testing"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/wasm/calcapi"
)

// BenchmarkRender is one input's work in Go: the estimate with the charts'
// sweep and the markup of the parts that changed (the GPU count, in turn
// 4 and 8).
func BenchmarkRender(b *testing.B) {
	c, _ := newCalc(b)
	forms := []calcapi.Form{with("count", "4"), with("count", "8")}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c.RenderOf(RenderInput{Form: forms[i%2], Changed: "count", Parts: true})
	}
}

// BenchmarkEstimateAlone is the same estimate and sweep without the
// markup: what the view adds is BenchmarkRender's time less this.
func BenchmarkEstimateAlone(b *testing.B) {
	_, api := newCalc(b)
	forms := []calcapi.Form{with("count", "4"), with("count", "8")}
	for i := 0; b.Loop(); i++ {
		api.EstimateOf(calcapi.EstimateInput{Form: forms[i%2], Sweep: &calcapi.SweepSpec{Counts: SweepCounts(8), Strategies: SweepStrategies}})
	}
}

// BenchmarkFirstAnswer is calc.wasm's start after package initialisation,
// natively: the catalog built from the generated calibrations, the page's
// functions made (CalcFuncs) and the first answer, the default form's whole
// markup. (In the browser V8 also compiles each function on its first
// call, which a native benchmark cannot show: scripts/wasmstart counts
// that code.)
func BenchmarkFirstAnswer(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		cat, err := content.Catalog()
		if err != nil {
			b.Fatal(err)
		}
		fns := CalcFuncs(calcapi.New(cat))
		if out, ok := fns["render"]([]any{"", "", 600.0, 600.0, false, false}).(map[string]any); !ok || out["html"] == "" {
			b.Fatalf("first answer %v has no markup", out)
		}
	}
}
