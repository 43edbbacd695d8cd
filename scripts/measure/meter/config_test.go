package meter

import (
	"errors"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
)

func TestTemplate(t *testing.T) {
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	base := func() model.Request {
		return model.Request{Model: model.ModelSpec{Preset: "bert-base"},
			Training: model.TrainingSpec{SeqLen: 128, BatchPerGPU: 32, Precision: model.FP16},
			Hardware: model.HardwareSpec{GPU: "h100-sxm5", Count: 1}, Strategy: model.Strategy{Name: model.Single}}
	}
	t.Run("nvidia-smi name and tokens from dataset and epochs", func(t *testing.T) {
		r := base()
		r.Hardware.GPU = "NVIDIA A100-SXM4-80GB"
		r.Training.DatasetTokens, r.Training.Epochs = 1e6, 3
		m, err := Template(r, cat)
		if err != nil {
			t.Fatal(err)
		}
		if m.GPU != "a100-sxm4-80gb" || m.Tokens != 3e6 || m.Model != "bert-base" || m.Arch.Layers != 12 || m.Strategy != "single" {
			t.Errorf("Template = %+v, want bert-base on a100-sxm4-80gb, 3e6 tokens", m)
		}
	})
	t.Run("precision left out: the accelerator's usual one", func(t *testing.T) {
		r := base()
		r.Training.Precision = ""
		m, err := Template(r, cat)
		if err != nil || m.Precision != model.BF16 {
			t.Errorf("Template = %+v, %v; want precision bf16 on an h100-sxm5", m, err)
		}
	})
	t.Run("tokens left to the markers", func(t *testing.T) {
		m, err := Template(base(), cat)
		if err != nil || m.Tokens != 0 {
			t.Errorf("Template = %+v, %v; want no tokens and no error", m, err)
		}
	})
	t.Run("custom shape and hybrid", func(t *testing.T) {
		r := base()
		r.Model = model.ModelSpec{Layers: 24, Hidden: 2048, Heads: 16, FFN: 8192, Vocab: 50257}
		r.Hardware = model.HardwareSpec{GPU: "h100-sxm5", Count: 8}
		r.Strategy = model.Strategy{Name: model.Hybrid, Tensor: 2, Data: 4, DataMode: "fsdp"}
		m, err := Template(r, cat)
		if err != nil {
			t.Fatal(err)
		}
		if m.Model != "" || m.Arch.Hidden != 2048 || m.Tensor != 2 || m.DataMode != "fsdp" || m.Count != 8 {
			t.Errorf("Template = %+v, want the shape and the hybrid layout", m)
		}
	})
	for _, tc := range []struct {
		name  string
		edit  func(*model.Request)
		field string
	}{
		{"unknown preset", func(r *model.Request) { r.Model.Preset = "bert-huge" }, "model.preset"},
		{"nvidia-smi name not in the table (give -gpu)", func(r *model.Request) { r.Hardware.GPU = "NVIDIA H100 80GB HBM3" }, "hardware.gpu"},
		{"fractional batch", func(r *model.Request) { r.Training.BatchPerGPU = 2.5 }, "training.batch_per_gpu"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := base()
			tc.edit(&r)
			_, err := Template(r, cat)
			fe := model.AsFieldError(err)
			if fe == nil || fe.Field != tc.field {
				t.Errorf("Template error = %v, want a field error on %s", err, tc.field)
			}
		})
	}
}

func TestRowsErrors(t *testing.T) {
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	tpl := model.Measurement{Model: "bert-base", GPU: "a100-sxm4-80gb", Count: 1, Strategy: "single", SeqLen: 128, BatchPerGPU: 8, Precision: model.FP16}
	tpl.Arch = cat.Presets[0].Arch
	if _, err := Rows(tpl, &Summary{GPUEnergyJ: 100, DurationS: 10}, "", "", cat.Presets); !errors.Is(err, ErrNoTokens) {
		t.Errorf("Rows without tokens: error = %v, want ErrNoTokens", err)
	}
	if _, err := Rows(tpl, &Summary{GPUEnergyJ: 0, DurationS: 10, Tokens: 5}, "", "", cat.Presets); err == nil || !strings.Contains(err.Error(), "no GPU energy") {
		t.Errorf("Rows without energy: error = %v, want one saying no GPU energy", err)
	}
	bad := tpl
	bad.Strategy = "pipeline"
	if _, err := Rows(bad, &Summary{GPUEnergyJ: 100, DurationS: 10, Tokens: 5000}, "", "", cat.Presets); err == nil || !strings.Contains(err.Error(), "would not be accepted by the fitter") {
		t.Errorf("Rows with a bad strategy: error = %v, want the schema parser's", err)
	}
}
