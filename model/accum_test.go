package model_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
)

// accumRequest is a 1.5B fine-tune on 8 H100s with the given layout and
// gradient accumulation (0 = the field left out).
func accumRequest(strategy string, accum float64) model.Request {
	return model.Request{
		Model:    model.ModelSpec{Preset: "olmo-2-1b"},
		Training: model.TrainingSpec{Tokens: 1e9, SeqLen: 1024, BatchPerGPU: 2, Precision: model.BF16, GradientAccumulation: accum},
		Hardware: model.HardwareSpec{GPU: "h100-sxm5", Count: 8},
		Strategy: model.Strategy{Name: strategy},
		Site:     model.SiteSpec{PUE: 1, CarbonGPerKWh: 400, USDPerKWh: 0.15},
	}
}

// TestAccumulationOneIsDefault: leaving training.gradient_accumulation out
// and giving 1 are the same estimate, to the bit, and the response echoes 1.
func TestAccumulationOneIsDefault(t *testing.T) {
	c := catalog(t)
	for _, st := range []string{model.DDP, model.FSDP} {
		def := estimate(t, c, accumRequest(st, 0))
		one := estimate(t, c, accumRequest(st, 1))
		if def.EnergyKWh != one.EnergyKWh || def.TimeS != one.TimeS || def.Roofline.BytesPerToken != one.Roofline.BytesPerToken {
			t.Errorf("%s: left out %g kWh %g s, accumulation 1 %g kWh %g s, want equal", st, def.EnergyKWh, def.TimeS, one.EnergyKWh, one.TimeS)
		}
		if def.Inputs.GradientAccumulation != 1 {
			t.Errorf("%s: inputs.gradient_accumulation = %d, want 1", st, def.Inputs.GradientAccumulation)
		}
		for _, a := range def.Assumptions {
			if strings.HasPrefix(a, "gradient accumulation") {
				t.Errorf("%s: without accumulation the assumptions say %q", st, a)
			}
		}
	}
}

// TestAccumulationAmortisesTheUpdate checks the physics: the optimizer's
// update traffic (24 bytes per parameter for AdamW, ZeRO's accounting) is
// paid once per optimizer step, so with k micro-batches per step the
// traffic per token falls by exactly params·24·(1 − 1/k)/(B·S) (fsdp
// divides the update by its shards too); FLOPs do not change; energy
// never rises with k; ddp's all-reduce is amortised, so its η rises,
// while fsdp, which gathers weights for every micro-batch, keeps its
// communication per micro-batch.
func TestAccumulationAmortisesTheUpdate(t *testing.T) {
	c := catalog(t)
	for _, st := range []string{model.DDP, model.FSDP} {
		one := estimate(t, c, accumRequest(st, 1))
		params := one.Proxies.Params
		prev := one
		for _, k := range []float64{2, 4, 16, 64} {
			r := estimate(t, c, accumRequest(st, k))
			if r.Inputs.GradientAccumulation != int(k) {
				t.Errorf("%s k=%g: echoed %d", st, k, r.Inputs.GradientAccumulation)
			}
			if want := (model.Message{Code: model.CodeAssumeAccum, Args: model.Args{{Name: "accum", Num: k}}}).String(); !slices.Contains(r.Assumptions, want) {
				t.Errorf("%s k=%g: assumptions %q lack how accumulation is charged", st, k, r.Assumptions)
			}
			if r.Roofline.FLOPsPerToken != one.Roofline.FLOPsPerToken {
				t.Errorf("%s k=%g: FLOPs per token %g, want %g (accumulation moves no FLOPs)", st, k, r.Roofline.FLOPsPerToken, one.Roofline.FLOPsPerToken)
			}
			update := 24.0
			if st == model.FSDP {
				update /= 8
			}
			want := params * update * (1 - 1/k) / (2 * 1024)
			if got := one.Roofline.BytesPerToken - r.Roofline.BytesPerToken; math.Abs(got-want) > 1e-9*want {
				t.Errorf("%s k=%g: bytes per token fell by %g, want %g", st, k, got, want)
			}
			if r.EnergyKWh > prev.EnergyKWh*(1+1e-12) {
				t.Errorf("%s k=%g: %g kWh, more than %g kWh at less accumulation", st, k, r.EnergyKWh, prev.EnergyKWh)
			}
			switch st {
			case model.DDP:
				if !(r.Parallel.Efficiency > prev.Parallel.Efficiency) {
					t.Errorf("ddp k=%g: η %g, want above %g (the all-reduce runs once per optimizer step)", k, r.Parallel.Efficiency, prev.Parallel.Efficiency)
				}
			case model.FSDP:
				// the per-token compute time falls with the update's
				// traffic, so η may move a little, but only through that
				if d := math.Abs(r.Parallel.Efficiency - prev.Parallel.Efficiency); d > 0.02 {
					t.Errorf("fsdp k=%g: η moved %g → %g; fsdp's gathers run per micro-batch", k, prev.Parallel.Efficiency, r.Parallel.Efficiency)
				}
			}
			prev = r
		}
		if !(prev.EnergyKWh < one.EnergyKWh) {
			t.Errorf("%s: %g kWh at 64 micro-batches per step, not below %g kWh at 1", st, prev.EnergyKWh, one.EnergyKWh)
		}
	}
}

// TestAccumulationErrors: a bad value names the field, its range and what
// was given, and never estimates.
func TestAccumulationErrors(t *testing.T) {
	c := catalog(t)
	for _, v := range []float64{-1, 0.5, 2.5, 1 << 17, math.Inf(1), math.NaN()} {
		_, err := c.Estimate(accumRequest(model.DDP, v))
		fe := model.AsFieldError(err)
		if fe == nil || fe.Field != "training.gradient_accumulation" {
			t.Errorf("gradient_accumulation %g: error %v, want a field error for training.gradient_accumulation", v, err)
			continue
		}
		if !strings.Contains(fe.Message, "whole number from 1 to 65536") {
			t.Errorf("gradient_accumulation %g: message %q does not state the range", v, fe.Message)
		}
	}
}

// TestAccumulationFewStepsWarning: the few-steps warning counts optimizer
// steps, so accumulating micro-batches can trigger it, and it then names
// the accumulation among what to change.
func TestAccumulationFewStepsWarning(t *testing.T) {
	c := catalog(t)
	req := accumRequest(model.DDP, 0)
	req.Training.Tokens = 2e8 // 200M tokens ÷ (8 GPUs × 2 × 1024) = 12,207 micro-batch steps per GPU
	has := func(r model.Response) string {
		for _, w := range r.Warnings {
			if strings.HasPrefix(w, "only ") {
				return w
			}
		}
		return ""
	}
	if w := has(estimate(t, c, req)); w != "" {
		t.Errorf("12,207 optimizer steps: warned %q", w)
	}
	req.Training.GradientAccumulation = 256 // 48 optimizer steps
	w := has(estimate(t, c, req))
	if !strings.Contains(w, "only 47.7 optimizer steps") || !strings.Contains(w, "gradient_accumulation") {
		t.Errorf("48 optimizer steps of 256 micro-batches: warning %q, want one counting 47.7 optimizer steps and naming gradient_accumulation", w)
	}
}

// TestAccumulationTooFewTokens: a GPU count that leaves less than one
// micro-batch per rank is refused, and with accumulation the message counts
// micro-batch steps, not optimizer steps.
func TestAccumulationTooFewTokens(t *testing.T) {
	c := catalog(t)
	for _, tt := range []struct {
		accum float64
		want  string
	}{{0, "0.125 optimizer steps"}, {4, "0.125 micro-batch steps"}} {
		req := accumRequest(model.DDP, tt.accum)
		req.Training.Tokens = 2048
		_, err := c.Estimate(req)
		fe := model.AsFieldError(err)
		if fe == nil || fe.Field != "hardware.count" || !strings.Contains(fe.Message, tt.want) {
			t.Errorf("accumulation %g, 2,048 tokens on 8 GPUs: error %v, want hardware.count with %q", tt.accum, err, tt.want)
		}
	}
}
