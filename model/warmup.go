package model

// The first steps' warm-up.
//
// A training run's first steps take longer than its steady steps: kernels
// are autotuned and compiled, the allocator grows its pools, collectives
// set up their channels on first use, and the first evaluation builds its
// loop. That time lies inside the training window (after the start-up
// that loads the model, roofline.overhead_s), it does not depend on the
// GPU count, and the GPUs spend it mostly waiting, so each GPU draws its
// waiting power (waiting.go) for WarmupS:
//
//	E_warmup = N · P_wait · WarmupS
//
// On a short run on many GPUs it is a large share: it is the term that
// makes MLPerf's 512-GPU Llama-2-70B LoRA run cost more per token than the
// 64-GPU one at the same work per GPU.

// WarmupS is the first steps' extra time, s, once per run; WarmupSource
// says where it comes from.
const WarmupS = 16

// WarmupSource is the public measurement behind WarmupS.
const WarmupSource = "the first block of steps' time beyond the steady rate, median 16 s (2.6–31 s) over 18 Llama-2-70B LoRA submissions of MLPerf Training v4.0 on 8 to 1,024 H100, H200 and L40S GPUs, independent of the GPU count (MLCommons training_results_v4.0 result logs)"

// WarmupAssumption is the assumption an answer lists for the warm-up; a
// constant, so that an estimate allocates nothing for it.
const WarmupAssumption = "first-step warm-up: 16 s per run inside the training time, every GPU at its waiting power (breakdown_kwh.warmup; " + WarmupSource + ")"

// warmupEnergy returns the warm-up's energy, J, on n GPUs of type g that
// draw uncappedW busy without a limit and cappedW under the run's.
func warmupEnergy(g *GPU, n, uncappedW, cappedW float64) float64 {
	return n * WaitingPowerW(g, uncappedW, cappedW) * WarmupS
}
