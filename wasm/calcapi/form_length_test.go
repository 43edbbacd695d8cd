package calcapi

import "testing"

// TestLengthChoiceChecked: a training length given as neither tokens nor
// epochs (a hand-made link, ?length=zz) is an error on that input, not
// read silently as total tokens.
func TestLengthChoiceChecked(t *testing.T) {
	for _, v := range []string{"", "tokens", "epochs"} {
		f := DefaultForm()
		f["length"] = v
		if v == "epochs" {
			f["dataset_tokens"], f["epochs"] = "1e8", "2"
		}
		if _, err := f.Request(DefaultRegions()); err != nil {
			t.Errorf("length %q: %s", v, err.Text)
		}
	}
	f := DefaultForm()
	f["length"] = "zz"
	_, err := f.Request(DefaultRegions())
	if err == nil || err.Input != "length" || err.Value != `"zz"` {
		t.Fatalf("length zz: %+v, want an error on the length input naming the value", err)
	}
}
