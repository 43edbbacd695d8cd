package calcapi

import (
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
)

// TestNoErrorFromTheDefaultPutIn: Llama-2-70B on one GPU, single, is
// refused for memory on the GPU count. Looking for more wrong inputs puts
// the default count (4) in its place; the strategy, fine with the user's
// count of 1, must not then be reported as needing one GPU (issue 30).
// A strategy wrong on its own is still found beside another error.
func TestNoErrorFromTheDefaultPutIn(t *testing.T) {
	a := newAPI(t)
	f := DefaultForm()
	f["model"], f["count"], f["strategy"] = "llama-2-70b", "1", "single"
	o := a.EstimateOf(EstimateInput{Form: f})
	var inputs []string
	for _, e := range o.Errors {
		inputs = append(inputs, e.Input)
	}
	if len(o.Errors) != 1 || o.Errors[0].Input != "count" || !strings.HasPrefix(o.Errors[0].Code, "memory.") {
		t.Fatalf("errors on %v (%+v), want the GPU count's memory refusal alone", inputs, o.Errors)
	}
	if o.Errors[0].Brief == "" || !(len(o.Errors[0].Brief) < len(o.Errors[0].Say)) {
		t.Errorf("the memory refusal's gist %q is not shorter than its words %q", o.Errors[0].Brief, o.Errors[0].Say)
	}
	g := DefaultForm()
	g["seq"], g["count"], g["strategy"] = "abc", "4", "single"
	o = a.EstimateOf(EstimateInput{Form: g})
	found := map[string]bool{}
	for _, e := range o.Errors {
		found[e.Input] = true
		if e.Input == "strategy" && e.Code != model.CodeSingleNeedsOne {
			t.Errorf("the strategy's error is %s, want %s", e.Code, model.CodeSingleNeedsOne)
		}
	}
	if !found["seq"] || !found["strategy"] {
		t.Errorf("errors on %v, want the sequence length and the strategy", found)
	}
}
