package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/fit"
)

// paperCSV writes runs shaped like the roofline paper's BERT sweep (one
// GPU, FSDP and TP at 2 and 4 GPUs with a measured eta), their energies
// from the published law with seeded noise.
func paperCSV(t *testing.T) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(21, 22))
	var rows []model.Measurement
	for w := range 10 {
		d := 64 << rng.IntN(5)
		a := model.Arch{Layers: 2 + rng.IntN(23), Hidden: d, Heads: max(d/64, 1), FFN: 4 * d, Vocab: 30522}
		for _, v := range []struct {
			s string
			n int
		}{{model.Single, 1}, {model.FSDP, 2}, {model.FSDP, 4}, {model.TP, 2}, {model.TP, 4}} {
			m := model.Measurement{Arch: a, GPU: "rtx-2080-ti", Count: v.n, Strategy: v.s, SeqLen: 66, BatchPerGPU: 32, Tokens: 8.2e6 * (0.5 + rng.Float64()),
				Precision: model.FP16, DurationS: 600, Group: fmt.Sprintf("w%d", w)}
			eta := 1.0
			if v.n > 1 {
				eta = 0.1 + 0.8*rng.Float64()
				m.Eta = eta
			}
			ln := -12.7 + 0.045*math.Log(model.ComputeProxy(float64(a.Layers), float64(d), m.Tokens)) + 0.42*math.Log(model.MemoryProxy(32, 66, float64(d), float64(a.Layers))) - 1.12*math.Log(eta)
			m.EnergyKWh = math.Exp(ln + 0.2*rng.NormFloat64())
			rows = append(rows, m)
		}
	}
	var b bytes.Buffer
	if err := model.WriteMeasurements(&b, rows); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestFitCommandIsThePipeline checks the command line's glue: `site fit
// -kind paper` prints fit.Calibrate's calibration as JSON and the paper's
// table on stderr, and -o writes the same file.
func TestFitCommandIsThePipeline(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "runs.csv")
	csv := paperCSV(t)
	if err := os.WriteFile(file, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := runFit([]string{"-kind", "paper", "-data", file, "-o", dir}, nil, &stdout, &stderr); err != nil {
		t.Fatalf("site fit -kind paper: %v\n%s", err, stderr.String())
	}
	res, err := fit.Calibrate(fit.Job{CSV: []byte(csv), FileName: "runs.csv", Kinds: []string{fit.KindPaper}, Scaling: content.PublishedScaling,
		Hardware: model.NewHardware(model.DefaultGPUs()), Presets: model.DefaultPresets()})
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := writeJSON(&want, res.Calibrations[0]); err != nil {
		t.Fatal(err)
	}
	if stdout.String() != want.String() {
		t.Errorf("stdout is not fit.Calibrate's calibration:\ngot  %.300s\nwant %.300s", stdout.String(), want.String())
	}
	written, err := os.ReadFile(filepath.Join(dir, "user-paper.json"))
	if err != nil || !bytes.Equal(written, want.Bytes()) {
		t.Errorf("-o wrote %d bytes (%v), want the printed calibration", len(written), err)
	}
	var cal model.Calibration
	if err := json.Unmarshal(stdout.Bytes(), &cal); err != nil || cal.Kind != model.KindLogLinear || len(cal.Law.LnHardware) != 0 {
		t.Errorf("printed calibration kind %q, hardware terms %v (%v); want loglinear without hardware terms", cal.Kind, cal.Law.LnHardware, err)
	}
	for _, s := range []string{"intercept (centred)", "alpha_eta", "psi:tp", "residual SD", "without η", "η: measured (column eta"} {
		if !strings.Contains(stderr.String(), s) {
			t.Errorf("diagnostics lack %q:\n%s", s, stderr.String())
		}
	}
	err = runFit([]string{"-kind", "lasso", "-data", file}, nil, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "paper") {
		t.Errorf("-kind lasso: error %v, want one listing the kinds", err)
	}
	if res.Rows != 50 {
		t.Errorf("read %d rows, want 50", res.Rows)
	}
}

// TestMakeFitReproducesTheShippedCalibrations runs what `make fit` runs
// (site fit -kind both on the Zeus trace, -o DIR) and checks that it
// writes the shipped calibration files byte for byte: the roofline and
// law calibrations, and the power-limit response under power/.
func TestMakeFitReproducesTheShippedCalibrations(t *testing.T) {
	zeus := filepath.Join(testDataDir(), "zeus-bert-power.csv")
	if _, err := os.Stat(zeus); err != nil {
		if os.Getenv("WATTSCALE_REQUIRE_E2E") == "1" {
			t.Fatalf("zeus data missing: %v", err)
		}
		t.Skipf("zeus data not found (%v); set DATA_DIR", err)
	}
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := runFit([]string{"-kind", "both", "-data", zeus, "-o", dir}, nil, &stdout, &stderr); err != nil {
		t.Fatalf("site fit -kind both -o: %v\n%s", err, stderr.String())
	}
	for _, f := range []string{"wattscale-roofline.json", "wattscale-zeus-law.json", filepath.Join("power", "wattscale-power-limit.json")} {
		got, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Errorf("site fit -o did not write %s: %v", f, err)
			continue
		}
		want, err := os.ReadFile(filepath.Join("..", "content", "calibrations", f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: site fit writes %d bytes that differ from the shipped %d (run make fit if the change is intended)", f, len(got), len(want))
		}
	}
}

// TestFitStdinLimit: site fit -data - refuses standard input one byte over
// its limit with an error naming it, and says so in its help.
func TestFitStdinLimit(t *testing.T) {
	var stdout, stderr bytes.Buffer
	in := bytes.Repeat([]byte("\n"), fit.MaxCSVBytes+1)
	err := runFit([]string{"-data", "-"}, bytes.NewReader(in), &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "64 MiB") {
		t.Errorf("fit -data - with MaxCSVBytes+1 bytes: %v, want an error naming 64 MiB", err)
	}
	stderr.Reset()
	runFit([]string{"-h"}, nil, &stdout, &stderr)
	if !strings.Contains(stderr.String(), "at most 64 MiB") {
		t.Errorf("fit -h does not state the input limit:\n%s", stderr.String())
	}
}

// TestFitCodeCarbonCommand checks `site fit -codecarbon`: -convert prints
// the rows of the example's real CodeCarbon log (content/examples/codecarbon)
// in the measurement schema, with the chosen scope's energy; a request on
// another GPU is an error naming both; -scope or -convert without a log is
// an error.
func TestFitCodeCarbonCommand(t *testing.T) {
	log := filepath.Join("..", "content", "examples", "codecarbon", "emissions.csv")
	runs := filepath.Join("..", "content", "examples", "codecarbon", "runs.json")
	for scope, first := range map[string]float64{"gpu": 0.208993764139322, "total": 0.3678168356058902} {
		var stdout, stderr bytes.Buffer
		if err := runFit([]string{"-data", log, "-codecarbon", runs, "-scope", scope, "-convert"}, nil, &stdout, &stderr); err != nil {
			t.Fatalf("scope %s: %v", scope, err)
		}
		ms, err := model.ParseMeasurements(&stdout, model.DefaultPresets())
		if err != nil || len(ms) != 5 || ms[0].EnergyKWh != first || ms[0].GPU != "v100-pcie-32gb" || ms[0].DurationS != 3795.186516284943 {
			t.Errorf("scope %s: %d rows (err %v), first %+v; want 5, the first %g kWh on the V100", scope, len(ms), err, ms, first)
		}
	}
	dir := t.TempDir()
	other := filepath.Join(dir, "runs.json")
	b, err := os.ReadFile(runs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, bytes.Replace(b, []byte("v100-pcie-32gb"), []byte("rtx-3090"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"-data", log, "-codecarbon", other}, []string{"emissions.csv", "line 2", "Tesla V100-PCIE-32GB", "GeForce RTX 3090"}},
		{[]string{"-data", log, "-scope", "total"}, []string{"-codecarbon"}},
		{[]string{"-data", log, "-convert"}, []string{"-codecarbon"}},
	} {
		var stdout, stderr bytes.Buffer
		err := runFit(c.args, nil, &stdout, &stderr)
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("fit %v: error %v, want one containing %q", c.args, err, w)
			}
		}
	}
}
