package fitapi

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/wasm/calcapi/view"
)

// TestPrepare: the refit box asks for nothing without a CSV (a warning)
// and for nothing with CodeCarbon requests that are not JSON (an error
// naming the reader's complaint); otherwise Fit's argument carries the
// box's fields (a pasted CSV named pasted.csv) and the step counts the
// rows Fit reads.
func TestPrepare(t *testing.T) {
	for _, blank := range []string{"", " \n\t"} {
		if arg, _, bad := Prepare(Ask{CSV: blank, Kind: "law"}); arg != nil || bad == nil || *bad != view.RefitNoCSV() || bad.Kind != "warning" {
			t.Errorf("CSV %q: arg %s, status %+v, want the no-CSV warning", blank, arg, bad)
		}
	}
	csv := syntheticCSV(t)
	if arg, _, bad := Prepare(Ask{CSV: csv, CodeCarbon: `{"request": `}); arg != nil || bad == nil || bad.Kind != "error" ||
		!strings.HasPrefix(bad.Text, "The CodeCarbon requests are not JSON: ") || !strings.Contains(bad.Text, "unexpected end of JSON input") {
		t.Errorf("CodeCarbon requests cut short: arg %s, status %+v", arg, bad)
	}
	arg, step, bad := Prepare(Ask{CSV: csv, Kind: "law", StartedMs: 1})
	if bad != nil {
		t.Fatalf("a CSV: %+v", bad)
	}
	var in Input
	if err := json.Unmarshal(arg, &in); err != nil || in.CSV != csv || in.Name != "pasted.csv" || in.Kind != "law" || in.StartedMs != 1 || in.CodeCarbon != nil || in.Scope != "" {
		t.Errorf("Fit's argument %+v (%v)", in, err)
	}
	var out Output
	if err := json.Unmarshal(Fit(arg), &out); err != nil || out.Error != nil {
		t.Fatalf("Fit: %v %+v", err, out.Error)
	}
	if want := view.RefitFitting(out.Rows, "law"); step != want {
		t.Errorf("step %q, want %q (the rows Fit read)", step, want)
	}
	arg, _, _ = Prepare(Ask{CSV: "x", Name: "emissions.csv", Kind: "roofline", CodeCarbon: ` {"request": {}} `, Scope: "total"})
	in = Input{}
	if err := json.Unmarshal(arg, &in); err != nil || in.Name != "emissions.csv" || string(in.CodeCarbon) != `{"request":{}}` || in.Scope != "total" {
		t.Errorf("a CodeCarbon log's argument %+v (%v)", in, err)
	}
}

// TestOutcome: a fit made is said as FitDone said it (a warning when it
// failed its checks) and its calibration is downloaded as `site fit`
// prints it (JSON indented by two spaces, a final newline); a fit that
// failed, or an answer that is not Fit's, is said as an error and offers
// nothing to download.
func TestOutcome(t *testing.T) {
	csv := syntheticCSV(t)
	for _, kind := range []string{"law", "roofline"} {
		arg, _, _ := Prepare(Ask{CSV: csv, Kind: kind, StartedMs: 1})
		o, st, cal := Outcome(Fit(arg))
		if o.Error != nil || o.Calibration == nil {
			t.Fatalf("%s: %+v", kind, o.Error)
		}
		if want := view.RefitDone(o.Said, len(o.Checks) > 0); st != want || !strings.HasPrefix(st.Text, "Fitted "+o.Calibration.Name) {
			t.Errorf("%s: status %+v, want %+v", kind, st, want)
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		if err := enc.Encode(o.Calibration); err != nil || cal != b.String() {
			t.Errorf("%s: the download is not the calibration as site fit writes it (%v)", kind, err)
		}
		var back model.Calibration
		if err := json.Unmarshal([]byte(cal), &back); err != nil || !reflect.DeepEqual(back, *o.Calibration) {
			t.Errorf("%s: the download does not read back as the calibration (%v)", kind, err)
		}
	}
	arg, _, _ := Prepare(Ask{CSV: "model,gpu\nbert-base,v100\n", Kind: "law"})
	o, st, cal := Outcome(Fit(arg))
	if o.Error == nil || cal != "" || st.Kind != "error" || st.Text != "The fit failed: "+o.Error.Text {
		t.Errorf("a CSV without energies: %+v, status %+v, download %q", o.Error, st, cal)
	}
	if o, st, cal := Outcome([]byte("<html>")); o.Error == nil || cal != "" || st.Kind != "error" {
		t.Errorf("an answer that is not JSON: %+v, status %+v, download %q", o.Error, st, cal)
	}
}
