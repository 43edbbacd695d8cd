package calcapi

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/wattscale/wattscale/internal/jsonv"
	"github.com/wattscale/wattscale/model"
)

// OwnInput is the argument of AddCalibration: calibrations the user fitted
// in this browser (the refit's output), kept by the page in local storage.
// (OwnCalibrations reads it without encoding/json.)
type OwnInput struct {
	Calibrations []json.RawMessage `json:"calibrations"`
	// Accept names the calibrations the user chose to use although they
	// failed their fit checks (model.FitChecks): the refit's explicit
	// override. A calibration that fails them and is not named here is
	// refused (CodeFailedChecks).
	Accept []string `json:"accept,omitempty"`
}

// OwnOutput lists the calibrations as the form shows them after the call,
// or an error naming the calibration that could not be used.
type OwnOutput struct {
	Calibrations []CalInfo `json:"calibrations,omitempty"`
	Error        *Error    `json:"error,omitempty"`
}

// AddCalibration is AddCalibrations for its JSON argument (OwnInput, read
// by OwnCalibrations); JSON out.
func (a *API) AddCalibration(input []byte) (out []byte) {
	defer recoverInto(&out)
	raws, accept, e := OwnCalibrations(input)
	if e != nil {
		return mustJSON(OwnOutput{Error: e})
	}
	return mustJSON(a.AddCalibrations(raws, accept))
}

// OwnCalibrations reads AddCalibration's argument (OwnInput) without
// encoding/json (package jsonv): each calibration's bytes as written, and
// the names accepted. A body that is not JSON, another key, a key given
// twice or a member of the wrong type is an error on the calibration
// input.
func OwnCalibrations(input []byte) (raws [][]byte, accept []string, e *Error) {
	bad := func(field, msg, say string) *Error {
		return &Error{Field: field, Input: "cal", Message: msg, Text: field + ": " + msg, Say: say}
	}
	v, err := jsonv.Parse(input)
	if err != nil {
		return nil, nil, bad("(body)", "is not valid JSON: "+err.Error(), "the calibration is not valid JSON")
	}
	if v.Kind != jsonv.Object {
		return nil, nil, bad("(body)", "is not a JSON object", "the calibration is not valid JSON")
	}
	seen := map[string]bool{}
	for i, k := range v.Keys {
		if seen[k] {
			return nil, nil, bad(k, "is given twice", k+": is given twice")
		}
		seen[k] = true
		m := v.Members[i]
		switch k {
		case "calibrations":
			if m.Kind == jsonv.Null {
				continue
			}
			if m.Kind != jsonv.Array {
				return nil, nil, bad(k, "is not an array", "the calibrations are not a list")
			}
			for _, e := range m.Elems {
				raws = append(raws, input[e.Start:e.End])
			}
		case "accept":
			if err := jsonv.StoreSlice(&m, "", &accept, jsonv.StoreString[string]); err != nil {
				return nil, nil, bad(k, "is not a list of names", "the accepted calibrations are not a list of names")
			}
		default:
			return nil, nil, bad(k, "is not a known field", k+": is not a known field")
		}
	}
	return raws, accept, nil
}

// AddCalibrations adds the user's own calibrations (each one's JSON) to
// the catalog, replacing earlier ones of the same name (a refit under the
// same name). A name the project ships cannot be taken: the user's
// calibration must not pass for a published one. A calibration that fails
// its fit checks is refused unless accept names it. The calibrations are
// checked as the command line's -calibrations DIR checks them
// (model.ParseCalibration, model.NewCatalog).
func (a *API) AddCalibrations(raws [][]byte, accept []string) OwnOutput {
	cals := append([]model.Calibration(nil), a.Catalog.Calibrations...)
	own := map[string]bool{}
	for k := range a.own {
		own[k] = true
	}
	for _, raw := range raws {
		c, err := model.ParseCalibration(raw)
		if err != nil {
			e := &Error{Field: "calibration", Input: "cal", Message: err.Error(), Text: err.Error(), Say: "your calibration could not be used: " + err.Error()}
			if m := model.AsMessage(err); m.Code != model.CodeNote { // a JSON error of jsonv's has no code
				e.Code, e.Args = m.Code, m.Args
			}
			return OwnOutput{Error: e}
		}
		if checks := model.FitChecks(c); len(checks) > 0 && !slices.Contains(accept, c.Name) {
			m := model.Message{Code: model.CodeFitFailedChecks, Field: "calibration", Args: model.Args{{Name: "name", Str: c.Name}, {Name: "checks", Msgs: checks}}}
			return OwnOutput{Error: &Error{Field: "calibration", Input: "cal", Value: strconv.Quote(c.Name), Message: m.String(), Text: "calibration: " + m.String(), Say: Say(m), Code: CodeFailedChecks, Args: m.Args}}
		}
		i := -1
		for j := range cals {
			if cals[j].Name == c.Name {
				i = j
			}
		}
		switch {
		case i >= 0 && !own[c.Name]:
			msg := "is the name of a calibration wattscale ships (" + c.Name + "); give yours another name"
			return OwnOutput{Error: &Error{Field: "calibration", Input: "cal", Value: strconv.Quote(c.Name), Message: msg, Text: "calibration: " + msg, Say: msg, Code: CodeShippedName}}
		case i >= 0:
			cals[i] = c
		default:
			cals = append(cals, c)
		}
		own[c.Name] = true
	}
	cat, err := model.NewCatalog(a.Catalog.Hardware, a.Catalog.Presets, cals, a.Catalog.Default)
	if err != nil {
		return OwnOutput{Error: &Error{Field: "calibration", Input: "cal", Message: err.Error(), Text: err.Error(), Say: "your calibration could not be used: " + err.Error()}}
	}
	cat.WorkBudget = a.Catalog.WorkBudget
	a.Catalog, a.own = cat, own
	return OwnOutput{Calibrations: a.calInfos()}
}

// calInfos lists the catalog's calibrations for the form, the user's own
// marked as such.
func (a *API) calInfos() []CalInfo {
	var out []CalInfo
	for _, c := range a.Catalog.Calibrations {
		info := CalInfo{c.Name, c.Version, c.Kind, c.Title, c.Citation, c.Interval.Level, c.Name == a.Catalog.Default, a.own[c.Name], nil}
		if info.Own {
			info.Checks = model.FitChecks(c)
		}
		out = append(out, info)
	}
	return out
}

// CodeShippedName is the code of AddCalibration's error for a calibration
// named as one wattscale ships (the page then renames the user's).
const CodeShippedName = "calibration.shipped_name"

// CodeFailedChecks is the code of AddCalibration's error for a calibration
// that fails its fit checks and was not accepted anyway (OwnInput.Accept):
// model.CodeFitFailedChecks, whose args (name, checks) the error carries.
const CodeFailedChecks = model.CodeFitFailedChecks
