package model

// Mixture of experts: a token's FLOPs count only the experts it is routed
// to (Arch.ActiveNonEmbeddingParams), but those matmuls run slower than a
// dense block's: the router, the permutation of tokens to experts and back,
// the all-to-all of expert parallelism, uneven expert loads and small
// grouped GEMMs all sit on their path. One published pair measures the
// whole effect on one cluster and software stack: DeepSeek-V2 (236B total,
// 21B active; DeepSeek-AI 2024, arXiv 2405.04434) needed
// 172.8K H800 GPU-hours per trillion tokens and the dense DeepSeek 67B
// 300.6K, so at 6·N_active FLOPs per token the MoE reaches 0.55 of the
// dense model's MFU. With the experts doing half of DeepSeek-V2's FLOPs per
// token (2 shared and 6 of 160 routed experts of width 1,536 in 59 of 60
// blocks, d = 5,120, sequence 4,096), 1/0.55 = 0.5 + 0.5/e gives e ≈ 0.38:
// the expert matmuls' fraction of a dense matmul's rate.
const (
	ExpertEfficiency = 0.38
	ExpertSource     = "DeepSeek-V2 (DeepSeek-AI 2024, arXiv 2405.04434): 172.8K H800 GPU-hours per trillion tokens at 21B active parameters against 300.6K for the dense DeepSeek 67B on the same cluster, 0.55 of the dense MFU"
)

// expertFLOPsPerToken is the training FLOPs per token of the expert
// matmuls: 2 per weight and pass over the experts a token is routed to,
// three passes for full fine-tuning (forward, activation and weight
// gradients), two for lora and qlora (frozen experts), one more forward
// under checkpointing.
func (r *resolved) expertFLOPsPerToken() float64 {
	a := r.arch
	if !a.MoE() {
		return 0
	}
	passes := 3.0
	if r.method.name != MethodFull {
		passes = 2
	}
	if r.method.ckpt {
		passes++
	}
	return 2 * passes * float64(a.Layers) * float64(a.ExpertsPerToken) * a.mlpParams()
}

// expertShare returns u_eff for a run of flopsTok FLOPs per token whose
// dense matmuls reach u: the expert share s of the FLOPs runs at
// ExpertEfficiency·u, so 1/u_eff = (1 − s)/u + s/(e·u).
func (r *resolved) expertShare(u, flopsTok float64) float64 {
	s := r.expertFLOPsPerToken() / flopsTok
	if !(s > 0) {
		return u
	}
	return u / (1 - s + s/ExpertEfficiency)
}

// LoRA and QLoRA skip the weight-gradient matmuls of the frozen base, a
// third of full fine-tuning's FLOPs, but not a third of its time: the
// forward and backward passes still run every layer's element-wise
// kernels, attention, normalisation and launches, which the fitted u
// spreads over all FLOPs. Hu et al. (2021, LoRA, arXiv 2106.09685)
// measured a 25 % speedup over full fine-tuning on GPT-3
// 175B (time 0.80 of full fine-tuning) where the FLOPs give 0.67 (4·N
// instead of 6·N). Charging a share φ of the skipped FLOPs' time back,
// 0.67 + φ·0.33 = 0.80 gives φ ≈ 0.39.
const (
	PEFTUnsavedShare = 0.39
	PEFTSource       = "Hu et al. 2021 (LoRA, arXiv 2106.09685): 25 % faster than full fine-tuning on GPT-3 175B, where the FLOPs alone give 50 %"
	// peftAssumption states the rule in an estimate's assumptions.
	peftAssumption = "lora/qlora time: the frozen base's skipped weight-gradient matmuls save 61 % of their time, not all of it (the passes' element-wise kernels, attention and launches remain), so a step takes 0.80 of full fine-tuning's compute time where the FLOPs give 0.67; from " + PEFTSource
)

// peftShare returns u_eff for a lora or qlora run of flopsTok FLOPs per
// token: its compute time is that of flopsTok + φ·(full fine-tuning's
// FLOPs per token − flopsTok) at u.
func (r *resolved) peftShare(u, flopsTok float64) float64 {
	if r.method.name == MethodFull {
		return u
	}
	skipped := r.fullFLOPsPerToken(r.method.ckpt) - flopsTok
	if !(skipped > 0) {
		return u
	}
	return u * flopsTok / (flopsTok + PEFTUnsavedShare*skipped)
}
