package model_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
)

func boolp(b bool) *bool { return &b }

// peftRequest is a request for method m on preset p, gpu × n, strategy s.
func peftRequest(p, m, gpu string, n float64, s string) model.Request {
	return model.Request{
		Model:    model.ModelSpec{Preset: p},
		Training: model.TrainingSpec{Tokens: 5e7, SeqLen: 1024, BatchPerGPU: 4, Precision: model.BF16, Method: m},
		Hardware: model.HardwareSpec{GPU: gpu, Count: n},
		Strategy: model.Strategy{Name: s},
		Site:     model.SiteSpec{PUE: 1.2, CarbonGPerKWh: 400, USDPerKWh: 0.15},
	}
}

// TestLoRAParamsPublished checks the adapter counts against published
// trainable-parameter counts.
func TestLoRAParamsPublished(t *testing.T) {
	// GPT-3 175B: 96 layers, d = 12288 (Brown et al. 2020, Table 2.1).
	gpt3 := model.Arch{Layers: 96, Hidden: 12288, Heads: 96, FFN: 4 * 12288, Vocab: 50257}
	presets := map[string]model.Arch{}
	for _, p := range model.DefaultPresets() {
		presets[p.Name] = p.Arch
	}
	tests := []struct {
		name    string
		arch    model.Arch
		rank    int
		targets string
		want    float64
		tol     float64 // absolute, from the published rounding
		source  string
	}{
		{"roberta-base r=8 qv", presets["roberta-base"], 8, "qv", 0.3e6, 0.05e6, "Hu et al. 2021, Table 2: RoBERTa-base LoRA 0.3M"},
		{"roberta-large r=8 qv", presets["roberta-large"], 8, "qv", 0.8e6, 0.05e6, "Hu et al. 2021, Table 2: RoBERTa-large LoRA 0.8M"},
		{"gpt-3 r=1 qv", gpt3, 1, "qv", 4.7e6, 0.05e6, "Hu et al. 2021, Table 4: GPT-3 LoRA 4.7M"},
		{"gpt-3 r=8 qv", gpt3, 8, "qv", 37.7e6, 0.05e6, "Hu et al. 2021, Table 4: GPT-3 LoRA 37.7M"},
		{"gpt-3 r=8 q", gpt3, 8, "q", 18e6, 1e6, "Hu et al. 2021, Table 5: 18M budget, r = 8 on one weight type"},
		{"gpt-3 r=4 qv", gpt3, 4, "qv", 18e6, 1e6, "Hu et al. 2021, Table 5: 18M budget, r = 4 on W_q, W_v"},
		{"gpt-3 r=2 qkvo", gpt3, 2, "attention", 18e6, 1e6, "Hu et al. 2021, Table 5: 18M budget, r = 2 on W_q, W_k, W_v, W_o"},
		{"llama-2-7b r=8 qv", presets["llama-2-7b"], 8, "qv", 4194304, 0, "PEFT print_trainable_parameters for meta-llama/Llama-2-7b-hf, r = 8 on q_proj, v_proj: 4,194,304"},
		{"llama-2-7b r=16 all linear", presets["llama-2-7b"], 16, "attention_mlp", 39976960, 0, "PEFT print_trainable_parameters for meta-llama/Llama-2-7b-hf, r = 16 on all linear layers: 39,976,960"},
		{"llama-2-7b r=64 all linear", presets["llama-2-7b"], 64, "attention_mlp", 159907840, 0, "PEFT print_trainable_parameters for Llama-2-7B with the QLoRA recipe (r = 64, all linear layers): 159,907,840"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.arch.LoRAParams(tt.rank, tt.targets)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-tt.want) > tt.tol {
				t.Errorf("LoRAParams(%d, %s) = %.0f, want %.0f ± %.0f (%s)", tt.rank, tt.targets, got, tt.want, tt.tol, tt.source)
			}
		})
	}
	if _, err := presets["bert-base"].LoRAParams(8, "q,gate"); err == nil {
		t.Error("LoRAParams on gate of bert-base (no gated MLP) gave no error")
	}
}

// TestLoRAFLOPsMultiple states the FLOPs-per-token multiple against full
// fine-tuning without checkpointing: about 4N/6N for lora, 6N/6N for lora
// with checkpointing, 8N/6N for full with checkpointing (Korthikanti et al.
// 2022: full recomputation adds one forward pass).
func TestLoRAFLOPsMultiple(t *testing.T) {
	c := catalog(t)
	tests := []struct {
		method   string
		ckpt     bool
		lo, hi   float64
		exactLoR bool
	}{
		{model.MethodFull, false, 1, 1, false},
		{model.MethodFull, true, 1.32, 1.34, false},
		{model.MethodLoRA, false, 0.665, 0.675, true},
		{model.MethodLoRA, true, 0.995, 1.01, true},
		{model.MethodQLoRA, false, 0.665, 0.71, false}, // rank 64 on every linear layer adds 6·160M
	}
	for _, tt := range tests {
		req := peftRequest("llama-2-7b", tt.method, "h200", 1, model.Single)
		req.Training.GradientCheckpointing = boolp(tt.ckpt)
		r := estimate(t, c, req)
		got := r.Training.FLOPsPerTokenVsFull
		if got < tt.lo || got > tt.hi {
			t.Errorf("%s ckpt=%v: FLOPs per token %.4f × full, want in [%g, %g]", tt.method, tt.ckpt, got, tt.lo, tt.hi)
		}
		if tt.exactLoR {
			// By hand: 4N + 6LSd + 4dV + 6P (+ 2N + 2LSd + 2P with checkpointing).
			a := r.Inputs.Arch
			N, L, d, S, V := a.NonEmbeddingParams(), float64(a.Layers), float64(a.Hidden), 1024.0, float64(a.Vocab)
			P := r.Training.AdapterParams
			want := 4*N + 6*L*S*d + 4*d*V + 6*P
			if tt.ckpt {
				want += 2*N + 2*L*S*d + 2*P
			}
			if rel := math.Abs(r.Roofline.FLOPsPerToken/want - 1); rel > 1e-12 {
				t.Errorf("lora ckpt=%v: %g FLOPs per token, want %g", tt.ckpt, r.Roofline.FLOPsPerToken, want)
			}
		}
	}
}

// TestPEFTInvariants: for every preset, lora and qlora are answered where
// they fit, energy is linear in tokens apart from E₀, lora is below full
// fine-tuning at the same configuration, and qlora's compute is at least
// lora's at the same shape.
func TestPEFTInvariants(t *testing.T) {
	c := catalog(t)
	for _, p := range c.Presets {
		for _, hw := range []struct {
			gpu   string
			n     float64
			strat string
		}{{"h100", 1, model.Single}, {"h100", 8, model.FSDP}, {"a100-sxm4-80gb", 4, model.DDP}, {"rtx-4090", 1, model.Single}} {
			byMethod := map[string]model.Response{}
			for _, m := range model.Methods {
				req := peftRequest(p.Name, m, hw.gpu, hw.n, hw.strat)
				req.Training.GradientCheckpointing = boolp(true)
				r, err := c.Estimate(req)
				if err != nil {
					fe := model.AsFieldError(err)
					if fe == nil || fe.Field != "hardware.count" {
						t.Errorf("%s %s on %g × %s: error %v, want only memory refusals", p.Name, m, hw.n, hw.gpu, err)
					}
					continue
				}
				byMethod[m] = r
				req.Training.Tokens *= 2
				r2 := estimate(t, c, req)
				e0 := r.Breakdown.FixedKWh + r.Breakdown.WarmupKWh // the run's fixed parts
				if rel := math.Abs((r2.EnergyKWh-e0)/(r.EnergyKWh-e0) - 2); rel > 1e-9 {
					t.Errorf("%s %s on %g × %s: energy above E₀ and the warm-up grows ×%.12g with twice the tokens, want ×2", p.Name, m, hw.n, hw.gpu, (r2.EnergyKWh-e0)/(r.EnergyKWh-e0))
				}
			}
			lora, okL := byMethod[model.MethodLoRA]
			qlora, okQ := byMethod[model.MethodQLoRA]
			if hw.gpu == "h100" && hw.n == 8 && (!okL || !okQ) {
				t.Errorf("%s: lora or qlora refused on 8 × h100 with fsdp", p.Name)
			}
			if hw.gpu == "h100" && hw.n == 1 && !okQ {
				t.Errorf("%s: qlora refused on one h100", p.Name)
			}
			if full, ok := byMethod[model.MethodFull]; ok && okL && !(lora.EnergyKWh < full.EnergyKWh) {
				t.Errorf("%s on %g × %s: lora %.4g kWh not below full fine-tuning %.4g kWh", p.Name, hw.n, hw.gpu, lora.EnergyKWh, full.EnergyKWh)
			}
			if okL && okQ {
				// same shape: give lora qlora's default rank and targets
				req := peftRequest(p.Name, model.MethodLoRA, hw.gpu, hw.n, hw.strat)
				req.Training.GradientCheckpointing = boolp(true)
				req.Training.LoRA = &model.LoRASpec{Rank: 64, Targets: model.TargetsAttentionMLP}
				same, err := c.Estimate(req)
				if err != nil {
					continue // 64-rank adapters may not fit where rank 8 did
				}
				if !(qlora.Roofline.FLOPs >= same.Roofline.FLOPs) || !(qlora.TimeS >= same.TimeS) {
					t.Errorf("%s on %g × %s: qlora %.6g FLOPs, %.4g s below lora %.6g FLOPs, %.4g s at the same shape", p.Name, hw.n, hw.gpu, qlora.Roofline.FLOPs, qlora.TimeS, same.Roofline.FLOPs, same.TimeS)
				}
			}
		}
	}
}

// TestPEFTMemory checks the memory check against the cases and
// published footprints.
func TestPEFTMemory(t *testing.T) {
	c := catalog(t)
	t.Run("70b lora on 8 × 80 GB", func(t *testing.T) {
		for _, s := range []string{model.FSDP, model.TP} {
			estimate(t, c, peftRequest("llama-2-70b", model.MethodLoRA, "h100", 8, s))
			estimate(t, c, peftRequest("llama-3-70b", model.MethodLoRA, "a100-sxm4-80gb", 8, s))
		}
		if _, err := c.Estimate(peftRequest("llama-2-70b", model.MethodFull, "h100", 8, model.DDP)); err == nil {
			t.Error("full fine-tuning of 70B replicated on 80 GB GPUs accepted")
		}
	})
	t.Run("7b/8b qlora on one 24 GB card", func(t *testing.T) {
		for _, p := range []string{"llama-2-7b", "llama-3-8b", "mistral-7b", "qwen2.5-7b", "olmo-2-7b"} {
			for _, g := range []string{"rtx-4090", "rtx-3090", "a10", "l4"} {
				estimate(t, c, peftRequest(p, model.MethodQLoRA, g, 1, model.Single))
			}
		}
	})
	t.Run("70b qlora on one 24 GB card refused", func(t *testing.T) {
		_, err := c.Estimate(peftRequest("llama-2-70b", model.MethodQLoRA, "rtx-4090", 1, model.Single))
		fe := model.AsFieldError(err)
		if fe == nil || fe.Field != "hardware.count" || !strings.Contains(fe.Message, "frozen base weights at nf4") || !strings.Contains(fe.Message, "24 GB") {
			t.Errorf("70B qlora on one rtx-4090: error %v, want hardware.count naming the nf4 base weights and the 24 GB", err)
		}
	})
	t.Run("gpt-3 lora frozen weights 350 GB", func(t *testing.T) {
		// Hu et al. 2021, section 4.2: LoRA reduces GPT-3 175B's training
		// VRAM to 350 GB (16-bit frozen weights).
		req := peftRequest("", model.MethodLoRA, "a100-sxm4-80gb", 8, model.FSDP)
		req.Model = model.ModelSpec{Layers: 96, Hidden: 12288, Heads: 96, FFN: 4 * 12288, Vocab: 50257}
		r := estimate(t, c, req)
		total := r.Memory.StateGBPerGPU * 8
		if total < 340 || total > 365 {
			t.Errorf("GPT-3 lora state %.1f GB over 8 GPUs, want about 350 GB (Hu et al. 2021, section 4.2)", total)
		}
	})
	t.Run("65b qlora under 48 GB", func(t *testing.T) {
		// Dettmers et al. 2023, abstract: QLoRA fine-tunes a 65B model on a
		// single 48 GB GPU. LLaMA-65B: 80 layers, d 8192, ff 22016
		// (Touvron et al. 2023, Table 2).
		req := peftRequest("", model.MethodQLoRA, "rtx-a6000", 1, model.Single)
		req.Model = model.ModelSpec{Layers: 80, Hidden: 8192, Heads: 64, FFN: 22016, Vocab: 32000, GLU: true}
		req.Training.BatchPerGPU = 1
		r := estimate(t, c, req)
		if s := r.Memory.StateGBPerGPU; s < 40 || s > 48 {
			t.Errorf("LLaMA-65B qlora state %.1f GB, want just under 48 GB (Dettmers et al. 2023)", s)
		}
		if f := r.Memory.FrozenGBPerGPU; f < 33 || f > 36 {
			t.Errorf("LLaMA-65B nf4 frozen base %.1f GB, want about 34 GB (4.127 bits per weight)", f)
		}
	})
}

func TestPEFTBadInput(t *testing.T) {
	c := catalog(t)
	tests := []struct {
		name  string
		edit  func(*model.Request)
		field string
	}{
		{"unknown method", func(r *model.Request) { r.Training.Method = "prefix" }, "training.method"},
		{"rank above hidden", func(r *model.Request) { r.Training.LoRA = &model.LoRASpec{Rank: 4097} }, "training.lora.rank"},
		{"fractional rank", func(r *model.Request) { r.Training.LoRA = &model.LoRASpec{Rank: 1.5} }, "training.lora.rank"},
		{"negative rank", func(r *model.Request) { r.Training.LoRA = &model.LoRASpec{Rank: -8} }, "training.lora.rank"},
		{"NaN rank", func(r *model.Request) { r.Training.LoRA = &model.LoRASpec{Rank: math.NaN()} }, "training.lora.rank"},
		{"unknown module", func(r *model.Request) { r.Training.LoRA = &model.LoRASpec{Targets: "q,mlp"} }, "training.lora.targets"},
		{"gate on a model without one", func(r *model.Request) {
			r.Model.Preset = "gpt2"
			r.Training.LoRA = &model.LoRASpec{Targets: "q,v,gate"}
		}, "training.lora.targets"},
		{"lora options with full", func(r *model.Request) {
			r.Training.Method = model.MethodFull
			r.Training.LoRA = &model.LoRASpec{Rank: 8}
		}, "training.lora"},
		{"base format with lora", func(r *model.Request) { r.Training.LoRA = &model.LoRASpec{BaseFormat: "nf4"} }, "training.lora.base_format"},
		{"compute dtype with lora", func(r *model.Request) { r.Training.LoRA = &model.LoRASpec{ComputeDtype: model.BF16} }, "training.lora.compute_dtype"},
		{"unknown base format", func(r *model.Request) {
			r.Training.Method = model.MethodQLoRA
			r.Training.LoRA = &model.LoRASpec{BaseFormat: "fp4"}
		}, "training.lora.base_format"},
		{"qlora on a tpu", func(r *model.Request) {
			r.Training.Method = model.MethodQLoRA
			r.Hardware.GPU = "tpu-v4"
		}, "training.method"},
		{"qlora in fp8", func(r *model.Request) {
			r.Training.Method = model.MethodQLoRA
			r.Training.Precision = model.FP8
		}, "training.precision"},
		{"qlora compute dtype fp8", func(r *model.Request) {
			r.Training.Method = model.MethodQLoRA
			r.Training.LoRA = &model.LoRASpec{ComputeDtype: model.FP8}
		}, "training.lora.compute_dtype"},
		{"qlora compute dtype the gpu lacks", func(r *model.Request) {
			r.Training.Method = model.MethodQLoRA
			r.Hardware.GPU = "t4"
			r.Training.Precision = model.FP16
			r.Training.LoRA = &model.LoRASpec{ComputeDtype: model.BF16}
		}, "training.lora.compute_dtype"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := peftRequest("llama-2-7b", model.MethodLoRA, "h100", 1, model.Single)
			tt.edit(&req)
			_, err := c.Estimate(req)
			fe := model.AsFieldError(err)
			if fe == nil || fe.Field != tt.field {
				t.Errorf("Estimate error = %v, want a field error on %s", err, tt.field)
			}
		})
	}
}

func TestPEFTWarnings(t *testing.T) {
	c := catalog(t)
	tests := []struct {
		name, gpu string
		prec      model.Precision
		want      string
	}{
		{"rocm", "mi300x", model.BF16, "ROCm"},
		{"fp32 compute", "a100-sxm4-80gb", model.FP32, "compute dtype fp32"},
		{"pre-turing", "v100-sxm2-32gb", model.FP16, "Turing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := peftRequest("llama-2-7b", model.MethodQLoRA, tt.gpu, 1, model.Single)
			req.Training.Precision = tt.prec
			r := estimate(t, c, req)
			if !strings.Contains(strings.Join(r.Warnings, "\n"), tt.want) {
				t.Errorf("qlora on %s in %s: warnings %q lack %q", tt.gpu, tt.prec, r.Warnings, tt.want)
			}
		})
	}
}

// TestPEFTCommunication: the data-parallel all-reduce carries adapter
// gradients only, so lora's ddp efficiency is at least full fine-tuning's.
func TestPEFTCommunication(t *testing.T) {
	c := catalog(t)
	s := commStep()
	full := s
	lora := s
	lora.Trainable = s.Params / 1000
	var cp model.CommParams
	cp.Exposed.Value, cp.LatencyS.Value = 1, 1e-5
	plan := model.Plan{Tensor: 1, Data: 8, DataMode: model.DDP}
	_, etaF, tf := cp.Efficiency(plan, full)
	_, etaL, tl := cp.Efficiency(plan, lora)
	if !(tl.DataS < tf.DataS/900) || !(etaL > etaF) || !(tl.Collectives <= tf.Collectives) {
		t.Errorf("ddp: lora %+v η %.4f against full %+v η %.4f; want 1/1000 of the volume, no more collectives, higher η", tl, etaL, tf, etaF)
	}
	// fsdp still gathers the frozen base: at least 2/3 of full's volume at
	// the same bytes per weight.
	plan.DataMode = model.FSDP
	_, _, tf = cp.Efficiency(plan, full)
	_, _, tl = cp.Efficiency(plan, lora)
	if r := tl.DataS / tf.DataS; r < 2.0/3 || r > 0.67 {
		t.Errorf("fsdp: lora moves %.4f of full fine-tuning's volume, want about 2/3", r)
	}
	// In an estimate: ddp across 8 GPUs waits no longer for lora than for
	// full fine-tuning of the same model (adapter gradients only; the
	// waiting GPU-time is t₁·(1/η − 1), with t₁ = N·η·the training time
	// less the first steps' warm-up). On the optimised stack, whose host
	// does not hold the GPUs up (hoststep.go), so that the training time
	// is the GPUs' work and their waiting alone.
	ql := peftRequest("qwen2.5-1.5b", model.MethodLoRA, "a100-sxm4-80gb", 8, model.DDP)
	qf := peftRequest("qwen2.5-1.5b", model.MethodFull, "a100-sxm4-80gb", 8, model.DDP)
	ql.Training.Stack, qf.Training.Stack = "optimised", "optimised"
	rl, rf := estimate(t, c, ql), estimate(t, c, qf)
	wait := func(r model.Response) float64 {
		return float64(r.Parallel.GPUs) * (r.TrainingTimeS - model.WarmupS) * r.Parallel.WaitingShare
	}
	if wl, wf := wait(rl), wait(rf); !(wl > 0 && wl <= wf*(1+1e-9)) {
		t.Errorf("ddp waiting GPU-time: lora %.4g s, full %.4g s; want lora positive and no longer (adapter gradients only)", wl, wf)
	}
}

func TestPEFTLawScaled(t *testing.T) {
	c := catalog(t)
	req := peftRequest("bert-base", model.MethodFull, "a100-sxm4-80gb", 4, model.FSDP)
	req.Training.SeqLen = 128
	req.Calibration = "zoubeirou2026-bert-pooled"
	full := estimate(t, c, req)
	req.Training.Method = model.MethodLoRA
	lora := estimate(t, c, req)
	if !(lora.EnergyKWh < full.EnergyKWh) {
		t.Errorf("law calibration: lora %.4g kWh not below full %.4g kWh", lora.EnergyKWh, full.EnergyKWh)
	}
	if !strings.Contains(strings.Join(lora.Assumptions, "\n"), "fitted to full fine-tuning") {
		t.Errorf("law calibration with lora: assumptions %q do not say the law is scaled", lora.Assumptions)
	}
}

// TestQLoRA65BOnOne48GBGPU: the QLoRA paper fine-tunes 65B-class models on
// one 48 GB GPU (Dettmers et al. 2023, abstract and section 5) with bf16
// adapters and a paged 32-bit AdamW: Llama-2-70B under the QLoRA defaults
// fits an RTX A6000, at 12 bytes per trained parameter, said in the
// assumptions. A model that does not fit (Llama-3-70B, whose 128k
// vocabulary stays in 16 bits) is refused with the state bytes that would.
func TestQLoRA65BOnOne48GBGPU(t *testing.T) {
	c := catalog(t)
	req := model.Request{
		Model:    model.ModelSpec{Preset: "llama-2-70b"},
		Training: model.TrainingSpec{Tokens: 1e7, SeqLen: 512, BatchPerGPU: 1, Precision: model.BF16, Method: model.MethodQLoRA},
		Hardware: model.HardwareSpec{GPU: "rtx-a6000", Count: 1},
		Strategy: model.Strategy{Name: model.Single},
	}
	r := estimate(t, c, req)
	if r.Memory.StateGBPerGPU+r.Memory.ActivationGBPerGPU > r.Memory.CapacityGB {
		t.Errorf("llama-2-70b qlora on one rtx-a6000: %.1f GB state + %.1f GB activations > %.0f GB", r.Memory.StateGBPerGPU, r.Memory.ActivationGBPerGPU, r.Memory.CapacityGB)
	}
	if got, want := r.Memory.TrainedGBPerGPU*1e9/r.Training.TrainableParams, float64(model.QLoRAStateBytesPerParam); math.Abs(got-want) > 1e-9 {
		t.Errorf("trained state %.4g bytes per trained parameter, want %g", got, want)
	}
	if !slices.Contains(r.Assumptions, model.Message{Code: model.CodeAssumeQLoRAState, Args: model.Args{{Name: "field", Str: "training.state_bytes_per_param"}}}.String()) {
		t.Errorf("assumptions do not state the QLoRA state bytes: %q", r.Assumptions)
	}
	req.Model.Preset = "llama-3-70b"
	_, err := c.Estimate(req)
	fe := model.AsFieldError(err)
	if fe == nil || fe.Field != "hardware.count" || !strings.Contains(fe.Message, "training.state_bytes_per_param at most") {
		t.Fatalf("llama-3-70b qlora on one rtx-a6000: %v; want hardware.count refused, naming the state bytes that fit", err)
	}
	req.Training.StateBytesPerParam = 10
	if _, err := c.Estimate(req); err != nil {
		t.Errorf("with the state bytes the refusal names (10): %v", err)
	}
}
