package model

import "math"

// The host's share of a step.
//
// In PyTorch's eager mode the host launches every kernel of a step one
// after another (forward, backward, gradient clipping, the optimizer); the
// GPU runs them as they come. When a step's GPU work is short, as for a
// small model at a small batch on a fast GPU, the GPU waits for the host
// between kernels and the step takes the host's time, not the GPU's.
//
// The host's time per step grows with the number of blocks the step runs:
//
//	t_host = HostStepS + HostLayerS · L
//
// measured with narrow GPT-2-shaped models (width 256, batch 4 × 128
// tokens, so the GPU's arithmetic is negligible) over 2 to 48 blocks, with
// bf16 autocast, AdamW (foreach and fused alike) and gradient clipping:
// 5.7, 13.6, 23.7, 45.8 and 93.8 ms (HostSource). The two run side by side
// but each waits for the other at points of the step, so a step takes
// their quadratic mean, t_step = √(t_gpu² + t_host²): the GPU's time when
// the host is quick, the host's when the GPU is, and more than either
// where they are close (BERT-base at 32 × 128 tokens on an H200: about
// 12 ms of GPU work and 24 ms of host time, a 32 ms step measured). The
// time beyond the GPU's own is charged at HostWaitPowerShare of the busy
// power, never below idle: between kernels the GPU draws little (the same
// narrow models drew 134–143 W on a 700 W board, against about 690 W busy).
//
// An optimised stack (stack.go) captures its steps in CUDA graphs and fuses
// its kernels (MLPerf Training submissions do both), so its host launches
// a handful of graphs per step and does not wait like this.
//
// One host was measured for the constants: how fast another host's CPU
// dispatches differs (a second H200 machine of the same kind stepped
// BERT-base at 8 × 128 tokens 1.5× slower in the Trainer measurements
// published with the host's),
// and the Trainer's data loading, logging and evaluation are not in it, so
// the short-step warning stays.
const (
	HostStepS          = 0.0014
	HostLayerS         = 0.00191
	HostWaitPowerShare = 0.2
)

// HostSource says where the host's time per step comes from.
const HostSource = "wattscale's own measurement (hostbench, 4 December 2026: PyTorch 2.11, transformers 5.17, one H200 and its 16-core host): narrow GPT-2-shaped models of 2 to 48 blocks stepped in 5.7 to 93.8 ms, 1.4 ms + 1.91 ms per block, drawing 134-143 W"

// oneGPUSteps is the number of micro-batch steps one GPU doing r's whole
// run would take, tokens/(B·S): what the per-step latency, the host's time
// and the communication model charge over (microSteps is each
// data-parallel rank's).
func (r *resolved) oneGPUSteps() float64 {
	return r.tokens / (float64(r.bat) * float64(r.seq))
}

// hostStepS is the host's time per step of r: HostStepS plus HostLayerS
// per block.
func (r *resolved) hostStepS() float64 {
	return HostStepS + HostLayerS*float64(r.arch.Layers)
}

// hostWait is the time, s, the GPUs wait for the host over a run whose
// GPU time on one GPU is t1 seconds for r.tokens tokens: per step, the
// quadratic mean of the GPU's and the host's times less the GPU's; none on
// an optimised stack.
func (r *resolved) hostWait(t1 float64) float64 {
	steps := r.oneGPUSteps()
	if r.stack.optimised || !(steps > 0) || !(t1 > 0) {
		return 0
	}
	g := t1 / steps
	return steps * (math.Hypot(g, r.hostStepS()) - g)
}

// hostAssumption is the assumption an answer lists when its GPUs wait for
// their host (hostWait > 0) over a run whose GPU time on one GPU is t1.
func (r *resolved) hostAssumption(t1 float64) Message {
	g, h := t1/r.oneGPUSteps(), r.hostStepS()
	return Message{Code: CodeAssumeHostWait, Args: Args{
		{Name: "host_ms", Num: h * 1e3}, {Name: "base_ms", Num: HostStepS * 1e3}, {Name: "block_ms", Num: HostLayerS * 1e3},
		{Name: "layers", Num: float64(r.arch.Layers)}, {Name: "work_ms", Num: g * 1e3}, {Name: "step_ms", Num: math.Hypot(g, h) * 1e3},
		{Name: "power_pct", Num: HostWaitPowerShare * 100}, {Name: "source", Str: HostSource}}}
}

// hostWaitPowerW is the power of a GPU that waits for its host, when it
// draws busyW while it computes: HostWaitPowerShare of it, never below
// idle nor above busyW.
func hostWaitPowerW(g *GPU, busyW float64) float64 {
	return waitPowerW(g, HostWaitPowerShare, busyW, busyW)
}
