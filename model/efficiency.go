package model

import (
	"strings"
)

// Efficiency inputs a user can name before the run (issue 34): the
// attention implementation and torch.compile. Their defaults are the
// Hugging Face Trainer's (transformers loads a model with
// attn_implementation "sdpa" where PyTorch supports it, and
// TrainingArguments.torch_compile is false); the calibration is read as
// that default stack, so a request that leaves them out estimates as
// before and each input moves the estimate by a published throughput
// ratio.
//
// Gradient checkpointing (training.gradient_checkpointing) is modelled in
// the FLOPs (one more forward pass), small models' launch-bound steps in
// the calibration's per-step latency (step_s) and the short-step warning,
// and the GPU class in each GPU's peak and bandwidth; sequence packing is
// not an input: training.tokens counts the tokens the GPU processes,
// padding included.

// Attention implementations (training.attention), as transformers names
// them (attn_implementation), flash2 and flash3 for flash_attention_2 and
// flash_attention_3.
const (
	AttnEager  = "eager"
	AttnSDPA   = "sdpa"
	AttnFlash2 = "flash2"
	AttnFlash3 = "flash3"
)

// Attentions are the accepted values of training.attention.
var Attentions = []string{AttnEager, AttnSDPA, AttnFlash2, AttnFlash3}

// EagerAttentionCost is the time of one attention FLOP (the score and
// value matmuls of 6·L·S·d per token, training.seq_len S) in the eager
// implementation, which writes the S×S scores and probabilities to device
// memory and reads them back, over its time in a fused kernel
// (FlashAttention-2, or PyTorch's scaled_dot_product_attention, whose
// flash backend is FlashAttention-2 since PyTorch 2.2). From the
// FlashAttention-2 paper's end-to-end GPT training on 8 A100 80 GB (Dao
// 2023, arXiv 2307.08691, Table 1), without FlashAttention against
// FlashAttention-2: GPT3-1.3B at 2k tokens 142 against 196 TFLOP/s, at
// 8k 72 against 220; GPT3-2.7B at 2k 149 against 205, at 8k 80 against
// 225. With the attention FLOPs' share a of each model's FLOPs, the time
// ratio is 1 + a·(k − 1); the four pairs give k − 1 of 5.3, 8.8, 6.3 and
// 9.0, geometric mean 7.2, rounded to k = 8 (each ratio within 15 %).
//
// That is on the A100's balance of arithmetic to memory. The extra time is
// the S×S scores' and probabilities' memory traffic, so against the fused
// kernel's arithmetic it grows with the GPU's machine balance (peak FLOP/s
// over bandwidth): k − 1 = 7 · balance / EagerRefBalance (eagerCost). On
// the H200 (balance 206 in bf16) that gives k = 10.4; wattscale measured
// eager against sdpa there at 1.49× and 1.98× the step time for the
// Qwen2.5-1.5B shape at 2,048 and 4,096 tokens (hfbench, 4 December 2026).
const EagerAttentionCost = 8.0

// EagerRefBalance is the machine balance, FLOP per byte, at which
// EagerAttentionCost was measured: the A100 80 GB SXM's 312 TFLOP/s in
// bf16 over 2,039 GB/s.
const EagerRefBalance = 312e12 / 2039e9

// eagerCost is k, the time of one eager attention FLOP over its time in a
// fused kernel, on r's GPU at r's precision.
func (r *resolved) eagerCost() float64 {
	if r.gpu == nil || !(r.gpu.BandwidthGBs > 0) || !(r.peak > 0) {
		return EagerAttentionCost
	}
	bw := r.gpu.BandwidthGBs * 1e9
	return 1 + (EagerAttentionCost-1)*(r.peak/bw)/EagerRefBalance
}

// Flash3Speedup is FlashAttention-3's speed on attention over
// FlashAttention-2 on Hopper GPUs: 1.5–2.0× forward and 1.5–1.75×
// backward in FP16/BF16 (Shah et al. 2024, arXiv 2407.08608); the low
// end, as the rest of a step does not change.
const Flash3Speedup = 1.5

// AttentionSource cites the attention implementations' effects.
const AttentionSource = "FlashAttention-2 (Dao 2023, arXiv 2307.08691, Table 1: GPT3-1.3B and 2.7B on 8 A100 at 2k and 8k tokens, 142-149 and 72-80 TFLOP/s without FlashAttention against 196-225 with FlashAttention-2), scaled by machine balance as wattscale measured on an H200 (eager 1.49x and 1.98x sdpa's step time at 2k and 4k tokens, hfbench, December 2026); FlashAttention-3 (Shah et al. 2024, arXiv 2407.08608: 1.5-2.0x FlashAttention-2's speed on H100); PyTorch 2.2 release notes (scaled_dot_product_attention runs FlashAttention-2)"

// CompileSource cites torch.compile's effect.
const CompileSource = "PyTorch 2.0 (torch.compile fuses element-wise operations into the kernels around the matmuls; 43 % faster training on average over 163 Hugging Face, TIMM and TorchBench models on an A100); roofline overlap: Williams, Waterman and Patterson, CACM 2009"

// ForeachExtraBytes is what AdamW's foreach implementation (the
// Trainer's optim adamw_torch) moves per trained parameter and optimizer
// step beyond the fused one's single pass (adamw_torch_fused, the
// Trainer's default in transformers 5.17): its separate multi-tensor
// kernels read and write the weights, gradients and both moments several
// times. Measured by wattscale on one H200 (4.8 TB/s) with the
// Qwen2.5-1.5B shape: 267.9 against 248.5 ms per step for 1.54e9
// parameters, 12.6 ps per parameter, 61 bytes at the memory bandwidth.
const ForeachExtraBytes = 60.0

// ForeachSource cites ForeachExtraBytes.
const ForeachSource = "wattscale's own measurement (hfbench, 4 December 2026: PyTorch 2.11, one H200): AdamW foreach against fused on the Qwen2.5-1.5B shape, 267.9 against 248.5 ms per step, 61 bytes per parameter at the memory bandwidth"

// foreachTime is the time, s, that AdamW's foreach implementation adds
// to a run of r.tokens tokens on one GPU: ForeachExtraBytes per trained
// parameter per optimizer step at the memory bandwidth (streaming
// kernels), shared over the replicas' shards under fsdp as the update's
// traffic is (paramTrafficBytes); 0 for the fused one.
func (r *resolved) foreachTime() float64 {
	if !r.eff.foreach {
		return 0
	}
	perTok := ForeachExtraBytes * r.method.trainable / (float64(r.bat) * float64(r.seq) * float64(r.accum))
	if r.plan.DataMode == FSDP && r.plan.Replicas() > 1 {
		perTok /= float64(r.plan.Replicas())
	}
	return perTok * r.tokens / (r.gpu.BandwidthGBs * 1e9)
}

// efficiency is the resolved attention implementation and compilation.
type efficiency struct {
	attn    string // "" = sdpa
	compile bool
	foreach bool // AdamW's foreach implementation, not the fused one
}

// resolveEfficiency reads training.attention and training.compile for the
// resolved GPU.
func (r *resolved) resolveEfficiency(t TrainingSpec) error {
	a := strings.ToLower(strings.TrimSpace(t.Attention))
	switch a {
	case "", AttnSDPA:
		a = ""
	case AttnEager:
	case AttnFlash2, AttnFlash3:
		if code := flashUnsupported(r.gpu, a); code != "" {
			return codeErr(code, "training.attention", t.Attention, Args{{Name: "name", Str: r.gpu.Name}})
		}
	default:
		return codeErr(CodeAttention, "training.attention", t.Attention, Args{{Name: "among", List: Attentions}})
	}
	r.eff.attn = a
	r.eff.compile = t.Compile != nil && *t.Compile
	r.eff.foreach = t.FusedOptimizer != nil && !*t.FusedOptimizer
	if r.eff.foreach {
		r.assume = append(r.assume, Message{Code: CodeAssumeForeach, Args: Args{{Name: "fused", Str: "training.fused_optimizer"}, {Name: "bytes", Num: ForeachExtraBytes}, {Name: "source", Str: ForeachSource}}})
	}
	if r.eff.compile && r.stack.optimised {
		r.assume = append(r.assume, Message{Code: CodeAssumeCompileOptimised, Args: Args{{Name: "compile", Str: "training.compile"}}})
	} else if r.eff.compile {
		r.assume = append(r.assume, Message{Code: CodeAssumeCompile, Args: Args{{Name: "compile", Str: "training.compile"}, {Name: "source", Str: CompileSource}}})
	}
	switch a {
	case AttnEager:
		r.assume = append(r.assume, Message{Code: CodeAssumeEager, Args: Args{{Name: "attention", Str: "training.attention"}, {Name: "cost", Num: r.eagerCost()}, {Name: "source", Str: AttentionSource}}})
	case AttnFlash3:
		r.assume = append(r.assume, Message{Code: CodeAssumeFlash3, Args: Args{{Name: "attention", Str: "training.attention"}, {Name: "speedup", Num: Flash3Speedup}, {Name: "source", Str: AttentionSource}}})
	}
	return nil
}

// flashUnsupported is the code of why the FlashAttention implementation a does not
// run on g ("" when it does): FlashAttention-2 needs an Ampere or newer
// NVIDIA GPU (or AMD's MI200/MI300 through ROCm), FlashAttention-3 a
// Hopper GPU (FlashAttention repository, Dao-AILab/flash-attention,
// README "Installation and features").
func flashUnsupported(g *GPU, a string) string {
	if g == nil {
		return ""
	}
	switch {
	case g.Vendor == "Google":
		return CodeFlashNone
	case a == AttnFlash3 && !isHopper(g):
		return CodeFlash3Hopper
	case g.Vendor == "NVIDIA" && g.BF16TFLOPS == 0:
		return CodeFlash2Ampere
	}
	return ""
}

// isHopper reports whether g is a Hopper GPU.
func isHopper(g *GPU) bool {
	return strings.HasPrefix(g.ID, "h100") || strings.HasPrefix(g.ID, "h200") || strings.HasPrefix(g.ID, "h800") || strings.HasPrefix(g.ID, "gh200")
}

// attnFLOPsPerToken is the attention matmuls' training FLOPs per token:
// 6·L·S·d (forward and backward), one more forward (2·L·S·d) under
// checkpointing; the same for lora and qlora, whose activation gradients
// pass through attention.
func (r *resolved) attnFLOPsPerToken() float64 {
	f := 6 * float64(r.arch.Layers) * float64(r.seq) * float64(r.arch.Hidden)
	if r.method.ckpt {
		f *= 4.0 / 3
	}
	return f
}

// attnTimeFactor is the compute time of a step with the resolved attention
// implementation over its time with a fused one, for flopsTok FLOPs per
// token: 1 + a·(k − 1) for the attention share a and its relative cost k.
func (r *resolved) attnTimeFactor(flopsTok float64) float64 {
	var k float64
	switch r.eff.attn {
	case AttnEager:
		k = r.eagerCost()
	case AttnFlash3:
		k = 1 / Flash3Speedup
	default:
		return 1
	}
	if !(flopsTok > 0) {
		return 1
	}
	a := r.attnFLOPsPerToken() / flopsTok
	if a > 1 {
		a = 1
	}
	return 1 + a*(k-1)
}

// exposedMem is the memory time that adds to the compute time tComp: the
// stack's rule, or none beyond tComp when torch.compile fuses the
// element-wise kernels.
func (r *resolved) exposedMem(tComp, tMem float64) float64 {
	if r.eff.compile {
		return stack{optimised: true}.exposedMem(tComp, tMem)
	}
	return r.stack.exposedMem(tComp, tMem)
}
