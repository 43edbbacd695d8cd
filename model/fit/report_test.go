package fit

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/wattscale/wattscale/model"
)

// syntheticInputs builds single-GPU measurements whose energies come from a
// known roofline time model (u_compute 0.45, u_memory 0.3, activity 0.7)
// with seeded log-normal noise of SD 0.1, plus rows at a power limit below
// board power that every fit must leave out.
func syntheticInputs(t *testing.T) Inputs {
	t.Helper()
	scaling, err := ReadScaling(bytes.NewReader(scalingCSV(t)))
	if err != nil {
		t.Fatal(err)
	}
	in := Inputs{DataName: "synthetic", Scaling: scaling, Hardware: model.NewHardware(model.DefaultGPUs()), Presets: model.DefaultPresets()}
	truth := model.RooflineParams{UCompute: model.Coefficient{Value: 0.45}, UMemory: model.Coefficient{Value: 0.3}, Activity: model.Coefficient{Value: 0.7}, OverheadS: model.Coefficient{Value: startupPriorS}}
	sp, err := FitSpeedups(scaling)
	if err != nil {
		t.Fatal(err)
	}
	alpha, err := FitAlphaEta(scaling)
	if err != nil {
		t.Fatal(err)
	}
	cat, _, err := bootstrap(&in, sp, alpha, truth)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, preset := range []string{"bert-base", "bert-large", "distilbert", "roberta-base"} {
		pr, err := model.FindPreset(in.Presets, preset)
		if err != nil {
			t.Fatal(err)
		}
		for _, gpu := range []string{"a40", "v100-pcie-16gb"} {
			prec := model.FP32
			if gpu == "a40" {
				prec = model.TF32
			}
			for _, batch := range []int{8, 32} {
				for _, seq := range []int{128, 384} {
					m := model.Measurement{Model: preset, Arch: pr.Arch, Head: "classifier", GPU: gpu, Count: 1, Strategy: model.Single,
						SeqLen: seq, BatchPerGPU: batch, Tokens: 5e7, Precision: prec, Group: preset + "/" + gpu}
					resp, err := cat.Estimate(m.Request())
					if err != nil {
						t.Fatal(err)
					}
					noise := math.Exp(0.1 * rng.NormFloat64())
					m.EnergyKWh, m.DurationS = resp.EnergyKWh*noise, resp.TimeS*noise
					in.Rows = append(in.Rows, m)
					if batch == 8 && seq == 128 {
						capped := m
						capped.PowerLimitW = 150
						capped.EnergyKWh *= 0.8
						in.Rows = append(in.Rows, capped)
					}
				}
			}
		}
	}
	return in
}

func scalingCSV(t *testing.T) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "content", "data", "published-scaling.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// lnRMSE is the root mean square of ln(pred/measured).
func lnRMSE(ps []Prediction, pred func(Prediction) float64) float64 {
	var sq float64
	n := 0
	for _, p := range ps {
		d := math.Log(pred(p) / p.MeasuredKWh)
		if math.IsNaN(d) {
			continue // never held out
		}
		sq += d * d
		n++
	}
	return math.Sqrt(sq / float64(n))
}

// TestPredictionsMatchFitStatistics checks that the per-row predictions are
// the ones behind each calibration's published statistics: the in-sample and
// held-out RMSE recomputed from the rows equal the calibration's RMSELn and
// CVPooledRMSELn, and the row count equals the fit's n.
func TestPredictionsMatchFitStatistics(t *testing.T) {
	in := syntheticInputs(t)
	law, _, err := Law(in, "law", "1")
	if err != nil {
		t.Fatal(err)
	}
	roof, err := Roofline(in, "roofline", "1")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Calibrate(Job{Rows: in.Rows, FileName: "synthetic", Kinds: []string{KindLaw, KindRoofline}, Scaling: scalingCSV(t),
		Hardware: in.Hardware, Presets: in.Presets, Version: "1", Predictions: true})
	if err != nil {
		t.Fatal(err)
	}
	lawPred, roofPred := res.Predictions[0], res.Predictions[1]
	law.Name, roof.Name = res.Calibrations[0].Name, res.Calibrations[1].Name
	if !reflect.DeepEqual(res.Calibrations[0], law) || !reflect.DeepEqual(res.Calibrations[1], roof) {
		t.Errorf("Calibrate's calibrations differ from Law and Roofline on the same rows")
	}
	for _, c := range []struct {
		name string
		cal  model.Calibration
		ps   []Prediction
	}{{"law", law, lawPred}, {"roofline", roof, roofPred}} {
		t.Run(c.name, func(t *testing.T) {
			if got, want := len(c.ps), c.cal.Fit.N; got != want {
				t.Fatalf("%d predictions, want the fit's n = %d", got, want)
			}
			if got, want := lnRMSE(c.ps, func(p Prediction) float64 { return p.FittedKWh }), c.cal.Fit.RMSELn; math.Abs(got-want) > 1e-9 {
				t.Errorf("in-sample RMSE from predictions = %.12f, want the fit's %.12f", got, want)
			}
			if got, want := lnRMSE(c.ps, func(p Prediction) float64 { return p.HeldOutKWh }), c.cal.Fit.CVPooledRMSELn; math.Abs(got-want) > 1e-9 {
				t.Errorf("held-out RMSE from predictions = %.12f, want the fit's %.12f", got, want)
			}
			for _, p := range c.ps {
				if p.GPU != "a40" && p.GPU != "v100-pcie-16gb" {
					t.Errorf("prediction GPU %q is not a canonical id of the synthetic rows", p.GPU)
				}
			}
		})
	}
	// The roofline fit recovers the generating model: in-sample errors are
	// at the noise level (SD 0.1), not above it.
	if got := lnRMSE(roofPred, func(p Prediction) float64 { return p.FittedKWh }); got > 0.2 {
		t.Errorf("roofline in-sample RMSE = %.3f, want at most 0.2 for noise SD 0.1", got)
	}
}

// TestPredictionsZeus runs the same consistency check on the Zeus trace
// when $DATA_DIR (or ../shared/data) holds it.
func TestPredictionsZeus(t *testing.T) {
	dir := os.Getenv("DATA_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "data")
	}
	raw, err := os.ReadFile(filepath.Join(dir, "zeus-bert-power.csv"))
	if err != nil {
		t.Skipf("Zeus trace not available (%v); set DATA_DIR", err)
	}
	in := syntheticInputs(t)
	in.Rows, err = ReadMeasurements(bytes.NewReader(raw), in.Presets)
	if err != nil {
		t.Fatal(err)
	}
	law, _, err := Law(in, "law", "1")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Calibrate(Job{CSV: raw, Kinds: []string{KindLaw}, Scaling: scalingCSV(t), Hardware: in.Hardware, Presets: in.Presets, Version: "1", Predictions: true})
	if err != nil {
		t.Fatal(err)
	}
	ps := res.Predictions[0]
	if got, want := lnRMSE(ps, func(p Prediction) float64 { return p.HeldOutKWh }), law.Fit.CVPooledRMSELn; math.Abs(got-want) > 1e-9 {
		t.Errorf("Zeus law held-out RMSE from predictions = %.12f, want %.12f", got, want)
	}
}
