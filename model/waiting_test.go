package model_test

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
)

// TestWaitingPowerBounds: for every accelerator of the table, at its
// board power and under limits down to its idle power, a waiting GPU draws
// at least its idle power and at most what it draws busy under the limit.
func TestWaitingPowerBounds(t *testing.T) {
	c := catalog(t)
	for i := range c.Hardware.GPUs {
		g := &c.Hardware.GPUs[i]
		for _, capped := range []float64{g.BoardPowerW, 0.7 * g.BoardPowerW, 0.4 * g.BoardPowerW, g.IdlePowerW} {
			w := model.WaitingPowerW(g, g.BoardPowerW, capped)
			if !(w >= math.Min(g.IdlePowerW, capped) && w <= capped && w <= g.BoardPowerW) {
				t.Errorf("%s busy %g W under a %g W draw: waiting %g W, want within [idle %g W, %g W]", g.ID, g.BoardPowerW, capped, w, g.IdlePowerW, capped)
			}
		}
		if w := model.WaitingPowerW(g, g.BoardPowerW, g.BoardPowerW); w != math.Max(g.IdlePowerW, model.WaitPowerShare*g.BoardPowerW) {
			t.Errorf("%s: waiting %g W at board power, want %g of it (or idle)", g.ID, w, model.WaitPowerShare)
		}
	}
}

// withLatency is the shipped catalog with the default calibration's
// per-collective latency set to s seconds.
func withLatency(t *testing.T, s float64) *model.Catalog {
	t.Helper()
	c := catalog(t)
	cal, err := c.Calibration("")
	if err != nil {
		t.Fatal(err)
	}
	k := *cal
	comm := *k.Comm
	comm.LatencyS = model.Coefficient{Value: s}
	k.Comm = &comm
	out, err := c.WithDefault(k)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestWaitingEnergy: under the communication-aware model, the parallel
// overhead is the waiting GPU-time t₁·(1/η − 1) at the waiting power, so
// energy grows with the waiting (longer collectives, lower η) while the
// busy energy stays the same; and a waiting GPU costs less than a busy one,
// so the overhead is below what waiting at busy power would charge.
func TestWaitingEnergy(t *testing.T) {
	req := baseRequest()
	req.Hardware = model.HardwareSpec{GPU: "h100-sxm5", Count: 64}
	req.Model = model.ModelSpec{Preset: "llama-2-7b"}
	req.Training = model.TrainingSpec{Tokens: 5e9, SeqLen: 4096, BatchPerGPU: 1, Precision: model.BF16}
	var prev model.Response
	for i, lat := range []float64{0, 2e-4, 1e-3, 5e-3} {
		r := estimate(t, withLatency(t, lat), req)
		p := r.Parallel
		if p.Overhead != model.OverheadWaiting {
			t.Fatalf("latency %g: overhead %q, want %q (NVLink, communication-aware model)", lat, p.Overhead, model.OverheadWaiting)
		}
		if math.Abs(p.WaitingShare-(1-p.Efficiency)) > 1e-12 {
			t.Errorf("latency %g: waiting share %g, want 1 − η = %g", lat, p.WaitingShare, 1-p.Efficiency)
		}
		if !(p.WaitingPowerW > 0 && p.WaitingPowerW < p.BusyPowerW) {
			t.Errorf("latency %g: waiting %g W, busy %g W: want 0 < waiting < busy", lat, p.WaitingPowerW, p.BusyPowerW)
		}
		busy := r.Breakdown.ComputeKWh + r.Breakdown.MemoryKWh
		ratio := r.Breakdown.ParallelKWh / busy
		if exp := p.WaitingPowerW / p.BusyPowerW * (1/p.Efficiency - 1); math.Abs(ratio-exp) > 1e-9*math.Max(1, exp) {
			t.Errorf("latency %g: parallel/busy energy %.9g, want P_wait/P_busy·(1/η − 1) = %.9g", lat, ratio, exp)
		}
		if p.Efficiency < 1 {
			if full := 1/p.Efficiency - 1; !(ratio > 0 && ratio < full) {
				t.Errorf("latency %g: overhead %.4g of the busy energy, want in (0, %.4g) (waiting at busy power)", lat, ratio, full)
			}
			if f := math.Pow(p.Efficiency, p.AlphaEta); math.Abs(f-(1+ratio)) > 1e-9 {
				t.Errorf("latency %g: η^α_η = %g, want the factor 1 + parallel/busy = %g", lat, f, 1+ratio)
			}
		}
		if i > 0 {
			if !(p.Efficiency < prev.Parallel.Efficiency) || !(r.EnergyKWh > prev.EnergyKWh) || !(r.Breakdown.ParallelKWh > prev.Breakdown.ParallelKWh) {
				t.Errorf("latency %g: η %.4g, %.6g kWh (overhead %.4g); at the lower latency η %.4g, %.6g kWh (%.4g): want lower η, more energy", lat,
					p.Efficiency, r.EnergyKWh, r.Breakdown.ParallelKWh, prev.Parallel.Efficiency, prev.EnergyKWh, prev.Breakdown.ParallelKWh)
			}
			if pb := prev.Breakdown.ComputeKWh + prev.Breakdown.MemoryKWh; math.Abs(busy-pb) > 1e-9*busy {
				t.Errorf("latency %g: busy energy %.9g kWh, want %.9g as at the lower latency (waiting does not change the work)", lat, busy, pb)
			}
		}
		prev = r
	}
}

// TestWaitingOneGPU: one GPU never waits: no overhead, no waiting power,
// and the energy is the busy energy plus the first steps' warm-up and the
// start-up.
func TestWaitingOneGPU(t *testing.T) {
	c := catalog(t)
	for _, gpu := range []string{"h100-sxm5", "a100-sxm4-80gb", "rtx-4090"} {
		req := baseRequest()
		req.Hardware = model.HardwareSpec{GPU: gpu, Count: 1}
		req.Strategy = model.Strategy{Name: model.Single}
		r := estimate(t, c, req)
		p := r.Parallel
		if p.Overhead != "" || p.WaitingPowerW != 0 || p.WaitingShare != 0 || r.Breakdown.ParallelKWh != 0 || p.Efficiency != 1 {
			t.Errorf("%s × 1: overhead %q, waiting %g W, share %g, parallel %g kWh, η %g: want none and η 1", gpu, p.Overhead, p.WaitingPowerW, p.WaitingShare, r.Breakdown.ParallelKWh, p.Efficiency)
		}
		b := r.Breakdown
		if sum := b.ComputeKWh + b.MemoryKWh + b.HostWaitKWh + b.WarmupKWh + b.FixedKWh; math.Abs(sum-r.EnergyKWh) > 1e-12*r.EnergyKWh {
			t.Errorf("%s × 1: compute + memory + warm-up + fixed = %.12g kWh, energy %.12g", gpu, sum, r.EnergyKWh)
		}
	}
}

// TestPaperOverheadWhereCurvesApply: where η comes from the roofline
// paper's own speedup curves (PCIe-class parts), the overhead stays the
// paper's η^α_η with the calibration's α_η.
func TestPaperOverheadWhereCurvesApply(t *testing.T) {
	c := catalog(t)
	cal, _ := c.Calibration("")
	req := baseRequest()
	req.Hardware = model.HardwareSpec{GPU: "rtx-4090", Count: 4}
	r := estimate(t, c, req)
	p := r.Parallel
	alpha, ok := cal.AlphaEtaFor(model.PCIe)
	if !ok || p.Overhead != model.OverheadAlphaEta || p.AlphaEta != alpha || p.WaitingPowerW != 0 {
		t.Fatalf("rtx-4090 × 4: overhead %q, α_η %g, waiting %g W: want %q with the calibration's α_η %g", p.Overhead, p.AlphaEta, p.WaitingPowerW, model.OverheadAlphaEta, alpha)
	}
	busy := r.Breakdown.ComputeKWh + r.Breakdown.MemoryKWh
	if got, want := r.Breakdown.ParallelKWh/busy, math.Pow(p.Efficiency, alpha)-1; math.Abs(got-want) > 1e-9 {
		t.Errorf("rtx-4090 × 4: parallel/busy %.9g, want η^α_η − 1 = %.9g", got, want)
	}
}

// TestTrainingEnergy: training_energy_kwh and training_time_s are the run
// without its fixed start-up, on one GPU and many, for every calibration.
func TestTrainingEnergy(t *testing.T) {
	c := catalog(t)
	for _, cal := range c.Calibrations {
		for _, n := range []float64{1, 4} {
			req := baseRequest()
			req.Calibration = cal.Name
			req.Hardware.Count = n
			if n == 1 {
				req.Strategy = model.Strategy{Name: model.Single}
			}
			r := estimate(t, c, req)
			if got, want := r.TrainingEnergyKWh, r.EnergyKWh-r.Breakdown.FixedKWh; !(got > 0 && got < r.EnergyKWh) || math.Abs(got-want) > 1e-9*r.EnergyKWh {
				t.Errorf("%s × %g: training energy %.9g kWh, want energy − fixed = %.9g (> 0)", cal.Name, n, got, want)
			}
			if !(r.TrainingTimeS > 0 && r.TrainingTimeS < r.TimeS) {
				t.Errorf("%s × %g: training time %g s, run %g s: want 0 < training < run", cal.Name, n, r.TrainingTimeS, r.TimeS)
			}
		}
	}
}

// TestWaitingPublishedNVLink holds the waiting power against the only
// published energy measurements of NVLink GPUs waiting inside one node:
// GPT on A100 with FSDP at N = 2, 4, 6 (S = 1.13, 2.01, 2.76), about +24 %
// energy per token against one GPU (Zoubeirou a Mayaki 2026, revised
// study's artifact; content/data/published-scaling.csv). At the published
// η the waiting power charges +38 % to +57 %: within ×1.3 of the
// measurement, and above it (that study's energy also counts the CPU and
// RAM, which do not multiply with the GPU count, so its ratio understates
// the GPUs' own). A waiting power far from the measurement fails here.
// The whole estimate, in which FSDP's sharded optimizer update also lowers
// each GPU's busy energy, is held within 15 % of the same points by
// fit's TestDefaultCalibrationMatchesPublishedScaling.
func TestWaitingPublishedNVLink(t *testing.T) {
	c := catalog(t)
	g, err := c.Hardware.Lookup("a100-sxm4-80gb")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ n, s float64 }{{2, 1.13}, {4, 2.01}, {6, 2.76}} {
		eta := p.s / p.n
		busy := g.BoardPowerW
		factor := 1 + model.WaitingPowerW(g, busy, busy)/busy*(1/eta-1)
		if r := factor / 1.24; r < 1 || r > 1.3 {
			t.Errorf("A100 FSDP N=%g (η %.3f): energy per token ×%.3f against one GPU, published ×1.24: ratio %.3f, want in [1, 1.3]", p.n, eta, factor, r)
		}
	}
}

// TestWaitingInvariantsRandom: over random requests and every calibration,
// the parallel overhead is never negative; where it is charged at the
// waiting power, that power lies between the board's idle power and the
// busy power, and the overhead never exceeds the waiting GPU-time at busy
// power; one GPU carries none.
func TestWaitingInvariantsRandom(t *testing.T) {
	c := catalog(t)
	rng := rand.New(rand.NewPCG(7, 16))
	waiting := 0
	for i := 0; i < 300; i++ {
		req := randomRequest(rng, c)
		r := estimate(t, c, req)
		p, b := r.Parallel, r.Breakdown
		g, err := c.Hardware.Lookup(req.Hardware.GPU)
		if err != nil {
			t.Fatal(err)
		}
		busy := b.ComputeKWh + b.MemoryKWh
		switch {
		case b.ParallelKWh < 0:
			t.Errorf("case %d: parallel overhead %g kWh < 0 (%+v)", i, b.ParallelKWh, req)
		case p.GPUs == 1 && (b.ParallelKWh != 0 || p.Overhead != ""):
			t.Errorf("case %d: one GPU with overhead %g kWh (%q)", i, b.ParallelKWh, p.Overhead)
		case p.Overhead == model.OverheadWaiting:
			waiting++
			if !(p.WaitingPowerW >= g.IdlePowerW*(1-1e-12) || p.WaitingPowerW == p.BusyPowerW) || p.WaitingPowerW > p.BusyPowerW {
				t.Errorf("case %d: waiting %g W outside [idle %g W, busy %g W] (%+v)", i, p.WaitingPowerW, g.IdlePowerW, p.BusyPowerW, req)
			}
			if max := busy * (1/p.Efficiency - 1); b.ParallelKWh > max*(1+1e-9) {
				t.Errorf("case %d: overhead %g kWh above the waiting at busy power, %g kWh (%+v)", i, b.ParallelKWh, max, req)
			}
		}
	}
	if waiting < 30 {
		t.Errorf("only %d of 300 random requests charged at the waiting power; the test needs more", waiting)
	}
}

// TestWaitAssumptionStatesShare: the constant assumption quotes the share
// the code uses.
func TestWaitAssumptionStatesShare(t *testing.T) {
	if !strings.Contains(model.WaitAssumption, strconv.FormatFloat(model.WaitPowerShare, 'g', -1, 64)+" of their busy power") {
		t.Errorf("assumption %q does not state the waiting share %g", model.WaitAssumption, model.WaitPowerShare)
	}
}
