package model_test

import (
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
)

// TestShortStepWarning: a one-GPU estimate whose modelled GPU work per
// step is under model.ShortStepS warns that host work may dominate and
// cites its evidence; a longer step does not, nor does the same short step
// spread over several GPUs (communication, not the host, is what the
// parallel model charges there).
func TestShortStepWarning(t *testing.T) {
	c := catalog(t)
	req := model.Request{
		Model:    model.ModelSpec{Preset: "bert-base"},
		Training: model.TrainingSpec{Tokens: 1e9, SeqLen: 512, BatchPerGPU: 4, Precision: model.BF16},
		Hardware: model.HardwareSpec{GPU: "a100-sxm4-80gb", Count: 1},
		Strategy: model.Strategy{Name: model.Single},
		Site:     model.SiteSpec{PUE: 1.2, CarbonGPerKWh: 400, USDPerKWh: 0.1},
	}
	warned := func(r model.Response) bool {
		for _, w := range r.Warnings {
			if strings.Contains(w, "modelled GPU work per step") {
				if !strings.Contains(w, model.ShortStepSource) {
					t.Errorf("warning %q does not cite its evidence", w)
				}
				return true
			}
		}
		return false
	}
	short := estimate(t, c, req)
	steps := req.Training.Tokens / (req.Training.SeqLen * req.Training.BatchPerGPU)
	if per := short.TrainingTimeS / steps; !(per < model.ShortStepS) {
		t.Fatalf("bert-base at 4 × 512 tokens on one A100: %.3g s per step, want a step under %g s for this test", per, model.ShortStepS)
	}
	if !warned(short) {
		t.Errorf("one A100, %.3g s per step: warnings %q lack the short-step warning", short.TrainingTimeS/steps, short.Warnings)
	}
	long := req
	long.Training.BatchPerGPU = 256
	if r := estimate(t, c, long); warned(r) {
		t.Errorf("one A100 at 256 × 512 tokens per step (%.3g s): short-step warning given", r.TrainingTimeS/(req.Training.Tokens/(512*256)))
	}
	multi := req
	multi.Hardware.Count, multi.Strategy = 8, model.Strategy{Name: model.DDP}
	if r := estimate(t, c, multi); warned(r) {
		t.Errorf("8 GPUs: short-step warning given; it is for one GPU")
	}
}
