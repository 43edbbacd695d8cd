package model

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
	// start-up (breakdown_kwh.fixed), with the first steps' warm-up
	// (breakdown_kwh.warmup, inside the training window): what a meter
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
	// AssumptionMessages are Assumptions as data (Message), in the same
	// order; CodeNote marks a sentence not yet coded.
	AssumptionMessages []Message `json:"assumption_messages"`
	Warnings           []string  `json:"warnings"`
	// WarningMessages are Warnings as data, in the same order: each one's
	// code, field and values (Message).
	WarningMessages []Message `json:"warning_messages"`

	// EmbodiedCO2eKg is the manufacturing emissions of the hardware charged
	// to the run's GPU-hours (Embodied says how); beside CO2eKg, not in it.
	EmbodiedCO2eKg float64        `json:"embodied_co2e_kg"`
	Embodied       Embodied       `json:"embodied"`
	PowerLimit     PowerLimitInfo `json:"power_limit"`
}

// Breakdown splits EnergyKWh: compute and memory terms of the single-GPU
// roofline decomposition, the GPUs' wait for their hosts (hoststep.go),
// parallel overhead (energy above one GPU doing the same work), the first
// steps' warm-up inside the training window (warmup.go) and the fixed
// start-up energy E₀ before it. They sum to EnergyKWh.
type Breakdown struct {
	ComputeKWh float64 `json:"compute"`
	MemoryKWh  float64 `json:"memory"`
	// HostWaitKWh is the GPUs' energy while they wait for their hosts to
	// launch a step's kernels (hoststep.go); added in version 1.
	HostWaitKWh float64 `json:"host_wait"`
	ParallelKWh float64 `json:"parallel_overhead"`
	WarmupKWh   float64 `json:"warmup"`
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
	// OutsideMessages are Outside as data (CodeEnvelopeRange: dim, x,
	// low, high; CodeEnvelopeGPU: gpu, among).
	OutsideMessages []Message `json:"outside_messages,omitempty"`
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

func finiteResponse(r *Response) bool {
	return finite(r.EnergyKWh, r.EnergyIntervalKWh[0], r.EnergyIntervalKWh[1], r.TimeS, r.AvgPowerW, r.GPUHours,
		r.CO2eKg, r.CostUSD, r.Breakdown.ComputeKWh, r.Breakdown.MemoryKWh, r.Breakdown.HostWaitKWh, r.Breakdown.ParallelKWh, r.Breakdown.WarmupKWh, r.Breakdown.FixedKWh,
		r.Roofline.ArithmeticIntensity, r.Roofline.EnergyLowerBoundKWh, r.Parallel.Speedup, r.Parallel.Efficiency) &&
		r.EnergyKWh > 0 && r.TimeS > 0 && finite(r.TrainingEnergyKWh, r.TrainingTimeS)
}
