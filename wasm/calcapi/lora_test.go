package calcapi

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/wattscale/wattscale/model"
)

// TestFormLoRA: the method fields reach the request, only the fields of
// the chosen method are in a shared link, and "compare" adds full
// fine-tuning of the same configuration.
func TestFormLoRA(t *testing.T) {
	a := newAPI(t)
	f := form(map[string]string{"model": "llama-2-7b", "gpu": "a100-sxm4-80gb", "count": "8", "strategy": "fsdp", "seq": "1024", "batch": "4",
		"precision": "bf16", "method": "lora", "rank": "16", "targets": "attention_mlp", "ckpt": "on", "compare": "1"})
	out := estimate(t, a, EstimateInput{Form: f})
	if out.Error != nil {
		t.Fatalf("Estimate: %+v", out.Error)
	}
	var req model.Request
	if err := json.Unmarshal(out.Request, &req); err != nil {
		t.Fatal(err)
	}
	tr := req.Training
	if tr.Method != model.MethodLoRA || tr.LoRA == nil || tr.LoRA.Rank != 16 || tr.LoRA.Targets != "attention_mlp" || tr.GradientCheckpointing == nil || !*tr.GradientCheckpointing {
		t.Errorf("request training = %+v (lora %+v)", tr, tr.LoRA)
	}
	if out.Response.Training.Method != model.MethodLoRA || out.Response.Training.Rank != 16 {
		t.Errorf("response training = %+v", out.Response.Training)
	}
	if out.Full == nil || out.Full.Training.Method != model.MethodFull || !(out.Full.EnergyKWh > out.Response.EnergyKWh) {
		t.Errorf("compare: full = %v (error %v), want full fine-tuning above lora's %.4g kWh", out.Full, out.FullError, out.Response.EnergyKWh)
	}
	act := f.Active()
	for _, k := range []string{"method", "rank", "targets", "train_emb", "ckpt", "compare"} {
		if !slices.Contains(act, k) {
			t.Errorf("Active() = %v lacks %s for a lora form", act, k)
		}
	}
	if slices.Contains(act, "base_format") {
		t.Errorf("Active() = %v has base_format for lora", act)
	}
	full := DefaultForm()
	for _, k := range []string{"rank", "targets", "base_format", "compare"} {
		if slices.Contains(full.Active(), k) {
			t.Errorf("Active() of the default (full) form has %s", k)
		}
	}
	// Full fine-tuning of an 8B model on one 24 GB GPU does not fit: the
	// comparison says why instead of failing the LoRA estimate.
	q := form(map[string]string{"model": "llama-3-8b", "gpu": "rtx-4090", "count": "1", "strategy": "single", "seq": "1024", "batch": "2",
		"precision": "bf16", "method": "qlora", "base_format": "nf4", "compare": "1"})
	out = estimate(t, a, EstimateInput{Form: q})
	if out.Error != nil || out.Response == nil || out.Full != nil || out.FullError == nil || out.FullError.Field != "hardware.count" {
		t.Errorf("qlora 8B on one 4090 with compare: error %v, full %v, full error %+v; want the qlora estimate and a memory refusal for full", out.Error, out.Full, out.FullError)
	}
}

func TestFormLoRAErrors(t *testing.T) {
	a := newAPI(t)
	for _, c := range []struct {
		over  map[string]string
		input string
	}{
		{map[string]string{"method": "lora", "rank": "0"}, "rank"},
		{map[string]string{"method": "lora", "rank": "eight"}, "rank"},
		{map[string]string{"method": "lora", "rank": "100000"}, "rank"},
		{map[string]string{"method": "lora", "targets": "q,gate"}, "targets"},
		{map[string]string{"method": "prefix"}, "method"},
		{map[string]string{"method": "qlora", "gpu": "tpu-v4", "precision": "bf16"}, "method"},
		{map[string]string{"ckpt": "maybe"}, "ckpt"},
	} {
		out := estimate(t, a, EstimateInput{Form: form(c.over)})
		if out.Error == nil || out.Error.Input != c.input {
			t.Errorf("Estimate(%v) error %+v, want it on input %s", c.over, out.Error, c.input)
		}
	}
}
