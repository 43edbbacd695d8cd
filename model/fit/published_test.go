package fit_test

import (
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/fit"
)

// bertSST2 is one of the study's configurations (fit.ScalingRequest's
// BERT-base SST-2 on RTX 2080 Ti cards) at tokens, estimated with the
// published pooled calibration.
func bertSST2(t testing.TB, tokens float64, strategy string, n int) model.Request {
	t.Helper()
	req, err := fit.ScalingRequest(fit.ScalingPoint{GPU: "rtx-2080-ti", Strategy: strategy, Workload: fit.WorkloadBERTSST2}, float64(n))
	if err != nil {
		t.Fatal(err)
	}
	req.Training.Tokens = tokens
	req.Calibration = "zoubeirou2026-bert-pooled"
	return req
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
	one, err := cat.Estimate(bertSST2(t, tokens, model.Single, 1))
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
		resp, err := cat.Estimate(bertSST2(t, tokens, p.Strategy, int(p.N)))
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
		req := bertSST2(t, l.RefTokens, model.Single, 1)
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

// TestDefaultCalibrationMatchesPublishedScaling: the default calibration
// reproduces the roofline study's matched-scaling energy per token against
// one GPU (Zoubeirou a Mayaki 2026 revised study; medians over matched
// pairs; content/data/published-scaling.csv), each within 15 %, with η
// from the calibration's own curves and communication model
// (fit.CheckScaling):
//   - RTX 2080 Ti (PCIe), BERT-base SST-2, FSDP and tensor parallelism at 2
//     and 4 GPUs: 2.09, 2.22, 3.61, 7.22, the accelerators' energy (the
//     paper's η^α_η on the accelerator estimate, as the law was fitted);
//   - A100 (NVLink), GPT with FSDP at 2, 4 and 6 GPUs: about 1.24 each, in
//     both scopes, the GPUs alone and with the host over the wall time,
//     since the study's meter counted the CPU and memory of its process
//     (CodeCarbon) and neither bound is published. The waiting power alone
//     at constant busy power would give 1.38–1.57 (TestWaitingPublishedNVLink);
//     FSDP's sharded optimizer update (paramTrafficBytes: each rank updates
//     its 1/N, ZeRO) is what brings the GPUs' energy down to the measurement.
func TestDefaultCalibrationMatchesPublishedScaling(t *testing.T) {
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	within := func(p fit.ScalingPoint, scope string, got float64) {
		if d := got/p.EnergyRatio - 1; d < -0.15 || d > 0.15 {
			t.Errorf("%s %s N=%g (%s): ×%.3f energy per token against one GPU, published ×%.3f (%+.1f %%), want within 15 %%", p.GPU, p.Strategy, p.N, scope, got, p.EnergyRatio, 100*d)
		}
	}
	checked := map[model.Interconnect]int{}
	for _, p := range scaling(t) {
		if p.EnergyRatio == 0 {
			continue
		}
		c, err := fit.CheckScaling(cat, p)
		if err != nil {
			t.Fatal(err)
		}
		checked[p.Interconnect]++
		within(p, "GPUs", c.GPURatio)
		if p.Interconnect == model.NVLink {
			within(p, "node", c.NodeRatio)
		}
	}
	if checked[model.PCIe] != 4 || checked[model.NVLink] != 3 {
		t.Fatalf("checked %v published points, want 4 PCIe and 3 NVLink", checked)
	}
}

// TestCheckScalingNamesTheWorkload: a scaling point whose workload is not
// one the project can estimate is refused, naming the workload given.
func TestCheckScalingNamesTheWorkload(t *testing.T) {
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	p := scaling(t)[0]
	p.Workload = "t5-squad"
	if _, err := fit.CheckScaling(cat, p); err == nil || !strings.Contains(err.Error(), `workload "t5-squad"`) {
		t.Errorf("workload t5-squad: error %v, want one naming it", err)
	}
}
