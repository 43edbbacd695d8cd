package view

import (
	"testing"

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
