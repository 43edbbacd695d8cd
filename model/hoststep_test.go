package model_test

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/wattscale/wattscale/model"
)

// readBench reads one of wattscale's own H200 measurement files
// (content/data/README.md says how they were made) as maps by column.
func readBench(t *testing.T, name string) []map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "content", "data", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, c := range recs[0] {
			m[c] = r[i]
		}
		out = append(out, m)
	}
	return out
}

func num(t *testing.T, m map[string]string, k string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(m[k], 64)
	if err != nil {
		t.Fatalf("%s: %v", k, err)
	}
	return v
}

// TestHostFloorMeasured: the host's time per step (hoststep.go) is the
// measured floor of narrow models within 10 % at every block count, and
// what a GPU waiting for its host draws is the measured power's share.
func TestHostFloorMeasured(t *testing.T) {
	n := 0
	for _, r := range readBench(t, "hostbench-h200.csv") {
		if r["set"] != "floor" {
			continue
		}
		n++
		got := model.HostStepS + model.HostLayerS*num(t, r, "layers")
		if want := num(t, r, "step_s"); math.Abs(got/want-1) > 0.10 {
			t.Errorf("%s blocks, %s: host time %.4g s, measured step %.4g s", r["layers"], r["optimizer"], got, want)
		}
		// 700 W board, about 690 W busy in the same session's large cases.
		if share := num(t, r, "power_w") / 690; math.Abs(share-model.HostWaitPowerShare) > 0.05 {
			t.Errorf("%s blocks: a waiting GPU drew %.3g of busy power, the model says %.3g", r["layers"], share, model.HostWaitPowerShare)
		}
	}
	if n < 5 {
		t.Fatalf("%d floor rows, want the five block counts and more", n)
	}
}

// TestHFBenchH200: the steady-state energy per token and time per token of
// wattscale's own Hugging Face measurements on one H200 (hfbench-h200.csv),
// estimated from the configuration each case names. Median fold error
// at most 1.2; the short steps of BERT-base and GPT-2 that the host holds
// up (before the host's share was modelled: ×1.15 to ×1.96 low) within
// ×1.35; every case within ×2; and the measured effects of checkpointing
// and torch.compile on the same model within 10 %, fused AdamW's (whose
// constant the base and fused cases set) within 3 %. Eager attention's
// cost within 15 %: FlashAttention-2's A100 figure scaled by the H200's
// machine balance (eagerCost) gives 1.36 and 1.70 where this H200
// measured 1.49 and 1.98 at 2,048 and 4,096 tokens.
func TestHFBenchH200(t *testing.T) {
	c := catalog(t)
	const tokens = 1e9 // long enough that start-up and warm-up do not count
	type got struct{ sPerTok, jPerTok, msPerTok, mjPerTok float64 }
	res := map[string]got{}
	var folds []float64
	for _, r := range readBench(t, "hfbench-h200.csv") {
		tr := model.TrainingSpec{Tokens: tokens, SeqLen: num(t, r, "seq_len"), BatchPerGPU: num(t, r, "batch"), Precision: model.BF16}
		if r["attention"] != "sdpa" {
			tr.Attention = r["attention"]
		}
		if r["compile"] == "true" {
			v := true
			tr.Compile = &v
		}
		if r["fused_adamw"] == "false" {
			off := false
			tr.FusedOptimizer = &off
		}
		if r["checkpointing"] == "true" {
			v := true
			tr.GradientCheckpointing = &v
		}
		if r["method"] == "lora" {
			tr.Method = model.MethodLoRA
			tr.LoRA = &model.LoRASpec{Rank: 16, Targets: "attention_mlp"}
		}
		req := model.Request{Model: model.ModelSpec{Preset: r["model"]}, Training: tr,
			Hardware: model.HardwareSpec{GPU: "h200-sxm", Count: 1}, Strategy: model.Strategy{Name: model.Single}}
		e := estimate(t, c, req)
		g := got{e.TrainingTimeS / tokens, e.TrainingEnergyKWh * 3.6e6 / tokens, 1 / num(t, r, "tokens_per_s"), num(t, r, "j_per_token")}
		res[r["name"]] = g
		fold := math.Exp(math.Abs(math.Log(g.jPerTok / g.mjPerTok)))
		folds = append(folds, fold)
		if fold > 2 {
			t.Errorf("%s: %.4g J/token estimated, %.4g measured (×%.2f)", r["name"], g.jPerTok, g.mjPerTok, fold)
		}
		switch r["name"] {
		case "bert-b8-s128", "bert-b32-s128", "bert-b32-s128-eager", "bert-b16-s512", "gpt2-b4-s512":
			if fold > 1.35 {
				t.Errorf("%s, a host-bound step: %.4g J/token estimated, %.4g measured (×%.2f)", r["name"], g.jPerTok, g.mjPerTok, fold)
			}
		}
	}
	if len(folds) < 15 {
		t.Fatalf("%d cases, want the measured 19", len(folds))
	}
	if m := median(folds); m > 1.2 {
		t.Errorf("median fold error %.3f over %d cases, want at most 1.2", m, len(folds))
	}
	ratio := func(a, b string, tol float64) {
		ga, gb := res[a], res[b]
		est, meas := ga.sPerTok/gb.sPerTok, ga.msPerTok/gb.msPerTok
		if math.Abs(est/meas-1) > tol || (est-1)*(meas-1) <= 0 {
			t.Errorf("%s against %s: time ratio %.3f estimated, %.3f measured (tolerance %.0f %%)", a, b, est, meas, 100*tol)
		}
	}
	ratio("ckpt", "base", 0.10)
	ratio("compile", "base", 0.10)
	ratio("8b-lora-ckpt", "8b-lora", 0.10)
	ratio("eager", "base", 0.15)
	ratio("seq4096-eager", "seq4096", 0.15)
	ratio("fused-adamw", "base", 0.03)
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
