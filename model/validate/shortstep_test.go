package validate_test

import (
	"math"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
)

// TestShortStepEvidence holds model.ShortStepS to the runs its comment and
// warning cite: the estimates of the two TeenyTinyLlama runs (one A100)
// warn, their modelled GPU time per step is the cited 0.055 and 0.085 s
// (within 20 %), and their logged time per step (time_s over the steps
// their tokens make) is at least 3× it.
func TestShortStepEvidence(t *testing.T) {
	c := catalog(t)
	want := map[string]float64{"teenytinyllama-160m-pretrain": 0.055, "teenytinyllama-460m-pretrain": 0.085}
	found := 0
	for _, r := range table(t) {
		cited, ok := want[r.ID]
		if !ok {
			continue
		}
		found++
		in := r.Inputs(c.Presets, c.Hardware)
		resp, err := c.Estimate(in.Request)
		if err != nil {
			t.Fatalf("%s: %v", r.ID, err)
		}
		tr := in.Request.Training
		steps := tr.Tokens / (tr.SeqLen * tr.BatchPerGPU)
		modelled := resp.TrainingTimeS / steps
		if math.Abs(modelled/cited-1) > 0.2 {
			t.Errorf("%s: modelled %.3g s of GPU work per step, the warning cites %.3g s", r.ID, modelled, cited)
		}
		if logged := r.TimeS / steps; !(logged >= 3*modelled) {
			t.Errorf("%s: logged %.3g s per step, not 3× the modelled %.3g s", r.ID, logged, modelled)
		}
		if !strings.Contains(strings.Join(resp.Warnings, "\n"), model.ShortStepSource) {
			t.Errorf("%s: warnings %q lack the short-step warning", r.ID, resp.Warnings)
		}
	}
	if found != len(want) {
		t.Errorf("found %d of the %d TeenyTinyLlama runs in the table", found, len(want))
	}
}
