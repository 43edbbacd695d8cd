package model

import (
	"fmt"
	"math"
	"sort"
)

// Interval classes. An estimate's interval is set by the class of its
// request: the regime the estimate detects, which says how well the model
// knows that kind of run. Each class's interval is the empirical spread of
// held-out residuals of the validation runs in that class (Interval.Classes),
// not one standard deviation for every request. The classes are tried in
// the order of IntervalClasses; the first that holds is the request's.
const (
	// ClassInputBound: a student reading cached teacher log-probs faster
	// than a published harness could move them (CachedLogitTokensPerS).
	ClassInputBound = "input_bound"
	// ClassShortStep: one GPU whose modelled GPU work per step is under
	// ShortStepS, where host work the model leaves out can dominate.
	ClassShortStep = "short_step"
	// ClassOutside: outside the calibration's envelope (a dimension beyond
	// the fitted range, or an accelerator the calibration was not fitted on).
	ClassOutside = "outside"
	// ClassMemoryBound: the roofline says memory traffic, not arithmetic,
	// sets the time.
	ClassMemoryBound = "memory_bound"
	// ClassCore: compute-bound, inside the envelope.
	ClassCore = "core"
	// ClassPooled is not a regime: it names the quantiles of every run
	// together, which a class with fewer than MinClassRuns runs uses.
	ClassPooled = "pooled"
)

// IntervalClasses lists the classes in the order they are tried.
var IntervalClasses = []string{ClassInputBound, ClassShortStep, ClassOutside, ClassMemoryBound, ClassCore}

// IntervalClassText says in words what each interval class (and the
// pooled quantiles) stands for; pages and notes take it from here.
var IntervalClassText = map[string]string{
	ClassCore:        "compute-bound, inside the calibration's envelope",
	ClassOutside:     "outside the envelope: a dimension beyond the fitted range, or hardware the calibration was not fitted on; never narrower than inside",
	ClassMemoryBound: "memory-bound by the roofline",
	ClassShortStep:   "one GPU with under 0.1 s of modelled GPU work per step, where host work the model leaves out can dominate",
	ClassInputBound:  "a student reading cached teacher log-probs faster than a published harness moved them; the upper end is the whole run at the slowest published rate",
	ClassPooled:      "every validation run together, for a class with too few runs of its own",
}

// MinClassRuns is the fewest held-out runs a class needs for its own
// quantiles; a class with fewer uses the pooled quantiles of all runs (a
// 5 % tail from fewer runs than this is a guess).
const MinClassRuns = 8

// ClassQuantiles is one class's held-out residual spread: the lower and
// upper quantiles, at the interval's level, of ln(measured/predicted) over
// the validation runs of the class, each predicted by a calibration fitted
// without the run's source.
type ClassQuantiles struct {
	Class   string  `json:"class"`
	Runs    int     `json:"runs"`
	Sources int     `json:"sources"`
	Median  float64 `json:"median_ln"` // median ln(measured/predicted)
	Low     float64 `json:"low_ln"`    // quantile (1−level)/2
	High    float64 `json:"high_ln"`   // quantile (1+level)/2
}

// Factors returns the interval's ends as multiples of the estimate, after
// widening each side's distance from the class median by extra (an SD in
// ln units, in quadrature, z-scaled) for what the class does not hold:
// distance beyond the envelope, an estimated power-limit floor.
func (q ClassQuantiles) Factors(z, extra float64) (lo, hi float64) {
	dl, dh := q.Median-q.Low, q.High-q.Median
	w := z * extra
	dl, dh = math.Hypot(dl, w), math.Hypot(dh, w)
	return math.Exp(q.Median - dl), math.Exp(q.Median + dh)
}

// classQuantiles returns the quantiles that set the interval of a request
// of class class under cal: the class's own when it has at least
// MinClassRuns runs, else the pooled quantiles of all runs. Outside the
// envelope, the interval is never narrower than inside it (ClassCore's),
// and with too few runs of its own it is ClassCore's: an estimate outside
// the envelope is the core regime carried past its fitted range, which the
// caller widens by the distance (Envelope.WidenPerEFold,
// Envelope.WidenHardware). The pooled quantiles hold the input-bound and
// short-step runs, whose misses (×4–13) are regimes of their own, not
// extrapolation. An input-bound request takes ClassCore's quantiles here;
// its upper end is set by inputBoundFactor. ok is false when cal carries
// no class quantiles.
func (c *Calibration) classQuantiles(class string) (q ClassQuantiles, ok bool) {
	find := func(name string) (ClassQuantiles, bool) {
		var pooled *ClassQuantiles
		for i := range c.Interval.Classes {
			k := &c.Interval.Classes[i]
			switch {
			case k.Class == name && k.Runs >= MinClassRuns:
				return *k, true
			case k.Class == ClassPooled:
				pooled = k
			}
		}
		if pooled != nil {
			return *pooled, true
		}
		return ClassQuantiles{}, false
	}
	if class == ClassInputBound {
		class = ClassCore
	}
	q, ok = find(class)
	if ok && class == ClassOutside {
		core, _ := find(ClassCore)
		if q.Class == ClassPooled && core.Class == ClassCore {
			return core, true
		}
		if core.Runs > 0 && (core.Low < q.Low || core.High > q.High) {
			q.Class = ClassOutside + "+" + ClassCore
			q.Low, q.High = math.Min(q.Low, core.Low), math.Max(q.High, core.High)
			q.Median = math.Max(q.Low, math.Min(q.High, q.Median))
		}
	}
	return q, ok
}

// classOf is the interval class of an estimate: input whether the
// input-bound regime holds, short whether the short-step regime holds, outside whether any envelope dimension is
// exceeded, memory whether the roofline is memory-bound.
func classOf(input, short, outside, memory bool) string {
	switch {
	case input:
		return ClassInputBound
	case short:
		return ClassShortStep
	case outside:
		return ClassOutside
	case memory:
		return ClassMemoryBound
	}
	return ClassCore
}

// Residual is one held-out residual for QuantilesByClass.
type Residual struct {
	Class  string
	Source string
	LnErr  float64 // ln(measured/predicted)
}

// QuantilesByClass computes each class's quantiles at level from held-out
// residuals, plus the pooled quantiles of all of them (ClassPooled).
// Quantiles interpolate linearly between order statistics (Hyndman and
// Fan's type 7, as R's default). Classes are returned in IntervalClasses
// order, those without residuals left out.
func QuantilesByClass(res []Residual, level float64) ([]ClassQuantiles, error) {
	// Not coded: the callers' levels and residuals are the program's.
	if !(level > 0 && level < 1) {
		return nil, fmt.Errorf("interval: level must be in (0, 1), got %g", level)
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("interval: no residuals")
	}
	one := func(class string, keep func(Residual) bool) (ClassQuantiles, bool) {
		var xs []float64
		src := map[string]bool{}
		for _, r := range res {
			if !keep(r) {
				continue
			}
			if math.IsNaN(r.LnErr) || math.IsInf(r.LnErr, 0) {
				continue
			}
			xs = append(xs, r.LnErr)
			src[r.Source] = true
		}
		if len(xs) == 0 {
			return ClassQuantiles{}, false
		}
		sort.Float64s(xs)
		return ClassQuantiles{Class: class, Runs: len(xs), Sources: len(src),
			Median: Quantile(xs, 0.5), Low: Quantile(xs, (1-level)/2), High: Quantile(xs, (1+level)/2)}, true
	}
	var out []ClassQuantiles
	for _, cl := range IntervalClasses {
		if q, ok := one(cl, func(r Residual) bool { return r.Class == cl }); ok {
			out = append(out, q)
		}
	}
	q, ok := one(ClassPooled, func(Residual) bool { return true })
	if !ok {
		return nil, fmt.Errorf("interval: no finite residuals")
	}
	return append(out, q), nil
}

// Quantile is the q-quantile of sorted xs by linear interpolation between
// order statistics (type 7, the default of R and NumPy); NaN for no xs.
func Quantile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	h := q * float64(n-1)
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= n {
		return sorted[n-1]
	}
	if h == lo {
		return sorted[i]
	}
	return sorted[i] + (h-lo)*(sorted[i+1]-sorted[i])
}

// IntervalFactors returns the interval's ends, as multiples of an estimate
// of class class made outside Catalog.Estimate (a distillation inference
// stage), under c without envelope widening: the class's held-out
// quantiles where c carries them, else its σ. For ClassInputBound, tokens
// over timeS seconds on gpus GPUs set the upper end (the run stretched to
// SlowestCachedLogitTokensPerS).
func (c *Calibration) IntervalFactors(class string, tokens, timeS float64, gpus int) (lo, hi float64) {
	z := intervalQuantile(c.Interval.Level)
	if q, ok := c.classQuantiles(class); ok {
		lo, hi = q.Factors(z, 0)
	} else {
		lo, hi = math.Exp(-z*c.Interval.SigmaLn), math.Exp(z*c.Interval.SigmaLn)
	}
	if class == ClassInputBound {
		hi = math.Max(hi, inputBoundFactor(tokens, timeS, gpus))
	}
	return lo, hi
}
