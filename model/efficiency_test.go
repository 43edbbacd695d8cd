package model_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
)

// effRequest is a one-node fine-tune of preset at seq tokens per sequence.
func effRequest(preset, gpu string, seq, batch float64) model.Request {
	req := stackRequest(preset, model.BF16, gpu, 8, "")
	req.Training.SeqLen, req.Training.BatchPerGPU = seq, batch
	return req
}

// TestEfficiencyDefaults checks that leaving the attention implementation
// and torch.compile out, and naming their defaults (sdpa, or flash2 which
// is the kernel sdpa runs, and compile off), give the same estimate to the
// bit, and that the response states them.
func TestEfficiencyDefaults(t *testing.T) {
	c := catalog(t)
	def := estimate(t, c, effRequest("llama-2-7b", "a100-sxm4-80gb", 4096, 2))
	off := false
	for _, a := range []string{model.AttnSDPA, model.AttnFlash2, "SDPA"} {
		req := effRequest("llama-2-7b", "a100-sxm4-80gb", 4096, 2)
		req.Training.Attention, req.Training.Compile = a, &off
		got := estimate(t, c, req)
		if got.EnergyKWh != def.EnergyKWh || got.TimeS != def.TimeS {
			t.Errorf("attention %q, compile off: %g kWh %g s; defaults: %g kWh %g s, want equal", a, got.EnergyKWh, got.TimeS, def.EnergyKWh, def.TimeS)
		}
	}
	if def.Training.Attention != model.AttnSDPA || def.Training.Compile {
		t.Errorf("defaults: training.attention %q compile %v in the response, want sdpa and false", def.Training.Attention, def.Training.Compile)
	}
}

// TestAttentionImplementations checks the attention inputs' direction and
// scale: eager is slower than sdpa and more so at longer sequences (its
// score traffic grows with the sequence), flash3 is faster on an H100 but
// by less than its attention speed-up, and each is stated in the
// assumptions.
func TestAttentionImplementations(t *testing.T) {
	c := catalog(t)
	ratio := func(preset, gpu, attn string, seq, batch float64) (float64, model.Response) {
		base := estimate(t, c, effRequest(preset, gpu, seq, batch))
		req := effRequest(preset, gpu, seq, batch)
		req.Training.Attention = attn
		got := estimate(t, c, req)
		return got.TimeS / base.TimeS, got
	}
	short, _ := ratio("llama-2-7b", "a100-sxm4-80gb", model.AttnEager, 1024, 8)
	long, resp := ratio("llama-2-7b", "a100-sxm4-80gb", model.AttnEager, 8192, 1)
	t.Logf("eager over sdpa time, llama-2-7b on 8 A100: %.3f at 1k tokens, %.3f at 8k", short, long)
	if !(short > 1 && long > short) {
		t.Errorf("eager over sdpa time: %.3f at 1k tokens, %.3f at 8k; want above 1 and growing with the sequence", short, long)
	}
	if !hasAssumption(resp, "training.attention eager") {
		t.Errorf("eager: no assumption states it: %q", resp.Assumptions)
	}
	f3, resp := ratio("llama-2-7b", "h100-sxm5", model.AttnFlash3, 8192, 1)
	t.Logf("flash3 over sdpa time, llama-2-7b on 8 H100 at 8k tokens: %.3f", f3)
	if !(f3 < 1 && f3 > 1/model.Flash3Speedup) {
		t.Errorf("flash3 over sdpa time on H100 at 8k tokens: %.3f, want below 1 and above 1/%g", f3, model.Flash3Speedup)
	}
	if !hasAssumption(resp, "training.attention flash3") {
		t.Errorf("flash3: no assumption states it: %q", resp.Assumptions)
	}
}

// TestAttentionErrors checks that an unknown implementation, FlashAttention
// on a GPU it does not run on, name the field, the value and the GPU.
func TestAttentionErrors(t *testing.T) {
	c := catalog(t)
	cases := []struct{ attn, gpu, want string }{
		{"flash", "a100-sxm4-80gb", "must be one of eager, sdpa, flash2, flash3"},
		{model.AttnFlash3, "a100-sxm4-80gb", "Hopper"},
		{model.AttnFlash2, "t4", "Ampere or newer GPU, not the Tesla T4"},
		{model.AttnFlash2, "v100-sxm2-32gb", "Ampere"},
		{model.AttnFlash2, "tpu-v4", "no FlashAttention kernels"},
	}
	for _, tt := range cases {
		req := effRequest("bert-base", tt.gpu, 128, 32)
		req.Training.Precision = ""
		req.Training.Attention = tt.attn
		_, err := c.Estimate(req)
		var fe *model.FieldError
		if !errors.As(err, &fe) || fe.Field != "training.attention" || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.attn) {
			t.Errorf("attention %q on %s: error %v, want a training.attention error with %q", tt.attn, tt.gpu, err, tt.want)
		}
	}
}

// TestCompile checks torch.compile: never slower, stated in the
// assumptions, a larger gain where element-wise traffic weighs more (a
// small encoder at short sequences than a 7B decoder), no more than the
// optimised stack (which also overlaps the traffic and raises the
// fraction of peak), and the same as the Trainer's torch_compile argument.
func TestCompile(t *testing.T) {
	c := catalog(t)
	on := true
	gain := func(preset string, seq, batch float64) float64 {
		base := estimate(t, c, effRequest(preset, "a100-sxm4-80gb", seq, batch))
		req := effRequest(preset, "a100-sxm4-80gb", seq, batch)
		req.Training.Compile = &on
		got := estimate(t, c, req)
		if !hasAssumption(got, "training.compile") {
			t.Errorf("%s: no assumption states compile: %q", preset, got.Assumptions)
		}
		req.Training.Compile = nil
		req.Training.Stack = model.StackOptimised
		opt := estimate(t, c, req)
		if opt.TimeS > got.TimeS*(1+1e-12) {
			t.Errorf("%s: optimised stack %g s slower than compile alone %g s", preset, opt.TimeS, got.TimeS)
		}
		req.Training.Stack = ""
		req.Training.HFArgs = `{"torch_compile": true}`
		hf := estimate(t, c, req)
		if hf.TimeS != got.TimeS || hf.EnergyKWh != got.EnergyKWh {
			t.Errorf("%s: hf_args torch_compile %g s %g kWh, training.compile %g s %g kWh, want equal", preset, hf.TimeS, hf.EnergyKWh, got.TimeS, got.EnergyKWh)
		}
		return base.TimeS / got.TimeS
	}
	small := gain("bert-base", 128, 32)
	large := gain("llama-2-7b", 4096, 2)
	t.Logf("compile speed-up on 8 A100: bert-base at 128 tokens %.3f, llama-2-7b at 4096 %.3f", small, large)
	if !(small >= 1 && large >= 1 && small > large) {
		t.Errorf("compile speed-up: bert-base %.3f, llama-2-7b %.3f; want both at least 1 and the small model's larger", small, large)
	}
}

func hasAssumption(r model.Response, prefix string) bool {
	for _, a := range r.Assumptions {
		if strings.HasPrefix(a, prefix) {
			return true
		}
	}
	return false
}

// TestAttentionFromTrainerArgs checks that TRL's model_init_kwargs
// attn_implementation sets training.attention (transformers' names), that
// the request's own field wins, that model_init_kwargs without it is
// listed as ignored, and that an implementation not modelled is an error
// naming the key.
func TestAttentionFromTrainerArgs(t *testing.T) {
	c := catalog(t)
	want := effRequest("llama-2-7b", "a100-sxm4-80gb", 4096, 2)
	want.Training.Attention = model.AttnEager
	eager := estimate(t, c, want)
	req := effRequest("llama-2-7b", "a100-sxm4-80gb", 4096, 2)
	req.Training.HFArgs = `{"model_init_kwargs": {"attn_implementation": "eager", "torch_dtype": "bfloat16"}}`
	got := estimate(t, c, req)
	if got.TimeS != eager.TimeS || got.Training.Attention != model.AttnEager {
		t.Errorf("attn_implementation eager: %g s, attention %q; training.attention eager: %g s", got.TimeS, got.Training.Attention, eager.TimeS)
	}
	req.Training.Attention = model.AttnSDPA
	if got := estimate(t, c, req); got.Training.Attention != model.AttnSDPA || !imported(got, "model_init_kwargs", "overridden") {
		t.Errorf("training.attention given: attention %q, imported %+v; want sdpa and model_init_kwargs overridden", got.Training.Attention, got.Inputs.Imported)
	}
	req.Training.Attention = ""
	req.Training.HFArgs = `{"model_init_kwargs": {"torch_dtype": "bfloat16"}}`
	if got := estimate(t, c, req); got.Training.Attention != model.AttnSDPA || !imported(got, "model_init_kwargs", "ignored") {
		t.Errorf("no attn_implementation: attention %q, imported %+v; want sdpa and model_init_kwargs ignored", got.Training.Attention, got.Inputs.Imported)
	}
	req.Training.HFArgs = `{"model_init_kwargs": {"attn_implementation": "flex_attention"}}`
	_, err := c.Estimate(req)
	if err == nil || !strings.Contains(err.Error(), "training.hf_args.model_init_kwargs.attn_implementation") || !strings.Contains(err.Error(), "flex_attention") {
		t.Errorf("flex_attention: error %v, want one naming the key and the value", err)
	}
}

func imported(r model.Response, key, use string) bool {
	for _, i := range r.Inputs.Imported {
		if i.Key == key && i.Use == use {
			return true
		}
	}
	return false
}

// TestFusedOptimizer: the foreach AdamW (training.fused_optimizer false,
// or the Trainer's optim adamw_torch) adds ForeachExtraBytes per trained
// parameter and optimizer step at the memory bandwidth, and says so; the
// fused one (the default, and optim adamw_torch_fused) adds nothing; fsdp
// shares the passes over its shards; lora's few trained parameters barely
// move; the response echoes the choice.
func TestFusedOptimizer(t *testing.T) {
	c := catalog(t)
	off := false
	for _, tt := range []struct {
		name   string
		req    model.Request
		shards float64
	}{
		{"qwen2.5-1.5b on one H200", effRequest("qwen2.5-1.5b", "h200-sxm", 2048, 4), 1},
		{"llama-2-7b fsdp over 8 A100", effRequest("llama-2-7b", "a100-sxm4-80gb", 4096, 2), 8},
	} {
		if tt.shards == 1 {
			tt.req.Hardware.Count, tt.req.Strategy = 1, model.Strategy{Name: model.Single}
		}
		fused := estimate(t, c, tt.req)
		req := tt.req
		req.Training.FusedOptimizer = &off
		foreach := estimate(t, c, req)
		req.Training.FusedOptimizer = nil
		req.Training.HFArgs = `{"optim": "adamw_torch"}`
		hf := estimate(t, c, req)
		req.Training.HFArgs = `{"optim": "adamw_torch_fused"}`
		hfFused := estimate(t, c, req)
		if !fused.Training.FusedOptimizer || foreach.Training.FusedOptimizer || hf.Training.FusedOptimizer || !hfFused.Training.FusedOptimizer {
			t.Errorf("%s: fused_optimizer echoed %v (default), %v (off), %v (adamw_torch), %v (adamw_torch_fused)", tt.name,
				fused.Training.FusedOptimizer, foreach.Training.FusedOptimizer, hf.Training.FusedOptimizer, hfFused.Training.FusedOptimizer)
		}
		if hf.TimeS != foreach.TimeS || hfFused.TimeS != fused.TimeS {
			t.Errorf("%s: optim adamw_torch %g s against fused_optimizer off %g s; adamw_torch_fused %g s against the default %g s", tt.name, hf.TimeS, foreach.TimeS, hfFused.TimeS, fused.TimeS)
		}
		if !hasAssumption(foreach, "training.fused_optimizer") || hasAssumption(fused, "training.fused_optimizer") {
			t.Errorf("%s: the foreach assumption is missing or the fused estimate carries it", tt.name)
		}
		// The added GPU-time: the passes of each optimizer step over the
		// trained parameters (shared over fsdp's shards) at the bandwidth.
		g, _ := c.Hardware.Lookup(tt.req.Hardware.GPU)
		steps := tt.req.Training.Tokens / (tt.req.Training.BatchPerGPU * tt.req.Training.SeqLen)
		want := model.ForeachExtraBytes * fused.Training.TrainableParams / tt.shards * steps / (g.BandwidthGBs * 1e9)
		got := (foreach.TrainingTimeS - fused.TrainingTimeS) * foreach.Parallel.Speedup
		if math.Abs(got/want-1) > 0.02 {
			t.Errorf("%s: foreach adds %.4g s of GPU time, want %.4g s", tt.name, got, want)
		}
	}
}
