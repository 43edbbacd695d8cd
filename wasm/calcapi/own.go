package calcapi

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

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
			if err := jsonv.Store(m, &accept); err != nil {
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

// SampleLaw is the calibration the sample CSV is drawn from: the paper's
// published law, pooled over its BERT runs.
const SampleLaw = "zoubeirou2026-bert-pooled"

// SampleCSV returns a small measurement CSV for trying the refit: synthetic
// runs, not measurements. Each row is the estimate of calibration SampleLaw
// (Zoubeirou a Mayaki 2026, arXiv 2606.23546) for BERT-base and BERT-large
// over GPU counts, strategies, sequence lengths and batches inside that
// calibration's envelope, times log-normal noise of 10 % (seeded, so the
// file is the same every time); the source column says so on every row.
func (a *API) SampleCSV() (out []byte) { return a.SampleCSVSeed(SampleSeed) }

// SampleSeed is the seed of SampleCSV's noise.
const SampleSeed = 14

// SampleCSVSeed is SampleCSV with another seed for its noise, for tests of
// how often the refit's standard errors cover the law the rows come from.
func (a *API) SampleCSVSeed(seed uint64) (out []byte) {
	defer recoverInto(&out)
	return a.SampleCSVOf(seed)
}

// g and g6 write a number as fmt's %g and %.6g do.
func g(x float64) string  { return strconv.FormatFloat(x, 'g', -1, 64) }
func g6(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// SampleCSVOf is SampleCSVSeed without its recovery into a JSON error
// (the caller recovers: calc.wasm links no JSON encoder).
func (a *API) SampleCSVOf(seed uint64) []byte {
	var b bytes.Buffer
	b.WriteString("model,gpu,count,strategy,seq_len,batch_per_gpu,tokens,precision,energy_kwh,duration_s,eta,source\n")
	rng := rand.New(rand.NewPCG(seed, 2026))
	const src = "synthetic sample: the published law " + SampleLaw + " (arXiv 2606.23546) with 10 % noise; not a measurement"
	for _, m := range []string{"bert-base", "bert-large"} {
		for _, n := range []float64{1, 2, 4} {
			for _, st := range []string{model.DDP, model.FSDP, model.TP} {
				if n == 1 && st != model.DDP {
					continue
				}
				for _, seq := range []float64{64, 128, 256} {
					for _, bat := range []float64{8, 16, 32} {
						req := model.Request{Calibration: SampleLaw}
						req.Model.Preset = m
						req.Training = model.TrainingSpec{Tokens: 5e7, SeqLen: seq, BatchPerGPU: bat, Precision: model.FP16}
						req.Hardware = model.HardwareSpec{GPU: "v100-sxm2-32gb", Count: n}
						name := st
						if n == 1 {
							name = model.Single
						}
						req.Strategy = model.Strategy{Name: name}
						r, err := a.Catalog.Estimate(req)
						if err != nil {
							panic("calcapi: sample row " + m + " " + g(n) + "×" + name + ": " + err.Error())
						}
						noise := math.Exp(0.1 * rng.NormFloat64())
						for _, cell := range []string{m, req.Hardware.GPU, g(n), name, g(seq), g(bat), g(req.Training.Tokens), string(req.Training.Precision),
							g6(r.EnergyKWh * noise), g6(r.TimeS * math.Sqrt(noise)), g6(r.Parallel.Efficiency)} {
							b.WriteString(cell)
							b.WriteByte(',')
						}
						b.WriteString(strings.ReplaceAll(src, ",", ";"))
						b.WriteByte('\n')
					}
				}
			}
		}
	}
	return b.Bytes()
}

// CodeShippedName is the code of AddCalibration's error for a calibration
// named as one wattscale ships (the page then renames the user's).
const CodeShippedName = "calibration.shipped_name"

// CodeFailedChecks is the code of AddCalibration's error for a calibration
// that fails its fit checks and was not accepted anyway (OwnInput.Accept):
// model.CodeFitFailedChecks, whose args (name, checks) the error carries.
const CodeFailedChecks = model.CodeFitFailedChecks
