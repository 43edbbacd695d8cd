package fit

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/fit/stats"
	"github.com/wattscale/wattscale/model/validate"
)

// The table stage of the roofline calibration fits four constants on the
// validation table of published runs together with the
// roofline paper's published NVLink speedup points:
//
//   - tensor.u_compute: the achieved fraction of dense peak of tensor-core
//     precisions (fp16, bf16, fp8);
//   - tensor.activity: their power between idle and board power;
//   - comm.exposed: the share of data-parallel transfer time not hidden
//     behind the backward pass;
//   - comm.latency_s: the fixed cost of one collective.
//
// Tensor-parallel transfers are charged in full (ExposedTP = 1: the
// all-reduces of Megatron-style tensor parallelism block the next matmul),
// and the bandwidth term of tensor precisions keeps the fp32 fit's
// u_memory (tensor cores speed up matmuls, not memory traffic; fitting it
// too on the table gave an unphysical corner: u_compute at 1 and u_memory
// near 0.06). The fp32/tf32 constants, the PCIe speedup curves and α_η
// keep their own fits (Zeus trace, published scaling points).

// tableParam is one fitted constant of the table stage with its bounds.
type tableParam struct {
	name          string
	start, lo, hi float64
}

var tableParams = []tableParam{
	{"tensor.u_compute", 0.45, 0.05, 1},
	{"tensor.activity", 0.85, 0.3, 1},
	{"comm.exposed", 0.3, 0, 3},
	{"comm.latency_s", 2e-4, 0, 0.01},
}

// exposedTP is the share of tensor-parallel communication on the critical
// path: all of it.
const exposedTP = 1.0

// scalingWorkload is the workload assumed for the published NVLink FSDP
// points (Zoubeirou a Mayaki 2026, "GPT on A100 with FSDP"), whose model
// size and batch are not published: GPT-2 (124M) at the BERT sweep's
// per-process batch 32 and effective sequence length 66, in fp16.
var scalingWorkload = model.Request{
	Model:    model.ModelSpec{Preset: "gpt2", Head: "lm"},
	Training: model.TrainingSpec{Tokens: 1e8, SeqLen: 66, BatchPerGPU: 32, Precision: model.FP16},
	Site:     model.SiteSpec{PUE: 1, CarbonGPerKWh: model.DefaultCarbonGPerKWh, USDPerKWh: model.DefaultUSDPerKWh},
}

// ScalingWorkloadNote describes scalingWorkload for provenance.
const ScalingWorkloadNote = "the published NVLink FSDP points (GPT on A100) are fitted as GPT-2 (124M) at batch 32 × 66 tokens in fp16: the GPT workload's size and batch are not published, so the BERT sweep's batch and length are assumed"

// TableResult is the outcome of a table-stage fit.
type TableResult struct {
	// Calibration is base with the fitted constants, the tensor-precision
	// envelope of the runs that fed the fit and the interval SD.
	Calibration model.Calibration
	// Rows are the ids of the runs that fed the fit; Sources their sources.
	Rows    []string
	Sources []string
	// Residuals are ln(predicted/reported) of those runs at the fit.
	Residuals map[string]float64
	// Weights are the final weights of the runs (1/√(runs of the source)
	// times the Huber weight).
	Weights map[string]float64
	// Envelope is the calibration's envelope after the fit: the union of
	// base's and the fitted runs' ranges.
	Envelope model.Envelope
}

// withTable returns base with the table-stage constants theta applied.
func withTable(base model.Calibration, theta []float64) model.Calibration {
	c := base
	rp := *base.Roofline
	t := model.TensorParams{}
	if base.Roofline.Tensor != nil {
		t = *base.Roofline.Tensor
	}
	t.UCompute = model.Coefficient{Value: theta[0]}
	t.UMemory = base.Roofline.UMemory
	t.Activity = model.Coefficient{Value: theta[1]}
	rp.Tensor = &t
	c.Roofline = &rp
	c.Comm = &model.CommParams{
		Exposed:   model.Coefficient{Value: theta[2]},
		ExposedTP: model.Coefficient{Value: exposedTP},
		LatencyS:  model.Coefficient{Value: theta[3]},
		Classes:   []model.Interconnect{model.NVLink},
		Source:    "exposed share and latency fitted on the validation table of published training runs together with the published NVLink FSDP points; " + ScalingWorkloadNote + "; per-GPU link bandwidths from model.LinksFor",
	}
	return c
}

// observation is one residual of the table-stage fit: a run's reported
// energy or a published speedup, in ln units.
type observation struct {
	id     string
	source string
	target float64 // ln of the reported value
	base   float64 // source weight
	w      float64 // weight of the current pass
	pred   func(cat *model.Catalog) (float64, bool)
	run    *validate.Run
}

// FitTable fits the table stage of base on the eligible runs of the
// validation table (validate.Eligible, and wattscale can estimate them),
// leaving out every run whose source is in exclude, together with the
// published NVLink FSDP speedup points of scaling. Each run is weighted by
// 1/√(runs of its source), the published points likewise as one source;
// residuals are ln(predicted/reported), for runs in the run's own scope
// (validate.Compare with the package host factor). The fit is Huber-
// weighted iteratively reweighted least squares, so one run with a wrong
// token count cannot drag the constants.
func FitTable(cat *model.Catalog, base model.Calibration, runs []validate.Run, scaling []ScalingPoint, exclude ...string) (TableResult, error) {
	var res TableResult
	if base.Kind != model.KindRoofline || base.Roofline == nil {
		return res, fmt.Errorf("fit: the table stage needs a roofline calibration, got %q", base.Kind)
	}
	skip := map[string]bool{}
	for _, s := range exclude {
		skip[s] = true
	}
	n := len(tableParams)
	theta := make([]float64, n)
	lo := make([]float64, n)
	hi := make([]float64, n)
	for i, p := range tableParams {
		theta[i], lo[i], hi[i] = p.start, p.lo, p.hi
	}
	c0, err := cat.WithDefault(withTable(base, theta))
	if err != nil {
		return res, err
	}
	var obs []observation
	perSource := map[string]int{}
	for i := range runs {
		r := &runs[i]
		if !validate.Eligible(*r) || skip[r.Source] {
			continue
		}
		in := r.Inputs(cat.Presets, cat.Hardware)
		if p := validate.Predict(*r, in, c0, "", validate.HostFactor); !p.Available {
			continue
		}
		obs = append(obs, observation{id: r.ID, source: r.Source, target: math.Log(r.EnergyKWh), run: r,
			pred: func(c *model.Catalog) (float64, bool) {
				p := validate.Predict(*r, in, c, "", validate.HostFactor)
				return math.Log(p.KWh), p.Available
			}})
		perSource[r.Source]++
	}
	runCount := len(obs)
	if runCount < 2*n {
		return res, fmt.Errorf("fit: the table stage needs at least %d runs, got %d", 2*n, runCount)
	}
	for _, sp := range scaling {
		if sp.Interconnect != model.NVLink || sp.Strategy != model.FSDP {
			continue
		}
		req := scalingWorkload
		req.Hardware = model.HardwareSpec{GPU: sp.GPU, Count: sp.N}
		req.Strategy = model.Strategy{Name: model.FSDP}
		const src = "published NVLink scaling points"
		obs = append(obs, observation{id: fmt.Sprintf("%s fsdp N=%g", sp.GPU, sp.N), source: src, target: math.Log(sp.Speedup),
			pred: func(c *model.Catalog) (float64, bool) {
				resp, err := c.Estimate(req)
				if err != nil {
					return 0, false
				}
				return math.Log(resp.Parallel.Speedup), true
			}})
		perSource[src]++
	}
	xs := make([]float64, len(obs))
	ys := make([]float64, len(obs))
	for i := range obs {
		obs[i].base = 1 / math.Sqrt(float64(perSource[obs[i].source]))
		obs[i].w = obs[i].base
		xs[i] = float64(i)
	}
	// One catalog per trial θ: NLS evaluates every observation at the same θ in turn.
	var lastTheta []float64
	var lastCat *model.Catalog
	catFor := func(th []float64) *model.Catalog {
		if lastCat == nil || !equal(th, lastTheta) {
			c, err := cat.WithDefault(withTable(base, th))
			if err != nil {
				return nil
			}
			lastCat, lastTheta = c, append(lastTheta[:0], th...)
		}
		return lastCat
	}
	f := func(x float64, th []float64) float64 {
		c := catFor(th)
		if c == nil {
			return math.NaN()
		}
		o := obs[int(x)]
		v, ok := o.pred(c)
		if !ok {
			return math.NaN()
		}
		return o.w * v
	}
	var nls *stats.NLSResult
	for iter := 0; iter < 4; iter++ {
		for i := range obs {
			ys[i] = obs[i].w * obs[i].target
		}
		nls, err = stats.NLS(f, xs, ys, theta, lo, hi)
		if err != nil {
			return res, fmt.Errorf("fit: table stage: %w", err)
		}
		copy(theta, nls.Theta)
		resid := make([]float64, len(obs))
		abs := make([]float64, len(obs))
		for i := range obs {
			resid[i] = f(xs[i], theta)/obs[i].w - obs[i].target
			abs[i] = math.Abs(resid[i])
		}
		sort.Float64s(abs)
		scale := 1.4826 * stats.Median(abs)
		if scale == 0 {
			break
		}
		for i := range obs {
			obs[i].w = obs[i].base * math.Min(1, 1.345*scale/math.Max(abs[0], math.Abs(resid[i])))
		}
	}

	c := withTable(base, theta)
	coef := func(i int) model.Coefficient {
		k := model.Coefficient{Value: theta[i]}
		if se := nls.SE[i]; !math.IsNaN(se) && !math.IsInf(se, 0) && se > 0 {
			k.SE = se
			k.CILow, k.CIHigh = math.Max(tableParams[i].lo, k.Value-1.96*se), math.Min(tableParams[i].hi, k.Value+1.96*se)
		}
		return k
	}
	c.Roofline.Tensor.UCompute, c.Roofline.Tensor.Activity = coef(0), coef(1)
	c.Comm.Exposed, c.Comm.LatencyS = coef(2), coef(3)

	final := catFor(theta)
	res.Residuals, res.Weights = map[string]float64{}, map[string]float64{}
	srcs := map[string]bool{}
	env := model.Envelope{WidenPerEFold: base.Envelope.WidenPerEFold, WidenHardware: base.Envelope.WidenHardware}
	hw := map[string]bool{}
	first := true
	grow := func(r *[2]float64, x float64) {
		if first || x < r[0] {
			r[0] = x
		}
		if first || x > r[1] {
			r[1] = x
		}
	}
	for _, o := range obs[:runCount] {
		v, _ := o.pred(final)
		r := v - o.target
		res.Rows = append(res.Rows, o.id)
		res.Residuals[o.id], res.Weights[o.id] = r, o.w
		srcs[o.source] = true
		in := o.run.Inputs(cat.Presets, cat.Hardware)
		req := in.Request
		grow(&env.Layers, req.Model.Layers)
		grow(&env.Hidden, req.Model.Hidden)
		grow(&env.SeqLen, req.Training.SeqLen)
		grow(&env.Batch, req.Training.BatchPerGPU)
		grow(&env.GPUs, req.Hardware.Count)
		grow(&env.Params, in.Arch.Params())
		first = false
		hw[req.Hardware.GPU] = true
	}
	for h := range hw {
		env.Hardware = append(env.Hardware, h)
	}
	sort.Strings(env.Hardware)
	for s := range srcs {
		res.Sources = append(res.Sources, s)
	}
	sort.Strings(res.Sources)
	c.Roofline.Tensor.Rows = res.Rows
	// One envelope: the runs of the table stage together with the rows the
	// base constants were fitted on. The interval classes come from
	// held-out residuals (AddTable, ScoreHoldout), not from this fit.
	baseEnv := base.Envelope
	if b := base.Roofline.Tensor; b != nil && b.BaseEnvelope != nil {
		baseEnv = *b.BaseEnvelope
	}
	c.Roofline.Tensor.BaseEnvelope = &baseEnv
	c.Envelope = unionEnvelope(baseEnv, env)
	c.Interval.Classes, c.Interval.ClassMethod = nil, ""
	res.Envelope = c.Envelope
	res.Calibration = c
	return res, c.Validate()
}

// unionEnvelope is the smallest envelope holding a and b (ranges and
// hardware); the widening constants are a's.
func unionEnvelope(a, b model.Envelope) model.Envelope {
	u := a
	join := func(x *[2]float64, y [2]float64) {
		if y == ([2]float64{}) {
			return
		}
		if *x == ([2]float64{}) {
			*x = y
			return
		}
		x[0], x[1] = math.Min(x[0], y[0]), math.Max(x[1], y[1])
	}
	join(&u.Layers, b.Layers)
	join(&u.Hidden, b.Hidden)
	join(&u.SeqLen, b.SeqLen)
	join(&u.Batch, b.Batch)
	join(&u.GPUs, b.GPUs)
	join(&u.Params, b.Params)
	seen := map[string]bool{}
	u.Hardware = nil
	for _, h := range append(append([]string{}, a.Hardware...), b.Hardware...) {
		if !seen[h] {
			seen[h] = true
			u.Hardware = append(u.Hardware, h)
		}
	}
	sort.Strings(u.Hardware)
	return u
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TableCatalog returns a copy of cat whose default calibration's table
// stage was refitted without the runs of source heldOut: the catalog that
// predicts heldOut's runs in a leave-one-source-out score. Its
// tensor-precision envelope and interval come from that fit alone.
func TableCatalog(cat *model.Catalog, base model.Calibration, runs []validate.Run, scaling []ScalingPoint, heldOut string) (*model.Catalog, error) {
	res, err := FitTable(cat, base, runs, scaling, heldOut)
	if err != nil {
		return nil, err
	}
	return cat.WithDefault(res.Calibration)
}

// AddTable fits the table stage onto base (a roofline calibration fitted
// by the pipeline), scores it leave-one-source-out, and records in the
// calibration which runs fed it and how it did on held-out sources.
func AddTable(base model.Calibration, hw *model.Hardware, presets []model.Preset, runs []validate.Run, scaling []ScalingPoint) (model.Calibration, error) {
	cat, err := model.NewCatalog(hw, presets, []model.Calibration{base}, base.Name)
	if err != nil {
		return base, err
	}
	res, err := FitTable(cat, base, runs, scaling)
	if err != nil {
		return base, err
	}
	c := res.Calibration
	// Held-out score: each source predicted by a fit without it.
	rep, err := ScoreHoldout(cat, base, runs, scaling)
	if err != nil {
		return base, err
	}
	if err := setClasses(&c, HeldOutResiduals(rep), "the held-out residuals of the validation runs"); err != nil {
		return base, err
	}
	h := rep.Headline.Summaries[validate.Wattscale]
	cov := 0.0
	if h.Coverage != nil {
		cov = *h.Coverage
	}
	c.Description += " Tensor-core precisions use constants fitted on the validation table; beyond the PCIe class, η comes from a communication-aware model."
	c.Citation += "; tensor-precision constants and the communication model from wattscale's validation table of published training runs (each cited on the validation page)"
	c.Provenance.Data += "; the validation table of published training runs (the runs listed in roofline.tensor.rows)"
	c.Provenance.Method += fmt.Sprintf("; table stage: Huber-weighted NLS of ln(predicted/reported) on %d runs from %d sources (weight 1/√(runs of the source)) with the published NVLink FSDP points, fitting tensor u_compute, tensor activity, the exposed data-parallel share and the per-collective latency", len(res.Rows), len(res.Sources))
	if c.Fit == nil {
		c.Fit = &model.FitSummary{}
	}
	c.Fit.Coefficients = append(c.Fit.Coefficients,
		model.NamedCoef{Name: "tensor u_compute", Coefficient: c.Roofline.Tensor.UCompute},
		model.NamedCoef{Name: "tensor activity", Coefficient: c.Roofline.Tensor.Activity},
		model.NamedCoef{Name: "comm exposed", Coefficient: c.Comm.Exposed},
		model.NamedCoef{Name: "comm latency_s", Coefficient: c.Comm.LatencyS})
	c.Fit.Notes = append(c.Fit.Notes,
		fmt.Sprintf("table stage: %d runs from %d sources: %s", len(res.Rows), len(res.Sources), names(res.Sources)),
		fmt.Sprintf("table stage, leave-one-source-out over %d headline runs: median fold error %.3f, share within ×2 %.3f, %.0f%% interval coverage %.3f", h.N, h.MedianFold, h.Within2, 100*c.Interval.Level, cov),
		ScalingWorkloadNote)
	sanitize(c.Fit)
	return c, c.Validate()
}

// ScoreHoldout scores the runs leave-one-source-out: each source's runs are
// predicted by cat with its default calibration's table stage refitted on
// base without that source (TableCatalog).
func ScoreHoldout(cat *model.Catalog, base model.Calibration, runs []validate.Run, scaling []ScalingPoint) (validate.Report, error) {
	// The per-source refits are independent: run them concurrently (one
	// goroutine per source; each fit is pure computation on shared,
	// read-only inputs), then score with the finished catalogs.
	var sources []string
	seen := map[string]bool{}
	for _, r := range runs {
		if !seen[r.Source] {
			seen[r.Source] = true
			sources = append(sources, r.Source)
		}
	}
	cats := make([]*model.Catalog, len(sources))
	errs := make([]error, len(sources))
	var wg sync.WaitGroup
	for i, src := range sources {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cats[i], errs[i] = TableCatalog(cat, base, runs, scaling, src)
		}()
	}
	wg.Wait()
	fitted := map[string]*model.Catalog{}
	for i, src := range sources {
		if errs[i] != nil {
			return validate.Report{}, errs[i]
		}
		fitted[src] = cats[i]
	}
	opt := validate.Options{Label: "leave-one-source-out", CatalogFor: func(source string) (*model.Catalog, error) {
		return fitted[source], nil
	}}
	first, err := validate.Score(runs, opt)
	if err != nil {
		return first, err
	}
	// The interval classes of each source's catalog come from the held-out
	// residuals of the other sources' runs, so a source's coverage is
	// scored with quantiles that never saw it.
	res := HeldOutResiduals(first)
	for _, src := range sources {
		var others []model.Residual
		for _, r := range res {
			if r.Source != src {
				others = append(others, r)
			}
		}
		if fitted[src], err = withClasses(fitted[src], others, fmt.Sprintf("held-out residuals of the validation runs of every source but %s", src)); err != nil {
			return first, err
		}
	}
	return validate.Score(runs, opt)
}

// HeldOutResiduals are the interval-class residuals ln(reported/predicted)
// of a held-out report's headline runs.
func HeldOutResiduals(rep validate.Report) []model.Residual {
	var out []model.Residual
	for _, r := range rep.Rows {
		p := r.Predict[validate.Wattscale]
		if !r.Headline || !p.Available || p.Class == "" {
			continue
		}
		out = append(out, model.Residual{Class: p.Class, Source: r.Source, LnErr: -math.Log(p.Ratio)})
	}
	return out
}

// withClasses returns cat with its default calibration's interval classes
// computed from res at the calibration's level.
func withClasses(cat *model.Catalog, res []model.Residual, from string) (*model.Catalog, error) {
	c, err := cat.Calibration("")
	if err != nil {
		return nil, err
	}
	cal := *c
	if err := setClasses(&cal, res, from); err != nil {
		return nil, err
	}
	return cat.WithDefault(cal)
}

// setClasses sets cal's interval classes from the held-out residuals res
// (from says whose they are).
func setClasses(cal *model.Calibration, res []model.Residual, from string) error {
	q, err := model.QuantilesByClass(res, cal.Interval.Level)
	if err != nil {
		return err
	}
	cal.Interval.Classes = q
	cal.Interval.ClassMethod = fmt.Sprintf("empirical %.3g and %.3g quantiles (type 7) of ln(reported/predicted) per interval class over %s, each run predicted by a calibration fitted without its source; a class with fewer than %d runs uses the quantiles of all runs together, except the outside class, which then uses the core class's",
		(1-cal.Interval.Level)/2, (1+cal.Interval.Level)/2, from, model.MinClassRuns)
	return nil
}

// tableFromCSV adds the table stage on the runs in runsCSV; none leaves c as it is.
func tableFromCSV(c model.Calibration, in Inputs, runsCSV []byte) (model.Calibration, error) {
	if len(runsCSV) == 0 {
		return c, nil
	}
	runs, err := validate.ReadRuns(bytes.NewReader(runsCSV))
	if err != nil {
		return c, err
	}
	return AddTable(c, in.Hardware, in.Presets, runs, in.Scaling)
}
