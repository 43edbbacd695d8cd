package model_test

import (
	"math"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
)

// stackRequest is a request on the given preset, precision, GPU and stack.
func stackRequest(preset string, p model.Precision, gpu string, n float64, stack string) model.Request {
	return model.Request{
		Model:    model.ModelSpec{Preset: preset},
		Training: model.TrainingSpec{Tokens: 1e9, SeqLen: 2048, BatchPerGPU: 8, Precision: p, Stack: stack},
		Hardware: model.HardwareSpec{GPU: gpu, Count: n},
		Strategy: model.Strategy{Name: model.FSDP},
		Site:     model.SiteSpec{PUE: 1.2, CarbonGPerKWh: 400, USDPerKWh: 0.15},
	}
}

// TestStackReferenceIsDefault checks that leaving training.stack out and
// naming the reference stack give the same estimate, to the bit.
func TestStackReferenceIsDefault(t *testing.T) {
	c := catalog(t)
	def := estimate(t, c, stackRequest("llama-2-7b", model.BF16, "h100-sxm5", 8, ""))
	ref := estimate(t, c, stackRequest("llama-2-7b", model.BF16, "h100-sxm5", 8, model.StackReference))
	if def.EnergyKWh != ref.EnergyKWh || def.TimeS != ref.TimeS {
		t.Errorf("stack left out: %g kWh %g s; reference: %g kWh %g s, want equal", def.EnergyKWh, def.TimeS, ref.EnergyKWh, ref.TimeS)
	}
	if def.Training.Stack != "" {
		t.Errorf("reference stack: training.stack = %q in the response, want it left out", def.Training.Stack)
	}
}

// TestStackOptimised checks the optimised stack's invariants: never slower
// nor more energy than the reference at the same configuration; its
// compute time matches the published fraction of peak where that is above
// the calibration's; memory traffic overlaps compute; it is stated in the
// assumptions; energy stays linear in tokens apart from the fixed term.
func TestStackOptimised(t *testing.T) {
	c := catalog(t)
	cases := []struct {
		preset string
		prec   model.Precision
		gpu    string
		n      float64
		u      float64 // the published fraction the stack uses, 0 = fp32 (calibration's kept)
	}{
		{"bert-large", model.FP16, "h100-sxm5", 8, model.StackUCompute16},
		{"llama-2-7b", model.BF16, "a100-sxm4-80gb", 8, model.StackUCompute16},
		{"llama-2-13b", model.FP8, "h100-sxm5", 16, model.StackUComputeFP8},
		{"gpt2", model.FP32, "v100-sxm2-32gb", 4, 0},
		{"bert-base", model.BF16, "a40", 1, model.StackUCompute16},
	}
	for _, tt := range cases {
		t.Run(tt.preset+"-"+string(tt.prec)+"-"+tt.gpu, func(t *testing.T) {
			req := stackRequest(tt.preset, tt.prec, tt.gpu, tt.n, model.StackOptimised)
			if tt.n == 1 {
				req.Strategy.Name = model.Single
			}
			opt := estimate(t, c, req)
			req.Training.Stack = ""
			ref := estimate(t, c, req)
			if opt.EnergyKWh > ref.EnergyKWh*(1+1e-12) || opt.TimeS > ref.TimeS*(1+1e-12) {
				t.Errorf("optimised %g kWh %g s, reference %g kWh %g s: want optimised ≤ reference", opt.EnergyKWh, opt.TimeS, ref.EnergyKWh, ref.TimeS)
			}
			if opt.Breakdown.MemoryKWh > ref.Breakdown.MemoryKWh {
				t.Errorf("optimised memory energy %g kWh > reference %g: fused kernels should hide traffic", opt.Breakdown.MemoryKWh, ref.Breakdown.MemoryKWh)
			}
			if opt.Training.Stack != model.StackOptimised {
				t.Errorf("training.stack in the response = %q, want %q", opt.Training.Stack, model.StackOptimised)
			}
			found := false
			for _, a := range opt.Assumptions {
				found = found || strings.HasPrefix(a, "training.stack optimised")
			}
			if !found {
				t.Errorf("assumptions %q do not state the optimised stack", opt.Assumptions)
			}
			// Compute energy is busy power × C/(peak·u), so the ratio of the
			// two stacks' energies per FLOP is the ratio of their fractions.
			cal, err := c.Calibration("")
			if err != nil {
				t.Fatal(err)
			}
			uRef, _, _ := cal.Roofline.ForPrecision(tt.prec)
			want := math.Max(uRef, tt.u) / uRef
			if got := ref.Roofline.EpsComputeJPerFLOP / opt.Roofline.EpsComputeJPerFLOP; !near(got, want, 1e-9) {
				t.Errorf("energy per FLOP reference/optimised = %g, want u_opt/u_ref = %g", got, want)
			}
			// Linear in tokens apart from the fixed start-up energy.
			req.Training.Stack = model.StackOptimised
			req.Training.Tokens *= 2
			two := estimate(t, c, req)
			if got, want := two.EnergyKWh-two.Breakdown.FixedKWh-two.Breakdown.WarmupKWh, 2*(opt.EnergyKWh-opt.Breakdown.FixedKWh-opt.Breakdown.WarmupKWh); !near(got, want, 1e-6) {
				t.Errorf("energy at twice the tokens (less E₀ and the warm-up) = %g kWh, want %g", got, want)
			}
		})
	}
}

// TestStackPublishedFractions pins the optimised compute time to the
// published throughput it comes from: a Llama-2-7B-shaped run on one H100
// in bf16 at StackUCompute16 takes C/(0.45 × 989 TFLOP/s) of compute (NeMo,
// Megatron-Core and MosaicML report 40–47 % of the bf16 peak end to end).
func TestStackPublishedFractions(t *testing.T) {
	c := catalog(t)
	req := stackRequest("llama-2-7b", model.BF16, "h100-sxm5", 1, model.StackOptimised)
	req.Strategy.Name = model.Single
	req.Training.BatchPerGPU = 1
	req.Training.StateBytesPerParam = 4
	r := estimate(t, c, req)
	tComp := r.Roofline.FLOPs / (989e12 * model.StackUCompute16)
	// One GPU, compute-bound: time = compute time + start-up.
	if got := r.TimeS - tComp; got < 0 || got > 600 {
		t.Errorf("time %g s, compute at %.0f%% of the bf16 peak %g s: the rest (%g s) should be the start-up alone", r.TimeS, 100*model.StackUCompute16, tComp, got)
	}
	if mfu := r.Roofline.FLOPs / (r.TimeS * 989e12); mfu < 0.40 || mfu > 0.47 {
		t.Errorf("implied MFU %.3f, want within the published 40–47 %%", mfu)
	}
}

// TestStackBadValue checks the field error.
func TestStackBadValue(t *testing.T) {
	c := catalog(t)
	_, err := c.Estimate(stackRequest("bert-base", model.FP16, "a100-sxm4-80gb", 4, "fast"))
	if err == nil || !strings.Contains(err.Error(), "training.stack") || !strings.Contains(err.Error(), "reference, optimised") || !strings.Contains(err.Error(), "fast") {
		t.Errorf("Estimate(stack fast) error = %v, want a training.stack field error naming the choices and the value", err)
	}
}

// TestRecommendMatchesEstimateOptimised checks that the recommender's lean
// path applies the stack exactly as Estimate does.
func TestRecommendMatchesEstimateOptimised(t *testing.T) {
	c := catalog(t)
	req := parseRec(t, `{"workload": {"model": {"preset": "bert-large"}, "training": {"tokens": 5e8, "seq_len": 512, "batch_per_gpu": 16, "precision": "fp16", "stack": "optimised"}},
	 "candidates": [{"gpu": "a100-sxm4-80gb", "max_count": 8}, {"gpu": "h100-sxm5", "max_count": 8}]}`)
	r := recommend(t, c, req)
	if len(r.Pareto) == 0 {
		t.Fatal("no Pareto front")
	}
	for _, p := range r.Pareto {
		if p.Request.Training.Stack != model.StackOptimised {
			t.Errorf("pareto request lost the stack: %+v", p.Request.Training)
		}
		e := estimate(t, c, p.Request)
		if e.EnergyKWh != p.EnergyKWh || e.TimeS != p.TimeS {
			t.Errorf("pareto %s×%d: recommender %.10g kWh %.10g s, Estimate %.10g kWh %.10g s", p.Hardware.GPU, p.Hardware.Count, p.EnergyKWh, p.TimeS, e.EnergyKWh, e.TimeS)
		}
	}
}

// BenchmarkEstimateOptimised times one estimate with training.stack
// optimised (the default request otherwise), whose stated assumption is the
// only extra work.
func BenchmarkEstimateOptimised(b *testing.B) {
	c := catalog(b)
	req := baseRequest()
	req.Training.Stack = model.StackOptimised
	b.ReportAllocs()
	c0, n := cpuNanos(), 0
	for b.Loop() {
		if _, err := c.Estimate(req); err != nil {
			b.Fatal(err)
		}
		n++
	}
	reportCPU(b, c0, n)
}
