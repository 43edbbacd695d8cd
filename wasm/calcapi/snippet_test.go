package calcapi

import (
	"math"
	"testing"

	"github.com/wattscale/wattscale/model"
)

// TestSnippetsNameEveryInput changes each field of the request's field
// table in turn, on a full fine-tune and on a QLoRA run, and fails when the
// energy moves by more than 1 % while the description of the run that the
// paper sentence and the model-card block carry (RunDescription) stays the
// same: a pasted snippet must say what was estimated (issue 30).
func TestSnippetsNameEveryInput(t *testing.T) {
	a := newAPI(t)
	full, ferr := DefaultForm().Request(a.Regions)
	if ferr != nil {
		t.Fatal(ferr.Text)
	}
	qlora := model.Request{
		Model:    model.ModelSpec{Preset: "llama-2-70b"},
		Training: model.TrainingSpec{Tokens: 1e8, SeqLen: 2048, BatchPerGPU: 2, Precision: model.BF16, Method: model.MethodQLoRA},
		Hardware: model.HardwareSpec{GPU: "h100-sxm5", Count: 8},
		Strategy: model.Strategy{Name: model.FSDP},
		Site:     full.Site,
	}
	var cals []string
	for _, c := range a.Catalog.Calibrations {
		cals = append(cals, c.Name)
	}
	checked := 0
	for _, base := range []struct {
		name string
		req  model.Request
	}{{"full fine-tune", full}, {"qlora", qlora}} {
		r0, err := a.Catalog.Estimate(base.req)
		if err != nil {
			t.Fatalf("%s: %v", base.name, err)
		}
		d0 := RunDescription(&r0)
		for i := range model.RequestFields {
			f := &model.RequestFields[i]
			if f.Path == "" || f.Kind == model.KindObject {
				continue
			}
			for _, v := range alternatives(f, cals) {
				req := base.req
				if base.req.Training.LoRA != nil {
					l := *base.req.Training.LoRA
					req.Training.LoRA = &l
				}
				if err := f.Set(&req, v); err != nil {
					t.Fatalf("%s = %v: %v", f.Path, v, err)
				}
				r, err := a.Catalog.Estimate(req)
				if err != nil {
					continue // not a valid variation of this run
				}
				checked++
				if math.Abs(r.EnergyKWh/r0.EnergyKWh-1) > 0.01 && RunDescription(&r) == d0 {
					t.Errorf("%s, %s = %v: energy %.4g → %.4g kWh, but the snippet's description stays %q", base.name, f.Path, v, r0.EnergyKWh, r.EnergyKWh, d0)
				}
			}
		}
	}
	if checked < 40 {
		t.Errorf("only %d variations could be estimated; the walk is not covering the table", checked)
	}
}

// alternatives are values to try for field f: every choice of an enum, both
// values of a bool, a few values across a number's range, and a second
// name for a catalogue field.
func alternatives(f *model.Field, calibrations []string) []any {
	switch f.Kind {
	case model.KindEnum:
		var out []any
		for _, c := range f.Choices {
			if c != "" {
				out = append(out, c)
			}
		}
		return out
	case model.KindBool:
		return []any{true, false}
	case model.KindString:
		switch f.Path {
		case "model.preset":
			return []any{"gpt2", "llama-3-8b"}
		case "hardware.gpu":
			return []any{"h100-sxm5", "l40s"}
		case "training.lora.targets":
			return []any{"qv", "attention", "attention_mlp"}
		case "calibration":
			out := make([]any, len(calibrations))
			for i, c := range calibrations {
				out[i] = c
			}
			return out
		}
		return nil
	}
	var xs []float64
	if b := f.Bounds; b != nil {
		for _, x := range []float64{b.Min, 2, 3, 8, 64, 250, 1e9, b.Max} {
			if x >= b.Min && x <= b.Max && !(b.MinOpen && x == b.Min) {
				xs = append(xs, x)
			}
		}
	} else {
		xs = []float64{2, 8, 64, 250, 400}
	}
	out := make([]any, 0, len(xs))
	for _, x := range xs {
		if f.Kind == model.KindInt {
			out = append(out, math.Round(x))
		} else {
			out = append(out, x)
		}
	}
	return out
}
