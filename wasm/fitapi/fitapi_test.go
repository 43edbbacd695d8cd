package fitapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/fit"
	"github.com/wattscale/wattscale/wasm/calcapi/view"
)

// syntheticCSV writes measurements in the project's schema: the default
// calibration's estimates for a grid of workloads, times log-normal noise
// (σ = 0.1, seeded), so a law fit has something real to find.
func syntheticCSV(t *testing.T) string {
	t.Helper()
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var rows []model.Measurement
	for _, preset := range []string{"bert-base", "gpt2", "gpt2-medium", "distilbert", "roberta-large"} {
		for _, gpu := range []string{"a100-sxm4-80gb", "a40"} {
			for _, st := range []struct {
				s string
				n int
			}{{"single", 1}, {"ddp", 2}, {"fsdp", 4}, {"tp", 2}, {"fsdp", 2}} {
				batch := []float64{8, 16, 32}[rng.IntN(3)]
				seq := []float64{128, 256, 512}[rng.IntN(3)]
				tokens := math.Round(1e7 * (1 + 9*rng.Float64()))
				req := model.Request{Model: model.ModelSpec{Preset: preset},
					Training: model.TrainingSpec{Tokens: tokens, SeqLen: seq, BatchPerGPU: batch, Precision: "fp16"},
					Hardware: model.HardwareSpec{GPU: gpu, Count: float64(st.n)}, Strategy: model.Strategy{Name: st.s}}
				resp, err := cat.Estimate(req)
				if err != nil {
					t.Fatalf("%s %s %s: %v", preset, gpu, st.s, err)
				}
				noise := math.Exp(0.1 * rng.NormFloat64())
				rows = append(rows, model.Measurement{Model: preset, Arch: resp.Inputs.Arch, GPU: gpu, Count: st.n, Strategy: st.s,
					SeqLen: int(seq), BatchPerGPU: int(batch), Tokens: tokens, Precision: "fp16",
					EnergyKWh: resp.EnergyKWh * noise, DurationS: resp.TimeS * noise, Group: preset, Source: "synthetic (fitapi test)"})
			}
		}
	}
	var b bytes.Buffer
	if err := model.WriteMeasurements(&b, rows); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestFitIsThePipeline checks the glue: the browser refit's calibration
// for each kind is the one fit.Calibrate returns for the same file with the
// embedded scaling figures and validation runs (what `site fit` runs too).
func TestFitIsThePipeline(t *testing.T) {
	csv := syntheticCSV(t)
	for _, kind := range []string{"law", "roofline"} {
		t.Run(kind, func(t *testing.T) {
			res, err := fit.Calibrate(fit.Job{CSV: []byte(csv), FileName: "runs.csv", Kinds: []string{kind}, Scaling: content.PublishedScaling,
				Runs: content.ValidationRuns, Hardware: model.NewHardware(model.DefaultGPUs()), Presets: model.DefaultPresets()})
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(res.Calibrations[0])
			var want model.Calibration
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			in, _ := json.Marshal(Input{CSV: csv, Name: "dir/runs.csv", Kind: kind})
			var got Output
			if err := json.Unmarshal(Fit(in), &got); err != nil {
				t.Fatal(err)
			}
			if got.Error != nil {
				t.Fatalf("Fit error: %s", got.Error.Text)
			}
			if !reflect.DeepEqual(*got.Calibration, want) {
				g, _ := json.Marshal(got.Calibration)
				t.Errorf("Fit calibration differs from fit.Calibrate:\ngot  %s\nwant %s", g, raw)
			}
			if got.Rows != res.Rows || got.Rows != strings.Count(strings.TrimSpace(csv), "\n") {
				t.Errorf("Fit read %d rows, the pipeline %d, the CSV has %d", got.Rows, res.Rows, strings.Count(strings.TrimSpace(csv), "\n"))
			}
		})
	}
}

func TestFitRecoversTheLaw(t *testing.T) {
	in, _ := json.Marshal(Input{CSV: syntheticCSV(t), Name: "runs.csv"})
	var got Output
	if err := json.Unmarshal(Fit(in), &got); err != nil {
		t.Fatal(err)
	}
	if got.Error != nil {
		t.Fatal(got.Error.Text)
	}
	c := got.Calibration
	if c.Name != "user-law" || c.Kind != model.KindLogLinear || c.Fit == nil {
		t.Fatalf("calibration %q kind %q fit %v, want user-law loglinear with diagnostics", c.Name, c.Kind, c.Fit)
	}
	// Data generated with σ = 0.1 noise around a smooth model: the law
	// should explain most of the variance of ln E.
	if c.Fit.R2 < 0.9 {
		t.Errorf("R² = %.3f on synthetic data with 10 %% noise, want at least 0.9", c.Fit.R2)
	}
}

// TestFitSaysWhatItDid checks the status line a fit answers with when the
// page says when the user asked: the calibration, the rows read and the
// time since (on a clock the test sets), and a fit that failed its checks
// says so.
func TestFitSaysWhatItDid(t *testing.T) {
	at := time.UnixMilli(1_800_000_000_000)
	now = func() time.Time { return at }
	t.Cleanup(func() { now = time.Now })
	csv := syntheticCSV(t)
	for _, c := range []struct {
		kind string
		ms   float64
		want string
	}{{"law", 3_250, "Fitted user-law on %d rows in 3.25 s%s"}, {"roofline", 150_000, "Fitted user-roofline on %d rows in 2.5 min%s"}} {
		in, _ := json.Marshal(Input{CSV: csv, Name: "runs.csv", Kind: c.kind, StartedMs: float64(at.UnixMilli()) - c.ms})
		var got Output
		if err := json.Unmarshal(Fit(in), &got); err != nil || got.Error != nil {
			t.Fatalf("%v %+v", err, got.Error)
		}
		end := "."
		if len(got.Checks) > 0 {
			end = "; it failed its checks (below)."
		}
		if want := fmt.Sprintf(c.want, got.Rows, end); got.Said != want {
			t.Errorf("said %q, want %q", got.Said, want)
		}
	}
	if got, want := view.FitDone("user-roofline", 12, 4, true), "Fitted user-roofline on 12 rows in 4 s; it failed its checks (below)."; got != want {
		t.Errorf("a failed fit says %q, want %q", got, want)
	}
	// Without the time asked, no status line (the fit is the same).
	in, _ := json.Marshal(Input{CSV: csv, Name: "runs.csv"})
	var got Output
	if err := json.Unmarshal(Fit(in), &got); err != nil || got.Said != "" {
		t.Errorf("without started_ms: said %q (%v)", got.Said, err)
	}
}

func TestFitErrors(t *testing.T) {
	cases := []struct{ name, csv, kind, want string }{
		{"empty", "", "", "empty"},
		{"unknown column", "foo,bar\n1,2\n", "", `unknown column "foo"`},
		{"missing column", "gpu,count\na100,1\n", "", "missing required column"},
		{"bad number", strings.Join(model.MeasurementColumns, ",") + "\nbert-base,,,,,,,,,a100,x,single,,,128,8,1e7,fp16,,1,10,,,\n", "", "line 2"},
		{"bad kind", "gpu\n", "both", "kind"},
	}
	// The paper's specification needs the measured η of multi-GPU rows:
	// the synthetic file has none, so the refit says which row and column.
	cases = append(cases, struct{ name, csv, kind, want string }{"paper without eta", syntheticCSV(t), "paper", "no eta"})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in, _ := json.Marshal(Input{CSV: c.csv, Kind: c.kind})
			var got Output
			if err := json.Unmarshal(Fit(in), &got); err != nil {
				t.Fatal(err)
			}
			if got.Error == nil || !strings.Contains(got.Error.Text, c.want) {
				t.Errorf("Fit(%q) error = %+v, want one containing %q", c.name, got.Error, c.want)
			}
		})
	}
	if out := Fit([]byte("{")); !bytes.Contains(out, []byte("not valid JSON")) {
		t.Errorf("Fit({) = %s", out)
	}
}

// TestFitCSVLimit: an upload one byte over MaxCSVBytes is an error naming
// the limit; one at the limit is read (here: refused for its content).
func TestFitCSVLimit(t *testing.T) {
	_, _, err := fitCSV(Input{CSV: strings.Repeat("\n", MaxCSVBytes+1)})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprint(MaxCSVBytes)) {
		t.Errorf("fitCSV(MaxCSVBytes+1) = %v, want an error naming %d", err, MaxCSVBytes)
	}
	_, _, err = fitCSV(Input{CSV: strings.Repeat("\n", MaxCSVBytes)})
	if err == nil || strings.Contains(err.Error(), fmt.Sprint(MaxCSVBytes)) {
		t.Errorf("fitCSV(MaxCSVBytes) = %v, want a content error, not the size limit", err)
	}
}

// TestFitCodeCarbon checks the refit of a CodeCarbon log: a real public
// log (content/examples/codecarbon: github.com/Ambroise012/BERT-Pruning,
// emissions.csv at commit 10ce3b57f513e99200235760df9fd60044331cab, one
// Tesla V100-PCIE-32GB) with the request describing its rows answers what
// the same rows in the measurement schema answer; a request naming another
// GPU is an error naming both; a scope without a log is an error.
func TestFitCodeCarbon(t *testing.T) {
	log, err := os.ReadFile("../../content/examples/codecarbon/emissions.csv")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := os.ReadFile("../../content/examples/codecarbon/runs.json")
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := model.ParseCodeCarbonRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	ms, err := cat.CodeCarbonMeasurements(bytes.NewReader(log), parsed, model.CodeCarbonTotal, "emissions.csv")
	if err != nil {
		t.Fatal(err)
	}
	var csv bytes.Buffer
	if err := model.WriteMeasurements(&csv, ms); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"law", "roofline"} {
		viaLog, _ := json.Marshal(Input{CSV: string(log), Name: "emissions.csv", Kind: kind, CodeCarbon: runs, Scope: model.CodeCarbonTotal})
		viaCSV, _ := json.Marshal(Input{CSV: csv.String(), Name: "emissions.csv", Kind: kind})
		if a, b := Fit(viaLog), Fit(viaCSV); !bytes.Equal(a, b) {
			t.Errorf("kind %s: the log answers %s, its rows in the measurement schema %s", kind, a, b)
		}
	}
	other := bytes.Replace(runs, []byte("v100-pcie-32gb"), []byte("a100-sxm4-80gb"), 1)
	for _, c := range []struct {
		in   Input
		want []string
	}{
		{Input{CSV: string(log), CodeCarbon: other}, []string{"Tesla V100-PCIE-32GB", "A100 SXM4 80 GB"}},
		{Input{CSV: string(log), CodeCarbon: runs, Scope: "cpu"}, []string{"scope", "gpu, total"}},
		{Input{CSV: csv.String(), Scope: "gpu"}, []string{"scope", "codecarbon"}},
	} {
		in, _ := json.Marshal(c.in)
		var got Output
		if err := json.Unmarshal(Fit(in), &got); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if got.Error == nil || !strings.Contains(got.Error.Text, w) {
				t.Errorf("Fit(%.60s…) error %+v, want one containing %q", in, got.Error, w)
			}
		}
	}
}
