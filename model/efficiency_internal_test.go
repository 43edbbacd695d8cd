package model

import (
	"math"
	"testing"
)

// TestEagerAttentionMatchesFlashAttention2Paper checks the eager
// attention's time factor against the end-to-end training speeds the
// FlashAttention-2 paper reports for GPT-style models on 8 A100 80 GB (Dao
// 2023, arXiv 2307.08691, Table 1), without FlashAttention against
// FlashAttention-2: the modelled ratio of step compute times is within
// 15 % of the published ratio of speeds, and grows with the sequence.
func TestEagerAttentionMatchesFlashAttention2Paper(t *testing.T) {
	cases := []struct {
		name          string
		layers, d     int
		seq           int
		eager, flash2 float64 // TFLOP/s per GPU
	}{
		{"GPT3-1.3B 2k", 24, 2048, 2048, 142, 196},
		{"GPT3-1.3B 8k", 24, 2048, 8192, 72, 220},
		{"GPT3-2.7B 2k", 32, 2560, 2048, 149, 205},
		{"GPT3-2.7B 8k", 32, 2560, 8192, 80, 225},
	}
	prev := map[int]float64{}
	for _, c := range cases {
		r := &resolved{arch: Arch{Layers: c.layers, Hidden: c.d, Heads: c.d / 128, FFN: 4 * c.d, Vocab: 50257}, seq: c.seq, head: "lm", method: method{name: MethodFull},
			gpu: &GPU{ID: "a100-sxm4-80gb", BandwidthGBs: 2039, BF16TFLOPS: 312}, peak: 312e12} // the paper's A100 80 GB in bf16
		r.eff.attn = AttnEager
		f := r.attnTimeFactor(r.fullFLOPsPerToken(false))
		want := c.flash2 / c.eager
		if math.Abs(f/want-1) > 0.15 {
			t.Errorf("%s: eager over fused time %.3f, the paper's speeds give %.3f (want within 15 %%)", c.name, f, want)
		}
		if p, ok := prev[c.d]; ok && !(f > p) {
			t.Errorf("%s: eager factor %.3f not above the shorter sequence's %.3f", c.name, f, p)
		}
		prev[c.d] = f
		for _, a := range []string{"", AttnSDPA, AttnFlash2} {
			r.eff.attn = a
			if g := r.attnTimeFactor(r.fullFLOPsPerToken(false)); g != 1 {
				t.Errorf("%s: attention %q factor %g, want 1 (the calibration's fused attention)", c.name, a, g)
			}
		}
		r.eff.attn = AttnFlash3
		g := r.attnTimeFactor(r.fullFLOPsPerToken(false))
		if !(g < 1 && g > 1-1/Flash3Speedup) {
			t.Errorf("%s: flash3 factor %g, want below 1 and above the attention-only bound", c.name, g)
		}
	}
}
