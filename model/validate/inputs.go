package validate

import (
	"fmt"
	"math"

	"github.com/wattscale/wattscale/model"
)

// NominalCount is the accelerator count assumed for a multi-node run whose
// source does not report one (the Meta model cards and the OLMo 2 paper
// give GPU-hours or energy only). Beyond one node the estimate depends on
// the count only through (d − 1)/d of the ring collectives, so any count of
// a few hundred to several thousand gives nearly the same energy
// (TestNominalCountInsensitive bounds the difference).
const NominalCount = 1024

// Inputs is a run turned into a wattscale request.
type Inputs struct {
	Request model.Request `json:"request"`
	// Assumed lists every input the source does not state, with the rule
	// that filled it.
	Assumed []string `json:"assumed,omitempty"`
	// CountAssumed is true when Request.Hardware.Count is NominalCount.
	CountAssumed bool `json:"count_assumed,omitempty"`
	// Skip says why the run cannot be given to wattscale ("" = it can).
	Skip string `json:"skip,omitempty"`
	// Arch is the resolved shape (after the MoE and encoder-decoder mappings).
	Arch model.Arch `json:"arch"`
}

// Inputs builds the wattscale request for a run. Missing inputs are filled
// by documented rules that use the run's configuration only, never its
// energy: precision from the accelerator, a batch of one sequence, a
// nominal count for multi-node runs, a data-parallel layout that fits in
// memory. A run that cannot be represented gets Skip.
func (r Run) Inputs(presets []model.Preset, hw *model.Hardware) Inputs {
	var in Inputs
	g, err := hw.Lookup(r.GPU)
	if err != nil {
		in.Skip = fmt.Sprintf("unknown accelerator %q", r.GPU)
		return in
	}
	if r.Stage == "teacher" {
		in.Skip = "teacher inference stage (forward passes only); the training estimator does not apply"
		return in
	}
	if r.SeqLen == 0 {
		in.Skip = "no sequence length in the source"
		return in
	}
	req := &in.Request
	req.Model.Head = "lm"
	hasShape := r.Layers != 0
	var arch model.Arch
	switch {
	case hasShape:
		if r.Hidden == 0 || r.Heads == 0 || r.FFN == 0 || r.Vocab == 0 {
			in.Skip = "incomplete shape (layers, hidden, heads, ffn and vocab are all needed)"
			return in
		}
		arch = model.Arch{Layers: r.Layers, Hidden: r.Hidden, Heads: r.Heads, KVHeads: r.KVHeads, FFN: r.FFN, Vocab: r.Vocab, GLU: r.GLU == "yes"}
	default:
		p, err := model.FindPreset(presets, r.Model)
		if err != nil {
			in.Skip = fmt.Sprintf("model %q is not a preset and no shape is given", r.Model)
			return in
		}
		arch = p.Arch
	}
	if r.MoETopK > 0 {
		// The table gives the total parameters and one expert's width; the
		// expert count is what makes up the total.
		arch.ExpertsPerToken = r.MoETopK
		e := expertsFromTotal(arch, r.Params)
		if e < r.MoETopK {
			in.Skip = fmt.Sprintf("mixture of experts: the stated %.3g parameters leave fewer experts than the %d each token uses", r.Params, r.MoETopK)
			return in
		}
		arch.Experts = e
		in.Assumed = append(in.Assumed, fmt.Sprintf("mixture of experts: %d experts of width %d (from the stated %.3g total parameters), %d per token", e, r.FFN, r.Params, r.MoETopK))
	}
	if r.EncDec {
		if arch.Layers%2 != 0 {
			in.Skip = "encoder-decoder with an odd layer count"
			return in
		}
		arch.Layers /= 2
		in.Assumed = append(in.Assumed, "encoder-decoder: each token passes through one of the two stacks, scored as one stack of layers/2 (cross-attention not counted)")
	}
	req.Model = model.ModelSpec{Layers: float64(arch.Layers), Hidden: float64(arch.Hidden), Heads: float64(arch.Heads), KVHeads: float64(arch.KVHeads),
		FFN: float64(arch.FFN), Vocab: float64(arch.Vocab), GLU: arch.GLU, Experts: float64(arch.Experts), ExpertsPerToken: float64(arch.ExpertsPerToken), Head: "lm"}
	if r.Head != "" {
		req.Model.Head = r.Head
	}
	in.Arch = arch

	req.Training = model.TrainingSpec{Tokens: r.Tokens, SeqLen: float64(r.SeqLen), BatchPerGPU: float64(r.BatchPerGPU), Precision: r.Precision}
	if r.Method != model.MethodFull {
		req.Training.Method = r.Method
		in.Assumed = append(in.Assumed, fmt.Sprintf("%s adapters, rank and checkpointing not in the table: the method's defaults (listed in the estimate's assumptions)", r.Method))
	}
	if r.Stack == model.StackOptimised {
		req.Training.Stack = r.Stack
	}
	if r.StateBytes != 0 {
		req.Training.StateBytesPerParam = r.StateBytes
	}
	if r.GradAccum != 0 {
		req.Training.GradientAccumulation = float64(r.GradAccum)
	}
	req.Training.TeacherLogits = r.TeacherLogits == "yes"
	if r.Checkpointing != "" {
		on := r.Checkpointing == "yes"
		req.Training.GradientCheckpointing = &on
	}
	if r.BatchPerGPU == 0 {
		req.Training.BatchPerGPU = 1
		in.Assumed = append(in.Assumed, "batch per GPU not stated: 1 sequence")
	}
	if r.Precision == "" {
		req.Training.Precision = g.DefaultPrecision()
		in.Assumed = append(in.Assumed, fmt.Sprintf("precision not stated: %s (%s)", req.Training.Precision, model.DefaultPrecisionRule))
	}

	req.Hardware = model.HardwareSpec{GPU: g.ID, Count: float64(r.Count)}
	if r.Count == 0 {
		req.Hardware.Count = NominalCount
		in.CountAssumed = true
		in.Assumed = append(in.Assumed, fmt.Sprintf("GPU count not reported: %d (multi-node; the estimate barely depends on it)", NominalCount))
	}
	n := int(req.Hardware.Count)
	state := model.DefaultStateBytesPerParam * arch.Params()
	if r.StateBytes != 0 {
		state = r.StateBytes * arch.Params()
	}
	switch r.Method {
	case model.MethodLoRA:
		state = 2 * arch.Params() // a 16-bit frozen base; the adapters are small
	case model.MethodQLoRA:
		state = 0.6 * arch.Params() // a 4-bit base with its constants, 16-bit embeddings and adapters
	}
	fits := func(shards int) bool { return state/float64(shards) <= g.MemoryGB*1e9 }
	switch r.Strategy {
	case model.Hybrid:
		c := max(1, r.Context)
		if n%(r.Tensor*c) != 0 {
			in.Skip = fmt.Sprintf("tensor × context degree %d does not divide the count %d", r.Tensor*c, n)
			return in
		}
		mode := model.DDP
		if !fits(r.Tensor) {
			mode = model.FSDP
			in.Assumed = append(in.Assumed, "data-parallel mode not stated: fsdp (the replicated state would not fit)")
		}
		req.Strategy = model.Strategy{Name: model.Hybrid, Tensor: float64(r.Tensor), Data: float64(n / (r.Tensor * c)), DataMode: mode}
		if c > 1 {
			req.Strategy.Context = float64(c)
		}
	case "":
		switch {
		case n == 1:
			req.Strategy = model.Strategy{Name: model.Single}
		case fits(1):
			req.Strategy = model.Strategy{Name: model.DDP}
			in.Assumed = append(in.Assumed, "parallel layout not stated: ddp (the state fits on one GPU)")
		default:
			req.Strategy = model.Strategy{Name: model.FSDP}
			in.Assumed = append(in.Assumed, "parallel layout not stated: fsdp (the state does not fit on one GPU)")
		}
	default:
		req.Strategy = model.Strategy{Name: r.Strategy}
	}
	// Facility figures are compared after multiplying by the run's own PUE,
	// so the request's site block only echoes it.
	req.Site = model.SiteSpec{PUE: r.PUE, CarbonGPerKWh: model.DefaultCarbonGPerKWh, USDPerKWh: model.DefaultUSDPerKWh}
	return in
}

// expertsFromTotal is the expert count that brings a mixture-of-experts
// shape (one expert's width in a.FFN) closest to total parameters: the
// embeddings and attention are fixed, each expert adds one feed-forward
// block and a router column per layer.
func expertsFromTotal(a model.Arch, total float64) int {
	one := a
	one.Experts, one.ExpertsPerToken = 1, 1
	two := a
	two.Experts, two.ExpertsPerToken = 2, 1
	per := two.Params() - one.Params()
	fixed := one.Params() - per
	return int(math.Round((total - fixed) / per))
}
