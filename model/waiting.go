package model

import "math"

// The energy of GPUs that wait.
//
// A parallel run of N GPUs at efficiency η keeps each GPU busy for a share
// η of the wall time; for the rest it waits: for a collective to finish,
// for a pipeline stage or for the slowest rank. Summed over the GPUs, the
// busy time is the one-GPU time t₁ and the waiting time t₁·(1/η − 1).
// Where η comes from the communication-aware model (CommParams in speedup.go), the waiting
// time is charged at the waiting power:
//
//	E_parallel = P_wait · t₁ · (1/η − 1),   P_wait = clamp(WaitPowerShare · P_busy, P_idle, P_busy)
//
// so the energy grows with the waiting time, and the paper's law
// (E ∝ η^α_η) stays where η comes from the paper's own speedup curves
// (PCIe-class parts within one node) and in the loglinear calibrations.

// WaitPowerShare is the power of a GPU that waits inside a running job, as
// a share of its busy power; WaitPowerSource says where it comes from.
const WaitPowerShare = 0.49

// WaitPowerSource is the public measurement behind WaitPowerShare.
const WaitPowerSource = "GPUs waiting inside running jobs drew 10.7 % of the energy in 19.7 % of the time in a GPU cluster's per-second telemetry, arXiv:2604.04745"

// WaitAssumption is the assumption an answer lists when it charges the
// waiting at the waiting power; the figures are in its parallel fields. A
// constant, so that an estimate allocates nothing for it.
const WaitAssumption = "parallel overhead: the GPUs' waiting (parallel.waiting_share of the GPU-time) at 0.49 of their busy power, never below idle (parallel.waiting_power_w; " + WaitPowerSource + ")"

// WaitingPowerW is the power a GPU of type g draws while it waits, when it
// draws uncappedW while it computes without a power limit and cappedW
// under the run's limit: WaitPowerShare of the uncapped busy power (a
// limit slows the arithmetic, not a GPU that waits below it), never below
// the board's idle power nor above the capped busy power.
func WaitingPowerW(g *GPU, uncappedW, cappedW float64) float64 {
	return waitPowerW(g, WaitPowerShare, uncappedW, cappedW)
}

// waitPowerW is the power of a GPU that waits at share of its uncapped
// busy power, never below the board's idle power nor above the capped busy
// power: the rule for a GPU waiting on a collective (WaitingPowerW) and on
// its host (hostWaitPowerW).
func waitPowerW(g *GPU, share, uncappedW, cappedW float64) float64 {
	return math.Min(cappedW, math.Max(g.IdlePowerW, share*uncappedW))
}

// waitingEnergy returns the energy, J, of the GPUs' waiting in a run whose
// busy GPU-time is t1 seconds at efficiency eta, and the waiting power per
// GPU (WaitingPowerW); 0 J on one GPU or at η = 1.
func waitingEnergy(g *GPU, uncappedW, cappedW, t1, eta float64) (joules, waitW float64) {
	waitW = WaitingPowerW(g, uncappedW, cappedW)
	if !(eta < 1) || !(eta > 0) {
		return 0, waitW
	}
	return waitW * t1 * (1/eta - 1), waitW
}

// effectiveAlpha is the exponent α with η^α = factor: what the waiting
// power amounts to in the paper's terms (0 at η = 1).
func effectiveAlpha(eta, factor float64) float64 {
	if !(eta < 1) || !(eta > 0) {
		return 0
	}
	return math.Log(factor) / math.Log(eta)
}
