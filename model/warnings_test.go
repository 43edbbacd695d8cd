package model_test

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
)

// TestWarningsAreMessages: over random requests every warning of an
// estimate is a coded Message whose technical text is the warning, and
// its data survives JSON (what the API sends renders the same words).
func TestWarningsAreMessages(t *testing.T) {
	c := catalog(t)
	rng := rand.New(rand.NewPCG(3, 3))
	seen := map[string]bool{}
	for i := 0; i < 400; i++ {
		req := randomRequest(rng, c)
		r, err := c.Estimate(req)
		if err != nil {
			continue
		}
		if len(r.WarningMessages) != len(r.Warnings) {
			t.Fatalf("%d warnings, %d messages: %v", len(r.Warnings), len(r.WarningMessages), r.Warnings)
		}
		for j, m := range r.WarningMessages {
			if _, ok := model.TextOf(m.Code); !ok {
				t.Errorf("warning %q has no known code (%q)", r.Warnings[j], m.Code)
			}
			if got := m.String(); got != r.Warnings[j] {
				t.Errorf("message %s renders %q, the warning is %q", m.Code, got, r.Warnings[j])
			}
			b, _ := json.Marshal(m)
			var back model.Message
			if err := json.Unmarshal(b, &back); err != nil || back.String() != m.String() {
				t.Errorf("%s after JSON renders %q, want %q (%v)", m.Code, back.String(), m.String(), err)
			}
			seen[m.Code] = true
		}
		if got := model.MessageTexts(r.Calibration.OutsideMessages); !reflect.DeepEqual(got, r.Calibration.Outside) {
			t.Errorf("outside %v, its messages say %v", r.Calibration.Outside, got)
		}
	}
	if len(seen) < 4 {
		t.Errorf("only %d warning codes seen (%v): the requests no longer reach them", len(seen), seen)
	}
}

// TestSweepErrorsAreCoded: a sweep's refused points carry their error as
// data, memory refusals with the numbers the chart's legend needs, and the
// error's text is the code's.
func TestSweepErrorsAreCoded(t *testing.T) {
	c := catalog(t)
	base := baseRequest()
	base.Model = model.ModelSpec{Preset: "llama-2-70b"}
	base.Training.Precision = model.BF16
	base.Training.SeqLen = 2048
	base.Training.BatchPerGPU = 1
	base.Hardware.Count = 64
	pts, err := c.Sweep(model.SweepRequest{Base: base, Counts: []int{1, 2, 3, 4, 8, 16, 128, 4096}, Strategies: []string{model.Single, model.DDP, model.FSDP, model.TP}})
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]int{}
	for _, p := range pts {
		if p.Error == "" {
			continue
		}
		if p.ErrorCode == "" {
			t.Errorf("%s on %d GPUs: error %q has no code", p.Strategy, p.GPUs, p.Error)
			continue
		}
		codes[p.ErrorCode]++
		if got := (&model.FieldError{Field: "hardware.count", Value: "x", Code: p.ErrorCode, Args: p.ErrorArgs}).Say(model.Technical); !strings.Contains(p.Error, got) {
			t.Errorf("%s on %d GPUs: error %q does not hold its code's text %q", p.Strategy, p.GPUs, p.Error, got)
		}
		if p.ErrorCode == model.CodeMemoryState {
			need, capGB := p.ErrorArgs.Num("need_gb"), p.ErrorArgs.Num("capacity_gb")
			if !(need > capGB && capGB == 80) {
				t.Errorf("%s on %d GPUs: memory refusal needs %v GB of %v GB; want more than the A100's 80", p.Strategy, p.GPUs, need, capGB)
			}
		}
	}
	if codes[model.CodeMemoryState] == 0 || codes[model.CodeTensorHeads]+codes[model.CodeTensorOverHeads] == 0 {
		t.Errorf("codes seen %v: want memory refusals and tensor-rank refusals", codes)
	}
}
