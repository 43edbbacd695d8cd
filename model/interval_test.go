package model_test

import (
	"math"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
)

// TestQuantilesByClass: each class's quantiles are R's type-7 quantiles of
// its residuals (quantile(x, c(0.05, 0.5, 0.95), type = 7) on 1..20 gives
// 1.95, 10.5, 19.05), and the pooled row holds every residual.
func TestQuantilesByClass(t *testing.T) {
	var res []model.Residual
	for i := 1; i <= 20; i++ {
		res = append(res, model.Residual{Class: model.ClassCore, Source: string(rune('a' + i%3)), LnErr: float64(i)})
	}
	res = append(res, model.Residual{Class: model.ClassOutside, Source: "z", LnErr: 100})
	q, err := model.QuantilesByClass(res, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	if len(q) != 3 || q[0].Class != model.ClassOutside || q[1].Class != model.ClassCore || q[2].Class != model.ClassPooled {
		t.Fatalf("classes %+v, want outside, core, pooled in IntervalClasses order", q)
	}
	core := q[1]
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"low", core.Low, 1.95}, {"median", core.Median, 10.5}, {"high", core.High, 19.05}} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("core %s = %g, want %g (R type 7)", c.name, c.got, c.want)
		}
	}
	if core.Runs != 20 || core.Sources != 3 || q[2].Runs != 21 {
		t.Errorf("runs %d, sources %d, pooled runs %d; want 20, 3, 21", core.Runs, core.Sources, q[2].Runs)
	}
	if _, err := model.QuantilesByClass(res, 1); err == nil {
		t.Error("level 1 accepted")
	}
	if _, err := model.QuantilesByClass(nil, 0.9); err == nil {
		t.Error("no residuals accepted")
	}
}

// TestClassFactors: without widening the ends are the quantiles; widening
// moves both ends away from the median, and never narrows the interval.
func TestClassFactors(t *testing.T) {
	q := model.ClassQuantiles{Median: 0.1, Low: -0.4, High: 0.7}
	lo, hi := q.Factors(1.645, 0)
	if math.Abs(math.Log(lo)+0.4) > 1e-12 || math.Abs(math.Log(hi)-0.7) > 1e-12 {
		t.Errorf("Factors(z, 0) = %g, %g; want e^-0.4, e^0.7", lo, hi)
	}
	lo2, hi2 := q.Factors(1.645, 0.3)
	if !(lo2 < lo && hi2 > hi) {
		t.Errorf("widened factors %g, %g not outside %g, %g", lo2, hi2, lo, hi)
	}
	// in quadrature: the upper side is 0.1 + √(0.6² + (1.645·0.3)²)
	if want := 0.1 + math.Hypot(0.6, 1.645*0.3); math.Abs(math.Log(hi2)-want) > 1e-12 {
		t.Errorf("widened upper end e^%g, want e^%g", math.Log(hi2), want)
	}
}

// TestIntervalClasses: the shipped calibration sets each estimate's
// interval from its class's held-out quantiles, and the response says so.
func TestIntervalClasses(t *testing.T) {
	c := catalog(t)
	cal, err := c.Calibration("")
	if err != nil {
		t.Fatal(err)
	}
	quant := map[string]model.ClassQuantiles{}
	for _, q := range cal.Interval.Classes {
		quant[q.Class] = q
	}
	core, ok := quant[model.ClassCore]
	if !ok || core.Runs < model.MinClassRuns {
		t.Fatalf("the default calibration has no core class with %d runs: %+v", model.MinClassRuns, cal.Interval.Classes)
	}

	// The default example: compute-bound inside the envelope.
	d := estimate(t, c, baseRequest())
	iv := d.Calibration.Interval
	if iv.Class != model.ClassCore || iv.From != model.ClassCore || iv.Runs != core.Runs {
		t.Fatalf("default example: interval %+v, want the core class's", iv)
	}
	if got, want := d.EnergyIntervalKWh[1]/d.EnergyKWh, math.Exp(core.High); math.Abs(got/want-1) > 1e-9 {
		t.Errorf("default example: upper end ×%.4g, want e^high = ×%.4g", got, want)
	}
	if got, want := d.EnergyIntervalKWh[0]/d.EnergyKWh, math.Exp(core.Low); math.Abs(got/want-1) > 1e-9 {
		t.Errorf("default example: lower end ×%.4g, want e^low = ×%.4g", got, want)
	}
	// Issue 35's goal for a compute-bound request inside the envelope: at
	// most ×1.7 each way, from held-out quantiles.
	if lo, hi := d.EnergyIntervalKWh[0]/d.EnergyKWh, d.EnergyIntervalKWh[1]/d.EnergyKWh; lo < 1/1.7 || hi > 1.7 {
		t.Errorf("default example: interval ×%.3g–×%.3g, want within ÷1.7–×1.7", lo, hi)
	}

	// A student reading cached log-probs faster than a harness could:
	// input-bound, warned, and the upper end reaches the slowest rate.
	kd := baseRequest()
	kd.Model = model.ModelSpec{Preset: "olmo-2-1b"}
	kd.Training = model.TrainingSpec{Tokens: 1e8, SeqLen: 1024, BatchPerGPU: 8, Precision: model.BF16, TeacherLogits: true}
	kd.Hardware = model.HardwareSpec{GPU: "h100-sxm5", Count: 1}
	kd.Strategy = model.Strategy{Name: model.Single}
	k := estimate(t, c, kd)
	if k.Calibration.Interval.Class != model.ClassInputBound {
		t.Fatalf("logit-KD student: class %q, want %q", k.Calibration.Interval.Class, model.ClassInputBound)
	}
	rate := k.Inputs.Tokens / k.TrainingTimeS
	if got, want := k.EnergyIntervalKWh[1]/k.EnergyKWh, rate/model.SlowestCachedLogitTokensPerS; got < want*(1-1e-9) {
		t.Errorf("logit-KD student at %.0f tokens/s: upper end ×%.3g, want at least ×%.3g", rate, got, want)
	}
	warned := false
	for _, w := range k.Warnings {
		warned = warned || (len(w) > 0 && containsAll(w, "cached teacher log-probs", "tokens/s per GPU"))
	}
	if !warned {
		t.Errorf("logit-KD student: no input-bound warning in %q", k.Warnings)
	}
	kd.Training.TeacherLogits = false
	if p := estimate(t, c, kd); p.Calibration.Interval.Class == model.ClassInputBound {
		t.Error("the same run without teacher_logits is input-bound")
	}

	// Outside the envelope the interval is never narrower than inside.
	far := baseRequest()
	far.Training.SeqLen = 1 << 17
	far.Training.BatchPerGPU = 1
	f := estimate(t, c, far)
	if f.Calibration.Interval.Class != model.ClassOutside {
		t.Fatalf("seq_len 131072: class %q, want outside", f.Calibration.Interval.Class)
	}
	if f.EnergyIntervalKWh[1]/f.EnergyKWh < math.Exp(core.High) || f.EnergyIntervalKWh[0]/f.EnergyKWh > math.Exp(core.Low) {
		t.Errorf("outside: ×%.3g–×%.3g, narrower than core's ×%.3g–×%.3g", f.EnergyIntervalKWh[0]/f.EnergyKWh, f.EnergyIntervalKWh[1]/f.EnergyKWh, math.Exp(core.Low), math.Exp(core.High))
	}
}

func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}

// TestOutsideFallsBackToCore: a class with too few runs takes the pooled
// quantiles, except the outside class, which takes the core class's (the
// core regime past its range, widened by the caller for the distance),
// not the pooled tail of input-bound and short-step misses; with enough
// runs of its own it keeps them, never narrower than core's.
func TestOutsideFallsBackToCore(t *testing.T) {
	core := model.ClassQuantiles{Class: model.ClassCore, Runs: 20, Sources: 6, Median: -0.05, Low: -0.5, High: 0.6}
	pooled := model.ClassQuantiles{Class: model.ClassPooled, Runs: 40, Sources: 12, Median: 0.03, Low: -0.4, High: 1.9}
	few := model.ClassQuantiles{Class: model.ClassOutside, Runs: model.MinClassRuns - 1, Sources: 3, Median: 0.1, Low: -0.1, High: 0.3}
	cal := &model.Calibration{Interval: model.Interval{Level: 0.9, Classes: []model.ClassQuantiles{few, core,
		{Class: model.ClassMemoryBound, Runs: 1, Sources: 1, Median: 1.1, Low: 1.1, High: 1.1}, pooled}}}
	ends := func(q model.ClassQuantiles) [2]float64 { return [2]float64{math.Exp(q.Low), math.Exp(q.High)} }
	got := func(class string) [2]float64 {
		lo, hi := cal.IntervalFactors(class, 0, 0, 1)
		return [2]float64{lo, hi}
	}
	near := func(a, b [2]float64) bool { return math.Abs(a[0]/b[0]-1) < 1e-12 && math.Abs(a[1]/b[1]-1) < 1e-12 }
	if g, w := got(model.ClassOutside), ends(core); !near(g, w) {
		t.Errorf("outside with %d runs: ×%.4g–×%.4g, want core's ×%.4g–×%.4g", few.Runs, g[0], g[1], w[0], w[1])
	}
	if g, w := got(model.ClassMemoryBound), ends(pooled); !near(g, w) {
		t.Errorf("memory-bound with 1 run: ×%.4g–×%.4g, want the pooled ×%.4g–×%.4g", g[0], g[1], w[0], w[1])
	}
	// Enough runs of its own: the union with core's.
	cal.Interval.Classes[0].Runs = model.MinClassRuns
	if g, w := got(model.ClassOutside), [2]float64{math.Exp(core.Low), math.Exp(core.High)}; !near(g, w) {
		t.Errorf("outside with %d narrower runs: ×%.4g–×%.4g, want core's ×%.4g–×%.4g", model.MinClassRuns, g[0], g[1], w[0], w[1])
	}
	cal.Interval.Classes[0].High = 0.9
	if g := got(model.ClassOutside); math.Abs(g[1]/math.Exp(0.9)-1) > 1e-12 || math.Abs(g[0]/math.Exp(core.Low)-1) > 1e-12 {
		t.Errorf("outside with a wider upper tail: ×%.4g–×%.4g, want ×%.4g–×%.4g", g[0], g[1], math.Exp(core.Low), math.Exp(0.9))
	}
	// Without a core class of enough runs, the pooled quantiles stay.
	cal.Interval.Classes[0].Runs, cal.Interval.Classes[1].Runs = 3, 3
	if g, w := got(model.ClassOutside), ends(pooled); !near(g, w) {
		t.Errorf("outside and core with 3 runs each: ×%.4g–×%.4g, want the pooled ×%.4g–×%.4g", g[0], g[1], w[0], w[1])
	}
}
