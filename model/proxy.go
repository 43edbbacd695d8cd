package model

// The paper's lightweight proxies (M. Zoubeirou a Mayaki, arXiv 2606.23546,
// 2026, section 3). They are descriptors for the scaling law, not physical
// counts; the physical counts used by the roofline are resolved.counts in
// estimate.go.

// ParamsProxy is the paper's non-embedding parameter proxy
// N(L, d, ff) = L·(12·d² + 2·d·ff). With ff = 4d it equals 20·L·d², which is
// what the released artifact stores in every row (the artifact cannot tell
// the d² and d·ff terms apart because all its models have ff = 4d).
func ParamsProxy(layers, hidden, ffn float64) float64 {
	return layers * (12*hidden*hidden + 2*hidden*ffn)
}

// ComputePerTokenProxy is the paper's per-token compute proxy
// C_tok(L, d, S) = 12·L·d² + 3·L·S·d FLOPs, with S the sequence length
// (the artifact uses the effective, dynamically padded length).
func ComputePerTokenProxy(layers, hidden, seqLen float64) float64 {
	return 12*layers*hidden*hidden + 3*layers*seqLen*hidden
}

// ComputeProxy is the compute regressor of the fitted law as the released
// artifact computes it: C = 20·L·d² × tokens seen (all epochs), with no
// forward/backward multiplier (constants go into κ). This, not
// ComputePerTokenProxy × tokens, is what the published coefficients expect.
func ComputeProxy(layers, hidden, tokens float64) float64 {
	return 20 * layers * hidden * hidden * tokens
}

// MemoryProxy is the paper's memory-traffic proxy M(B, S, d, L) = B·S·d·L:
// the activation volume of one step (per process), a workload descriptor
// rather than measured HBM traffic. The artifact does not multiply it by the
// number of steps, and neither does this function.
func MemoryProxy(batch, seqLen, hidden, layers float64) float64 {
	return batch * seqLen * hidden * layers
}
