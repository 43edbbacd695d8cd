package fit_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/fit"
	"github.com/wattscale/wattscale/model/fit/stats"
)

// published is the revised study's full-data OLS fit (Zoubeirou a Mayaki
// 2026, arXiv 2606.23546, revised study's published coefficient table):
// ln κ uncentred, α_C, α_M, α_η, ln Ψ_FSDP, ln Ψ_TP.
var published = map[string]float64{
	"ln_kappa": -12.6971100122, "alpha_c": 0.04544, "alpha_m": 0.41980, "alpha_eta": -1.12276,
	"psi:fsdp": -0.2927, "psi:tp": -0.5711,
}

// paperSweep draws runs shaped like the study's BERT sweep (h = d/64,
// ff = 4d, SST-2 at an effective length of 66, per-process batch 16 or 32,
// 1 to 3 epochs, RTX 2080 Ti; single GPU, FSDP and TP at N = 2 and 4 with a
// measured η) whose energies follow the published law times exp(σ·noise).
func paperSweep(rng *rand.Rand, workloads int, sigma float64) []model.Measurement {
	var rows []model.Measurement
	for w := range workloads {
		d := 64 << rng.IntN(5)
		a := model.Arch{Layers: 2 + rng.IntN(23), Hidden: d, Heads: max(d/64, 1), FFN: 4 * d, Vocab: 30522}
		batch := []int{16, 32}[rng.IntN(2)]
		tokens := math.Round(67349 * 40.8 * (1 + 2*rng.Float64()))
		group := fmt.Sprintf("bert-L%d-d%d-w%d", a.Layers, d, w)
		for _, v := range []struct {
			s string
			n int
		}{{model.Single, 1}, {model.FSDP, 2}, {model.FSDP, 4}, {model.TP, 2}, {model.TP, 4}} {
			m := model.Measurement{Arch: a, Head: "classifier", GPU: "rtx-2080-ti", Count: v.n, Strategy: v.s, SeqLen: 66, BatchPerGPU: batch,
				Tokens: tokens, Precision: model.FP16, DurationS: 600, Group: group, Source: "synthetic from the published law"}
			eta := 1.0
			if v.n > 1 {
				eta = 0.08 + 0.9*rng.Float64()
				m.Eta = eta
			}
			c := model.ComputeProxy(float64(a.Layers), float64(d), tokens)
			mm := model.MemoryProxy(float64(batch), 66, float64(d), float64(a.Layers))
			ln := published["ln_kappa"] + published["alpha_c"]*math.Log(c) + published["alpha_m"]*math.Log(mm) + published["alpha_eta"]*math.Log(eta)
			if v.n > 1 {
				ln += published["psi:"+v.s]
			}
			m.EnergyKWh = math.Exp(ln + sigma*rng.NormFloat64())
			rows = append(rows, m)
		}
	}
	return rows
}

func coefByName(t *testing.T, r *stats.OLSResult, name string) (value, se float64) {
	t.Helper()
	for j, n := range r.Names {
		if n == name {
			return r.Coef[j], r.SECluster[j]
		}
	}
	t.Fatalf("no column %q in %v", name, r.Names)
	return 0, 0
}

// TestPaperRecoversPublishedNoiseless: energies generated exactly from the
// published coefficients give those coefficients back to 1e-9.
func TestPaperRecoversPublishedNoiseless(t *testing.T) {
	rows := paperSweep(rand.New(rand.NewPCG(11, 2026)), 30, 0)
	cal, lf, err := fit.Paper(inputs(t, rows), "paper-noiseless", "0")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ln_kappa", "alpha_c", "alpha_m", "alpha_eta", "psi:fsdp", "psi:tp"}; strings.Join(lf.Full.Names, ",") != strings.Join(want, ",") {
		t.Fatalf("design columns %v, want %v (no hardware terms)", lf.Full.Names, want)
	}
	for name, want := range published {
		got, _ := coefByName(t, lf.Full, name)
		if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %.12g, want %.12g (published)", name, got, want)
		}
	}
	l := cal.Law
	for name, c := range map[string]model.Coefficient{"ln_kappa": l.LnKappa, "alpha_c": l.AlphaC, "alpha_m": l.AlphaM, "alpha_eta": l.AlphaEta, "psi:fsdp": l.LnPsi["fsdp"], "psi:tp": l.LnPsi["tp"]} {
		if math.Abs(c.Value-published[name]) > 1e-9*math.Max(1, math.Abs(published[name])) {
			t.Errorf("calibration %s = %.12g, want %.12g", name, c.Value, published[name])
		}
	}
	if len(l.LnHardware) != 0 {
		t.Errorf("paper calibration has hardware terms %v", l.LnHardware)
	}
	if r2 := cal.Fit.R2; !(r2 > 1-1e-12) {
		t.Errorf("noiseless R² = %.15f, want 1", r2)
	}
	if !hasNote(cal.Fit.Notes, "η: measured (column eta") {
		t.Errorf("notes %q do not say η was measured", cal.Fit.Notes)
	}
}

// TestPaperRecoversPublishedWithNoise: with the paper's residual SD (0.24
// ln kWh) as seeded log-normal noise, every coefficient lies within two
// cluster-robust standard errors of the published value, and the model
// without η fits worse.
func TestPaperRecoversPublishedWithNoise(t *testing.T) {
	rows := paperSweep(rand.New(rand.NewPCG(3, 4)), 40, 0.24)
	cal, lf, err := fit.Paper(inputs(t, rows), "paper-noisy", "0")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range published {
		got, se := coefByName(t, lf.Full, name)
		if !(se > 0) || math.Abs(got-want) > 2*se {
			t.Errorf("%s = %.4f ± %.4f (cluster-robust), published %.4f: more than 2 SE apart", name, got, se, want)
		}
	}
	if s := cal.Fit.RMSELn; s < 0.18 || s > 0.3 {
		t.Errorf("RMSE %.3f ln, want near the noise SD 0.24", s)
	}
	if cal.Fit.WithoutEta == nil || !(cal.Fit.WithoutEta.AdjR2 < cal.Fit.AdjR2) {
		t.Errorf("without η: %+v; want a lower adjusted R² than %.4f", cal.Fit.WithoutEta, cal.Fit.AdjR2)
	}
	if c := cal.Fit.Coefficients[0]; c.Name != "intercept (centred)" || !(c.SE > 0) {
		t.Errorf("first coefficient %+v, want the centred intercept with its SE", c)
	}
}

// TestPaperNeedsOnlyWhatItFits: -kind paper takes a TP row whose degree
// does not divide the head count (an estimate-time rule) and an
// accelerator the hardware table does not know, and refuses a multi-GPU
// row without a measured η, naming the row and the column.
func TestPaperNeedsOnlyWhatItFits(t *testing.T) {
	rows := paperSweep(rand.New(rand.NewPCG(5, 6)), 12, 0.1)
	odd := rows[3] // TP at N = 2
	odd.Arch = model.Arch{Layers: 4, Hidden: 192, Heads: 3, FFN: 768, Vocab: 30522}
	odd.GPU = "lab-gpu-x"
	rows = append(rows, odd)
	if _, _, err := fit.Paper(inputs(t, rows), "p", "0"); err != nil {
		t.Fatalf("Paper with a TP degree that does not divide the heads and an unknown GPU: %v", err)
	}
	rows[1].Eta = 0
	_, _, err := fit.Paper(inputs(t, rows), "p", "0")
	if err == nil || !strings.Contains(err.Error(), "row 2") || !strings.Contains(err.Error(), "eta") {
		t.Errorf("Paper without η on a 2-GPU row: error %v, want one naming row 2 and column eta", err)
	}
}

// TestLawUsesMeasuredEta: with the eta column the law fit regresses on it
// (the notes say so), and the hardware dummy is the only extra column.
func TestLawUsesMeasuredEta(t *testing.T) {
	rows := paperSweep(rand.New(rand.NewPCG(7, 8)), 20, 0)
	cal, lf, err := fit.Law(inputs(t, rows), "law-eta", "0")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := coefByName(t, lf.Full, "alpha_eta")
	if math.Abs(got-published["alpha_eta"]) > 1e-9 {
		t.Errorf("law α_η = %.12g with measured η, want %.12g", got, published["alpha_eta"])
	}
	if !hasNote(cal.Fit.Notes, "η: measured (column eta") {
		t.Errorf("notes %q do not say η was measured", cal.Fit.Notes)
	}
}

// TestFitsRefuseConstantResponse: 30 identical rows are refused as
// degenerate by every kind (issue 15), never fitted with SE 0.
func TestFitsRefuseConstantResponse(t *testing.T) {
	m := model.Measurement{Model: "bert-base", Arch: model.Arch{Layers: 12, Hidden: 768, Heads: 12, FFN: 3072, Vocab: 30522}, GPU: "a100-sxm4-80gb", Count: 1, Strategy: model.Single,
		SeqLen: 128, BatchPerGPU: 32, Tokens: 1e7, Precision: model.FP16, EnergyKWh: 0.5, DurationS: 3600}
	rows := make([]model.Measurement, 30)
	for i := range rows {
		rows[i] = m
		rows[i].Group = fmt.Sprintf("g%d", i%5)
	}
	for kind, f := range map[string]func() error{
		"law":      func() error { _, _, err := fit.Law(inputs(t, rows), "x", "0"); return err },
		"paper":    func() error { _, _, err := fit.Paper(inputs(t, rows), "x", "0"); return err },
		"roofline": func() error { _, err := fit.Roofline(inputs(t, rows), "x", "0"); return err },
	} {
		err := f()
		if err == nil || !strings.Contains(err.Error(), "degenerate") {
			t.Errorf("%s on 30 identical rows: error %v, want one saying the data are degenerate", kind, err)
		}
	}
}

// TestEnvelopeFromFittedRows: a law fitted on 8-GPU FSDP rows has an envelope
// of 8 GPUs, so estimating the fitted configuration is inside it (issue 15).
func TestEnvelopeFromFittedRows(t *testing.T) {
	rows := paperSweep(rand.New(rand.NewPCG(9, 10)), 12, 0.1)
	var eight []model.Measurement
	for _, m := range rows {
		if m.Count == 4 && m.Strategy == model.FSDP {
			m.Count = 8
			eight = append(eight, m)
		}
	}
	cal, _, err := fit.Paper(inputs(t, eight), "eight", "0")
	if err != nil {
		t.Fatal(err)
	}
	if g := cal.Envelope.GPUs; g != [2]float64{8, 8} {
		t.Errorf("envelope GPUs %v, want [8 8] (the fitted rows' counts)", g)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, m := range eight {
		lo, hi = math.Min(lo, float64(m.SeqLen)), math.Max(hi, float64(m.SeqLen))
	}
	if s := cal.Envelope.SeqLen; s != [2]float64{lo, hi} {
		t.Errorf("envelope seq_len %v, want [%g %g]", s, lo, hi)
	}
}

func hasNote(notes []string, prefix string) bool {
	for _, n := range notes {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}
