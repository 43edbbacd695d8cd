package model_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
)

// TestContextStrategy: a hybrid strategy carries its context-parallel
// degree through JSON and the answer; tensor × context × data must make
// the GPU count; context splits each GPU's activations as tensor ranks do
// and leaves the weights per GPU as they are; a degree out of range is a
// field error on strategy.context.
func TestContextStrategy(t *testing.T) {
	c := catalog(t)
	req := model.Request{
		Model:    model.ModelSpec{Preset: "llama-2-70b"},
		Training: model.TrainingSpec{Tokens: 2.5e7, SeqLen: 8192, BatchPerGPU: 1, Precision: model.FP8, Method: model.MethodLoRA, Stack: model.StackOptimised},
		Hardware: model.HardwareSpec{GPU: "h100-sxm5", Count: 64},
		Site:     model.SiteSpec{PUE: 1, CarbonGPerKWh: 400},
	}
	var s model.Strategy
	if err := json.Unmarshal([]byte(`{"tensor": 4, "data": 8, "data_mode": "ddp", "context": 2}`), &s); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(s); !strings.Contains(string(b), `"context":2`) {
		t.Errorf("strategy marshals as %s, want its context", b)
	}
	req.Strategy = s
	cp := estimate(t, c, req)
	if cp.Parallel.Context != 2 || cp.Parallel.Tensor != 4 || cp.Parallel.Data != 8 {
		t.Errorf("parallel %+v, want tensor 4 × context 2 × data 8", cp.Parallel)
	}
	req.Strategy = model.Strategy{Name: model.Hybrid, Tensor: 4, Data: 16, DataMode: model.DDP}
	plain := estimate(t, c, req)
	if r := cp.Memory.ActivationGBPerGPU / plain.Memory.ActivationGBPerGPU; !near(r, 0.5, 1e-12) {
		t.Errorf("activations per GPU with context 2 ×%g of without, want ×0.5", r)
	}
	if cp.Memory.StateGBPerGPU != plain.Memory.StateGBPerGPU {
		t.Errorf("state per GPU %g GB with context 2, %g without: ddp replicas hold the same", cp.Memory.StateGBPerGPU, plain.Memory.StateGBPerGPU)
	}
	// half the sequences per step on the same GPUs: each step's fixed
	// costs weigh twice as much, so η and the speedup fall
	if !(cp.Parallel.Efficiency < plain.Parallel.Efficiency) || !(cp.TimeS > plain.TimeS) {
		t.Errorf("context 2: η %.3f, %.0f s; without: η %.3f, %.0f s; want lower η and longer", cp.Parallel.Efficiency, cp.TimeS, plain.Parallel.Efficiency, plain.TimeS)
	}
	for _, bad := range []model.Strategy{
		{Name: model.Hybrid, Tensor: 4, Data: 16, DataMode: model.DDP, Context: 2},
		{Name: model.Hybrid, Tensor: 4, Data: 8, DataMode: model.DDP, Context: 4096},
	} {
		req.Strategy = bad
		_, err := c.Estimate(req)
		var fe *model.FieldError
		if !errors.As(err, &fe) || !strings.HasPrefix(fe.Field, "strategy") {
			t.Errorf("%+v: error %v, want a field error on the strategy", bad, err)
		}
	}
}
