package meter

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/fit"
)

// TestFitAcceptsRecorderRows makes eight recordings of single-GPU BERT-base
// runs that differ in tokens, sequence length and batch, appends each run's
// row to one file as -append does, and fits both calibrations on that file
// with the functions `go run ./site fit` uses. The synthetic runs follow a
// roofline (time = 30 s + C/(0.45·peak) + M/(0.6·bandwidth); power = idle +
// 0.7·(board − idle), ±5 % seeded noise), so the fit has something to find.
func TestFitAcceptsRecorderRows(t *testing.T) {
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	gpu, err := cat.Hardware.Lookup("a100-sxm4-80gb")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	file := filepath.Join(t.TempDir(), "runs.csv")
	configs := []struct{ seq, batch, tokens float64 }{
		{128, 8, 2e7}, {128, 32, 4e7}, {256, 8, 3e7}, {256, 16, 6e7}, {384, 16, 2.5e7}, {384, 32, 5e7}, {512, 8, 3.5e7}, {512, 16, 7e7},
	}
	var wantKWh []float64
	for i, c := range configs {
		req := model.Request{Model: model.ModelSpec{Preset: "bert-base"},
			Training: model.TrainingSpec{Tokens: c.tokens, SeqLen: c.seq, BatchPerGPU: c.batch, Precision: model.FP16},
			Hardware: model.HardwareSpec{GPU: "a100-sxm4-80gb", Count: 1}, Strategy: model.Strategy{Name: model.Single}}
		resp, err := cat.Estimate(req)
		if err != nil {
			t.Fatal(err)
		}
		rf := resp.Roofline
		dur := (30 + rf.FLOPs/(0.45*rf.PeakTFLOPS*1e12) + rf.Bytes/(0.6*gpu.BandwidthGBs*1e9)) * (1 + 0.05*(2*rng.Float64()-1))
		watts := (gpu.IdlePowerW + 0.7*(gpu.BoardPowerW-gpu.IdlePowerW)) * (1 + 0.05*(2*rng.Float64()-1))
		rec := &Recording{Base: time.Unix(1767225600, 0), IntervalS: 0.5, StartS: 0, EndS: dur, FirstStage: "prerun",
			GPUs:   []GPUTrace{{Index: 0, Name: "NVIDIA A100-SXM4-80GB"}},
			Events: []Event{{T: 5, Marker: Marker{Stage: "train", Tokens: c.tokens}}}}
		for x := 0.0; x < dur+1; x += 0.5 {
			rec.GPUs[0].Samples = append(rec.GPUs[0].Samples, PowerSample{T: x, W: watts, OK: true})
		}
		s := Summarize(rec, nil)
		tpl, err := Template(req, cat)
		if err != nil {
			t.Fatal(err)
		}
		tpl.Tokens = 0 // from the markers, as when -tokens is not given
		rows, err := Rows(tpl, s, "synthetic", "", cat.Presets)
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if err := AppendRows(file, rows[:1]); err != nil {
			t.Fatal(err)
		}
		wantKWh = append(wantKWh, watts*dur/3.6e6)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := fit.ReadMeasurements(f, cat.Presets)
	if err != nil {
		t.Fatalf("fit.ReadMeasurements(%s): %v", file, err)
	}
	if len(rows) != len(configs) {
		t.Fatalf("%d rows in the appended file, want %d", len(rows), len(configs))
	}
	for i, r := range rows {
		if relErr(r.EnergyKWh, wantKWh[i]) > 1e-9 || r.Tokens != configs[i].tokens || r.Stage != "" {
			t.Errorf("row %d = %g kWh, %g tokens, stage %q; want %g kWh, %g tokens, whole run", i, r.EnergyKWh, r.Tokens, r.Stage, wantKWh[i], configs[i].tokens)
		}
	}
	// The recorded rows through the pipeline site fit and fit.wasm run.
	res, err := fit.Calibrate(fit.Job{Rows: rows, FileName: "recorder test", Prefix: "test", Scaling: content.PublishedScaling,
		Hardware: cat.Hardware, Presets: cat.Presets, Kinds: []string{fit.KindRoofline, fit.KindLaw}})
	if err != nil {
		t.Fatalf("fit.Calibrate (roofline, law) on recorder rows: %v", err)
	}
	// The runs were made with activity 0.7 ± 5 % of the board-to-idle range.
	if a := res.Calibrations[0].Roofline.Activity.Value; a < 0.6 || a > 0.8 {
		t.Errorf("fitted activity = %.3f, want about 0.7", a)
	}
}
