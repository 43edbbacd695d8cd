package model_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
)

// olmoe is OLMoE-1B-7B's shape (allenai/OLMoE-1B-7B-0924 config.json: 16
// layers, d 2048, 16 heads, 64 experts of SwiGLU width 1024, 8 per token,
// vocabulary 50304, untied): 6.9B parameters, 1.3B active (Muennighoff et
// al. 2024, OLMoE, Table 1).
var olmoe = model.Arch{Layers: 16, Hidden: 2048, Heads: 16, FFN: 1024, Vocab: 50304, GLU: true, Experts: 64, ExpertsPerToken: 8}

func TestMoEParams(t *testing.T) {
	if got := olmoe.Params(); math.Abs(got/6.92e9-1) > 0.01 {
		t.Errorf("OLMoE Params() = %.4g, want 6.92e9 within 1%%", got)
	}
	if got := olmoe.ActiveNonEmbeddingParams() + olmoe.EmbeddingParams(); math.Abs(got/1.3e9-1) > 0.03 {
		t.Errorf("OLMoE active parameters = %.4g, want 1.3e9 within 3%%", got)
	}
	dense := olmoe
	dense.Experts, dense.ExpertsPerToken = 0, 0
	if dense.Params() >= olmoe.Params() || dense.ActiveNonEmbeddingParams() != dense.NonEmbeddingParams() || dense.ExpertShare() != 0 {
		t.Errorf("dense variant: Params %.4g, active %.4g, non-embedding %.4g, expert share %g; want fewer parameters, all active, share 0",
			dense.Params(), dense.ActiveNonEmbeddingParams(), dense.NonEmbeddingParams(), dense.ExpertShare())
	}
}

func moeRequest(a model.Arch) model.Request {
	return model.Request{
		Model: model.ModelSpec{Layers: float64(a.Layers), Hidden: float64(a.Hidden), Heads: float64(a.Heads), FFN: float64(a.FFN), Vocab: float64(a.Vocab), GLU: a.GLU,
			Experts: float64(a.Experts), ExpertsPerToken: float64(a.ExpertsPerToken)},
		Training: model.TrainingSpec{Tokens: 1e10, SeqLen: 4096, BatchPerGPU: 4, Precision: model.BF16},
		Hardware: model.HardwareSpec{GPU: "h100-sxm5", Count: 8},
		Strategy: model.Strategy{Name: model.FSDP},
	}
}

// TestMoEEstimate checks what a mixture of experts changes: FLOPs follow
// the active experts, the time follows the published expert rate, and
// more experts at the same top-k cost more (weights, optimizer state and
// their traffic) but never less than the dense model of the same active
// shape.
func TestMoEEstimate(t *testing.T) {
	cat := catalog(t)
	moe, err := cat.Estimate(moeRequest(olmoe))
	if err != nil {
		t.Fatalf("Estimate(OLMoE) error: %v", err)
	}
	// The dense model with one FFN of k·width does the same matmul FLOPs
	// apart from the router (2·3·d·E per layer and token, 0.1 % here).
	active := olmoe
	active.FFN, active.Experts, active.ExpertsPerToken = olmoe.FFN*olmoe.ExpertsPerToken, 0, 0
	dense, err := cat.Estimate(moeRequest(active))
	if err != nil {
		t.Fatalf("Estimate(dense equivalent) error: %v", err)
	}
	if r := moe.Roofline.FLOPsPerToken / dense.Roofline.FLOPsPerToken; r < 1 || r > 1.01 {
		t.Errorf("FLOPs per token: MoE %.4g, dense equivalent %.4g (ratio %.4f), want the same within the router's 1%%", moe.Roofline.FLOPsPerToken, dense.Roofline.FLOPsPerToken, r)
	}
	if moe.Proxies.Params < 5*dense.Proxies.Params {
		t.Errorf("parameters: MoE %.4g, dense equivalent %.4g; want every expert counted", moe.Proxies.Params, dense.Proxies.Params)
	}
	// The experts do s of the FLOPs at ExpertEfficiency of the dense
	// rate: the compute energy grows by (1 − s) + s/e, no more.
	s := 6 * float64(olmoe.Layers*olmoe.ExpertsPerToken) * 3 * float64(olmoe.Hidden*olmoe.FFN) / moe.Roofline.FLOPsPerToken
	want := (1 - s + s/model.ExpertEfficiency) * moe.Roofline.FLOPsPerToken / dense.Roofline.FLOPsPerToken
	if got := moe.Breakdown.ComputeKWh / dense.Breakdown.ComputeKWh; math.Abs(got/want-1) > 0.01 {
		t.Errorf("compute energy MoE / dense equivalent = %.4f, want (1 − s) + s/e = %.4f (s = %.3f)", got, want, s)
	}
	if moe.EnergyKWh <= dense.EnergyKWh {
		t.Errorf("energy: MoE %.4g kWh, dense equivalent %.4g kWh; want the MoE above", moe.EnergyKWh, dense.EnergyKWh)
	}
	more := olmoe
	more.Experts = 128
	big, err := cat.Estimate(moeRequest(more))
	if err != nil {
		t.Fatalf("Estimate(128 experts) error: %v", err)
	}
	if big.EnergyKWh <= moe.EnergyKWh || big.Roofline.FLOPsPerToken != moe.Roofline.FLOPsPerToken+6*float64(olmoe.Layers*olmoe.Hidden*64) {
		t.Errorf("128 experts: %.4g kWh, %.6g FLOPs/token; 64 experts: %.4g kWh, %.6g FLOPs/token; want more energy, FLOPs up by the router only",
			big.EnergyKWh, big.Roofline.FLOPsPerToken, moe.EnergyKWh, moe.Roofline.FLOPsPerToken)
	}
	found := false
	for _, a := range moe.Assumptions {
		if strings.Contains(a, "mixture of experts") && strings.Contains(a, "DeepSeek-V2") {
			found = true
		}
	}
	if !found {
		t.Errorf("assumptions %q: want the mixture-of-experts rule with its source", moe.Assumptions)
	}
}

// TestExpertEfficiencySource recomputes ExpertEfficiency from its source:
// DeepSeek-V2 (236B total, 21B active) needed 172.8K H800 GPU-hours per
// trillion tokens, the dense DeepSeek 67B 300.6K (arXiv 2405.04434), and
// the experts do about half of DeepSeek-V2's FLOPs per token.
func TestExpertEfficiencySource(t *testing.T) {
	mfuRatio := (21.0 / 172.8) / (67.0 / 300.6)
	const share = 0.5
	e := share / (1/mfuRatio - (1 - share))
	if math.Abs(e-model.ExpertEfficiency) > 0.01 {
		t.Errorf("expert efficiency from DeepSeek-V2 / DeepSeek 67B = %.3f (MFU ratio %.3f), ExpertEfficiency = %.3f", e, mfuRatio, model.ExpertEfficiency)
	}
}

func TestMoEFieldErrors(t *testing.T) {
	cat := catalog(t)
	for _, c := range []struct {
		name, field string
		experts, k  int
	}{
		{"top-k without experts", "model.experts_per_token", 0, 8},
		{"one expert", "model.experts", 1, 1},
		{"top-k above experts", "model.experts_per_token", 8, 9},
		{"experts without top-k", "model.experts_per_token", 8, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := olmoe
			a.Experts, a.ExpertsPerToken = c.experts, c.k
			_, err := cat.Estimate(moeRequest(a))
			var fe *model.FieldError
			if !errors.As(err, &fe) || fe.Field != c.field {
				t.Errorf("Estimate(experts %d, per token %d) error = %v, want a field error on %s", c.experts, c.k, err, c.field)
			}
		})
	}
}

// TestMoELoRAAdapters: adapters on the MLP of a mixture of experts are one
// set per expert (PEFT matches every expert's linear layers by name), on
// attention one set per block.
func TestMoELoRAAdapters(t *testing.T) {
	const r = 8
	d, ff := float64(olmoe.Hidden), float64(olmoe.FFN)
	attn := 4 * r * (d + d) // q, k, v, o with as many kv heads as heads
	mlp := float64(olmoe.Experts) * 3 * r * (d + ff)
	got, err := olmoe.LoRAParams(r, model.TargetsAttentionMLP)
	if err != nil {
		t.Fatalf("LoRAParams(%d, attention_mlp) error: %v", r, err)
	}
	if want := float64(olmoe.Layers) * (attn + mlp); math.Abs(got/want-1) > 1e-12 {
		t.Errorf("LoRAParams(%d, attention_mlp) = %.6g, want %.6g (attention once, MLP once per expert)", r, got, want)
	}
	if got, _ := olmoe.LoRAParams(r, model.TargetsAttention); math.Abs(got/(float64(olmoe.Layers)*attn)-1) > 1e-12 {
		t.Errorf("LoRAParams(%d, attention) = %.6g, want %.6g", r, got, float64(olmoe.Layers)*attn)
	}
}

// TestLoRATimeAgainstPaper: Hu et al. (2021, LoRA) measured LoRA 25 %
// faster than full fine-tuning on GPT-3 175B (time 0.80 of it), though its
// FLOPs are 0.67 of full fine-tuning's. The estimate's compute time must
// give the measured ratio, and its FLOPs the physical one.
func TestLoRATimeAgainstPaper(t *testing.T) {
	cat := catalog(t)
	req := model.Request{
		Model:    model.ModelSpec{Layers: 96, Hidden: 12288, Heads: 96, FFN: 49152, Vocab: 50257},
		Training: model.TrainingSpec{Tokens: 1e9, SeqLen: 2048, BatchPerGPU: 1, Precision: model.FP16},
		Hardware: model.HardwareSpec{GPU: "v100-sxm2-32gb", Count: 1024},
		Strategy: model.Strategy{Name: model.Hybrid, Tensor: 8, Data: 128, DataMode: model.FSDP},
	}
	full, err := cat.Estimate(req)
	if err != nil {
		t.Fatalf("Estimate(full) error: %v", err)
	}
	req.Training.Method = model.MethodLoRA
	req.Training.LoRA = &model.LoRASpec{Rank: 4, Targets: model.TargetsQV} // the paper's GPT-3 setting
	lora, err := cat.Estimate(req)
	if err != nil {
		t.Fatalf("Estimate(lora) error: %v", err)
	}
	if got := lora.Breakdown.ComputeKWh / full.Breakdown.ComputeKWh; math.Abs(got-0.80) > 0.02 {
		t.Errorf("LoRA/full compute time = %.3f, want 0.80 ± 0.02 (Hu et al. 2021: 25 %% faster)", got)
	}
	if got := lora.Training.FLOPsPerTokenVsFull; math.Abs(got-0.67) > 0.01 {
		t.Errorf("LoRA FLOPs per token vs full = %.3f, want 0.67 (4·N against 6·N)", got)
	}
	if lora.EnergyKWh >= full.EnergyKWh {
		t.Errorf("LoRA %.4g kWh, full %.4g kWh: want LoRA below", lora.EnergyKWh, full.EnergyKWh)
	}
	found := false
	for _, a := range lora.Assumptions {
		found = found || strings.Contains(a, "Hu et al. 2021")
	}
	if !found {
		t.Errorf("LoRA assumptions %q: want the time rule with its source", lora.Assumptions)
	}
}
