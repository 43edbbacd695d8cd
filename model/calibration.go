package model

import (
	"github.com/wattscale/wattscale/internal/errctx"
	"math"
)

// Calibration kinds.
const (
	// KindRoofline calibrations set the roofline time-and-power model:
	// achieved fractions of peak compute and bandwidth, the power activity
	// factor, a fixed start-up time, and the efficiency exponent α_η.
	KindRoofline = "roofline"
	// KindLogLinear calibrations are the paper's law
	// E = κ·C^α_C·M^α_M·η^α_η·Ψ_strategy, applied per token (see LawParams).
	KindLogLinear = "loglinear"
)

// Calibration is a named, versioned set of fitted constants with its
// provenance, fit statistics and envelope. Calibrations are data (JSON under
// the shipped calibrations, listed on the site's report page); ParseCalibration reads one.
type Calibration struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Kind        string `json:"kind"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Citation    string `json:"citation"`
	// Provenance says what data the constants were fitted to and how.
	Provenance Provenance `json:"provenance"`
	// Roofline is set for KindRoofline; loglinear calibrations borrow the
	// time model of the catalog's default roofline calibration.
	Roofline *RooflineParams `json:"roofline,omitempty"`
	// Law is set for KindLogLinear.
	Law *LawParams `json:"law,omitempty"`
	// AlphaEta is the exponent of η in the energy of a parallel run, by
	// interconnect class (roofline kind): E_N = E_1·η^α_η.
	AlphaEta map[Interconnect]Coefficient `json:"alpha_eta,omitempty"`
	// Speedup holds the speedup curves that turn a layout into η before a
	// run (roofline kind; loglinear calibrations use the default's).
	Speedup Speedups `json:"speedup,omitempty"`
	// Comm, when set, is the communication-aware parallel model that
	// replaces the speedup curves for the interconnect classes it lists.
	Comm     *CommParams `json:"comm,omitempty"`
	Interval Interval    `json:"interval"`
	Envelope Envelope    `json:"envelope"`
	// Fit is the diagnostics of the fit that produced the constants.
	Fit *FitSummary `json:"fit,omitempty"`
}

// Provenance records where a calibration's constants come from.
type Provenance struct {
	Data      string `json:"data"`      // dataset(s), with citation
	Method    string `json:"method"`    // how they were fitted
	Generated string `json:"generated"` // the command that regenerates the file
	Notes     string `json:"notes,omitempty"`
}

// RooflineParams are the constants of the roofline time-and-power model
// (see Estimate): t₁ = C/(peak·UCompute) + M/(bandwidth·UMemory) + steps·StepS and
// P = P_idle + Activity·(P_board − P_idle).
type RooflineParams struct {
	UCompute  Coefficient `json:"u_compute"`  // achieved fraction of peak FLOP/s, (0, 1]
	UMemory   Coefficient `json:"u_memory"`   // achieved fraction of peak bandwidth, (0, 1]
	Activity  Coefficient `json:"activity"`   // busy power between idle (0) and board power (1)
	OverheadS Coefficient `json:"overhead_s"` // fixed start-up seconds per run at idle power
	// StepS is the framework and kernel-launch latency per optimizer step,
	// seconds, that neither compute nor bandwidth explains (dominant for
	// small models at small batch); 0 = none.
	StepS Coefficient `json:"step_s"`
	// Tensor, when set, replaces UCompute, UMemory and Activity for the
	// tensor-core precisions (fp16, bf16, fp8), whose achieved fraction of
	// peak and power draw differ from fp32/tf32 arithmetic; nil = the
	// constants above apply to every precision.
	Tensor *TensorParams `json:"tensor,omitempty"`
}

// TensorParams are the time-and-power constants of tensor-core precisions.
// fp8 uses them against its own peak.
type TensorParams struct {
	UCompute Coefficient `json:"u_compute"` // achieved fraction of the precision's dense peak, (0, 1]
	UMemory  Coefficient `json:"u_memory"`  // achieved fraction of peak bandwidth, (0, 1]
	Activity Coefficient `json:"activity"`  // busy power between idle (0) and board power (1)
	// BaseEnvelope is the envelope of the rows the other constants were
	// fitted on, before the table stage joined its runs' ranges to the
	// calibration's envelope: a refit of the table stage without a source
	// starts from it. Estimates use the calibration's Envelope alone.
	BaseEnvelope *Envelope `json:"base_envelope,omitempty"`
	// Rows lists the validation runs (run ids of the site's validation page) the
	// constants were fitted to.
	Rows []string `json:"rows,omitempty"`
}

// tensorPrecision reports whether p runs on tensor cores.
func tensorPrecision(p Precision) bool { return p == FP16 || p == BF16 || p == FP8 }

// ForPrecision returns the achieved compute and bandwidth fractions and the
// activity factor for precision p.
func (r *RooflineParams) ForPrecision(p Precision) (uCompute, uMemory, activity float64) {
	if t := r.Tensor; t != nil && tensorPrecision(p) {
		return t.UCompute.Value, t.UMemory.Value, t.Activity.Value
	}
	return r.UCompute.Value, r.UMemory.Value, r.Activity.Value
}

// LawParams are the paper's log-linear law in its native units: E in kWh,
// C = 20·L·d²·tokens (ComputeProxy), M = B·S·d·L (MemoryProxy), natural logs.
// Because the law was fitted at a fixed dataset (RefTokens tokens seen), the
// estimate applies it per token: E(T) = (T/RefTokens)·law(C(RefTokens), M, η).
type LawParams struct {
	LnKappa  Coefficient `json:"ln_kappa"`
	AlphaC   Coefficient `json:"alpha_c"`
	AlphaM   Coefficient `json:"alpha_m"`
	AlphaEta Coefficient `json:"alpha_eta"`
	// LnPsi holds the strategy dummies ln Ψ by strategy name ("fsdp", "tp",
	// "ddp"); single GPU is the reference (ln Ψ = 0). A strategy not listed
	// uses 0 and the estimate says so.
	LnPsi map[string]Coefficient `json:"ln_psi"`
	// LnHardware holds hardware dummies (offsets in ln E) by GPU id; GPUs not
	// listed use 0 (the reference hardware) and the estimate widens its interval.
	LnHardware map[string]Coefficient `json:"ln_hardware,omitempty"`
	RefTokens  float64                `json:"ref_tokens"`
	RefNote    string                 `json:"ref_note"`
}

// Coefficient is a fitted value with its standard error and 95 % interval.
// A zero SE means the value was fixed or published without one.
type Coefficient struct {
	Value  float64 `json:"value"`
	SE     float64 `json:"se,omitempty"`
	CILow  float64 `json:"ci_low,omitempty"`
	CIHigh float64 `json:"ci_high,omitempty"`
}

// Interval describes the prediction interval an estimate carries.
type Interval struct {
	SigmaLn float64 `json:"sigma_ln"` // standard deviation of ln E for a new run inside the envelope
	Level   float64 `json:"level"`    // two-sided coverage, e.g. 0.9
	Method  string  `json:"method"`   // where SigmaLn comes from
	// Classes, when set, replace SigmaLn: each interval class's held-out
	// residual quantiles at Level (see ClassQuantiles), with the pooled
	// quantiles of all runs for classes with too few runs of their own.
	Classes []ClassQuantiles `json:"classes,omitempty"`
	// ClassMethod says how Classes were computed.
	ClassMethod string `json:"class_method,omitempty"`
}

// Envelope is the region a calibration was fitted on.
type Envelope struct {
	Layers   [2]float64 `json:"layers"`
	Hidden   [2]float64 `json:"hidden"`
	SeqLen   [2]float64 `json:"seq_len"`
	Batch    [2]float64 `json:"batch_per_gpu"`
	GPUs     [2]float64 `json:"gpus"`
	Params   [2]float64 `json:"params"`
	Hardware []string   `json:"hardware"`
	// WidenPerEFold is added to the ln-space SD, in quadrature, per e-fold
	// (factor e) a numeric dimension lies outside its range.
	WidenPerEFold float64 `json:"widen_ln_per_efold"`
	// WidenHardware is added in quadrature for a GPU not in Hardware.
	WidenHardware float64 `json:"widen_ln_hardware"`
}

// FitSummary is the diagnostics of a fit, as model/fit reports them.
type FitSummary struct {
	N      int     `json:"n"`
	Groups int     `json:"groups,omitempty"`
	R2     float64 `json:"r2"`
	AdjR2  float64 `json:"adj_r2"`
	RMSELn float64 `json:"rmse_ln"`
	// ResidualSDLn is the residual standard deviation sqrt(SSE/(n−k)) in
	// ln units, the figure the roofline paper reports; 0 when not computed.
	ResidualSDLn float64 `json:"residual_sd_ln,omitempty"`
	RMSEKWh      float64 `json:"rmse_kwh,omitempty"`
	CVR2         float64 `json:"cv_r2,omitempty"`
	CVRMSELn     float64 `json:"cv_rmse_ln,omitempty"`
	// CVPooledRMSELn is the RMSE of each row's held-out prediction (averaged
	// over the splits that held it out), the figure behind held-out charts.
	CVPooledRMSELn float64     `json:"cv_pooled_rmse_ln,omitempty"`
	CVCoverage     float64     `json:"cv_coverage,omitempty"`
	CVMedianFold   float64     `json:"cv_median_fold_error,omitempty"`
	CVMethod       string      `json:"cv_method,omitempty"`
	Coefficients   []NamedCoef `json:"coefficients,omitempty"`
	WithoutEta     *FitSummary `json:"without_eta,omitempty"`
	Notes          []string    `json:"notes,omitempty"`
}

// NamedCoef is one row of a coefficient table.
type NamedCoef struct {
	Name string `json:"name"`
	Coefficient
	T float64 `json:"t,omitempty"`
	P float64 `json:"p,omitempty"`
}

// ParseCalibration decodes and checks one calibration JSON document.
// Unknown fields, keys that differ from a field's name only in case and
// keys given twice are errors (CheckKeys).
func ParseCalibration(data []byte) (Calibration, error) {
	c, err := decodeCalibration(data)
	if err != nil {
		return c, errctx.Wrap("calibration", err)
	}
	if err := c.Validate(); err != nil {
		return c, err
	}
	return c, nil
}

// Validate checks that a calibration is usable by Estimate.
func (c *Calibration) Validate() error {
	if c.Name == "" || c.Version == "" {
		return msgErr(CodeCalNameVersion, nil)
	}
	bad := func(what string, x float64) error {
		return msgErr(CodeCalRange, Args{{Name: "name", Str: c.Name}, {Name: "what", Str: what}, {Name: "x", Num: x}})
	}
	block := func(kind, block string) error {
		return msgErr(CodeCalBlock, Args{{Name: "name", Str: c.Name}, {Name: "kind", Str: kind}, {Name: "block", Str: block}})
	}
	switch c.Kind {
	case KindRoofline:
		r := c.Roofline
		if r == nil {
			return block("roofline", "roofline")
		}
		if !(r.UCompute.Value > 0 && r.UCompute.Value <= 1) {
			return bad("u_compute", r.UCompute.Value)
		}
		if !(r.UMemory.Value > 0 && r.UMemory.Value <= 1) {
			return bad("u_memory", r.UMemory.Value)
		}
		if !(r.Activity.Value >= 0 && r.Activity.Value <= 1) {
			return bad("activity", r.Activity.Value)
		}
		if !(r.OverheadS.Value >= 0 && r.OverheadS.Value < 1e5) {
			return bad("overhead_s", r.OverheadS.Value)
		}
		if !(r.StepS.Value >= 0 && r.StepS.Value < 10) {
			return bad("step_s", r.StepS.Value)
		}
		if t := r.Tensor; t != nil {
			if !(t.UCompute.Value > 0 && t.UCompute.Value <= 1) {
				return bad("tensor.u_compute", t.UCompute.Value)
			}
			if !(t.UMemory.Value > 0 && t.UMemory.Value <= 1) {
				return bad("tensor.u_memory", t.UMemory.Value)
			}
			if !(t.Activity.Value >= 0 && t.Activity.Value <= 1) {
				return bad("tensor.activity", t.Activity.Value)
			}
		}
		if c.Comm != nil {
			if err := c.Comm.Validate(); err != nil {
				return msgErr(CodeCalComm, Args{{Name: "name", Str: c.Name}, {Name: "problem", Msgs: []Message{AsMessage(err)}}})
			}
		}
		for ic, a := range c.AlphaEta {
			if !(a.Value <= 0 && a.Value >= -3) {
				return bad("alpha_eta["+string(ic)+"]", a.Value)
			}
		}
	case KindLogLinear:
		l := c.Law
		if l == nil {
			return block("loglinear", "law")
		}
		for _, x := range []float64{l.LnKappa.Value, l.AlphaC.Value, l.AlphaM.Value, l.AlphaEta.Value} {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return bad("law coefficient", x)
			}
		}
		if !(l.RefTokens > 0) {
			return bad("ref_tokens", l.RefTokens)
		}
	default:
		return msgErr(CodeCalKind, Args{{Name: "name", Str: c.Name}, {Name: "kind", Str: string(c.Kind)}})
	}
	if !(c.Interval.SigmaLn > 0 && c.Interval.SigmaLn < 5) {
		return bad("interval.sigma_ln", c.Interval.SigmaLn)
	}
	if !(c.Interval.Level > 0 && c.Interval.Level < 1) {
		return bad("interval.level", c.Interval.Level)
	}
	if c.Kind == KindLogLinear {
		return nil // loglinear calibrations take η from the default roofline calibration's curves
	}
	for _, ic := range []Interconnect{PCIe, NVLink} {
		set, ok := c.Speedup[ic]
		if !ok {
			return msgErr(CodeCalNoCurves, Args{{Name: "name", Str: c.Name}, {Name: "interconnect", Str: string(ic)}})
		}
		for name, l := range map[string]SpeedupLaw{"tp": set.TP, "fsdp": set.FSDP, "ddp": set.DDP} {
			if err := l.Validate(); err != nil {
				return msgErr(CodeCalSpeedup, Args{{Name: "name", Str: c.Name}, {Name: "interconnect", Str: string(ic)}, {Name: "layout", Str: name}, {Name: "problem", Msgs: []Message{AsMessage(err)}}})
			}
		}
	}
	return nil
}

// LawEnergyKWh evaluates the log-linear law in its native form:
// exp(ln κ + α_C·ln C + α_M·ln M + α_η·ln η + ln Ψ_strategy + ln H_gpu).
// c and m are ComputeProxy and MemoryProxy values, eta in (0, 1].
func (l *LawParams) LawEnergyKWh(c, m, eta float64, strategy, gpu string) float64 {
	ln := l.LnKappa.Value + l.AlphaC.Value*math.Log(c) + l.AlphaM.Value*math.Log(m) + l.AlphaEta.Value*math.Log(eta)
	if p, ok := l.LnPsi[strategy]; ok {
		ln += p.Value
	}
	if h, ok := l.LnHardware[gpu]; ok {
		ln += h.Value
	}
	return math.Exp(ln)
}
