package model_test

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
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
			if _, ok := model.Texts[m.Code]; !ok {
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
