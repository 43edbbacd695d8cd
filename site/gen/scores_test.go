package gen

import (
	"testing"

	"github.com/wattscale/wattscale/model/validate"
)

// TestValidationScoresFormat checks the page's formatting of a prediction
// and of an interval.
func TestValidationScoresFormat(t *testing.T) {
	yes := true
	c := predCell("wattscale, held-out", validate.Prediction{Available: true, KWh: 50, Ratio: 0.4, Fold: 2.5, Interval: &[2]float64{20.4, 123.4}, Covered: &yes})
	if c.Value != "50.00 kWh" || c.Fold != "×2.50 low" || !c.Bad || c.Interval != "20–120 kWh" || c.Covered != "inside" {
		t.Errorf("predCell = %+v, want 50.00 kWh, ×2.50 low, bad, 20–120 kWh, inside", c)
	}
	if c := predCell("6·N·D", validate.Prediction{Reason: "no parameter count or precision"}); c.Value != "" || c.Reason != "no parameter count or precision" {
		t.Errorf("unavailable baseline = %+v, want its reason", c)
	}
	if c := predCell("wattscale, in-sample", validate.Prediction{Reason: "long refusal"}); c.Reason != "not estimated" {
		t.Errorf("unavailable wattscale = %+v, want \"not estimated\" (the reason is shown once, with the run)", c)
	}
	for _, tc := range []struct {
		lo, hi float64
		want   string
	}{{0.0988, 0.5053, "0.099–0.51 kWh"}, {2541, 11230, "2,500–11,000 kWh"}, {52.3, 212, "52–210 kWh"}} {
		if got := fmtKWhRange(tc.lo, tc.hi); got != tc.want {
			t.Errorf("fmtKWhRange(%g, %g) = %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
}
