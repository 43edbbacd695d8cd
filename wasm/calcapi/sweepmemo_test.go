package calcapi

import (
	"reflect"
	"testing"

	"github.com/wattscale/wattscale/model"
)

// TestSweepMemo checks what the charts' sweep memory (SweepSpec.Memo)
// rests on, that a sweep's points do not depend on the request's own GPU
// count and strategy (each point sets both), over every preset on three
// accelerators, full fine-tuning and LoRA; and that a calculator's series
// of inputs gets from the memory the sweep a fresh estimate computes,
// reusing it exactly when only the count or the strategy changed.
func TestSweepMemo(t *testing.T) {
	a := newAPI(t)
	spec := SweepSpec{Counts: []int{1, 2, 3, 4, 6, 8, 16, 24, 64}, Strategies: []string{"single", "ddp", "fsdp", "tp"}}
	sweep := func(f Form) []model.SweepPoint {
		t.Helper()
		req, ferr := f.Request(a.Regions)
		if ferr != nil {
			t.Fatalf("%v: %s", f, ferr.Text)
		}
		pts, err := a.Catalog.Sweep(model.SweepRequest{Base: req, Counts: spec.Counts, Strategies: spec.Strategies})
		if err != nil {
			t.Fatalf("%v: %v", f, err)
		}
		return pts
	}
	checked := 0
	for _, p := range a.Catalog.Presets {
		for _, gpu := range []string{"a100-sxm4-80gb", "h100-sxm", "rtx-4090"} {
			for _, method := range []string{"full", "lora"} {
				base := form(map[string]string{"model": p.Name, "gpu": gpu, "method": method, "count": "4", "strategy": "fsdp"})
				if _, err := a.Catalog.Estimate(mustRequest(t, a, base)); err != nil {
					continue // the base itself does not estimate: no sweep is drawn
				}
				want := sweep(base)
				for _, o := range []map[string]string{{"count": "1", "strategy": "single"}, {"count": "8", "strategy": "ddp"}, {"count": "64", "strategy": "tp"}} {
					other := form(map[string]string{"model": p.Name, "gpu": gpu, "method": method, "count": o["count"], "strategy": o["strategy"]})
					if _, err := a.Catalog.Estimate(mustRequest(t, a, other)); err != nil {
						continue
					}
					if got := sweep(other); !reflect.DeepEqual(got, want) {
						t.Errorf("%s on %s, %s: the sweep at %s GPUs, %s differs from the one at 4, fsdp", p.Name, gpu, method, o["count"], o["strategy"])
					}
					checked++
				}
			}
		}
	}
	t.Logf("%d sweeps compared", checked)
	if checked < 100 {
		t.Fatalf("only %d sweeps compared", checked)
	}

	var memo SweepMemo
	withMemo := spec
	withMemo.Memo = &memo
	var last []model.SweepPoint
	for i, step := range []struct {
		over  map[string]string
		reuse bool
	}{
		{map[string]string{"count": "4"}, false},
		{map[string]string{"count": "8"}, true},
		{map[string]string{"count": "8", "strategy": "ddp"}, true},
		{map[string]string{"count": "8", "strategy": "ddp", "tokens": "3e8"}, false},
		{map[string]string{"count": "2", "strategy": "ddp", "tokens": "3e8"}, true},
		{map[string]string{"count": "2", "strategy": "ddp", "tokens": "3e8", "gpu": "h100-sxm"}, false},
		{map[string]string{"count": "2", "strategy": "ddp", "tokens": "3e8", "gpu": "h100-sxm", "batch": "16"}, false},
	} {
		got := a.EstimateForm(form(step.over), &withMemo)
		want := a.EstimateForm(form(step.over), &spec)
		if got.Error != nil || !reflect.DeepEqual(got.Sweep, want.Sweep) || !reflect.DeepEqual(got.SweepError, want.SweepError) {
			t.Errorf("step %d (%v): the sweep from the memory differs from a fresh one (error %v)", i, step.over, got.Error)
		}
		if reused := last != nil && &got.Sweep[0] == &last[0]; reused != step.reuse {
			t.Errorf("step %d (%v): sweep reused %v, want %v", i, step.over, reused, step.reuse)
		}
		last = got.Sweep
	}
	// Another catalog (the user added or refitted a calibration: the
	// request may name the same one) is swept anew.
	cat := *a.Catalog
	a.Catalog = &cat
	if got := a.EstimateForm(form(map[string]string{"count": "2", "strategy": "ddp", "tokens": "3e8", "gpu": "h100-sxm", "batch": "16"}), &withMemo); &got.Sweep[0] == &last[0] {
		t.Error("the sweep was reused over another catalog")
	}
}

func mustRequest(t *testing.T, a *API, f Form) model.Request {
	t.Helper()
	req, ferr := f.Request(a.Regions)
	if ferr != nil {
		t.Fatalf("%v: %s", f, ferr.Text)
	}
	return req
}
