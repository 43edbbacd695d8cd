package model

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Catalog is what an estimate needs besides the request: the hardware
// table, the presets and the calibrations. Build one with NewCatalog; it is
// read-only afterwards and safe for concurrent use.
type Catalog struct {
	Hardware     *Hardware
	Presets      []Preset
	Calibrations []Calibration
	// Default is the calibration used when a request names none; it must be
	// of kind roofline (loglinear calibrations borrow its time model).
	Default string
	// Power is the power-limit response (content/calibrations/power); nil
	// = power limits below a run's draw are refused.
	Power *PowerCalibration
	// WorkBudget is the most work one recommend or plan request may ask
	// for, in work units (budget.go); 0 = DefaultWorkBudget, negative = no
	// limit (the browser, whose CPU is the user's own).
	WorkBudget  int
	byName      map[string]int
	presets     map[string]int // normalised preset name -> index
	presetExact map[string]int // preset name as written -> the index presets gives it
	calConsts   map[*Calibration]*calConsts
	hf          *hfReader // nil: requests with Hugging Face files are refused (ReadHFFiles)
}

// NewCatalog checks the calibrations and indexes them. def names the
// default calibration.
func NewCatalog(hw *Hardware, presets []Preset, cals []Calibration, def string) (*Catalog, error) {
	c := &Catalog{Hardware: hw, Presets: presets, Calibrations: cals, Default: def, byName: map[string]int{}, presets: map[string]int{}, presetExact: map[string]int{}}
	for i, p := range presets {
		c.presets[normName(p.Name)] = i
	}
	for _, p := range presets {
		c.presetExact[p.Name] = c.presets[normName(p.Name)]
	}
	// A preset's hub id ("meta-llama/Meta-Llama-3-8B") names it too, where
	// no preset is called that.
	for i, p := range presets {
		if k := normName(p.Hub); k != "" {
			if _, taken := c.presets[k]; !taken {
				c.presets[k] = i
			}
		}
	}
	for i := range cals {
		if err := cals[i].Validate(); err != nil {
			return nil, err
		}
		if _, dup := c.byName[cals[i].Name]; dup {
			return nil, fmt.Errorf("catalog: calibration %q appears twice", cals[i].Name)
		}
		c.byName[cals[i].Name] = i
	}
	c.calConsts = newCalConsts(cals, hw)
	d, ok := c.byName[def]
	if !ok {
		return nil, fmt.Errorf("catalog: default calibration %q not found", def)
	}
	if cals[d].Kind != KindRoofline {
		return nil, fmt.Errorf("catalog: default calibration %q must be of kind roofline", def)
	}
	return c, nil
}

// preset finds a preset by its normalised name, falling back to FindPreset
// for the error with close matches.
func (c *Catalog) preset(name string) (*Preset, error) {
	if i, ok := c.presetExact[name]; ok {
		return &c.Presets[i], nil // the usual spelling: no normalising needed
	}
	if i, ok := c.presets[normName(name)]; ok {
		return &c.Presets[i], nil
	}
	return FindPreset(c.Presets, name)
}

// Calibration returns the calibration called name ("" = default).
func (c *Catalog) Calibration(name string) (*Calibration, error) {
	if name == "" {
		name = c.Default
	}
	if i, ok := c.byName[name]; ok {
		return &c.Calibrations[i], nil
	}
	names := make([]string, 0, len(c.byName))
	for n := range c.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return nil, fieldErr("calibration", name, "is not a known calibration; known: %s", strings.Join(names, ", "))
}

// Response is the result of an estimate. Field names are a public interface
// (APIVersion).
type Response struct {
	Version string `json:"version"`
	// EnergyKWh is the accelerators' energy for the whole run (what the
	// calibrations are fitted to: GPU board energy, no host, no PUE; on an
	// accelerator whose catalog power is system power per chip, the TPUs,
	// it includes the host's share, and an assumption says so).
	EnergyKWh         float64    `json:"energy_kwh"`
	EnergyIntervalKWh [2]float64 `json:"energy_interval_kwh"`
	IntervalLevel     float64    `json:"interval_level"`
	// FacilityEnergyKWh is EnergyKWh × PUE.
	FacilityEnergyKWh float64 `json:"facility_energy_kwh"`
	// TrainingEnergyKWh and TrainingTimeS are the run without its fixed
	// start-up (breakdown_kwh.fixed and roofline.overhead_s): what a meter
	// whose window opens when training starts reads (MLPerf Training's
	// run_start to run_stop leaves initialisation out).
	TrainingEnergyKWh float64    `json:"training_energy_kwh"`
	TrainingTimeS     float64    `json:"training_time_s"`
	TimeS             float64    `json:"time_s"`
	TimeIntervalS     [2]float64 `json:"time_interval_s"`
	AvgPowerW         float64    `json:"avg_power_w"` // all GPUs together, over the run
	GPUHours          float64    `json:"gpu_hours"`
	CO2eKg            float64    `json:"co2e_kg"`
	CO2eIntervalKg    [2]float64 `json:"co2e_interval_kg"`
	CostUSD           float64    `json:"cost_usd"`
	Breakdown         Breakdown  `json:"breakdown_kwh"`
	Roofline          Roofline   `json:"roofline"`
	Proxies           Proxies    `json:"proxies"`
	Parallel          Parallel   `json:"parallel"`
	Memory            MemoryUse  `json:"memory"`
	Training          MethodUse  `json:"training"`
	Calibration       CalUsed    `json:"calibration"`
	Inputs            Inputs     `json:"inputs"`
	Assumptions       []string   `json:"assumptions"`
	Warnings          []string   `json:"warnings"`

	// EmbodiedCO2eKg is the manufacturing emissions of the hardware charged
	// to the run's GPU-hours (Embodied says how); beside CO2eKg, not in it.
	EmbodiedCO2eKg float64        `json:"embodied_co2e_kg"`
	Embodied       Embodied       `json:"embodied"`
	PowerLimit     PowerLimitInfo `json:"power_limit"`
}

// Breakdown splits EnergyKWh: compute and memory terms of the single-GPU
// roofline decomposition, parallel overhead (energy above one GPU doing the
// same work) and the fixed start-up energy E₀. They sum to EnergyKWh.
type Breakdown struct {
	ComputeKWh  float64 `json:"compute"`
	MemoryKWh   float64 `json:"memory"`
	ParallelKWh float64 `json:"parallel_overhead"`
	FixedKWh    float64 `json:"fixed"`
}

// Roofline reports the physical counts and bounds.
type Roofline struct {
	FLOPs               float64 `json:"flops"`                  // training FLOPs, whole run
	Bytes               float64 `json:"bytes"`                  // modelled device-memory traffic, whole run
	FLOPsPerToken       float64 `json:"flops_per_token"`        // 6·N + 6·L·S·d (+ 6·d·V with an LM head)
	BytesPerToken       float64 `json:"bytes_per_token"`        // activations plus amortised parameter traffic
	ArithmeticIntensity float64 `json:"arithmetic_intensity"`   // FLOPs / byte
	MachineBalance      float64 `json:"machine_balance"`        // peak FLOP/s / bandwidth
	Bound               string  `json:"bound"`                  // "compute" or "memory"
	PeakTFLOPS          float64 `json:"peak_tflops"`            // per GPU at the request's precision
	EpsComputeJPerFLOP  float64 `json:"eps_compute_j_per_flop"` // ε_comp of E = ε_comp·C + ε_mem·M + E₀
	EpsMemoryJPerByte   float64 `json:"eps_memory_j_per_byte"`  // ε_mem
	TimeLowerBoundS     float64 `json:"time_lower_bound_s"`
	EnergyLowerBoundKWh float64 `json:"energy_lower_bound_kwh"`
}

// Proxies are the paper's proxies for the request.
type Proxies struct {
	ParamsPaper          float64 `json:"params_paper"`            // L·(12d² + 2d·ff)
	ComputePerTokenPaper float64 `json:"compute_per_token_paper"` // 12·L·d² + 3·L·S·d
	ComputeLaw           float64 `json:"compute_law"`             // 20·L·d²·tokens (the law's C)
	MemoryPaper          float64 `json:"memory_paper"`            // B·S·d·L
	Params               float64 `json:"params"`                  // counted parameters, embeddings included
	NonEmbeddingParams   float64 `json:"non_embedding_params"`
}

// Parallel reports the layout, the speedup and η.
type Parallel struct {
	GPUs       int     `json:"gpus"`
	Strategy   string  `json:"strategy"`
	Tensor     int     `json:"tensor"`
	Data       int     `json:"data"`
	DataMode   string  `json:"data_mode,omitempty"`
	Context    int     `json:"context,omitempty"` // context-parallel degree (0: none)
	Speedup    float64 `json:"speedup"`
	Efficiency float64 `json:"efficiency"` // η = S/N
	Law        string  `json:"law"`        // what gave S: the communication-aware model or the speedup curves
	// AlphaEta is the exponent of η in the parallel energy factor: the
	// calibration's where the overhead is charged by η^α_η, else the
	// exponent the waiting power amounts to (η^α_η = 1 + parallel/busy).
	AlphaEta float64 `json:"alpha_eta"`
	// Overhead says how the parallel overhead is charged: OverheadWaiting
	// (the waiting GPU-time at WaitingPowerW) or OverheadAlphaEta (the
	// paper's η^α_η); "" on one GPU.
	Overhead string `json:"overhead,omitempty"`
	// WaitingShare is 1 − η, the share of the GPU-time spent waiting.
	WaitingShare float64 `json:"waiting_share"`
	// WaitingPowerW is the power of one waiting GPU, W, where the
	// overhead is charged at it (0 otherwise).
	WaitingPowerW float64 `json:"waiting_power_w"`
	// BusyPowerW is the power of one GPU while it computes, W (after the
	// power limit).
	BusyPowerW float64 `json:"busy_power_w"`
}

// How a parallel run's overhead is charged (Parallel.Overhead).
const (
	OverheadWaiting  = "waiting_power"
	OverheadAlphaEta = "alpha_eta"
)

// MemoryUse reports per-GPU memory.
type MemoryUse struct {
	StateGBPerGPU      float64 `json:"state_gb_per_gpu"`      // weights, gradients, optimizer state (frozen weights included)
	ActivationGBPerGPU float64 `json:"activation_gb_per_gpu"` // stored activations (layer inputs only under checkpointing)
	CapacityGB         float64 `json:"capacity_gb"`
	// FrozenGBPerGPU is the frozen base weights of lora and qlora at their
	// storage format (0 for full fine-tuning); TrainedGBPerGPU the trained
	// parameters' weights, gradients and optimizer state. They sum to
	// StateGBPerGPU.
	FrozenGBPerGPU  float64 `json:"frozen_gb_per_gpu"`
	TrainedGBPerGPU float64 `json:"trained_gb_per_gpu"`
}

// CalUsed identifies the calibration behind an estimate.
type CalUsed struct {
	Name       string   `json:"name"`
	Version    string   `json:"version"`
	Kind       string   `json:"kind"`
	Citation   string   `json:"citation"`
	InEnvelope bool     `json:"in_envelope"`
	Outside    []string `json:"outside,omitempty"` // envelope dimensions the request lies outside
	// SigmaLn is the interval's ln-space half-width over z: its SD where
	// the interval comes from a σ, the equivalent SD where it comes from
	// class quantiles.
	SigmaLn float64 `json:"sigma_ln"`
	// Interval says what set the interval.
	Interval IntervalUsed `json:"interval"`
}

// IntervalUsed says what set an estimate's interval.
type IntervalUsed struct {
	// Class is the request's interval class (ClassCore, ...).
	Class string `json:"class"`
	// From is the class whose held-out quantiles gave the interval: Class,
	// ClassPooled when Class has too few validation runs, or
	// IntervalFromSigma when the calibration carries no class quantiles.
	From string `json:"from"`
	// Runs counts the held-out validation runs behind From (0 for a σ).
	Runs int `json:"runs"`
	// LowFactor and HighFactor are the interval's ends over the estimate.
	LowFactor  float64 `json:"low_factor"`
	HighFactor float64 `json:"high_factor"`
}

// IntervalFromSigma is IntervalUsed.From for an interval from the
// calibration's σ.
const IntervalFromSigma = "sigma"

// Inputs echoes the resolved inputs (after presets and defaults).
type Inputs struct {
	Model       string  `json:"model"`
	Arch        Arch    `json:"arch"`
	Head        string  `json:"head"`
	Tokens      float64 `json:"tokens"`
	SeqLen      int     `json:"seq_len"`
	BatchPerGPU int     `json:"batch_per_gpu"`
	// GradientAccumulation is the micro-batches per optimizer step (1
	// without accumulation).
	GradientAccumulation int       `json:"gradient_accumulation"`
	Precision            Precision `json:"precision"`
	// StateBytesPerParam is the device memory per trained parameter for
	// weights, gradients and optimizer state, as the estimate used it.
	StateBytesPerParam float64 `json:"state_bytes_per_param"`
	GPU                string  `json:"gpu"`
	GPUName            string  `json:"gpu_name"`
	Interconnect       string  `json:"interconnect"`
	Count              int     `json:"count"`
	PowerLimitW        float64 `json:"power_limit_w"`
	PUE                float64 `json:"pue"`
	CarbonGPerKWh      float64 `json:"carbon_g_per_kwh"`
	USDPerKWh          float64 `json:"usd_per_kwh"`
	Region             string  `json:"region,omitempty"`
	// Imported lists every key read from the request's Hugging Face files
	// (model.hf_config, training.hf_args, training.peft): what it filled and
	// whether it was used, overridden by the request's own field, or
	// ignored.
	Imported []Imported `json:"imported,omitempty"`
}

// resolved is a validated request.
type resolved struct {
	name     string
	arch     Arch
	head     string
	params   float64
	tokens   float64
	seq, bat int
	accum    int // micro-batches per optimizer step (gradient accumulation)
	prec     Precision
	state    float64 // bytes per parameter of weights, gradients and optimizer state
	gpu      *GPU
	limitW   float64 // power limit per GPU, W (the board's default when not given)
	belowMin bool    // limitW is under the board's estimated lowest limit (checkPowerLimit)
	peak     float64
	count    int
	strategy string
	plan     Plan
	site     SiteSpec
	cal      *Calibration
	timeCal  *Calibration
	method   method
	stack    stack
	eff      efficiency
	logits   bool // training.teacher_logits
	assume   []string
	warn     []string
	imported []Imported // what the Hugging Face files gave (Inputs.Imported)
}

// Estimate turns a request into a response, or returns a *FieldError that
// names the offending field. It never returns NaN or Inf in a response.
func (c *Catalog) Estimate(req Request) (Response, error) {
	var r resolved // on the stack: one estimate allocates only what the response keeps
	if err := c.resolveInto(&r, req); err != nil {
		return Response{}, err
	}
	return c.estimate(&r)
}

func (c *Catalog) resolve(req Request) (*resolved, error) {
	r := &resolved{}
	if err := c.resolveInto(r, req); err != nil {
		return nil, err
	}
	return r, nil
}

// resolveInto validates req into r, memory and step checks included.
func (c *Catalog) resolveInto(r *resolved, req Request) error {
	if err := c.fillInputs(r, req); err != nil {
		return err
	}
	// Memory feasibility: by default 16 bytes/param for weights, gradients
	// and Adam state in mixed precision (Rajbhandari et al. 2020, ZeRO,
	// section 3.1); training.state_bytes_per_param overrides it.
	if err := r.checkState(); err != nil {
		return err
	}
	return r.checkSteps()
}

// minSteps is the fewest optimizer steps a layout must leave the run: the
// speedup and communication models describe a steady state of repeated
// steps, and a run of fewer than one step per data-parallel rank does not
// use the GPUs at all.
const minSteps = 1

// checkSteps refuses a GPU count that leaves the run less than one
// optimizer step (with gradient accumulation, one micro-batch step: the
// last optimizer step may close a partial accumulation): each step takes
// seq_len × batch_per_gpu tokens on every data-parallel rank.
func (r *resolved) checkSteps() error {
	if steps := r.microSteps(); steps < minSteps {
		most := math.Floor(r.tokens / (float64(r.seq) * float64(r.bat)) * float64(r.count) / float64(r.plan.Data))
		what := "optimizer steps"
		if r.accum > 1 {
			what = "micro-batch steps" // an optimizer step may end on a partial accumulation
		}
		return fieldErr("hardware.count", r.count, "leaves the run %s %s (%s tokens, %d tokens per step on each of %d data-parallel ranks); at least one step needs at most %s GPUs, or fewer tokens per step",
			ShortNum(steps), what, ShortNum(r.tokens), r.seq*r.bat, r.plan.Data, ShortNum(math.Max(1, most)))
	}
	return nil
}

// microSteps is the run's micro-batch steps: its tokens over seq_len ×
// batch_per_gpu on each data-parallel rank (the optimizer steps times the
// gradient accumulation).
func (r *resolved) microSteps() float64 {
	return r.tokens / (float64(r.seq) * float64(r.bat) * float64(r.plan.Data))
}

// resolveInputs validates a request without the memory check (the
// recommender checks memory per layout).
func (c *Catalog) resolveInputs(req Request) (*resolved, error) {
	r := &resolved{}
	if err := c.fillInputs(r, req); err != nil {
		return nil, err
	}
	return r, nil
}

// fillInputs is resolveInputs into a zero resolved that the caller owns.
func (c *Catalog) fillInputs(r *resolved, req Request) (err error) {
	var hf *HFModel
	if r.name, r.arch, r.head, hf, err = c.resolveModelHF(req.Model); err != nil {
		return err
	}
	t := req.Training
	var hft *hfTraining
	if t.HFArgs != "" || t.PEFT != "" {
		if c.hf == nil {
			if t.HFArgs == "" {
				return c.noHF(PathPEFT)
			}
			return c.noHF(PathHFArgs)
		}
		var fam *hfFamily
		if hf != nil {
			fam = hf.family
		}
		if t, hft, err = c.hf.training(t, fam, r.arch); err != nil {
			return err
		}
	}
	if hf != nil || hft != nil {
		c.hf.note(r, hf, hft)
	}
	r.params = r.arch.Params()
	if a := r.arch; a.MoE() {
		r.assume = append(r.assume, fmt.Sprintf("mixture of experts: FLOPs count the %d of %d experts each token is routed to; memory, weight traffic and communication all %d; the experts' matmuls run at %.2f of a dense matmul's rate (%s)",
			a.ExpertsPerToken, a.Experts, a.Experts, ExpertEfficiency, ExpertSource))
	}

	maxSteps := 0
	if hft != nil {
		maxSteps = hft.maxSteps
	}
	switch {
	case t.Tokens != 0 && (t.DatasetTokens != 0 || t.Epochs != 0):
		return fieldErr("training.tokens", t.Tokens, "give tokens, or dataset_tokens with epochs, not both")
	case t.Tokens != 0:
		if err := fieldTokens.Check(t.Tokens); err != nil {
			return err
		}
		r.tokens = t.Tokens
	case maxSteps > 0 && t.Epochs == 0: // the tokens follow from the layout, below
		if t.DatasetTokens != 0 {
			r.assume = append(r.assume, "training.dataset_tokens is not used: max_steps of "+PathHFArgs+" sets the run, as in the Trainer")
		}
	case t.DatasetTokens != 0 || t.Epochs != 0:
		if err := fieldDatasetTokens.Check(t.DatasetTokens); err != nil {
			return err
		}
		if err := fieldEpochs.Check(t.Epochs); err != nil {
			return err
		}
		r.tokens = t.DatasetTokens * t.Epochs
	default:
		return fieldErr("training.tokens", nil, "is required (or dataset_tokens with epochs)")
	}
	if err := fieldSeqLen.Check(t.SeqLen); err != nil {
		return err
	}
	if err := fieldBatchPerGPU.Check(t.BatchPerGPU); err != nil {
		return err
	}
	r.seq, r.bat = int(t.SeqLen), int(t.BatchPerGPU)
	r.accum = 1
	if t.GradientAccumulation != 0 {
		if err := fieldAccum.Check(t.GradientAccumulation); err != nil {
			return err
		}
		r.accum = int(t.GradientAccumulation)
	}
	if hf != nil && hf.MaxPositions > 0 && r.seq > hf.MaxPositions {
		if hf.AbsolutePositions {
			return fieldErr("training.seq_len", r.seq, "exceeds the %d positions of the model (max_position_embeddings of %s; its learned positions go no further)", hf.MaxPositions, PathHFConfig)
		}
		r.warn = append(r.warn, fmt.Sprintf("training.seq_len %d exceeds the model's max_position_embeddings %d (%s): it was trained on shorter sequences; its rotary positions need rope_scaling to reach this length", r.seq, hf.MaxPositions, PathHFConfig))
	}
	if maxSteps == 0 && r.tokens < float64(r.seq) {
		return fieldErr("training.tokens", r.tokens, "must cover at least one sequence (%d tokens)", r.seq)
	}
	r.state = DefaultStateBytesPerParam
	if t.StateBytesPerParam != 0 {
		if err := fieldStateBytes.Check(t.StateBytesPerParam); err != nil {
			return err
		}
		r.state = t.StateBytesPerParam
	}
	r.prec = Precision(strings.ToLower(string(t.Precision)))

	if req.Hardware.GPU == "" {
		return fieldErr("hardware.gpu", nil, "is required, for example \"a100-sxm4-80gb\"")
	}
	g, err := c.Hardware.Lookup(req.Hardware.GPU)
	if err != nil {
		return err
	}
	r.gpu = g
	if g.PowerScope == SystemPower {
		r.assume = append(r.assume, fmt.Sprintf("%s power is measured system power per chip (%g W: host, memory and network included, %s), so energy_kwh includes the host's share here", g.ID, g.BoardPowerW, "the only training power Google publishes for its TPUs"))
	}
	if r.prec == "" {
		r.prec = g.DefaultPrecision()
		r.assume = append(r.assume, fmt.Sprintf("training.precision not given: %s, what a typical mixed-precision recipe uses on a %s (%s)", r.prec, g.ID, DefaultPrecisionRule))
	}
	if r.peak, err = g.PeakFLOPS(r.prec); err != nil {
		return err
	}
	if r.limitW, r.belowMin, err = checkPowerLimit("hardware.power_limit_w", req.Hardware.PowerLimitW, g); err != nil {
		return err
	}
	if r.belowMin {
		r.warn = append(r.warn, belowMinWarning(g, r.limitW))
	}
	if err := fieldCount.Check(req.Hardware.Count); err != nil {
		return err
	}
	r.count = int(req.Hardware.Count)
	if err := r.resolveMethod(t); err != nil {
		return err
	}

	if err := r.resolveStrategy(req.Strategy); err != nil {
		return err
	}
	if maxSteps > 0 {
		// The Trainer's max_steps counts optimizer steps: each takes
		// gradient_accumulation micro-batches of batch_per_gpu sequences on
		// every data-parallel rank.
		r.tokens = float64(maxSteps) * float64(r.accum) * float64(r.bat) * float64(r.seq) * float64(r.plan.Data)
		if err := fieldTokens.Check(r.tokens); err != nil {
			return fieldErr(PathHFArgs+".max_steps", maxSteps, "gives %s tokens (steps × accumulation × batch × seq_len × %d data-parallel ranks), beyond the accepted %s", ShortNum(r.tokens), r.plan.Data, ShortNum(fieldTokens.Bounds.Max))
		}
		r.assume = append(r.assume, fmt.Sprintf("training.tokens %s from max_steps %d (%s): %d optimizer steps × %d micro-batches × %d sequences × %d tokens × %d data-parallel ranks, every sequence full (packed or padded to seq_len)",
			ShortNum(r.tokens), maxSteps, PathHFArgs, maxSteps, r.accum, r.bat, r.seq, r.plan.Data))
	}

	var assume []string
	if r.site, assume, err = ResolveSite(req.Site); err != nil {
		return err
	}
	r.assume = append(r.assume, assume...)

	if r.cal, err = c.Calibration(req.Calibration); err != nil {
		return err
	}
	r.timeCal = r.cal
	if r.cal.Kind != KindRoofline {
		r.timeCal, _ = c.Calibration("")
	}
	r.logits = t.TeacherLogits
	if err := r.resolveStack(t); err != nil {
		return err
	}
	if err := r.resolveEfficiency(t); err != nil {
		return err
	}

	return nil
}

// checkState refuses a layout whose weights, gradients and optimizer state
// (for lora and qlora: the frozen base at its storage format plus the
// trained adapters' state) do not fit in the memory of one GPU.
func (r *resolved) checkState() error {
	g := r.gpu
	frozen, trained := r.stateParts()
	if state := frozen + trained; state > g.MemoryGB*1e9 {
		if r.method.name == MethodFull {
			lean := "a leaner optimizer (training.state_bytes_per_param)"
			if fit := math.Floor(r.state*g.MemoryGB*1e9/state*10) / 10; fit >= fieldStateBytes.Bounds.Min {
				lean = fmt.Sprintf("a leaner optimizer (training.state_bytes_per_param at most %s fits: about 8 for Adafactor with fp32 master weights, 4 on pure bf16 weights)", ShortNum(fit))
			}
			return fieldErr("hardware.count", r.count, "is too small: weights, gradients and optimizer state need %.1f GB per GPU (%s bytes per parameter, %.3g parameters, %s), more than the %.0f GB of a %s; use fsdp or tensor parallelism, more GPUs, a larger GPU, lora or qlora (training.method), or %s",
				state/1e9, ShortNum(r.state), r.params, r.layoutString(), g.MemoryGB, g.ID, lean)
		}
		m := &r.method
		format := map[string]string{MethodLoRA: "16-bit", MethodQLoRA: m.format}[m.name]
		hint := "use fsdp or tensor parallelism, more GPUs, a larger GPU"
		if m.name == MethodLoRA {
			hint += ", or qlora (training.method)"
		} else if m.format == FormatInt8 {
			hint += ", or nf4 (training.lora.base_format)"
		}
		// The optimizer state that would fit beside the frozen base.
		if room := g.MemoryGB*1e9 - frozen; trained > 0 && room > 0 {
			if fit := math.Floor(r.state*room/trained*10) / 10; fit >= fieldStateBytes.Bounds.Min {
				hint += fmt.Sprintf(", or a leaner optimizer state: training.state_bytes_per_param at most %s fits (12 for bf16 adapters with 32-bit AdamW, about 6 with 8-bit AdamW)", ShortNum(fit))
			}
		}
		return fieldErr("hardware.count", r.count, "is too small for %s: the frozen base weights at %s need %.1f GB per GPU (%.3g parameters, %s) and the trained parameters' weights, gradients and optimizer state %.2f GB (%.3g parameters at %s bytes), %.1f GB in all, more than the %.0f GB of a %s; %s",
			m.name, format, frozen/1e9, r.params, r.layoutString(), trained/1e9, m.trainable, ShortNum(r.state), state/1e9, g.MemoryGB, g.ID, hint)
	}
	return nil
}

func (r *resolved) layoutString() string {
	switch {
	case r.plan.Ctx() > 1:
		return fmt.Sprintf("sharded over %d tensor ranks (each sequence split over %d context ranks)%s", r.plan.Tensor, r.plan.Ctx(), map[bool]string{true: fmt.Sprintf(" and %d fsdp ranks", r.plan.Replicas()), false: ""}[r.plan.DataMode == FSDP])
	case r.plan.Tensor > 1 && r.plan.Data > 1:
		return fmt.Sprintf("sharded over %d tensor ranks%s", r.plan.Tensor, map[bool]string{true: fmt.Sprintf(" and %d fsdp ranks", r.plan.Data), false: ""}[r.plan.DataMode == FSDP])
	case r.plan.Tensor > 1:
		return fmt.Sprintf("sharded over %d tensor ranks", r.plan.Tensor)
	case r.plan.DataMode == FSDP:
		return fmt.Sprintf("sharded over %d fsdp ranks", r.plan.Data)
	}
	return "replicated on every GPU"
}

func (r *resolved) resolveStrategy(s Strategy) error {
	n := r.count
	switch s.Name {
	case "":
		return fieldErr("strategy", nil, "is required: one of single, ddp, fsdp, tp, or {\"tensor\": t, \"data\": d, \"data_mode\": \"fsdp\"}")
	case Single:
		if n != 1 {
			return fieldErr("strategy", Single, "needs hardware.count 1 (got %d); use ddp, fsdp, tp or a hybrid layout", n)
		}
		r.plan = Plan{Tensor: 1, Data: 1}
	case DDP, FSDP:
		r.plan = Plan{Tensor: 1, Data: n, DataMode: s.Name}
	case TP:
		r.plan = Plan{Tensor: n, Data: 1}
	case Hybrid:
		if err := checkField("strategy.tensor", s.Tensor); err != nil {
			return err
		}
		if err := checkField("strategy.data", s.Data); err != nil {
			return err
		}
		mode := s.DataMode
		if mode == "" {
			mode = DDP
		}
		if mode != DDP && mode != FSDP {
			return fieldErr("strategy.data_mode", s.DataMode, "must be \"ddp\" or \"fsdp\"")
		}
		c := 1
		if s.Context != 0 {
			if err := checkField("strategy.context", s.Context); err != nil {
				return err
			}
			c = int(s.Context)
		}
		t, d := int(s.Tensor), int(s.Data)
		if c > 1 && t*c*d != n {
			return fieldErr("strategy", fmt.Sprintf("tensor %d × context %d × data %d = %d", t, c, d, t*c*d), "must multiply to hardware.count (%d)", n)
		}
		if t*c*d != n {
			return fieldErr("strategy", fmt.Sprintf("tensor %d × data %d = %d", t, d, t*d), "must multiply to hardware.count (%d)", n)
		}
		r.plan = Plan{Tensor: t, Data: d, DataMode: mode}
		if c > 1 {
			r.plan.Context = c
		}
	default:
		return fieldErr("strategy", s.Name, "must be one of single, ddp, fsdp, tp, or a hybrid object")
	}
	if r.plan.Replicas() == 1 {
		r.plan.DataMode = ""
	}
	r.strategy = s.Name
	if t := r.plan.Tensor; t > 1 {
		field := "strategy.tensor"
		if s.Name == TP {
			field = "hardware.count"
		}
		if t > r.arch.Heads {
			return fieldErr(field, t, "exceeds the model's %d attention heads: tensor parallelism splits heads across ranks", r.arch.Heads)
		}
		if r.arch.Heads%t != 0 {
			return fieldErr(field, t, "must divide the model's %d attention heads", r.arch.Heads)
		}
	}
	return nil
}

// stateBytesPerGPU is the per-GPU memory of weights, gradients and
// optimizer state (frozen weights included), after sharding.
func (r *resolved) stateBytesPerGPU() float64 {
	f, t := r.stateParts()
	return f + t
}

// actBytesPerTokenLayer is 34·d bytes at 16-bit activations
// (Korthikanti et al. 2022, eq. 1 without the attention-score term, which
// flash attention and selective recomputation remove); doubled for fp32/tf32.
func (r *resolved) actBytesPerTokenLayer() float64 {
	f := 1.0
	if r.prec == FP32 || r.prec == TF32 {
		f = 2
	}
	return 34 * float64(r.arch.Hidden) * f
}

// paramTrafficBytes is the device-memory traffic per parameter per optimizer
// step: weights read in the forward and backward passes and gradients
// written and read (8 bytes in mixed precision, 16 in fp32), and the AdamW
// update reading and writing master weights and two moments in fp32
// (24 bytes; scaled by state_bytes_per_param/16 for other optimizers). Under
// fsdp each rank updates only its shard (ZeRO, Rajbhandari et al. 2020), so
// the update's share is divided by the data-parallel degree. The passes
// run for every micro-batch; the update once per optimizer step, so with
// gradient accumulation its share per micro-batch is divided by the
// micro-batches per step.
func (r *resolved) paramTrafficBytes() float64 {
	pass := 8.0
	if r.prec == FP32 || r.prec == TF32 {
		pass = 16
	}
	update := 24.0 * r.state / DefaultStateBytesPerParam
	if r.plan.DataMode == FSDP && r.plan.Replicas() > 1 {
		update /= float64(r.plan.Replicas())
	}
	return pass + update/float64(r.accum)
}

// counts returns the physical per-token FLOPs and bytes of a resolved request.
func (r *resolved) counts() (flopsTok, bytesTok float64) {
	if r.method.name != MethodFull {
		return r.countsPEFT()
	}
	flopsTok = r.fullFLOPsPerToken(r.method.ckpt)
	pass := r.paramTrafficBytes()
	if r.method.ckpt {
		// the recomputed forward pass reads the weights once more
		pass += 2
		if r.prec == FP32 || r.prec == TF32 {
			pass += 2
		}
	}
	bytesTok = r.actTrafficPerToken() + r.params*pass/(float64(r.bat)*float64(r.seq))
	return
}

func (c *Catalog) estimate(r *resolved) (Response, error) {
	g, cal, tc := r.gpu, r.cal, r.timeCal
	rp := tc.Roofline
	warn := append([]string{}, r.warn...)
	assume := append([]string{}, r.assume...)

	flopsTok, bytesTok := r.counts()
	C, M := flopsTok*r.tokens, bytesTok*r.tokens
	bw := g.BandwidthGBs * 1e9
	n := float64(r.count)

	// Roofline on one GPU, then the parallel layout.
	tIdeal := math.Max(C/r.peak, M/bw)
	uComp, uMem, activity := rp.ForPrecision(r.prec)
	uFull := r.expertShare(r.stack.uCompute(r.prec, uComp), flopsTok)
	uComp = r.peftShare(uFull, flopsTok)
	if uComp != uFull {
		assume = append(assume, peftAssumption)
	}
	if r.accum > 1 {
		assume = append(assume, fmt.Sprintf(AccumAssumption, r.accum))
	}
	tComp := C / (r.peak * uComp) * r.attnTimeFactor(flopsTok)
	tMem := r.exposedMem(tComp, M/(bw*uMem))
	// Per-step latency: one GPU doing the whole run takes tokens/(B·S) steps.
	tStep := rp.StepS.Value * r.tokens / (float64(r.bat) * float64(r.seq))
	t1 := tComp + tMem + tStep
	pAvg := g.BusyPowerW(activity)
	// A power limit below the uncapped draw slows the clock (power.go).
	p0 := pAvg
	limTime, limPower, limSigma, err := c.powerFactors(g, r.limitW, p0)
	if err != nil {
		return Response{}, err
	}
	tComp, tMem, tStep, pAvg = tComp*limTime, tMem*limTime, tStep*limTime, pAvg*limPower
	t1 = tComp + tMem + tStep

	sp, eta, commModel, err := r.parallel(tc, t1)
	if err != nil {
		return Response{}, err
	}
	if commModel && r.plan.Data > 1 && r.plan.DataMode == DDP {
		assume = append(assume, DDPAssumption)
	}
	if !commModel && r.count > 1 {
		if w := tc.Speedup[g.Interconnect].Workload; w != nil {
			assume = append(assume, curveWorkloadNote(g.Interconnect, w, r.stepWorkload()))
		}
	}
	alpha, fitted := tc.AlphaEtaFor(g.Interconnect)
	if !fitted {
		alpha = 0
		if r.count > 1 && cal.Kind != KindLogLinear {
			alpha = AlphaEtaFallback
			assume = append(assume, AlphaEtaFallbackNote)
		}
	}
	if cal.Kind == KindLogLinear && cal.Law != nil {
		// The law carries its own α_η: the parallel share and the reported
		// exponent are the calibration's, not the time model's.
		alpha = cal.Law.AlphaEta.Value
	}
	factor := r.etaFactor(alpha, eta)
	tRun := t1 / sp
	overheadS := rp.OverheadS.Value
	e0J := n * g.IdlePowerW * overheadS

	// Step latency is charged to the memory term: it is time the GPU waits
	// at busy power without doing arithmetic (launches, synchronisation).
	compJ, memJ := pAvg*tComp, pAvg*(tMem+tStep)
	waiting := commModel && cal.Kind != KindLogLinear
	parJ, waitW := r.parallelJ(waiting, factor, compJ+memJ, p0, pAvg, t1, eta)
	overhead := OverheadAlphaEta
	if r.count > 1 && waiting {
		factor = 1 + parJ/(compJ+memJ)
		alpha = effectiveAlpha(eta, factor)
		overhead = OverheadWaiting
		assume = append(assume, WaitAssumption)
	} else if r.count <= 1 {
		overhead = ""
	}
	totalJ := compJ + memJ + parJ + e0J
	boundJ := pAvg * tIdeal

	resp := Response{Version: APIVersion, IntervalLevel: cal.Interval.Level}
	kind := cal.Kind
	if kind == KindLogLinear {
		l := cal.Law
		lawC := ComputeProxy(float64(r.arch.Layers), float64(r.arch.Hidden), l.RefTokens)
		lawM := MemoryProxy(float64(r.bat), float64(r.seq), float64(r.arch.Hidden), float64(r.arch.Layers))
		strat := r.strategy
		if strat == Hybrid {
			strat = TP
			assume = append(assume, "hybrid layouts use the law's TP dummy")
		}
		if _, ok := l.LnPsi[strat]; !ok && strat != Single && r.count > 1 {
			assume = append(assume, fmt.Sprintf("the law has no %s dummy; Ψ = 1 used", strat))
		}
		perTokKWh := l.LawEnergyKWh(lawC, lawM, eta, strat, g.ID) / l.RefTokens
		lawJ := perTokKWh * r.tokens * 3.6e6 * limTime * limPower
		if r.method.name != MethodFull || r.method.ckpt {
			// The law is fitted to full fine-tuning: scale it by the
			// roofline's time ratio of this method to full fine-tuning.
			full := *r
			full.method = method{name: MethodFull, trainable: r.params}
			ff, fb := full.counts()
			tcFull := ff * r.tokens / (r.peak * uFull) * full.attnTimeFactor(ff)
			tFull := (tcFull+r.exposedMem(tcFull, fb*r.tokens/(bw*uMem)))*limTime + tStep
			lawJ *= t1 / tFull
			assume = append(assume, fmt.Sprintf("the %s law is fitted to full fine-tuning; its energy is scaled by the roofline time of %s over that of full fine-tuning (%.3g)", cal.Name, r.methodLabel(), t1/tFull))
		}
		if lawJ < boundJ {
			warn = append(warn, fmt.Sprintf("the %s law gives %.3g kWh, below the roofline energy bound of %.3g kWh for this configuration; the bound is reported", cal.Name, lawJ/3.6e6, boundJ/3.6e6))
			lawJ = boundJ
		}
		// Scale the decomposition to the law's total, keeping its shares.
		s := lawJ / totalJ
		compJ, memJ, parJ, e0J = compJ*s, memJ*s, parJ*s, e0J*s
		totalJ = lawJ
		assume = append(assume, fmt.Sprintf("energy from the %s law applied per token (reference %.3g tokens: %s); time from the %s roofline model; breakdown shares from the roofline model", cal.Name, l.RefTokens, l.RefNote, tc.Name))
	}

	timeS := tRun + overheadS
	eKWh := totalJ / 3.6e6
	if kind == KindLogLinear {
		// The law gives energy, the roofline model time: say so when the two
		// disagree so much that the implied power is impossible.
		if p := totalJ / timeS; p < n*g.IdlePowerW {
			warn = append(warn, fmt.Sprintf("the %s law's energy over the roofline time implies %.0f W, below the %.0f W the GPUs draw idle: the law and the time model disagree for this configuration", cal.Name, p, n*g.IdlePowerW))
		} else if p > n*g.BoardPowerW {
			warn = append(warn, fmt.Sprintf("the %s law's energy over the roofline time implies %.0f W, above the %.0f W board power of the GPUs: the law and the time model disagree for this configuration", cal.Name, p, n*g.BoardPowerW))
		}
	}

	// Envelope and interval: the class's held-out quantiles where the
	// calibration carries them, else its σ; both widened for distance
	// beyond the envelope, the power limit's spread and a limit below an
	// estimated minimum.
	outside, envWarn, sigma0, extra, hwWiden := r.envelope(cal, c.calConsts[cal])
	extra = math.Hypot(extra, limSigma)
	if r.belowMin {
		extra = math.Hypot(extra, belowMinSigma(c.Power, g, r.limitW))
	}
	z := c.intervalZ(cal)
	steps := r.microSteps()
	perStep := t1 / steps
	short := r.count == 1 && perStep < ShortStepS
	var inputBound string
	if r.logits {
		inputBound = InputBoundWarning("a student reading cached teacher log-probs", r.tokens, tRun, r.count)
	}
	class := classOf(inputBound != "", short, len(outside) > 0, M/bw > C/r.peak)
	iv := IntervalUsed{Class: class, From: IntervalFromSigma}
	var lo, hi float64
	if q, ok := cal.classQuantiles(class); ok {
		lo, hi = q.Factors(z, extra)
		iv.From, iv.Runs = q.Class, q.Runs
		if class == ClassInputBound {
			// Up to the whole run stretched to the slowest published rate.
			hi = math.Max(hi, inputBoundFactor(r.tokens, tRun, r.count))
			iv.From = ClassInputBound
		}
	} else {
		s := math.Hypot(math.Hypot(sigma0, extra), hwWiden)
		lo, hi = math.Exp(-z*s), math.Exp(z*s)
		iv.Runs = 0
	}
	iv.LowFactor, iv.HighFactor = lo, hi
	if len(outside) > 0 {
		warn = append(warn, envWarn)
	}

	// Memory warnings.
	act := r.actMemPerGPU()
	frozen, trained := r.stateParts()
	state := frozen + trained
	if state+act > g.MemoryGB*1e9 {
		if r.method.ckpt {
			warn = append(warn, fmt.Sprintf("activations (%.1f GB, with checkpointing) plus state (%.1f GB) exceed the %.0f GB of a %s; a smaller batch_per_gpu, packing or fused kernels may still make it fit", act/1e9, state/1e9, g.MemoryGB, g.ID))
		} else {
			warn = append(warn, fmt.Sprintf("activations (%.1f GB) plus state (%.1f GB) exceed the %.0f GB of a %s without activation checkpointing; checkpointing (training.gradient_checkpointing), packing or fused kernels may still make it fit, and recomputation adds about a third to compute", act/1e9, state/1e9, g.MemoryGB, g.ID))
		}
	}
	if r.count > 1 && eta < 0.5 {
		warn = append(warn, fmt.Sprintf("parallel efficiency η = %.2f: more GPUs make this run faster but raise its energy by %.0f%%", eta, (factor-1)*100))
	}
	if r.count > GPUsPerNode && !commModel {
		warn = append(warn, "more than 8 GPUs: the speedup curves were fitted within one node (N ≤ 8); inter-node links are not modelled")
	}
	if short {
		warn = append(warn, shortStepWarning(perStep))
	}
	if inputBound != "" {
		warn = append(warn, inputBound)
	}
	if optSteps := steps / float64(r.accum); optSteps < 100 {
		fewer := "fewer GPUs or a smaller batch_per_gpu"
		if r.accum > 1 {
			fewer = "fewer GPUs, a smaller batch_per_gpu or less gradient_accumulation"
		}
		warn = append(warn, fmt.Sprintf("only %s optimizer steps: the parallel speedup assumes many repeated steps, so with this few the estimate is rough (use %s)", ShortNum(optSteps), fewer))
	}

	pue := r.site.PUE
	resp.EnergyKWh = eKWh
	resp.EnergyIntervalKWh = [2]float64{eKWh * lo, eKWh * hi}
	resp.FacilityEnergyKWh = eKWh * pue
	resp.TrainingEnergyKWh = (totalJ - e0J) / 3.6e6
	resp.TrainingTimeS = tRun
	resp.TimeS = timeS
	resp.TimeIntervalS = [2]float64{timeS * lo, timeS * hi}
	resp.AvgPowerW = totalJ / timeS
	resp.GPUHours = n * timeS / 3600
	resp.CO2eKg = eKWh * pue * r.site.CarbonGPerKWh / 1000
	resp.CO2eIntervalKg = [2]float64{resp.CO2eKg * lo, resp.CO2eKg * hi}
	resp.CostUSD = eKWh * pue * r.site.USDPerKWh
	resp.Embodied = embodiedFor(resp.GPUHours)
	resp.EmbodiedCO2eKg = resp.Embodied.CO2eKg
	resp.PowerLimit = r.powerInfo(c.Power, p0, limTime, limPower, limSigma)
	resp.Breakdown = Breakdown{ComputeKWh: compJ / 3.6e6, MemoryKWh: memJ / 3.6e6, ParallelKWh: parJ / 3.6e6, FixedKWh: e0J / 3.6e6}
	bound := "compute"
	if M/bw > C/r.peak {
		bound = "memory"
	}
	resp.Roofline = Roofline{
		FLOPs: C, Bytes: M, FLOPsPerToken: flopsTok, BytesPerToken: bytesTok,
		ArithmeticIntensity: C / M, MachineBalance: r.peak / bw, Bound: bound,
		PeakTFLOPS:          r.peak / 1e12,
		EpsComputeJPerFLOP:  pAvg / (r.peak * uComp),
		EpsMemoryJPerByte:   pAvg / (bw * uMem),
		TimeLowerBoundS:     tIdeal / n,
		EnergyLowerBoundKWh: boundJ / 3.6e6,
	}
	a := r.arch
	resp.Proxies = Proxies{
		ParamsPaper:          ParamsProxy(float64(a.Layers), float64(a.Hidden), float64(a.FFN)),
		ComputePerTokenPaper: ComputePerTokenProxy(float64(a.Layers), float64(a.Hidden), float64(r.seq)),
		ComputeLaw:           ComputeProxy(float64(a.Layers), float64(a.Hidden), r.tokens),
		MemoryPaper:          MemoryProxy(float64(r.bat), float64(r.seq), float64(a.Hidden), float64(a.Layers)),
		Params:               r.params,
		NonEmbeddingParams:   a.NonEmbeddingParams(),
	}
	lawName := "none (one GPU)"
	if r.count > 1 {
		lawName = c.parallelLaw(tc, g.Interconnect, commModel)
	}
	resp.Parallel = Parallel{GPUs: r.count, Strategy: r.strategy, Tensor: r.plan.Tensor, Data: r.plan.Data, DataMode: r.plan.DataMode, Context: r.plan.Context, Speedup: sp, Efficiency: eta, Law: lawName, AlphaEta: alpha,
		Overhead: overhead, WaitingShare: 1 - eta, WaitingPowerW: waitW, BusyPowerW: pAvg}
	resp.Memory = MemoryUse{StateGBPerGPU: state / 1e9, ActivationGBPerGPU: act / 1e9, CapacityGB: g.MemoryGB, FrozenGBPerGPU: frozen / 1e9, TrainedGBPerGPU: trained / 1e9}
	resp.Training = r.methodUse(flopsTok)
	resp.Calibration = CalUsed{Name: cal.Name, Version: cal.Version, Kind: cal.Kind, Citation: cal.Citation, InEnvelope: len(outside) == 0, Outside: outside, SigmaLn: math.Log(hi/lo) / (2 * z), Interval: iv}
	resp.Inputs = Inputs{Model: r.name, Arch: r.arch, Head: r.head, Tokens: r.tokens, SeqLen: r.seq, BatchPerGPU: r.bat, GradientAccumulation: r.accum, Precision: r.prec, StateBytesPerParam: r.state,
		GPU: g.ID, GPUName: g.Name, Interconnect: string(g.Interconnect), Count: r.count, PowerLimitW: r.limitW, PUE: pue, CarbonGPerKWh: r.site.CarbonGPerKWh, USDPerKWh: r.site.USDPerKWh, Region: r.site.Region,
		Imported: r.imported}
	resp.Assumptions = assume
	resp.Warnings = warn
	if !finiteResponse(&resp) {
		return Response{}, fieldErr("(request)", nil, "gives a result that is not a finite number; check that the values are within physical ranges")
	}
	return resp, nil
}

// AccumAssumption states how gradient accumulation is charged (%d: the
// micro-batches per optimizer step).
const AccumAssumption = "gradient accumulation, %d micro-batches per optimizer step: the optimizer's update (24 bytes of traffic per parameter for AdamW in mixed precision, ZeRO's accounting) and ddp's gradient all-reduce are charged once per optimizer step (PyTorch DDP's no_sync during accumulation, as Hugging Face Accelerate and Trainer use it); weight reads, gradient accumulation, fsdp's gathers and reduce-scatters and the per-step latency for every micro-batch"

// stepWorkload is the run's tokens per GPU per gradient exchange and its
// hidden size: ddp reduces gradients once per optimizer step, so its
// tokens count every accumulated micro-batch; fsdp gathers weights and
// reduces gradients for each micro-batch.
func (r *resolved) stepWorkload() StepWorkload {
	tok := float64(r.bat) * float64(r.seq)
	if r.plan.DataMode != FSDP {
		tok *= float64(r.accum)
	}
	return StepWorkload{Tokens: tok, Hidden: float64(r.arch.Hidden)}
}

// curveWorkloadNote is the assumption of an estimate whose η comes from
// speedup curves moved from their measured workload w to the run's, s.
func curveWorkloadNote(ic Interconnect, w *CurveWorkload, s StepWorkload) string {
	return fmt.Sprintf("parallel efficiency from the %s speedup curves, measured at %s tokens per GPU per step and hidden size %s (%s), moved to this run's %s tokens and hidden size %s: the curves' overhead is scaled by the ratio of communication to compute (data parallel: measured tokens per step ÷ this run's; tensor parallel: measured hidden ÷ this run's; each bounded to ×1/64–×64)",
		ic, fmtCount(w.TokensPerStep), fmtCount(w.Hidden), w.Source, fmtCount(s.Tokens), fmtCount(s.Hidden))
}

// fmtCount writes a count with thousands separators ("16,384").
func fmtCount(x float64) string {
	d := strconv.FormatFloat(math.Round(x), 'f', 0, 64)
	for i := len(d) - 3; i > 0; i -= 3 {
		d = d[:i] + "," + d[i:]
	}
	return d
}

// etaFactor is η^α_η, the factor a parallel layout multiplies the busy
// energy by in the paper's model (1 on one GPU).
func (r *resolved) etaFactor(alpha, eta float64) float64 {
	if r.count <= 1 {
		return 1
	}
	return math.Pow(eta, alpha)
}

// parallelJ is the energy a parallel layout adds to busyJ, the run's busy
// energy, for estimate and leanEstimate alike: with waiting (η from the
// communication-aware model) the waiting GPU-time at the waiting power
// (waiting.go), else busyJ·(factor − 1), factor = etaFactor's η^α_η; p0 and
// pAvg are the busy power without and with the limit, t1 the one-GPU time.
func (r *resolved) parallelJ(waiting bool, factor, busyJ, p0, pAvg, t1, eta float64) (parJ, waitW float64) {
	if waiting && r.count > 1 {
		return waitingEnergy(r.gpu, p0, pAvg, t1, eta)
	}
	return busyJ * (factor - 1), 0
}

// parallel returns the speedup and η of r's layout: from the calibration's
// communication-aware model when it applies to the GPU's interconnect
// class (commModel true), else from its speedup curves. t1 is the one-GPU
// roofline time of the whole run.
func (r *resolved) parallel(tc *Calibration, t1 float64) (speedup, eta float64, commModel bool, err error) {
	if tc.Comm.Applies(r.gpu.Interconnect) {
		steps := r.tokens / (float64(r.bat) * float64(r.seq))
		bytes := 2.0
		if r.prec == FP32 || r.prec == TF32 {
			bytes = 4
		}
		speedup, eta, _ = tc.Comm.Efficiency(r.plan, CommStep{
			ComputeS: t1 / steps, Params: r.params, Layers: float64(r.arch.Layers), Hidden: float64(r.arch.Hidden),
			KVHidden: float64(r.arch.Hidden) * float64(r.arch.kvHeads()) / float64(r.arch.Heads),
			Tokens:   float64(r.bat) * float64(r.seq), GradBytes: bytes, ActBytes: bytes, Links: LinksFor(r.gpu),
			Trainable: r.method.trainable, GatherBytes: r.gatherBytesPerParam(bytes), Accum: float64(r.accum),
		})
		return speedup, eta, true, nil
	}
	speedup, eta, err = tc.Speedup.Efficiency(r.gpu.Interconnect, r.plan, r.stepWorkload())
	return speedup, eta, false, err
}

// envelope lists the dimensions outside the calibration's envelope, the
// warning that names them ("" when none), the calibration's σ and the
// widening for distance beyond the envelope: extra, an ln-space SD, to
// which each numeric dimension outside its range adds
// (WidenPerEFold·|ln(x/edge)|)² in variance, and hw, WidenHardware when the
// calibration was not fitted on the hardware (0 otherwise). Class
// quantiles already hold unfitted hardware (ClassOutside) and take extra
// alone; a σ takes both. Model size is judged by the parameter count alone
// (layers and hidden are reported in the envelope but not counted twice).
//
// Estimates far outside the envelope are common, so the warning is built
// in one allocation and each listed dimension is a substring of it.
func (r *resolved) envelope(cal *Calibration, k *calConsts) (outside []string, warning string, sigma, extra, hw float64) {
	e, sigma := cal.Envelope, cal.Interval.SigmaLn
	v := 0.0
	var buf [256]byte
	items := buf[:0] // the dimensions, "; "-separated
	var spans [5][2]int
	n := 0
	dims := [4]struct {
		name string
		x    float64
		rng  [2]float64
	}{
		{"seq_len", float64(r.seq), e.SeqLen},
		{"batch_per_gpu", float64(r.bat), e.Batch},
		{"gpus", float64(r.count), e.GPUs},
		{"params", r.params, e.Params},
	}
	for _, d := range dims {
		if d.rng[1] == 0 {
			continue
		}
		var edge float64
		switch {
		case d.x < d.rng[0]:
			edge = d.rng[0]
		case d.x > d.rng[1]:
			edge = d.rng[1]
		default:
			continue
		}
		if n > 0 {
			items = append(items, "; "...)
		}
		spans[n][0] = len(items)
		items = append(items, d.name...)
		items = append(items, ' ')
		items = appendShortNum(items, d.x)
		items = append(items, " not in ["...)
		items = k.appendRange(items, d.rng)
		items = append(items, ']')
		spans[n][1] = len(items)
		n++
		k := e.WidenPerEFold * math.Abs(math.Log(d.x/edge))
		v += k * k
	}
	if len(e.Hardware) > 0 {
		found := false
		for _, h := range e.Hardware {
			if h == r.gpu.ID {
				found = true
			}
		}
		if !found {
			if n > 0 {
				items = append(items, "; "...)
			}
			spans[n][0] = len(items)
			items = append(items, "gpu "...)
			items = append(items, r.gpu.ID...)
			items = append(items, " not among "...)
			for i, h := range e.Hardware {
				if i > 0 {
					items = append(items, ", "...)
				}
				items = append(items, h...)
			}
			spans[n][1] = len(items)
			n++
			hw = e.WidenHardware
		}
	}
	if n == 0 {
		return nil, "", sigma, math.Sqrt(v), hw
	}
	const pre, post = "outside the envelope of calibration ", "); the interval is widened"
	warning = pre + cal.Name + " (" + string(items) + post
	head := len(pre) + len(cal.Name) + len(" (")
	outside = make([]string, n)
	for i, sp := range spans[:n] {
		outside[i] = warning[head+sp[0] : head+sp[1]]
	}
	return outside, warning, sigma, math.Sqrt(v), hw
}

// ShortNum prints whole numbers below a million exactly and others to 3
// significant digits; NaN and infinities by name. Messages across the
// project use it so a value reads the same everywhere.
func ShortNum(x float64) string {
	if s, ok := nonFinite(x); ok {
		return s
	}
	if x == math.Trunc(x) && math.Abs(x) < 1e6 {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// appendShortNum appends ShortNum(x) to b.
func appendShortNum(b []byte, x float64) []byte {
	if s, ok := nonFinite(x); ok {
		return append(b, s...)
	}
	if x == math.Trunc(x) && math.Abs(x) < 1e6 {
		return strconv.AppendFloat(b, x, 'f', 0, 64)
	}
	return strconv.AppendFloat(b, x, 'g', 3, 64)
}

func finiteResponse(r *Response) bool {
	return finite(r.EnergyKWh, r.EnergyIntervalKWh[0], r.EnergyIntervalKWh[1], r.TimeS, r.AvgPowerW, r.GPUHours,
		r.CO2eKg, r.CostUSD, r.Breakdown.ComputeKWh, r.Breakdown.MemoryKWh, r.Breakdown.ParallelKWh, r.Breakdown.FixedKWh,
		r.Roofline.ArithmeticIntensity, r.Roofline.EnergyLowerBoundKWh, r.Parallel.Speedup, r.Parallel.Efficiency) &&
		r.EnergyKWh > 0 && r.TimeS > 0 && finite(r.TrainingEnergyKWh, r.TrainingTimeS)
}
