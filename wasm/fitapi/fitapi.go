// Package fitapi is the logic behind the browser refit (wasm/fit): a
// measurement CSV in, the fitted calibration and its diagnostics out, as
// JSON, through the same pipeline (fit.Calibrate) as `go run ./site fit`. It is the
// only browser code that imports gonum (through model/fit), which is why it
// lives in its own WebAssembly module, loaded only when a user asks for a
// refit.
package fitapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path"
	"strings"
	"time"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/fit"
	"github.com/wattscale/wattscale/wasm/calcapi/view"
)

// Input is the argument of Fit.
type Input struct {
	CSV  string `json:"csv"`  // the measurement CSV (project schema or the Zeus trace)
	Name string `json:"name"` // the file's name, cited in the calibration's provenance
	Kind string `json:"kind"` // "law" (default), "paper" or "roofline"
	// CodeCarbon, when given, says CSV is a CodeCarbon emissions.csv and
	// holds the requests describing its rows ({"request": {...}} or
	// {"projects": {...}}, as `site fit -codecarbon` reads them); Scope is
	// the energy read, "gpu" (default) or "total".
	CodeCarbon json.RawMessage `json:"codecarbon,omitempty"`
	Scope      string          `json:"scope,omitempty"`
	// StartedMs is when the user asked for the fit (Unix milliseconds, the
	// page's clock), from which Output.Said counts the time it took.
	StartedMs float64 `json:"started_ms,omitempty"`
}

// Output is Fit's result: the calibration (with its fit diagnostics in
// Calibration.Fit), the number of rows read, the checks it failed
// (model.FitChecks; none for a fit a user can rely on) and the report's
// markup for the page (view.FitReport) and its status line (view.FitDone,
// when Input.StartedMs is given), or Error.
type Output struct {
	Calibration *model.Calibration `json:"calibration,omitempty"`
	Rows        int                `json:"rows,omitempty"`
	Checks      []model.Message    `json:"checks,omitempty"`
	HTML        string             `json:"html,omitempty"`
	Said        string             `json:"said,omitempty"`
	Error       *Error             `json:"error,omitempty"`
}

// Error is a failed fit, one line as the command line prints it.
type Error struct {
	Text string `json:"text"`
}

// MaxCSVBytes bounds an upload, as the command line bounds stdin.
const MaxCSVBytes = fit.MaxCSVBytes

// Fit fits a calibration to a measurement CSV exactly as
// `go run ./site fit -data NAME -kind KIND` does: the same pipeline
// (fit.Calibrate) with the embedded published scaling figures and
// validation runs, the built-in hardware and presets, the same names
// ("user-law", "user-paper", "user-roofline", or for the Zeus trace
// "wattscale-zeus-law") and version "1.0.0".
func Fit(input []byte) (out []byte) {
	defer func() {
		if r := recover(); r != nil {
			out = mustJSON(Output{Error: &Error{Text: fmt.Sprintf("internal error: %v", r)}})
		}
	}()
	var in Input
	if err := model.CheckKeys(input, &in); err != nil {
		return mustJSON(Output{Error: &Error{Text: "request: " + err.Error()}})
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return mustJSON(Output{Error: &Error{Text: "request is not valid JSON: " + err.Error()}})
	}
	cal, n, err := fitCSV(in)
	if err != nil {
		return mustJSON(Output{Error: &Error{Text: err.Error()}})
	}
	checks := model.FitChecks(cal)
	o := Output{Calibration: &cal, Rows: n, Checks: checks, HTML: view.FitReport(cal, kindOf(in.Kind), checks)}
	if in.StartedMs > 0 {
		o.Said = view.FitDone(cal.Name, n, math.Max(0, float64(now().UnixMilli())-in.StartedMs)/1000, len(checks) > 0)
	}
	return mustJSON(o)
}

// now is the clock Output.Said counts with (a test sets it).
var now = time.Now

// kindOf is the fit asked for, as the command line's -kind names it.
func kindOf(k string) string {
	if k == "" {
		return fit.KindLaw
	}
	return k
}

func fitCSV(in Input) (model.Calibration, int, error) {
	if len(in.CSV) > MaxCSVBytes {
		return model.Calibration{}, 0, fmt.Errorf("the CSV is %d bytes, more than the %d allowed", len(in.CSV), MaxCSVBytes)
	}
	kind := in.Kind
	switch kind {
	case "":
		kind = fit.KindLaw
	case fit.KindLaw, fit.KindPaper, fit.KindRoofline:
	default:
		return model.Calibration{}, 0, fmt.Errorf("kind %q: want law, paper or roofline", in.Kind)
	}
	name := path.Base(strings.ReplaceAll(in.Name, "\\", "/"))
	if name == "" || name == "." || name == "/" {
		name = "measurements.csv"
	}
	csv := []byte(in.CSV)
	if len(in.CodeCarbon) > 0 {
		runs, err := model.ParseCodeCarbonRuns(in.CodeCarbon)
		if err != nil {
			return model.Calibration{}, 0, fmt.Errorf("codecarbon: %w", err)
		}
		scope := in.Scope
		if scope == "" {
			scope = model.CodeCarbonGPU
		}
		cat, err := content.Catalog()
		if err != nil {
			return model.Calibration{}, 0, err
		}
		ms, err := cat.CodeCarbonMeasurements(strings.NewReader(in.CSV), runs, scope, name)
		if err != nil {
			return model.Calibration{}, 0, fmt.Errorf("%s: %w", name, err)
		}
		var b bytes.Buffer
		if err := model.WriteMeasurements(&b, ms); err != nil {
			return model.Calibration{}, 0, err
		}
		csv = b.Bytes()
	} else if in.Scope != "" {
		return model.Calibration{}, 0, fmt.Errorf("scope %q: give codecarbon with it (the scope is a CodeCarbon log's)", in.Scope)
	}
	// The same pipeline as `site fit -kind KIND` (the roofline's table stage included).
	res, err := fit.Calibrate(fit.Job{CSV: csv, FileName: name, Kinds: []string{kind},
		Scaling: content.PublishedScaling, Runs: content.ValidationRuns, Hardware: model.NewHardware(model.DefaultGPUs()), Presets: model.DefaultPresets()})
	if err != nil {
		return model.Calibration{}, 0, err
	}
	return res.Calibrations[0], res.Rows, nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(Output{Error: &Error{Text: "internal error: " + err.Error()}})
	}
	return b
}
