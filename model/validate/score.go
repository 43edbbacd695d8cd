package validate

import (
	"fmt"
	"math"
	"sort"

	"github.com/wattscale/wattscale/model"
)

// Estimator names, in report order.
const (
	Wattscale = "wattscale"
	// GPUHours is the ML CO2 Impact / Green Algorithms estimator:
	// accelerators × reported wall time × board power. It needs the run's
	// time, which nobody has before the run, so it is flattered here.
	GPUHours = "gpu-hours"
	// SixND is the Transformer-Math estimator:
	// 6·N·D / (peak × BaselineMFU) × board power.
	SixND = "6nd"
)

// Estimators lists the estimator names in report order.
var Estimators = []string{Wattscale, GPUHours, SixND}

// AsFull is wattscale's estimate of a LoRA or QLoRA run as if it were full
// fine-tuning of the same configuration: what wattscale answered before it
// modelled parameter-efficient methods. Only parameter-efficient runs get
// it; Report.PEFT compares it with the other estimators.
const AsFull = "wattscale-as-full"

// BaselineMFU is the model-FLOPs utilisation of the 6·N·D baseline:
// "achieved model-FLOPs utilisation for large-scale training is usually
// 0.3–0.5 of peak" (EleutherAI, Transformer Math 101, rules of thumb);
// 0.4 is the middle of that range.
const BaselineMFU = 0.4

// HostFactor is the ratio of a whole server's energy to its accelerators'
// energy, used to compare an accelerator estimate with a figure that
// includes the host (energy_scope node, or facility figures built from
// measured system power). 1.3 sits inside the published evidence: an 8-GPU
// H100 HGX server peaked at 8.4 kW while training with its GPUs near full
// load (Latif et al. 2024, arXiv 2412.08602), i.e. at most 1.5 × the
// 5.6 kW of its GPUs at board power; Patterson et al. 2021 (Table 4)
// measured 330 W of system power per 300 W V100 and 310 W per TPU v3 chip
// including host, memory, network and fans. It is not applied to
// accelerators whose catalog power is already that system power per chip
// (model.SystemPower: the TPUs), which would count the host twice.
const HostFactor = 1.3

// Options configures Score. The zero value is not usable: set Catalog or
// CatalogFor.
type Options struct {
	// Catalog predicts every run when CatalogFor is nil.
	Catalog *model.Catalog
	// CatalogFor, when set, returns the catalog that predicts the runs of
	// one source: for hold-out scores, a catalog whose default calibration
	// was fitted without that source's rows.
	CatalogFor func(source string) (*model.Catalog, error)
	// Calibration names the calibration to estimate with ("" = default).
	Calibration string
	// HostFactor overrides the package constant when positive.
	HostFactor float64
	// Label describes the scoring (for example "leave-one-source-out").
	Label string
}

// Prediction is one estimator's prediction for one run, in the run's own
// scope (see Compare).
type Prediction struct {
	Available bool    `json:"available"`
	Reason    string  `json:"reason,omitempty"`     // why not available
	KWh       float64 `json:"kwh,omitempty"`        // comparable with the reported energy
	Ratio     float64 `json:"ratio,omitempty"`      // KWh / reported
	Fold      float64 `json:"fold_error,omitempty"` // max(ratio, 1/ratio)
	// AcceleratorKWh and GPUHours are the estimator's own outputs before the
	// scope conversion.
	AcceleratorKWh float64 `json:"accelerator_kwh,omitempty"`
	GPUHours       float64 `json:"gpu_hours,omitempty"`
	// Interval is wattscale's interval in the same scope; Covered says
	// whether the reported energy lies inside it.
	Interval *[2]float64 `json:"interval_kwh,omitempty"`
	Covered  *bool       `json:"covered,omitempty"`
	// Class is the estimate's interval class and ClassFrom the class whose
	// quantiles set the interval (model.IntervalUsed); wattscale only.
	Class     string `json:"interval_class,omitempty"`
	ClassFrom string `json:"interval_from,omitempty"`
}

// RowResult is the scoring of one run.
type RowResult struct {
	ID         string `json:"id"`
	Phase      string `json:"phase"`
	Method     string `json:"method"`
	Stack      string `json:"stack"`
	Model      string `json:"model"`
	GPU        string `json:"gpu"`
	Count      int    `json:"count,omitempty"` // 0 = not reported
	Scale      string `json:"scale"`
	Source     string `json:"source"`
	SourceKind string `json:"source_kind"`
	Scope      string `json:"energy_scope"`
	Stage      string `json:"stage"`
	// DuplicateOf is the run this row measures again, if any.
	DuplicateOf string  `json:"duplicate_of,omitempty"`
	Reported    float64 `json:"reported_kwh"`
	// Compared says what the predictions were compared as: "energy" or
	// "accelerator-hours × stated power" (tdp_estimate rows).
	Compared string `json:"compared"`
	// Headline is true when the run counts in the headline summaries;
	// Excluded says why not.
	Headline bool                  `json:"headline"`
	Excluded string                `json:"excluded,omitempty"`
	Inputs   Inputs                `json:"inputs"`
	Predict  map[string]Prediction `json:"predictions"`
}

// Summary is the error distribution of one estimator over a set of runs.
// N counts the runs the estimator answered; Runs counts them all. The
// fold statistics are over the answered runs; the *AllRuns fields count an
// unanswered run as a miss (an estimator that needs the run's time cannot
// answer before the run).
type Summary struct {
	Runs       int     `json:"runs"`
	N          int     `json:"n"`
	MedianFold float64 `json:"median_fold_error"`
	P90Fold    float64 `json:"p90_fold_error"`
	Within15   float64 `json:"share_within_1_5"`
	Within2    float64 `json:"share_within_2"`
	// GeoMeanRatio is exp(mean ln(predicted/reported)): above 1 the
	// estimator overestimates on average.
	GeoMeanRatio float64 `json:"geo_mean_ratio"`
	// Coverage is the share of runs inside the interval (wattscale only).
	Coverage *float64 `json:"interval_coverage,omitempty"`
	// MedianWidth is the median ratio of the interval's ends, high ÷ low
	// (wattscale only).
	MedianWidth *float64 `json:"median_interval_width,omitempty"`
	// Within2AllRuns is the share of all Runs predicted within ×2.
	Within2AllRuns float64 `json:"share_within_2_all_runs"`
	// MedianFoldAllRuns is the median fold error with unanswered runs as
	// infinitely wrong; nil when more than half are unanswered.
	MedianFoldAllRuns *float64 `json:"median_fold_error_all_runs,omitempty"`
}

// Group is the summaries of every estimator over one subset of runs.
type Group struct {
	By        string             `json:"by"`  // "all", "source_kind", "phase", "scale", ...
	Key       string             `json:"key"` // the subset's value
	Rows      int                `json:"rows"`
	Summaries map[string]Summary `json:"summaries"`
}

// Report is the result of Score.
type Report struct {
	Label          string      `json:"label"`
	Calibration    string      `json:"calibration"`
	HostFactor     float64     `json:"host_factor"`
	BaselineMFU    float64     `json:"baseline_mfu"`
	IntervalLevel  float64     `json:"interval_level"`
	Rows           []RowResult `json:"rows"`
	Headline       Group       `json:"headline"`
	Groups         []Group     `json:"groups"`
	Paired         Group       `json:"paired_with_gpu_hours"`
	AllIndependent Group       `json:"all_independent_rows"`
	// PEFT summarises the headline LoRA and QLoRA runs with every
	// estimator and AsFull.
	PEFT Group `json:"peft"`
}

// Scale buckets of the accelerator count.
const (
	Scale1       = "1 GPU"
	Scale2to8    = "2–8 GPUs"
	Scale9to512  = "9–512 GPUs"
	ScaleOver512 = ">512 GPUs"
	ScaleUnknown = "count not reported"
)

// ScaleOf buckets an accelerator count (0 = not reported).
func ScaleOf(n int) string {
	switch {
	case n == 0:
		return ScaleUnknown
	case n == 1:
		return Scale1
	case n <= 8:
		return Scale2to8
	case n <= 512:
		return Scale9to512
	}
	return ScaleOver512
}

// Compare converts an estimator's outputs into the quantity the run
// reports. For tdp_estimate runs, whose figure is accelerator-hours × a
// stated power (× PUE), the estimator's accelerator-hours are multiplied by
// the same power and PUE: the row measures time, not energy. Otherwise the
// accelerator energy is multiplied by the host factor when the figure
// includes the host (host "yes"; CPU-package energy alone, host "cpu", is
// within a few per cent and not added) and by the figure's PUE.
func Compare(r Run, acceleratorKWh, gpuHours, hostFactor float64) float64 {
	if r.SourceKind == TDPEstimate {
		return gpuHours * r.PowerW / 1000 * r.PUE
	}
	e := acceleratorKWh * r.PUE
	if r.Host == "yes" {
		e *= hostFactor
	}
	return e
}

// CompareHost is Compare for an estimate whose GPUs draw busyW each while
// they compute: the host's share, hostFactor − 1, is of the GPUs' power at
// load (HostFactor's sources measured servers with their GPUs near full
// load), drawn over the whole wall time (gpuHours) whether the GPUs compute
// or wait, so a run whose GPUs wait longer costs its host more: host
// power per node over the wall time, not a share of the GPUs' energy.
func CompareHost(r Run, acceleratorKWh, gpuHours, busyW, hostFactor float64) float64 {
	if r.SourceKind == TDPEstimate || r.Host != "yes" {
		return Compare(r, acceleratorKWh, gpuHours, hostFactor)
	}
	return (acceleratorKWh + (hostFactor-1)*gpuHours*busyW/1000) * r.PUE
}

// Score predicts every run with wattscale and the two baselines and
// summarises the errors. A run counts in the headline when it is a
// training run, not a duplicate measurement of another row, and wattscale
// can estimate it; the baselines are summarised over the same runs.
func Score(runs []Run, opt Options) (Report, error) {
	hf := opt.HostFactor
	if hf <= 0 {
		hf = HostFactor
	}
	rep := Report{Label: opt.Label, Calibration: opt.Calibration, HostFactor: hf, BaselineMFU: BaselineMFU}
	if rep.Label == "" {
		rep.Label = "in-sample"
	}
	catFor := opt.CatalogFor
	if catFor == nil {
		if opt.Catalog == nil {
			return rep, fmt.Errorf("validate: no catalog")
		}
		catFor = func(string) (*model.Catalog, error) { return opt.Catalog, nil }
	}
	for _, r := range runs {
		cat, err := catFor(r.Source)
		if err != nil {
			return rep, fmt.Errorf("validate: catalog for source %q: %w", r.Source, err)
		}
		if rep.Calibration == "" {
			rep.Calibration = cat.Default
		}
		if cal, err := cat.Calibration(opt.Calibration); err == nil {
			rep.IntervalLevel = cal.Interval.Level
		}
		rep.Rows = append(rep.Rows, scoreRun(r, cat, opt.Calibration, hf))
	}
	rep.Headline = summarise("headline", "scored runs", rep.Rows, func(x *RowResult) bool { return x.Headline })
	type by struct {
		name string
		key  func(*RowResult) string
	}
	for _, b := range []by{
		{"source_kind", func(x *RowResult) string { return x.SourceKind }},
		{"phase", func(x *RowResult) string { return x.Phase }},
		{"method", func(x *RowResult) string { return x.Method }},
		{"stack", func(x *RowResult) string { return x.Stack }},
		{"scale", func(x *RowResult) string { return x.Scale }},
		{"gpu", func(x *RowResult) string { return x.GPU }},
		{"interval_class", func(x *RowResult) string { return x.Predict[Wattscale].Class }},
	} {
		keys := map[string]bool{}
		for i := range rep.Rows {
			if rep.Rows[i].Headline {
				keys[b.key(&rep.Rows[i])] = true
			}
		}
		var ks []string
		for k := range keys {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			rep.Groups = append(rep.Groups, summarise(b.name, k, rep.Rows, func(x *RowResult) bool { return x.Headline && b.key(x) == k }))
		}
	}
	rep.Paired = summarise("paired", "headline runs with a reported time", rep.Rows, func(x *RowResult) bool {
		return x.Headline && x.Predict[GPUHours].Available
	})
	rep.AllIndependent = summarise("all", "training runs, excluded ones too", rep.Rows, func(x *RowResult) bool {
		return x.Stage == "train" && x.DuplicateOf == ""
	})
	rep.PEFT = summariseWith("peft", "LoRA and QLoRA runs", rep.Rows, func(x *RowResult) bool {
		return x.Headline && x.Method != model.MethodFull
	}, append(append([]string{}, Estimators...), AsFull))
	return rep, nil
}

func scoreRun(r Run, cat *model.Catalog, calName string, hf float64) RowResult {
	res := RowResult{ID: r.ID, Phase: r.Phase, Method: r.Method, Stack: r.Stack, Model: r.Model, GPU: r.GPU, Count: r.Count, Scale: ScaleOf(r.Count), Source: r.Source,
		SourceKind: r.SourceKind, Scope: r.Scope, Stage: r.Stage, DuplicateOf: r.DuplicateOf, Reported: r.EnergyKWh, Compared: "energy", Predict: map[string]Prediction{}}
	if r.SourceKind == TDPEstimate {
		res.Compared = "accelerator-hours × stated power"
	}
	in := r.Inputs(cat.Presets, cat.Hardware)
	res.Inputs = in
	g, gerr := cat.Hardware.Lookup(r.GPU)
	if gerr == nil && g.PowerScope == model.SystemPower {
		// The catalog's power for this accelerator is already system
		// power per chip (host included): no host factor on top.
		hf = 1
	}

	res.Predict[Wattscale] = Predict(r, in, cat, calName, hf)
	if r.Method != model.MethodFull && in.Skip == "" {
		res.Predict[AsFull] = predictAsFull(r, in, cat, calName, hf)
	}

	// GPU-hours × board power, from the reported time and count.
	a := Prediction{}
	switch {
	case gerr != nil:
		a.Reason = "unknown accelerator"
	case r.TimeS == 0:
		a.Reason = "no reported time"
	case r.Count == 0:
		a.Reason = "no reported GPU count"
	default:
		a.Available = true
		a.GPUHours = float64(r.Count) * r.TimeS / 3600
		a.AcceleratorKWh = a.GPUHours * g.BoardPowerW / 1000
		a.KWh = Compare(r, a.AcceleratorKWh, a.GPUHours, hf)
	}
	res.Predict[GPUHours] = finish(a, r.EnergyKWh)

	// 6·N·D / (peak × MFU) × board power.
	b := Prediction{}
	switch {
	case gerr != nil:
		b.Reason = "unknown accelerator"
	case r.Stage == "teacher":
		b.Reason = "teacher inference stage"
	default:
		params := r.Params
		if params == 0 || r.MoETopK > 0 || in.Arch.Layers == 0 {
			// a mixture of experts by its active parameters, as the
			// estimator is used
			params = in.Arch.ActiveNonEmbeddingParams() + in.Arch.EmbeddingParams()
		}
		prec := r.Precision
		if prec == "" {
			prec = g.DefaultPrecision()
		}
		peak, err := g.PeakFLOPS(prec)
		if err != nil || params == 0 {
			b.Reason = "no parameter count or precision"
			break
		}
		b.Available = true
		b.GPUHours = 6 * params * r.Tokens / (peak * BaselineMFU) / 3600
		b.AcceleratorKWh = b.GPUHours * g.BoardPowerW / 1000
		b.KWh = Compare(r, b.AcceleratorKWh, b.GPUHours, hf)
	}
	res.Predict[SixND] = finish(b, r.EnergyKWh)

	switch {
	case r.Stage == "teacher":
		res.Excluded = "teacher inference stage, not training"
	case r.DuplicateOf != "":
		res.Excluded = "another meter on the runs of " + r.DuplicateOf + " (scope check, not an independent run)"
	case r.Exclude != "":
		res.Excluded = "data problem: " + r.Exclude
	case !res.Predict[Wattscale].Available:
		res.Excluded = "wattscale cannot estimate it: " + res.Predict[Wattscale].Reason
	default:
		res.Headline = true
	}
	return res
}

// Predict is wattscale's prediction for run r from its inputs in (see
// Run.Inputs), with catalog cat and calibration calName ("" = default),
// converted to the run's scope by Compare.
func Predict(r Run, in Inputs, cat *model.Catalog, calName string, hostFactor float64) Prediction {
	w := Prediction{}
	if in.Skip != "" {
		w.Reason = in.Skip
		return w
	}
	req := in.Request
	req.Calibration = calName
	resp, err := cat.Estimate(req)
	if err != nil {
		w.Reason = "wattscale refuses the configuration: " + err.Error()
		return w
	}
	w.Available = true
	w.AcceleratorKWh, w.GPUHours = resp.EnergyKWh, resp.GPUHours
	if r.EnergyWindow == WindowTimed {
		// the meter's window leaves out the start-up: compare the training alone
		w.AcceleratorKWh, w.GPUHours = resp.TrainingEnergyKWh, float64(resp.Inputs.Count)*resp.TrainingTimeS/3600
	}
	w.KWh = CompareHost(r, w.AcceleratorKWh, w.GPUHours, resp.Parallel.BusyPowerW, hostFactor)
	lo, hi := resp.EnergyIntervalKWh[0]/resp.EnergyKWh, resp.EnergyIntervalKWh[1]/resp.EnergyKWh
	w.Interval = &[2]float64{w.KWh * lo, w.KWh * hi}
	c := r.EnergyKWh >= w.Interval[0] && r.EnergyKWh <= w.Interval[1]
	w.Covered = &c
	w.Class, w.ClassFrom = resp.Calibration.Interval.Class, resp.Calibration.Interval.From
	return finish(w, r.EnergyKWh)
}

// predictAsFull is wattscale's prediction of run r as full fine-tuning.
// Where the AdamW state of full fine-tuning would not fit, it is shrunk
// to training.state_bytes_per_param 2 so that the memory check passes:
// the estimate is then that of full fine-tuning's FLOPs with an optimizer
// traffic understated (said in Reason's place, Prediction has no note).
func predictAsFull(r Run, in Inputs, cat *model.Catalog, calName string, hf float64) Prediction {
	in.Request.Training.Method = model.MethodFull
	p := Predict(r, in, cat, calName, hf)
	if !p.Available {
		in.Request.Training.StateBytesPerParam = 2
		p = Predict(r, in, cat, calName, hf)
	}
	return p
}

// Eligible reports whether a run may count in headline scores and feed a
// fit on the table: a training run, not another meter's reading of a run
// already in the table, and free of a stated data problem. (Whether
// wattscale can estimate it is decided by Predict.)
func Eligible(r Run) bool {
	return r.Stage == "train" && r.DuplicateOf == "" && r.Exclude == ""
}

func finish(p Prediction, reported float64) Prediction {
	if !p.Available {
		return p
	}
	if !(p.KWh > 0) || math.IsInf(p.KWh, 0) {
		return Prediction{Reason: "the estimate is not a positive finite number"}
	}
	p.Ratio = p.KWh / reported
	p.Fold = FoldError(p.KWh, reported)
	return p
}

// FoldError is max(pred/actual, actual/pred) for positive values.
func FoldError(pred, actual float64) float64 {
	r := pred / actual
	if r < 1 {
		return 1 / r
	}
	return r
}

// Summarise computes the error distribution of a set of predictions.
func Summarise(preds []Prediction) Summary {
	var folds, lnr, widths []float64
	covered, withCov := 0, 0
	for _, p := range preds {
		if !p.Available {
			continue
		}
		folds = append(folds, p.Fold)
		lnr = append(lnr, math.Log(p.Ratio))
		if p.Interval != nil && p.Interval[0] > 0 {
			widths = append(widths, p.Interval[1]/p.Interval[0])
		}
		if p.Covered != nil {
			withCov++
			if *p.Covered {
				covered++
			}
		}
	}
	s := Summary{N: len(folds), Runs: len(preds)}
	if s.N == 0 {
		return s
	}
	sort.Float64s(folds)
	all := append(append([]float64{}, folds...), infs(s.Runs-s.N)...)
	if m := Quantile(all, 0.5); !math.IsInf(m, 0) && !math.IsNaN(m) {
		s.MedianFoldAllRuns = &m
	}
	s.MedianFold = Quantile(folds, 0.5)
	s.P90Fold = Quantile(folds, 0.9)
	var w15, w2 int
	var sum float64
	for _, f := range folds {
		if f <= 1.5 {
			w15++
		}
		if f <= 2 {
			w2++
		}
	}
	for _, l := range lnr {
		sum += l
	}
	s.Within15 = float64(w15) / float64(s.N)
	s.Within2 = float64(w2) / float64(s.N)
	s.Within2AllRuns = float64(w2) / float64(s.Runs)
	s.GeoMeanRatio = math.Exp(sum / float64(s.N))
	if withCov > 0 {
		c := float64(covered) / float64(withCov)
		s.Coverage = &c
	}
	if len(widths) > 0 {
		sort.Float64s(widths)
		m := Quantile(widths, 0.5)
		s.MedianWidth = &m
	}
	return s
}

func infs(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = math.Inf(1)
	}
	return out
}

// Quantile is model.Quantile: the q-quantile of sorted xs (type 7).
func Quantile(sorted []float64, q float64) float64 { return model.Quantile(sorted, q) }

func summarise(by, key string, rows []RowResult, keep func(*RowResult) bool) Group {
	return summariseWith(by, key, rows, keep, Estimators)
}

func summariseWith(by, key string, rows []RowResult, keep func(*RowResult) bool, estimators []string) Group {
	g := Group{By: by, Key: key, Summaries: map[string]Summary{}}
	per := map[string][]Prediction{}
	for i := range rows {
		if !keep(&rows[i]) {
			continue
		}
		g.Rows++
		for _, e := range estimators {
			per[e] = append(per[e], rows[i].Predict[e])
		}
	}
	for _, e := range estimators {
		g.Summaries[e] = Summarise(per[e])
	}
	return g
}
