package fitapi

import (
	"encoding/json"
	"strings"

	"github.com/wattscale/wattscale/wasm/calcapi/view"
)

// Ask is the refit box's fields as the page holds them when the user asks
// for a fit: the CSV (pasted, or the chosen file's text), the file's name
// ("" when pasted), the kind, the CodeCarbon requests ("" for a
// measurement CSV) and their scope, and when the user asked (Unix
// milliseconds).
type Ask struct {
	CSV, Name, Kind, CodeCarbon, Scope string
	StartedMs                          float64
}

// Prepare checks the box's fields and makes Fit's argument (JSON) and the
// step the box shows while it fits (view.RefitFitting, counting the CSV's
// lines after its header); or, when there is nothing to fit or the
// CodeCarbon requests are not JSON, the status that says so.
func Prepare(a Ask) (arg []byte, step string, bad *view.Status) {
	csv := strings.TrimSpace(a.CSV)
	if csv == "" {
		st := view.RefitNoCSV()
		return nil, "", &st
	}
	in := Input{CSV: a.CSV, Name: a.Name, Kind: a.Kind, StartedMs: a.StartedMs}
	if in.Name == "" {
		in.Name = "pasted.csv"
	}
	if cc := strings.TrimSpace(a.CodeCarbon); cc != "" {
		var v any
		if err := json.Unmarshal([]byte(cc), &v); err != nil {
			st := view.RefitNotJSON(err.Error())
			return nil, "", &st
		}
		in.CodeCarbon, in.Scope = json.RawMessage(cc), a.Scope
	}
	return mustJSON(in), view.RefitFitting(strings.Count(csv, "\n"), a.Kind), nil
}

// Outcome reads Fit's answer as the box shows it: the answer, its status
// line (view.RefitFailed or view.RefitDone), and the calibration as the
// command line prints it (`site fit`: JSON indented by two spaces), for
// the download; a fit that failed has no calibration.
func Outcome(answer []byte) (o Output, st view.Status, calJSON string) {
	if err := json.Unmarshal(answer, &o); err != nil {
		o.Error = &Error{Text: "internal error: " + err.Error()}
	}
	if o.Error != nil || o.Calibration == nil {
		if o.Error == nil {
			o.Error = &Error{Text: "internal error: no calibration"}
		}
		return o, view.RefitFailed(o.Error.Text), ""
	}
	b, err := json.MarshalIndent(o.Calibration, "", "  ")
	if err != nil {
		return o, view.RefitFailed("internal error: " + err.Error()), ""
	}
	return o, view.RefitDone(o.Said, len(o.Checks) > 0), string(b) + "\n"
}
