package model_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
)

// bertPruningLog is the first three rows of a public CodeCarbon log: BERT
// fine-tuning and pruning on GLUE on one Tesla V100-PCIE-32GB,
// github.com/Ambroise012/BERT-Pruning, emissions.csv at commit
// 10ce3b57f513e99200235760df9fd60044331cab (CodeCarbon 2.4.2). The log
// does not record which task each row trained, so the requests below are
// the repository's fine-tuning job (all_ft.job: bert-base-cased, 128
// tokens, batch 32, no fp16 flag) with a token count of the test's own:
// the test checks the reading, not the fit.
const bertPruningLog = "testdata/codecarbon/bert-pruning-v100.csv"

func bertPruningRuns(gpu string) model.CodeCarbonRuns {
	req := model.Request{
		Model:    model.ModelSpec{Preset: "bert-base"},
		Training: model.TrainingSpec{Tokens: 5e7, SeqLen: 128, BatchPerGPU: 32, Precision: model.FP32},
		Hardware: model.HardwareSpec{GPU: gpu, Count: 1},
		Strategy: model.Strategy{Name: model.Single},
	}
	return model.CodeCarbonRuns{All: &req}
}

func readLog(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(bertPruningLog)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCodeCarbonReadsARealLog checks that each row of a real log becomes
// a measurement of the request's configuration with the log's duration
// and the chosen scope's energy, and that the two scopes differ by the
// CPU and RAM energy.
func TestCodeCarbonReadsARealLog(t *testing.T) {
	c := catalog(t)
	b := readLog(t)
	gpuE := []float64{0.208993764139322, 0.1929142796090779, 0.362354802661388}
	allE := []float64{0.3678168356058902, 0.3379282383466966, 0.6415665910946959}
	dur := []float64{3795.186516284943, 3513.355744600296, 6192.454325914383}
	for scope, want := range map[string][]float64{model.CodeCarbonGPU: gpuE, model.CodeCarbonTotal: allE} {
		ms, err := c.CodeCarbonMeasurements(bytes.NewReader(b), bertPruningRuns("v100-pcie-32gb"), scope, "emissions.csv")
		if err != nil {
			t.Fatalf("scope %s: %v", scope, err)
		}
		if len(ms) != 3 {
			t.Fatalf("scope %s: %d measurements, want 3", scope, len(ms))
		}
		for i, m := range ms {
			if m.EnergyKWh != want[i] || m.DurationS != dur[i] {
				t.Errorf("scope %s row %d: %g kWh %g s, want %g kWh %g s", scope, i+1, m.EnergyKWh, m.DurationS, want[i], dur[i])
			}
			if m.GPU != "v100-pcie-32gb" || m.Count != 1 || m.Model != "bert-base" || m.Tokens != 5e7 || m.SeqLen != 128 || m.BatchPerGPU != 32 || m.Precision != model.FP32 {
				t.Errorf("scope %s row %d: configuration %+v, want the request's", scope, i+1, m)
			}
			if !strings.Contains(m.Source, "emissions.csv line") {
				t.Errorf("row %d: source %q does not name the log and line", i+1, m.Source)
			}
		}
		// The rows round-trip through the measurement schema the fit reads.
		var csv bytes.Buffer
		if err := model.WriteMeasurements(&csv, ms); err != nil {
			t.Fatal(err)
		}
		back, err := model.ParseMeasurements(&csv, model.DefaultPresets())
		if err != nil || len(back) != 3 || back[2].EnergyKWh != want[2] {
			t.Errorf("scope %s: measurement CSV read back %d rows, err %v", scope, len(back), err)
		}
	}
}

// TestCodeCarbonErrors checks that a GPU disagreeing with the request is
// an error naming both, and that every other bad input names what is
// wrong.
func TestCodeCarbonErrors(t *testing.T) {
	c := catalog(t)
	b := readLog(t)
	proj := func(name string) model.CodeCarbonRuns {
		return model.CodeCarbonRuns{Projects: map[string]model.Request{name: *bertPruningRuns("v100-pcie-32gb").All}}
	}
	lora := bertPruningRuns("v100-pcie-32gb")
	lora.All.Training.Method = model.MethodLoRA
	two := bertPruningRuns("v100-pcie-32gb")
	two.All.Hardware.Count, two.All.Strategy.Name = 2, model.DDP
	cases := []struct {
		name  string
		log   string
		runs  model.CodeCarbonRuns
		scope string
		want  []string
	}{
		{"other GPU", string(b), bertPruningRuns("a100-sxm4-80gb"), "gpu", []string{"line 2", "Tesla V100-PCIE-32GB", "A100 SXM4 80 GB"}},
		{"same family, other memory", string(b), bertPruningRuns("v100-pcie-16gb"), "gpu", []string{"Tesla V100-PCIE-32GB", "Tesla V100 PCIe 16 GB"}},
		{"other count", string(b), two, "gpu", []string{"gpu_count", "the request names 2"}},
		{"unknown project", string(b), proj("bert"), "gpu", []string{"project_name", `"paper" has no request`, `"bert"`}},
		{"known project", string(b), proj("paper"), "scope", []string{"scope", "gpu, total"}},
		{"not fitted", string(b), lora, "gpu", []string{"request.training.method", "full fine-tuning"}},
		{"missing column", "duration,energy_consumed,gpu_model,gpu_count\n1,1,1 x Tesla V100-PCIE-32GB,1\n", bertPruningRuns("v100-pcie-32gb"), "gpu", []string{`missing column "gpu_energy"`}},
		{"bad energy", "duration,gpu_energy,gpu_model,gpu_count\n10,-1,1 x Tesla V100-PCIE-32GB,1\n", bertPruningRuns("v100-pcie-32gb"), "gpu", []string{"gpu_energy", "positive", `"-1"`}},
		{"no GPU", "duration,gpu_energy,gpu_model,gpu_count\n10,1,,\n", bertPruningRuns("v100-pcie-32gb"), "gpu", []string{"gpu_model", "saw no GPU", "Tesla V100 PCIe 32 GB"}},
		{"no rows", "duration,gpu_energy,gpu_model,gpu_count\n", bertPruningRuns("v100-pcie-32gb"), "gpu", []string{"no rows"}},
	}
	for _, tt := range cases {
		_, err := c.CodeCarbonMeasurements(strings.NewReader(tt.log), tt.runs, tt.scope, "emissions.csv")
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		t.Logf("%s: %v", tt.name, err)
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", tt.name, err, w)
			}
		}
	}
	// A project mapping reads the rows of its project.
	ms, err := c.CodeCarbonMeasurements(bytes.NewReader(b), proj("paper"), "gpu", "emissions.csv")
	if err != nil || len(ms) != 3 {
		t.Errorf("project mapping: %d rows, err %v", len(ms), err)
	}
}

// TestParseCodeCarbonRuns checks the requests file: one request, or one
// per project, and errors that name the field.
func TestParseCodeCarbonRuns(t *testing.T) {
	one := `{"request": {"model": {"preset": "bert-base"}, "training": {"tokens": 1e7, "seq_len": 128, "batch_per_gpu": 32}, "hardware": {"gpu": "t4", "count": 1}, "strategy": "single"}}`
	runs, err := model.ParseCodeCarbonRuns([]byte(one))
	if err != nil || runs.All == nil || runs.All.Hardware.GPU != "t4" {
		t.Fatalf("one request: %+v, %v", runs, err)
	}
	many := `{"projects": {"a": {"model": {"preset": "bert-base"}, "training": {"tokens": 1e7, "seq_len": 128, "batch_per_gpu": 32}, "hardware": {"gpu": "t4", "count": 1}, "strategy": "single"}}}`
	runs, err = model.ParseCodeCarbonRuns([]byte(many))
	if err != nil || len(runs.Projects) != 1 {
		t.Fatalf("projects: %+v, %v", runs, err)
	}
	for in, want := range map[string]string{
		`{}`: `"request"`,
		`{"request": {"training": {"tokenz": 1}}}`:         "request.training.tokenz",
		`{"projects": {"a": {"training": {"tokenz": 1}}}}`: "projects.a.training.tokenz",
		`{"request": {}, "projects": {"a": {}}}`:           "projects",
		`{"requests": {}}`:                                 "requests",
	} {
		_, err := model.ParseCodeCarbonRuns([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want it to name %s", in, err, want)
		}
	}
}

// TestCodedLastErrors checks the two refusals that were words alone carry
// their codes: a CodeCarbon log with its header and no rows, and speedup
// curves asked for an interconnect class they do not have.
func TestCodedLastErrors(t *testing.T) {
	c := catalog(t)
	_, err := c.CodeCarbonMeasurements(strings.NewReader("duration,gpu_energy,gpu_model,gpu_count\n"), bertPruningRuns("v100-pcie-32gb"), "gpu", "emissions.csv")
	if m := model.AsMessage(err); m.Code != model.CodeCCNoRows || err.Error() != m.Text(model.Technical) {
		t.Errorf("no rows: error %v, message %+v, want code %s and the code's words", err, m, model.CodeCCNoRows)
	}
	_, _, err = model.Speedups{}.Efficiency(model.NVLink, model.Plan{Tensor: 1, Data: 2, DataMode: model.DDP}, model.StepWorkload{})
	m := model.AsMessage(err)
	if m.Code != model.CodeSpeedupNoCurves || m.Args.Str("interconnect") != string(model.NVLink) {
		t.Errorf("no curves: message %+v, want code %s about %s", m, model.CodeSpeedupNoCurves, model.NVLink)
	}
	if want := `no speedup curves for interconnect "nvlink"`; err == nil || err.Error() != want {
		t.Errorf("no curves: error %v, want %q (the words before the code)", err, want)
	}
}
