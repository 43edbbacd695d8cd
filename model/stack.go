package model

import (
	"strings"
)

// Software stacks (training.stack): how well the training software uses the
// hardware. The roofline's achieved fractions of peak are calibrations
// (the shipped calibrations; the site's report page), fitted mostly to research-style runs; stacks tuned
// for throughput do better in two ways that public benchmarks document:
//
//  1. a higher achieved fraction of the tensor-core peak (model FLOPs
//     utilisation, MFU): MosaicML's llm-foundry benchmark table
//     (scripts/train/benchmarking/README.md, "H100 80GB BF16") reports a
//     median of about 40 % MFU (26–46 %) for 760M–70B models at 512–8,192
//     tokens on 8–64 H100s with FSDP and FlashAttention; the Megatron-LM
//     README (NVIDIA/Megatron-LM, "Training Speed and Scalability") reports
//     41 % MFU for its 2B model rising to 47–48 % for the largest (up to
//     462B, sequence 4,096, up to 6,144 H100s, end to end); NeMo 24.07's FP8
//     pre-training table on DGX-H100 (NVIDIA/NeMo,
//     docs/source/performance/performance_summary.md) reports 554–842 model
//     TFLOP/s per GPU over 12 configurations, median 744, that is 0.38 of the
//     H100's 1,979 TFLOP/s dense FP8 peak; the same llm-foundry table on
//     A100 80 GB reports a median of about 53 % (42–64 %). Those figures are
//     end to end, so they include communication that η charges separately
//     (StackUCompute16, StackUComputeFP8 say how each is rounded);
//  2. fused kernels (FlashAttention, fused normalisation, bias, activation
//     and optimizer kernels, Megatron/NeMo/Transformer Engine): the
//     element-wise traffic the reference stack pays after its matmuls is
//     done inside them, so the roofline time of a step is the larger of its
//     compute and memory times (Williams, Waterman and Patterson 2009)
//     instead of their sum.
//
// The reference stack is the calibration's own constants and the additive
// time; it is the default and what every calibration was fitted with.
const (
	StackReference = "reference"
	StackOptimised = "optimised"
)

// Stacks are the accepted values of training.stack.
var Stacks = []string{StackReference, StackOptimised}

// StackUCompute16 is the achieved fraction of the 16-bit (fp16, bf16)
// tensor-core peak of an optimised stack before parallel losses (see the
// comment on the stacks): MosaicML llm-foundry's medians of about 40 % MFU
// on H100 and 53 % on A100 80 GB (same models and lengths, 8 GPUs, FSDP),
// and Megatron-LM's 41–48 % on H100 (2B–462B); a round figure between the
// two generations.
const StackUCompute16 = 0.45

// StackUComputeFP8 is the achieved fraction of the fp8 tensor-core peak of
// an optimised stack: NeMo 24.07's median 744 model TFLOP/s per H100 in FP8
// pre-training, 0.376 of 1,979 TFLOP/s, end to end (not divided by η:
// MosaicML's FP8 figures for models of 3B parameters and below are lower,
// 14–30 %, so the NeMo median is already the optimistic end).
const StackUComputeFP8 = 0.37

// StackSource is the citation of the optimised stack's figures.
const StackSource = "MosaicML llm-foundry benchmark table (BF16, 125M–70B, 512–8,192 tokens: median about 40 % MFU on H100, 53 % on A100); Megatron-LM README (41–48 % MFU on H100, 2B–462B, end to end); NVIDIA NeMo 24.07 performance summary (DGX-H100 FP8 pre-training: median 744 model TFLOP/s per GPU); roofline overlap: Williams, Waterman and Patterson, CACM 2009"

// stack is a resolved training.stack.
type stack struct {
	optimised bool
}

// resolveStack reads training.stack.
func (r *resolved) resolveStack(t TrainingSpec) error {
	switch strings.ToLower(strings.TrimSpace(t.Stack)) {
	case "", StackReference:
		return nil
	case StackOptimised:
		r.stack.optimised = true
	default:
		return codeErr(CodeStack, "training.stack", t.Stack, Args{{Name: "stacks", List: Stacks}})
	}
	uRef, _, _ := r.timeCal.Roofline.ForPrecision(r.prec)
	r.assume = append(r.assume, stackAssumption(r.prec, uRef, r.stack.uCompute(r.prec, uRef)))
	return nil
}

// stackAssumption states the optimised stack's effect for precision p with
// the calibration's fraction uRef and the one used, u.
func stackAssumption(p Precision, uRef, u float64) Message {
	code := CodeAssumeStackKept
	if u > uRef {
		code = CodeAssumeStackRaised
	}
	return Message{Code: code, Args: Args{{Name: "field", Str: "training.stack"}, {Name: "precision", Str: string(p)}, {Name: "u_pct", Num: u * 100}, {Name: "ref_pct", Num: uRef * 100}, {Name: "source", Str: StackSource}}}
}

// uCompute is the achieved fraction of peak at precision p: the larger of
// the calibration's u and the optimised stack's published figure for
// tensor-core precisions; u itself for the reference stack.
func (s stack) uCompute(p Precision, u float64) float64 {
	if !s.optimised {
		return u
	}
	var opt float64
	switch p {
	case FP16, BF16:
		opt = StackUCompute16
	case FP8:
		opt = StackUComputeFP8
	}
	if opt > u {
		return opt
	}
	return u
}

// exposedMem is the memory time that adds to the compute time tComp: all
// of tMem for the reference stack, only what exceeds tComp when fused
// kernels overlap the two (optimised).
func (s stack) exposedMem(tComp, tMem float64) float64 {
	if !s.optimised {
		return tMem
	}
	if tMem > tComp {
		return tMem - tComp
	}
	return 0
}
