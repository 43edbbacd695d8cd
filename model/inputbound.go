package model

import "math"

// CachedLogitTokensPerS is the fastest rate, in tokens per second per GPU,
// at which a published distillation harness moved cached teacher
// log-probs: its logit-KD students read them at 371 (13B over 24 h) to 870
// (1B) tokens/s by the running token counts of their step logs, while the
// GPU drew 200–470 W, and its caching pass wrote them at about 430
// tokens/s (32,393 s for one pass of the 1.40e7-token TULU set) although
// the 32B forward pass alone needs a few per cent of that time (Lambert &
// Luccioni 2026; harness stage and step logs, github.com/StellarLuminosity/Energy
// commit 091a5534). Both stages are bound by the host (Python lists of
// top-k values, Arrow datasets on disk), not by the GPU, which the
// estimate assumes is kept fed.
const CachedLogitTokensPerS = 870

// SlowestCachedLogitTokensPerS is the slowest rate of that harness's
// logit-KD students (371 tokens/s, the 13B student over 24 h): the
// input-bound interval reaches up to the energy of the whole run at busy
// power stretched to this rate (an upper bound, as a GPU waiting on the
// host draws less than busy power).
const SlowestCachedLogitTokensPerS = 370

// inputBoundFactor is how much longer a run of tokens over timeS seconds
// on gpus GPUs takes at SlowestCachedLogitTokensPerS per GPU (at least 1).
func inputBoundFactor(tokens, timeS float64, gpus int) float64 {
	if timeS <= 0 || gpus < 1 {
		return 1
	}
	return math.Max(1, tokens/timeS/float64(gpus)/SlowestCachedLogitTokensPerS)
}

// InputBoundMessage returns the warning (CodeInputBound) of a stage that
// moves cached top-k log-probs (what names it) and would need more than
// CachedLogitTokensPerS per GPU to run as fast as estimated, and whether
// there is one: tokens over timeS seconds on gpus GPUs.
func InputBoundMessage(what string, tokens, timeS float64, gpus int) (Message, bool) {
	if timeS <= 0 || gpus < 1 {
		return Message{}, false
	}
	perGPU := tokens / timeS / float64(gpus)
	if perGPU <= CachedLogitTokensPerS {
		return Message{}, false
	}
	return Message{Code: CodeInputBound, Args: Args{{Name: "what", Str: what}, {Name: "rate", Num: perGPU}, {Name: "factor", Num: perGPU / CachedLogitTokensPerS}}}, true
}
