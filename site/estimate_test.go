package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
)

// userCalibration writes the project's roofline calibration under another
// name with the activity factor changed, as `fit -o DIR` would write a
// user's own.
func userCalibration(t *testing.T, dir, name string, activity float64) {
	t.Helper()
	cals, err := content.LoadCalibrations(content.Calibrations)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cals {
		if c.Name != content.DefaultCalibration {
			continue
		}
		p := *c.Roofline
		p.Activity.Value = activity
		c.Name, c.Roofline = name, &p
		var b bytes.Buffer
		if err := writeJSON(&b, c); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".json"), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("no %s calibration", content.DefaultCalibration)
}

func estimate(t *testing.T, args []string, calibration string) (model.Response, string, error) {
	t.Helper()
	// tf32: the fp32/tf32 constants (roofline.activity) apply; fp16 would use the tensor block.
	req := `{"model": {"preset": "bert-base"}, "training": {"tokens": 2e8, "seq_len": 128, "batch_per_gpu": 32, "precision": "tf32"},
		"hardware": {"gpu": "a100-sxm4-80gb", "count": 1}, "strategy": "single", "calibration": "` + calibration + `"}`
	var out, errOut bytes.Buffer
	err := runEstimate(args, strings.NewReader(req), &out, &errOut)
	var resp model.Response
	if err == nil {
		if jerr := json.Unmarshal(out.Bytes(), &resp); jerr != nil {
			t.Fatal(jerr)
		}
	}
	return resp, errOut.String(), err
}

func TestEstimateLoadsUserCalibrations(t *testing.T) {
	dir := t.TempDir()
	userCalibration(t, dir, "user-roofline", 0.4)
	base, _, err := estimate(t, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	mine, _, err := estimate(t, []string{"-calibrations", dir}, "user-roofline")
	if err != nil {
		t.Fatal(err)
	}
	if mine.Calibration.Name != "user-roofline" {
		t.Errorf("calibration used = %q, want user-roofline", mine.Calibration.Name)
	}
	// Same time model, lower activity: lower power and energy.
	if !(mine.EnergyKWh < base.EnergyKWh) || mine.TimeS != base.TimeS {
		t.Errorf("user calibration: %g kWh in %g s; default: %g kWh in %g s; want less energy in the same time", mine.EnergyKWh, mine.TimeS, base.EnergyKWh, base.TimeS)
	}
	// The default still works beside it.
	if again, _, err := estimate(t, []string{"-calibrations", dir}, ""); err != nil || again.EnergyKWh != base.EnergyKWh {
		t.Errorf("default calibration with -calibrations: %g kWh, %v; want %g kWh", again.EnergyKWh, err, base.EnergyKWh)
	}
}

func TestEstimateCalibrationErrors(t *testing.T) {
	dup := t.TempDir()
	userCalibration(t, dup, content.DefaultCalibration, 0.5)
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "broken.json"), []byte(`{"name": "x", "version": "1", "kind": "roofline", "colour": 1}`), 0o644)
	tests := []struct {
		dir, want string
	}{
		{filepath.Join(dup, "absent"), "-calibrations: stat"},
		{t.TempDir(), "no *.json file"},
		{bad, "broken.json:1: calibration: colour: is not a known field"},
		{dup, `calibration "wattscale-roofline" appears twice`},
	}
	for _, tc := range tests {
		_, _, err := estimate(t, []string{"-calibrations", tc.dir}, "")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("-calibrations %s: error %v, want one containing %q", tc.dir, err, tc.want)
		}
	}
}

// hfExample is the Llama-3-8B QLoRA run of content/examples described by
// its three Hugging Face files.
const hfExample = "../content/examples/hf-llama-3-8b-qlora"

// hfExampleEstimate answers the example as `go run ./site estimate
// -hf-config … -hf-args … -peft …` does.
func hfExampleEstimate(t *testing.T) model.Response {
	t.Helper()
	run, err := os.ReadFile(filepath.Join(hfExample, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	args := []string{"-hf-config", filepath.Join(hfExample, "config.json"), "-hf-args", filepath.Join(hfExample, "training_args.json"), "-peft", filepath.Join(hfExample, "adapter_config.json")}
	if err := runEstimate(args, bytes.NewReader(run), &out, &errOut); err != nil {
		t.Fatalf("estimate %v: %v (%s)", args, err, errOut.String())
	}
	var resp model.Response
	if err := json.Unmarshal(out.Bytes(), &resp); err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestEstimateHFExample checks that the three files of the example give
// the estimate of the wattscale fields they mean: the llama-3-8b preset,
// QLoRA at rank 64 on every linear layer, NF4 with bf16 compute, batch 4
// with 4 accumulation steps of 2,048 tokens, paged AdamW (16 bytes per
// trained parameter), checkpointing, one epoch.
func TestEstimateHFExample(t *testing.T) {
	got := hfExampleEstimate(t)
	ckpt := true
	req := model.Request{
		Model: model.ModelSpec{Preset: "meta-llama/Meta-Llama-3-8B"},
		Training: model.TrainingSpec{DatasetTokens: 5e7, Epochs: 1, SeqLen: 2048, BatchPerGPU: 4, GradientAccumulation: 4, Precision: model.BF16, StateBytesPerParam: 16,
			Method: model.MethodQLoRA, GradientCheckpointing: &ckpt, LoRA: &model.LoRASpec{Rank: 64, Targets: model.TargetsAttentionMLP, BaseFormat: model.FormatNF4, ComputeDtype: model.BF16}},
		Hardware: model.HardwareSpec{GPU: "a100-sxm4-80gb", Count: 1},
		Strategy: model.Strategy{Name: model.Single},
	}
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	want, err := cat.Estimate(req)
	if err != nil {
		t.Fatal(err)
	}
	if got.EnergyKWh != want.EnergyKWh || got.TimeS != want.TimeS || got.CO2eKg != want.CO2eKg {
		t.Errorf("the example's files give %.6g kWh, %.6g s, %.6g kg; its fields %.6g kWh, %.6g s, %.6g kg", got.EnergyKWh, got.TimeS, got.CO2eKg, want.EnergyKWh, want.TimeS, want.CO2eKg)
	}
	if len(got.Inputs.Imported) < 30 {
		t.Errorf("inputs.imported lists %d keys, want every key of the three files", len(got.Inputs.Imported))
	}
}

// TestEstimateHFFlagTwice refuses a file given both in the request and by
// its flag.
func TestEstimateHFFlagTwice(t *testing.T) {
	var out, errOut bytes.Buffer
	req := `{"model": {"hf_config": {"model_type": "gpt2"}}, "training": {"tokens": 1e6, "seq_len": 128, "batch_per_gpu": 8}, "hardware": {"gpu": "a100-sxm4-80gb", "count": 1}, "strategy": "single"}`
	err := runEstimate([]string{"-hf-config", filepath.Join(hfExample, "config.json")}, strings.NewReader(req), &out, &errOut)
	if fe := model.AsFieldError(err); fe == nil || fe.Field != "model.hf_config" || !strings.Contains(fe.Message, "-hf-config") {
		t.Errorf("estimate -hf-config with hf_config in the request = %v, want an error on model.hf_config naming the flag", err)
	}
}
