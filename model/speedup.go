package model

import (
	"math"
)

// Speedup-law forms.
const (
	// Saturating is the tensor-parallel law
	// S(N) = 1 + (S∞ − 1)·(1 − exp(−k·(N − 1))).
	// S∞ < 1 is allowed: tensor parallelism slower than one GPU, as measured
	// on RTX 2080 Ti over PCIe.
	Saturating = "saturating"
	// Amdahl is the generalised Amdahl law used for FSDP and data parallelism,
	// S(N) = N / (N·(1 − p) + p + σ·(N − 1)^γ),
	// i.e. 1/S = (1 − p) + p/N + σ·(N − 1)^γ/N: a serial share 1 − p and a
	// synchronisation overhead, relative to the per-GPU step, that grows as
	// (N − 1)^γ. With the published points γ comes out near 0.25 on both
	// PCIe RTX 2080 Ti and NVLink A100.
	Amdahl = "amdahl"
)

// SpeedupLaw is one fitted speedup curve S(N) = T₁/T_N.
type SpeedupLaw struct {
	Form  string  `json:"form"`            // Saturating or Amdahl
	SInf  float64 `json:"s_inf,omitempty"` // saturating: asymptotic speedup
	K     float64 `json:"k,omitempty"`     // saturating: rate per added GPU
	P     float64 `json:"p,omitempty"`     // amdahl: parallel fraction in (0, 1]
	Sigma float64 `json:"sigma,omitempty"` // amdahl: overhead scale
	Gamma float64 `json:"gamma,omitempty"` // amdahl: overhead growth exponent
	// SE holds the standard errors of the fitted parameters by name; a
	// parameter missing here was fixed, not fitted.
	SE     map[string]float64 `json:"se,omitempty"`
	Points []SpeedupPoint     `json:"points,omitempty"` // the measurements it was fitted to
	Source string             `json:"source"`           // what it was fitted to, or why it is assumed
}

// SpeedupPoint is one measured (N, S) pair.
type SpeedupPoint struct {
	N float64 `json:"n"`
	S float64 `json:"s"`
}

// Speedup returns S(n) for n ≥ 1 GPUs; S(1) = 1.
func (l SpeedupLaw) Speedup(n float64) float64 {
	if n <= 1 {
		return 1
	}
	switch l.Form {
	case Saturating:
		return 1 + (l.SInf-1)*(1-math.Exp(-l.K*(n-1)))
	case Amdahl:
		p := l.P
		if p == 0 {
			p = 1
		}
		return n / (n*(1-p) + p + l.Sigma*math.Pow(n-1, l.Gamma))
	}
	return math.NaN()
}

// Efficiency returns η = S(n)/n, capped at 1; η(1) = 1.
func (l SpeedupLaw) Efficiency(n float64) float64 {
	if n <= 1 {
		return 1
	}
	return math.Min(1, l.Speedup(n)/n)
}

// Validate checks that the parameters give a finite, positive speedup.
func (l SpeedupLaw) Validate() error {
	switch l.Form {
	case Saturating:
		if !(l.SInf > 0) || !(l.K > 0) || math.IsInf(l.SInf, 0) || math.IsInf(l.K, 0) {
			return msgErr(CodeLawSaturating, Args{{Name: "s_inf", Num: l.SInf}, {Name: "k", Num: l.K}})
		}
	case Amdahl:
		if l.P < 0 || l.P > 1 || l.Sigma < 0 || l.Gamma < 0 || math.IsNaN(l.Sigma) || math.IsNaN(l.Gamma) || math.IsInf(l.Sigma, 0) || math.IsInf(l.Gamma, 0) {
			return msgErr(CodeLawAmdahl, Args{{Name: "p", Num: l.P}, {Name: "sigma", Num: l.Sigma}, {Name: "gamma", Num: l.Gamma}})
		}
	default:
		return msgErr(CodeLawForm, Args{{Name: "form", Str: string(l.Form)}, {Name: "saturating", Str: string(Saturating)}, {Name: "amdahl", Str: string(Amdahl)}})
	}
	return nil
}

// SpeedupSet holds the curves for one interconnect class.
type SpeedupSet struct {
	TP   SpeedupLaw `json:"tp"`
	FSDP SpeedupLaw `json:"fsdp"`
	DDP  SpeedupLaw `json:"ddp"`
	// Workload is the workload the curves' points were measured on; nil =
	// the curves apply as they are to every workload (the paper's model).
	Workload *CurveWorkload `json:"workload,omitempty"`
}

// CurveWorkload is the workload of a class's published speedup points.
// With it, the curves are moved to a run's own workload by the ratio of
// communication to compute, which is what sets parallel overhead (as in
// the communication-aware model, CommParams): a data-parallel step moves
// bytes in proportion to the parameters and computes in proportion to
// parameters × tokens per GPU per step, so its overhead relative to the
// step scales as TokensPerStep / the run's tokens per GPU per step; a
// tensor-parallel step moves activations (tokens × hidden × layers) and
// computes about tokens × 12·layers·hidden², so its overhead scales as
// Hidden / the run's hidden size. The GPU's ratio of FLOP/s to link
// bandwidth is taken as the measured setup's. The curve's overhead
// o = 1/η − 1 at the run's GPU count becomes o·ρ (StepWorkload.ratios).
type CurveWorkload struct {
	TokensPerStep float64 `json:"tokens_per_step"` // tokens per GPU per optimizer step
	Hidden        float64 `json:"hidden"`          // model width
	Source        string  `json:"source"`
}

// StepWorkload is a run's tokens per GPU per step and hidden size, for
// moving speedup curves to it (CurveWorkload); zero values leave the
// curves as they are.
type StepWorkload struct {
	Tokens, Hidden float64
}

// Overhead ratios are bounded: a workload more than 64 times lighter or
// heavier than the measured one per step is outside what a proportional
// argument can carry.
const maxOverheadRatio = 64.0

// ratios returns the data- and tensor-parallel overhead ratios ρ of w
// against the measured workload ref (1 when either is unknown).
func (w StepWorkload) ratios(ref *CurveWorkload) (dp, tp float64) {
	dp, tp = 1, 1
	if ref == nil {
		return
	}
	clamp := func(x float64) float64 { return math.Min(maxOverheadRatio, math.Max(1/maxOverheadRatio, x)) }
	if w.Tokens > 0 && ref.TokensPerStep > 0 {
		dp = clamp(ref.TokensPerStep / w.Tokens)
	}
	if w.Hidden > 0 && ref.Hidden > 0 {
		tp = clamp(ref.Hidden / w.Hidden)
	}
	return
}

// rescaled is the speedup s of n GPUs with its overhead o = n/s − 1
// multiplied by rho; a speedup at or above n (no overhead) stays.
func rescaled(s, n, rho float64) float64 {
	if n <= 1 || s >= n || rho == 1 {
		return s
	}
	return n / (1 + (n/s-1)*rho)
}

// Speedups maps an interconnect class to its curves.
type Speedups map[Interconnect]SpeedupSet

// Plan is a parallel layout resolved against a GPU count.
type Plan struct {
	Tensor   int    `json:"tensor"`    // tensor-parallel degree
	Data     int    `json:"data"`      // data-parallel degree
	DataMode string `json:"data_mode"` // "ddp" or "fsdp" for the data dimension; "" when Data = 1
	// Context is the context-parallel degree (each sequence split over
	// this many GPUs, ring attention); 0 or 1 = none.
	Context int `json:"context,omitempty"`
}

// Ctx is the context-parallel degree, at least 1.
func (p Plan) Ctx() int {
	if p.Context < 1 {
		return 1
	}
	return p.Context
}

// Group is the GPUs that share one data-parallel rank's micro-batch:
// tensor × context.
func (p Plan) Group() int { return p.Tensor * p.Ctx() }

// Replicas is the ranks that hold the same weights and reduce their
// gradients together: data × context (context ranks hold whole layers).
func (p Plan) Replicas() int { return p.Data * p.Ctx() }

// Efficiency returns the combined speedup S = S_TP(tensor)·S_DP(data) and
// η = S/N for the plan on interconnect class ic. The two dimensions are
// treated as independent (an assumption: tensor ranks inside a node, data
// ranks across them).
//
// When the class's curves carry the workload they were measured on, each
// dimension's overhead is moved to w (CurveWorkload).
func (s Speedups) Efficiency(ic Interconnect, p Plan, w StepWorkload) (speedup, eta float64, err error) {
	set, ok := s[ic]
	if !ok {
		return 0, 0, msgErr(CodeSpeedupNoCurves, Args{{Name: "interconnect", Str: string(ic)}})
	}
	rdp, rtp := w.ratios(set.Workload)
	sp := 1.0
	if p.Tensor > 1 {
		n := float64(p.Tensor)
		sp *= rescaled(set.TP.Speedup(n), n, rtp)
	}
	if p.Replicas() > 1 {
		law := set.DDP
		if p.DataMode == "fsdp" {
			law = set.FSDP
		}
		// context ranks split the sequences as data ranks split the batch
		n := float64(p.Replicas())
		sp *= rescaled(law.Speedup(n), n, rdp)
	}
	n := float64(p.Tensor * p.Replicas())
	eta = math.Min(1, sp/n)
	return sp, eta, nil
}

// GPUsPerNode is the size of the fast-link domain assumed for a layout: a
// collective over at most this many GPUs runs on the intra-node link
// (NVLink, NVSwitch, ICI), a larger one on the cluster network.
const GPUsPerNode = 8

// CommParams is the communication-aware parallel model. It replaces the
// published speedup curves for the interconnect classes in Classes, whose
// curves were fitted within one node on small fine-tuning workloads and
// cannot be extrapolated to multi-node training.
//
// Per optimizer step and GPU, compute takes t_c (the one-GPU roofline time
// of the GPU's B·S tokens), and the collectives move
//
//	data parallel:   m·(d − 1)/d · (P/t) · g bytes  (m = 2 ddp all-reduce, 3 fsdp: two all-gathers and a reduce-scatter)
//	tensor parallel: 4·L · 2(t − 1)/t · (B·t·S·h) · a bytes  (two all-reduces forward and two backward per block)
//
// with P parameters, g gradient and a activation bytes per element, over
// the intra-node link when the group fits in one node and the per-GPU
// cluster-network bandwidth otherwise. Each collective also costs a fixed
// latency (launch, rank synchronisation, framework hooks): fsdp issues
// 3·L collectives per step, tensor parallelism 4·L, and both sit on the
// step's critical path (a layer cannot run before its weights are gathered
// or its activations reduced). ddp's all-reduces do not: it groups the
// gradients into buckets (25 MB by default) and launches each bucket's
// all-reduce, on its own stream, as soon as the backward pass has produced
// it, so every bucket but the last overlaps the rest of the backward pass
// and only the last one's latency lengthens the step (Li et al., "PyTorch
// Distributed: Experiences on Accelerating Data Parallel Training", PVLDB
// 13(12), 2020, arXiv 2006.15704: gradient bucketing and overlapping
// computation with communication; PyTorch's DDP design note; Megatron-Core's
// DistributedDataParallel does the same); ddp is charged one collective per
// step.
// The exposed shares of the transfers (not hidden behind compute) and the
// latencies on the critical path lengthen the step:
//
//	1/η = 1 + (Exposed·t_dp + ExposedTP·t_tp + LatencyS·collectives)/t_c
//
// so η depends on the workload's communication-to-compute ratio (tokens
// per GPU per step, bandwidth against peak FLOP/s), not on the GPU count
// alone; beyond one node it is nearly independent of the count.
type CommParams struct {
	// Exposed is the share of data-parallel communication time not
	// overlapped with the backward pass, ≥ 0.
	Exposed Coefficient `json:"exposed"`
	// ExposedTP is the share of tensor-parallel communication time on the
	// critical path, ≥ 0.
	ExposedTP Coefficient `json:"exposed_tp"`
	// LatencyS is the fixed cost of one collective, seconds, ≥ 0.
	LatencyS Coefficient `json:"latency_s"`
	// Classes lists the interconnect classes the model applies to; others
	// keep their speedup curves.
	Classes []Interconnect `json:"classes"`
	Source  string         `json:"source"`
}

// Applies reports whether the model replaces the curves for class ic.
func (c *CommParams) Applies(ic Interconnect) bool {
	if c == nil {
		return false
	}
	for _, x := range c.Classes {
		if x == ic {
			return true
		}
	}
	return false
}

// Validate checks the parameters.
func (c *CommParams) Validate() error {
	if !(c.Exposed.Value >= 0 && c.Exposed.Value <= 10) || !(c.ExposedTP.Value >= 0 && c.ExposedTP.Value <= 10) {
		return msgErr(CodeCommExposed, Args{{Name: "exposed", Num: c.Exposed.Value}, {Name: "exposed_tp", Num: c.ExposedTP.Value}})
	}
	if !(c.LatencyS.Value >= 0 && c.LatencyS.Value <= 1) {
		return msgErr(CodeCommLatency, Args{{Name: "latency_s", Num: c.LatencyS.Value}})
	}
	for _, ic := range c.Classes {
		if ic != PCIe && ic != NVLink {
			return msgErr(CodeCommClass, Args{{Name: "class", Str: string(ic)}})
		}
	}
	return nil
}

// DDPSource is the citation for charging ddp one collective latency per
// step: its gradient buckets are all-reduced during the backward pass.
const DDPSource = "Li et al., PyTorch Distributed: Experiences on Accelerating Data Parallel Training, PVLDB 13(12) 2020, arXiv 2006.15704 (gradient buckets all-reduced while the backward pass continues)"

// DDPAssumption is the assumption an answer lists when the communication
// model prices a ddp layout. A constant, so that an estimate allocates
// nothing for it.
const DDPAssumption = "ddp: each gradient bucket's all-reduce starts while the backward pass continues, so only the last bucket's collective latency lengthens a step, and the transfers' exposed share is the calibration's (" + DDPSource + ")"

// CommStep describes one optimizer step of one GPU, what the
// communication-aware model needs.
type CommStep struct {
	ComputeS  float64 // one-GPU roofline time of the GPU's B·S tokens, seconds
	Params    float64 // model parameters
	Layers    float64
	Hidden    float64
	Tokens    float64 // B·S, tokens per GPU per step
	GradBytes float64 // bytes per gradient element communicated
	ActBytes  float64 // bytes per activation element communicated
	Links     Links
	// Trainable is the parameters whose gradients are reduced; 0 = Params
	// (full fine-tuning). LoRA reduces its adapters' gradients only.
	Trainable float64
	// GatherBytes is the average bytes per parameter an fsdp all-gather
	// moves; 0 = GradBytes. A frozen quantised base is gathered at its
	// storage format.
	GatherBytes float64
	// KVHidden is the key/value width (grouped-query attention:
	// Hidden × KVHeads / Heads); 0 = Hidden.
	KVHidden float64
	// Accum is the micro-batches per optimizer step; 0 = 1. ddp's
	// all-reduce runs once per optimizer step (PyTorch DDP's no_sync
	// during accumulation, which Hugging Face Accelerate and Trainer use),
	// so each micro-batch carries 1/Accum of it. fsdp is charged its
	// gathers and reduce-scatters for every micro-batch, as DeepSpeed
	// ZeRO-3 runs them and as FSDP does unless no_sync holds the full
	// unsharded gradients in memory.
	Accum float64
}

// CommTimes is the per-step communication the model charges.
type CommTimes struct {
	DataS       float64 `json:"data_s"`      // data-parallel transfers, seconds per step
	ContextS    float64 `json:"context_s"`   // context-parallel (ring attention) transfers per GPU, seconds per step
	TensorS     float64 `json:"tensor_s"`    // tensor-parallel transfers, seconds per step
	Collectives float64 `json:"collectives"` // collectives per step on the critical path, each charged LatencyS (ddp: 1, the last bucket)
}

// Efficiency returns S = N·η and η for plan p.
func (c *CommParams) Efficiency(p Plan, s CommStep) (speedup, eta float64, t CommTimes) {
	n := p.Tensor * p.Replicas()
	if n <= 1 || !(s.ComputeS > 0) {
		return 1, 1, t
	}
	intra, inter := s.Links.IntraGBs*1e9, s.Links.InterGBs*1e9
	if d := p.Replicas(); d > 1 {
		train, gather := s.Trainable, s.GatherBytes
		if train == 0 {
			train = s.Params
		}
		if gather == 0 {
			gather = s.GradBytes
		}
		share := float64(d-1) / float64(d) / float64(p.Tensor)
		var vol float64
		if p.DataMode == FSDP {
			// all-gather of the weights in the forward and backward
			// passes, reduce-scatter of the trained parameters' gradients
			vol = share * (2*s.Params*gather + train*s.GradBytes)
			t.Collectives += 3 * s.Layers
		} else {
			// all-reduce (reduce-scatter plus all-gather) of the gradients,
			// bucket by bucket during the backward pass: only the last
			// bucket's latency is on the critical path (DDPSource)
			acc := math.Max(1, s.Accum)
			vol = share * 2 * train * s.GradBytes / acc
			t.Collectives += 1 / acc
		}
		bw := intra
		if n > GPUsPerNode {
			bw = inter // the data-parallel ring crosses nodes
		}
		t.DataS = vol / bw
	}
	if c := p.Ctx(); c > 1 {
		// ring attention: each layer passes its chunk's keys and values
		// (the tensor rank's share of the key/value width) around the c
		// ranks, c − 1 steps forward and, with their gradients, twice that
		// backward; each step's send and receive hold the layer like a
		// collective, and the transfers overlap the attention compute as
		// the data-parallel ones overlap the backward pass (Exposed)
		kv := s.KVHidden
		if kv == 0 {
			kv = s.Hidden
		}
		vol := 3 * s.Layers * float64(c-1) * 2 * s.Tokens / float64(c) * kv / float64(p.Tensor) * s.ActBytes
		t.Collectives += 2 * s.Layers * float64(c-1)
		bw := intra
		if p.Group() > GPUsPerNode {
			bw = inter
		}
		t.ContextS = vol / bw
	}
	if tp := p.Tensor; tp > 1 {
		vol := 4 * s.Layers * 2 * float64(tp-1) / float64(tp) * s.Tokens * float64(tp) * s.Hidden * s.ActBytes
		t.Collectives += 4 * s.Layers
		bw := intra
		if tp > GPUsPerNode {
			bw = inter
		}
		t.TensorS = vol / bw
	}
	// ComputeS is the one-GPU time of a data-parallel rank's micro-batch;
	// its tensor × context group of g GPUs shares it, so each GPU
	// computes ComputeS/g, and a transfer each GPU makes of its own shard
	// (DataS, ContextS) or a latency every GPU waits for weighs g times
	// more against it. TensorS, written for the group's B·t·S tokens,
	// already carries the tensor factor, and a context rank's tensor
	// group carries 1/c of the tokens on 1/c of the compute.
	tf := float64(p.Group())
	inv := 1 + (tf*c.Exposed.Value*(t.DataS+t.ContextS)+c.ExposedTP.Value*t.TensorS+tf*c.LatencyS.Value*t.Collectives)/s.ComputeS
	eta = 1 / inv
	return float64(n) * eta, eta, t
}

// Links is an accelerator's per-GPU link bandwidths, one direction, GB/s.
type Links struct {
	IntraGBs float64 `json:"intra_gb_s"` // within a node (NVLink, NVSwitch, ICI, PCIe)
	InterGBs float64 `json:"inter_gb_s"` // cluster network per GPU in the reference system
	Source   string  `json:"source"`
}

// linkTable holds the per-GPU bandwidths of each part in its reference
// system. Intra-node figures are per direction; inter-node figures are the
// reference system's compute-fabric bandwidth divided by its GPUs.
var linkTable = map[string]Links{
	"v100-sxm2-16gb": {150, 6.25, "NVLink 150 GB/s per direction (NVIDIA V100 datasheet); DGX-1: 4 × 100 Gb/s InfiniBand EDR for 8 GPUs"},
	"v100-sxm2-32gb": {150, 6.25, "NVLink 150 GB/s per direction (NVIDIA V100 datasheet); DGX-1: 4 × 100 Gb/s InfiniBand EDR for 8 GPUs"},
	"a100-sxm4-40gb": {300, 25, "NVLink 600 GB/s total (hardware table); DGX A100: 8 × 200 Gb/s InfiniBand HDR, one per GPU"},
	"a100-sxm4-80gb": {300, 25, "NVLink 600 GB/s total (hardware table); DGX A100: 8 × 200 Gb/s InfiniBand HDR, one per GPU"},
	"h100-sxm5":      {450, 50, "NVLink 900 GB/s total (hardware table); DGX H100: 8 × 400 Gb/s InfiniBand NDR, one per GPU"},
	"h200-sxm":       {450, 50, "NVLink 900 GB/s total; HGX H200 with 8 × 400 Gb/s InfiniBand NDR, one per GPU"},
	"b200":           {900, 50, "NVLink 5, 1.8 TB/s total; HGX B200 with 8 × 400 Gb/s networking, one per GPU"},
	"tpu-v3":         {70, 70, "TPU v3 inter-chip interconnect: 4 links of about 70 GB/s per chip; pods span hosts on the same 2-D torus (Jouppi et al., CACM 2020)"},
	"tpu-v4":         {135, 135, "TPU v4 inter-chip interconnect: 6 links of about 45 GB/s per direction per chip, 3-D torus across the pod (Jouppi et al., ISCA 2023)"},
}

// LinksFor returns g's link bandwidths: the table entry for its id, or a
// conservative default for its interconnect class (PCIe 4.0 x16 and a
// 100 Gb/s network per GPU; NVLink 3 and 200 Gb/s per GPU).
func LinksFor(g *GPU) Links {
	if l, ok := linkTable[g.ID]; ok {
		return l
	}
	if g.Interconnect == PCIe {
		return Links{32, 12.5, "class default: PCIe 4.0 x16 (32 GB/s per direction), 100 Gb/s network per GPU"}
	}
	return Links{300, 25, "class default: NVLink 3 (300 GB/s per direction), 200 Gb/s network per GPU"}
}
