package fit_test

import (
	"math"
	"sort"
	"testing"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
)

// bertSST2 is one of the study's configurations: BERT-base (L 12, d 768)
// on SST-2 at the effective length 66 and per-process batch 32, fp16, on
// RTX 2080 Ti cards (Zoubeirou a Mayaki 2026, revised study's setup).
func bertSST2(tokens float64, strategy string, n int) model.Request {
	return model.Request{
		Model:       model.ModelSpec{Layers: 12, Hidden: 768, Heads: 12, FFN: 3072, Vocab: 30522, Head: "classifier"},
		Training:    model.TrainingSpec{Tokens: tokens, SeqLen: 66, BatchPerGPU: 32, Precision: model.FP16},
		Hardware:    model.HardwareSpec{GPU: "rtx-2080-ti", Count: float64(n)},
		Strategy:    model.Strategy{Name: strategy},
		Calibration: "zoubeirou2026-bert-pooled",
	}
}

// TestPublishedCalibrationMatchesScalingMedians checks the shipped
// published calibration against the study's own aggregate figures: the
// per-strategy energy per token relative to one GPU in
// content/data/published-scaling.csv (medians over matched pairs, RTX
// 2080 Ti). Evaluated at the published η (S/N), the law's ratio η^α_η·Ψ
// must lie within the study's held-out RMSE (0.253 in ln) of each median;
// through Estimate (η from the fitted speedup curves) likewise, and the
// median of the ratios within 15 % of 1.
func TestPublishedCalibrationMatchesScalingMedians(t *testing.T) {
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	cal, err := cat.Calibration("zoubeirou2026-bert-pooled")
	if err != nil {
		t.Fatal(err)
	}
	l := cal.Law
	const tokens = 67349 * 40.8 * 3
	one, err := cat.Estimate(bertSST2(tokens, model.Single, 1))
	if err != nil {
		t.Fatal(err)
	}
	var ratios []float64
	checked := 0
	for _, p := range scaling(t) {
		if p.GPU != "rtx-2080-ti" || p.EnergyRatio == 0 {
			continue
		}
		checked++
		eta := p.Speedup / p.N
		law := math.Pow(eta, l.AlphaEta.Value) * math.Exp(l.LnPsi[p.Strategy].Value)
		if d := math.Log(law / p.EnergyRatio); math.Abs(d) > 0.253 {
			t.Errorf("%s N=%g: law at the published η %.3f gives ×%.3f energy per token, published ×%.3f (ln off by %.3f)", p.Strategy, p.N, eta, law, p.EnergyRatio, d)
		}
		resp, err := cat.Estimate(bertSST2(tokens, p.Strategy, int(p.N)))
		if err != nil {
			t.Fatalf("%s N=%g: %v", p.Strategy, p.N, err)
		}
		est := resp.EnergyKWh / one.EnergyKWh
		if d := math.Log(est / p.EnergyRatio); math.Abs(d) > 0.253 {
			t.Errorf("%s N=%g: estimate gives ×%.3f energy per token against one GPU, published ×%.3f (ln off by %.3f)", p.Strategy, p.N, est, p.EnergyRatio, d)
		}
		if resp.Parallel.AlphaEta != l.AlphaEta.Value {
			t.Errorf("%s N=%g: parallel.alpha_eta = %g, want the calibration's %g", p.Strategy, p.N, resp.Parallel.AlphaEta, l.AlphaEta.Value)
		}
		ratios = append(ratios, est/p.EnergyRatio)
	}
	if checked != 4 {
		t.Fatalf("checked %d published RTX 2080 Ti points, want 4", checked)
	}
	sort.Float64s(ratios)
	if med := (ratios[1] + ratios[2]) / 2; med < 0.85 || med > 1.15 {
		t.Errorf("median estimate/published energy-per-token ratio %.3f, want within 15 %% of 1 (ratios %v)", med, ratios)
	}
}

// TestPublishedCalibrationTokenReference: at the token reference (one full
// 3-epoch SST-2 run of the study) the estimate is the published law itself,
// and the estimate stays extensive in tokens.
func TestPublishedCalibrationTokenReference(t *testing.T) {
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"zoubeirou2026-bert-pooled", "zoubeirou2026-bert-2080ti"} {
		cal, err := cat.Calibration(name)
		if err != nil {
			t.Fatal(err)
		}
		l := cal.Law
		if want := 67349 * 40.8 * 3; math.Abs(l.RefTokens-want) > 1e-6 {
			t.Errorf("%s: ref_tokens %.1f, want 67,349 × 40.8 × 3 = %.1f", name, l.RefTokens, want)
		}
		req := bertSST2(l.RefTokens, model.Single, 1)
		req.Calibration = name
		resp, err := cat.Estimate(req)
		if err != nil {
			t.Fatal(err)
		}
		want := l.LawEnergyKWh(model.ComputeProxy(12, 768, l.RefTokens), model.MemoryProxy(32, 66, 768, 12), 1, model.Single, "rtx-2080-ti")
		if math.Abs(resp.EnergyKWh/want-1) > 1e-9 {
			t.Errorf("%s at the reference tokens: %.6g kWh, the law gives %.6g", name, resp.EnergyKWh, want)
		}
		req.Training.Tokens *= 2
		twice, err := cat.Estimate(req)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(twice.EnergyKWh/resp.EnergyKWh-2) > 1e-9 {
			t.Errorf("%s: twice the tokens gives ×%.12g the energy, want 2", name, twice.EnergyKWh/resp.EnergyKWh)
		}
	}
}

// TestDefaultCalibrationMatchesPCIeScaling: the default calibration
// reproduces the roofline study's matched-scaling energy per token against
// one GPU on RTX 2080 Ti cards (PCIe), FSDP and tensor parallelism at 2 and
// 4 GPUs (2.09, 2.22, 3.61, 7.22: medians over matched pairs, Zoubeirou a
// Mayaki 2026 revised study; content/data/published-scaling.csv), each
// within 15 %, for the study's BERT-base SST-2 runs (3 epochs of 67,349
// sentences at 40.8 tokens) with η from the default calibration's curves.
// (The study's A100 FSDP points, 1.24 at 2, 4 and 6 GPUs, are not held:
// see TestWaitingPublishedNVLink.)
func TestDefaultCalibrationMatchesPCIeScaling(t *testing.T) {
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	const tokens = 67349 * 40.8 * 3
	req := func(strategy string, n int) model.Request {
		r := bertSST2(tokens, strategy, n)
		r.Calibration = ""
		return r
	}
	one, err := cat.Estimate(req(model.Single, 1))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, p := range scaling(t) {
		if p.GPU != "rtx-2080-ti" || p.EnergyRatio == 0 {
			continue
		}
		checked++
		r, err := cat.Estimate(req(p.Strategy, int(p.N)))
		if err != nil {
			t.Fatalf("%s N=%g: %v", p.Strategy, p.N, err)
		}
		if d := r.EnergyKWh/one.EnergyKWh/p.EnergyRatio - 1; d < -0.15 || d > 0.15 {
			t.Errorf("%s N=%g: ×%.3f energy per token against one GPU, published ×%.3f (%+.1f %%), want within 15 %%", p.Strategy, p.N, r.EnergyKWh/one.EnergyKWh, p.EnergyRatio, 100*d)
		}
	}
	if checked != 4 {
		t.Fatalf("checked %d published RTX 2080 Ti points, want 4", checked)
	}
}
