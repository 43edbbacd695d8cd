// Package calcapi is the logic behind the browser calculator and planner
// (wasm/calc, wasm/planner), one call per interaction, tested natively.
//
// The JSON methods (Distill, DistillRecommend, the API's) never panic: a
// bad request comes back as {"error": {...}} with the field path and the
// form input to mark, so the page can show the message beside the field;
// the planner's page (package view's Plan) calls their typed forms
// (DistillOf, DistillRecommendOf, PlannerMetaOf). The calculator's page
// (package view) calls
// the value forms (EstimateForm, RecommendOf, OwnCalibrations and
// AddCalibrations, Form.Query and ParseFormQuery), which link no JSON
// codec into calc.wasm.
package calcapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/wattscale/wattscale/model"
)

// API holds what every call needs: the catalog (hardware, presets,
// calibrations) and the grid presets.
type API struct {
	Catalog *model.Catalog
	Regions []Region
	own     map[string]bool // the user's own calibrations (AddCalibration)
}

// New returns an API over a copy of cat with the built-in grid presets,
// without a work budget (model.Catalog.WorkBudget): in the browser a
// search runs on the user's own CPU, and the planner's recommendation
// searches every stage of its plan over the whole table. cat itself is
// left as it is.
func New(cat *model.Catalog) *API {
	c := *cat
	c.WorkBudget = -1
	return &API{Catalog: &c, Regions: DefaultRegions()}
}

// EstimateInput is the argument of Estimate: the form as typed, or a
// request JSON (as the command line reads it), and optionally a sweep over
// GPU counts and strategies for the charts.
type EstimateInput struct {
	Form    Form            `json:"form,omitempty"`
	Request json.RawMessage `json:"request,omitempty"`
	Sweep   *SweepSpec      `json:"sweep,omitempty"`
}

// SweepSpec asks for the same configuration at other GPU counts and
// strategies (model.Catalog.Sweep); the batch per GPU stays the request's.
type SweepSpec struct {
	Counts     []int    `json:"counts"`
	Strategies []string `json:"strategies"`
	// Memo, when set, keeps the sweep it answers and answers the next one
	// from it when that is over the same request but for the GPU count and
	// the strategy, which each point sets itself (the calculator's charts
	// while the visitor tries counts and strategies).
	Memo *SweepMemo `json:"-"`
}

// SweepMemo is a SweepSpec's memory of its last sweep; the zero value
// holds none.
type SweepMemo struct {
	key []byte
	cat *model.Catalog
	pts []model.SweepPoint
	err *Error
}

// EstimateOutput is Estimate's result. On success Request is the request
// the form became (feed it to `go run ./site estimate` for the same
// answer), Response the estimate, Sweep the chart points and Snippets the
// text to paste into a model card or a paper. On failure only Error is set
// (and Request when the form itself was well formed).
type EstimateOutput struct {
	Request    json.RawMessage    `json:"request,omitempty"`
	Response   *model.Response    `json:"response,omitempty"`
	Sweep      []model.SweepPoint `json:"sweep,omitempty"`
	SweepError *Error             `json:"sweep_error,omitempty"`
	Snippets   *Snippets          `json:"snippets,omitempty"`
	Error      *Error             `json:"error,omitempty"`
	// Errors lists every input of the form that is wrong, Error first (a
	// shared link can carry several); empty for a request JSON.
	Errors []*Error `json:"errors,omitempty"`
	// Envelope explains, in plain words, why the estimate lies outside its
	// calibration's fitted range and what to change (EnvelopeNote).
	Envelope []string `json:"envelope,omitempty"`
	// Interval says in words what set the interval (IntervalNote).
	Interval string `json:"interval_note,omitempty"`
	// Warnings are the response's warnings in the form's words (inputs
	// by label, GPUs by name), less those Envelope explains.
	Warnings []string `json:"warnings_say,omitempty"`
	// Assumptions are the response's assumptions in the same words.
	Assumptions []string `json:"assumptions_say,omitempty"`
	// Full is full fine-tuning of the same configuration (same layout,
	// checkpointing as chosen), when the form asks to compare a lora or
	// qlora estimate with it; FullError says why it cannot be estimated
	// (typically: its optimizer state does not fit).
	Full      *model.Response `json:"full,omitempty"`
	FullError *Error          `json:"full_error,omitempty"`
}

// Estimate runs one calculator interaction. A form becomes a model.Request
// (Form.Request) that goes straight to model.Catalog.Estimate; a request
// JSON goes through model.ParseRequest first, the command line's path.
func (a *API) Estimate(input []byte) (out []byte) {
	defer recoverInto(&out)
	var in EstimateInput
	if e := decodeInput(input, &in); e != nil {
		return mustJSON(EstimateOutput{Error: e})
	}
	o := a.EstimateOf(in)
	return mustJSON(o)
}

// EstimateOf is Estimate for a decoded input: the output as a value (the
// calculator's view renders it without a JSON round trip).
func (a *API) EstimateOf(in EstimateInput) EstimateOutput {
	if in.Form != nil {
		return a.EstimateForm(in.Form, in.Sweep)
	}
	var o EstimateOutput
	o.Request = in.Request
	req, err := model.ParseRequest(bytes.NewReader(in.Request))
	if err != nil {
		o.Error = a.errorOf(err, nil)
		return o
	}
	return a.estimated(o, req, nil, in.Sweep)
}

// EstimateForm is EstimateOf for a form (and the charts' sweep, nil =
// none), the calculator's path: the form becomes a request value
// (Form.Request) that goes to the model as it is; its JSON
// (model.Request.AppendJSON) is only for the page to show and for the
// command line. Nothing on this path decodes or encodes with
// encoding/json.
func (a *API) EstimateForm(form Form, sweep *SweepSpec) (o EstimateOutput) {
	req, ferr := form.Request(a.Regions)
	if ferr != nil {
		o.Error = ferr
		o.Errors = a.allErrors(form, ferr)
		return o
	}
	if b, ok := req.AppendJSON(nil); ok {
		o.Request = b
	}
	return a.estimated(o, req, form, sweep)
}

// estimated is the estimate of req (and its sweep, its notes, full
// fine-tuning to compare with) into o; form is the form req came from
// (nil for a request JSON).
func (a *API) estimated(o EstimateOutput, req model.Request, form Form, sweep *SweepSpec) EstimateOutput {
	resp, err := a.Catalog.Estimate(req)
	if err != nil {
		o.Error = a.errorOf(err, form)
		if form != nil {
			o.Errors = a.allErrors(form, o.Error)
		}
		return o
	}
	o.Response = &resp
	o.Envelope = EnvelopeNote(o.Response)
	o.Interval = IntervalNote(o.Response)
	o.Warnings = WarningsSay(o.Response, o.Envelope)
	for _, as := range o.Response.AssumptionMessages {
		o.Assumptions = append(o.Assumptions, Say(as))
	}
	if form != nil && form.peft() && on(form["compare"]) {
		full := req
		full.Training.Method, full.Training.LoRA = model.MethodFull, nil
		if resp, err := a.Catalog.Estimate(full); err != nil {
			o.FullError = a.errorOf(err, nil)
		} else {
			o.Full = &resp
		}
	}
	if sweep != nil {
		o.Sweep, o.SweepError = a.sweep(req, sweep)
	}
	o.Snippets = NewSnippets(o.Response)
	return o
}

// sweep is spec's sweep around req (which estimated), from spec.Memo
// when its last sweep was over req but for the GPU count and the strategy
// (TestSweepMemo holds a sweep's points independent of the two) with the
// same catalog, counts and strategies. The points answered are shared:
// read them, do not change them.
func (a *API) sweep(req model.Request, spec *SweepSpec) ([]model.SweepPoint, *Error) {
	m, key, keyed := spec.Memo, []byte(nil), false
	if m != nil {
		k := req
		k.Hardware.Count, k.Strategy = 0, model.Strategy{}
		if key, keyed = k.AppendJSON(nil); keyed {
			for _, n := range spec.Counts {
				key = strconv.AppendInt(append(key, ' '), int64(n), 10)
			}
			for _, s := range spec.Strategies {
				key = append(append(key, ' '), s...)
			}
			if m.cat == a.Catalog && bytes.Equal(key, m.key) {
				return m.pts, m.err
			}
		}
	}
	pts, err := a.Catalog.Sweep(model.SweepRequest{Base: req, Counts: spec.Counts, Strategies: spec.Strategies})
	var e *Error
	if err != nil {
		e = a.errorOf(err, nil)
	}
	if keyed {
		m.key, m.cat, m.pts, m.err = key, a.Catalog, pts, e
	}
	return pts, e
}

// formError is the first problem of a form, or nil when it estimates (on
// EstimateForm's path: the request value straight to the model).
func (a *API) formError(f Form) *Error {
	req, ferr := f.Request(a.Regions)
	if ferr != nil {
		return ferr
	}
	if _, err := a.Catalog.Estimate(req); err != nil {
		return a.errorOf(err, f)
	}
	return nil
}

// aboutSubstituted reports whether e speaks of a field whose value allErrors
// replaced by its default (the field of an error in errs): an error the
// replacement caused, not the user's input ("needs GPUs 1 (got 4)" beside
// a GPU count of 1 refused for memory).
func aboutSubstituted(e *Error, errs []*Error) bool {
	for _, x := range errs {
		if x.Field == "" {
			continue
		}
		for _, a := range e.Args {
			if a.Str == x.Field || slices.Contains(a.List, x.Field) {
				return true
			}
		}
	}
	return false
}

// allErrors finds every wrong input of a form: it puts the default value
// into each input found wrong and checks again, so the model's own checks
// decide (at most one pass per input).
func (a *API) allErrors(f Form, first *Error) []*Error {
	errs := []*Error{first}
	g := Form{}
	for k, v := range f {
		g[k] = v
	}
	def := DefaultForm()
	seen := map[string]bool{}
	for range FormKeys {
		last := errs[len(errs)-1]
		if last.Input == "" || seen[last.Input] {
			break
		}
		seen[last.Input] = true
		g[last.Input] = def[last.Input]
		e := a.formError(g)
		if e == nil || seen[e.Input] || aboutSubstituted(e, errs) {
			break
		}
		errs = append(errs, e)
	}
	return errs
}

// errorOf places err: a *model.FieldError keeps its field path and gets the
// form input that shows it.
func (a *API) errorOf(err error, f Form) *Error {
	fe := model.AsFieldError(err)
	if fe == nil {
		return &Error{Message: err.Error(), Text: err.Error(), Say: err.Error()}
	}
	e := &Error{Field: fe.Field, Value: fe.Value, Message: fe.Message, Text: fe.Error(), Code: fe.Code, Args: fe.Args}
	if f != nil {
		e.Input = f.InputFor(fe.Field)
	}
	e.Say = sayError(fe, e.Input, f)
	if model.HasBrief(fe.Code) {
		e.Brief = fe.Say(briefNamer)
	}
	return e
}

// Meta is what the page needs to build its form: presets, GPUs with the
// precisions each supports, calibrations, strategies, precisions, grid
// presets, the default form, the field table (labels, kinds, ranges, when
// each input applies: what the page renders, checks and keeps in the URL)
// and the model's site defaults.
type Meta struct {
	APIVersion   string       `json:"api_version"`
	Presets      []PresetInfo `json:"presets"`
	GPUs         []GPUInfo    `json:"gpus"`
	Calibrations []CalInfo    `json:"calibrations"`
	Strategies   []string     `json:"strategies"`
	Precisions   []string     `json:"precisions"`
	Regions      []Region     `json:"regions"`
	DefaultForm  Form         `json:"default_form"`
	FormKeys     []string     `json:"form_keys"`
	Fields       []FieldInfo  `json:"fields"`
	Layout       []Section    `json:"layout"` // the form's fieldsets (layout.go)
	SiteDefaults SiteDefaults `json:"site_defaults"`
}

// FieldInfo is one form input as the page receives it: a row of
// model.RequestFields with a form key.
type FieldInfo = model.Field

// PresetInfo is one model preset as the form lists it.
type PresetInfo struct {
	Name            string     `json:"name"`
	Family          string     `json:"family"`
	Arch            model.Arch `json:"arch"`
	ParamsPublished float64    `json:"params_published"`
	Source          string     `json:"source"`
	// Hub is the model's Hugging Face hub id, which the model field also
	// accepts (the preset's shape is its config.json's).
	Hub string `json:"hub,omitempty"`
}

// GPUInfo is one accelerator as the form lists it.
type GPUInfo struct {
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	Vendor       string   `json:"vendor"`
	MemoryGB     float64  `json:"memory_gb"`
	BoardPowerW  float64  `json:"board_power_w"`
	Interconnect string   `json:"interconnect"`
	Precisions   []string `json:"precisions"`
	Source       string   `json:"source"`
}

// CalInfo is one calibration as the form lists it.
type CalInfo struct {
	Name     string  `json:"name"`
	Version  string  `json:"version"`
	Kind     string  `json:"kind"`
	Title    string  `json:"title"`
	Citation string  `json:"citation"`
	Level    float64 `json:"level"`
	Default  bool    `json:"default"`
	Own      bool    `json:"own,omitempty"` // fitted by the user in this browser (AddCalibration)
	// Checks are the fit checks a calibration of the user's failed
	// (model.FitChecks), used anyway at their request (OwnInput.Accept).
	Checks []model.Message `json:"checks,omitempty"`
}

// SiteDefaults are the figures the model uses when the site fields are empty.
type SiteDefaults struct {
	PUE           float64 `json:"pue"`
	CarbonGPerKWh float64 `json:"carbon_g_per_kwh"`
	USDPerKWh     float64 `json:"usd_per_kwh"`
}

// Meta returns the form's catalogue as JSON.
func (a *API) Meta() (out []byte) {
	defer recoverInto(&out)
	return mustJSON(a.MetaOf())
}

// MetaOf is the form's catalogue as a value.
func (a *API) MetaOf() Meta {
	m := Meta{APIVersion: model.APIVersion, Strategies: model.Strategies, Regions: a.Regions, DefaultForm: DefaultForm(), FormKeys: FormKeys,
		SiteDefaults: SiteDefaults{model.DefaultPUE, model.DefaultCarbonGPerKWh, model.DefaultUSDPerKWh}, Layout: Layout()}
	for _, k := range FormKeys {
		m.Fields = append(m.Fields, *formFields[k])
	}
	for _, p := range a.Catalog.Presets {
		m.Presets = append(m.Presets, PresetInfo{p.Name, p.Family, p.Arch, p.ParamsPublished, p.Source, p.Hub})
	}
	for _, g := range a.Catalog.Hardware.GPUs {
		gi := GPUInfo{ID: g.ID, Name: g.Name, Vendor: g.Vendor, MemoryGB: g.MemoryGB, BoardPowerW: g.BoardPowerW, Interconnect: string(g.Interconnect), Source: g.Source}
		for _, p := range g.Supported() {
			gi.Precisions = append(gi.Precisions, string(p))
		}
		m.GPUs = append(m.GPUs, gi)
	}
	m.Calibrations = a.calInfos()
	for _, p := range model.Precisions {
		m.Precisions = append(m.Precisions, string(p))
	}
	return m
}

// mustJSON marshals v; the types here always marshal (no NaN reaches them:
// model responses are checked finite), so a failure is a programming error.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("calcapi: %v", err))
	}
	return b
}

// recoverInto turns a panic into an error document, so one bad call never
// stops the Go program that serves the page.
func recoverInto(out *[]byte) {
	if r := recover(); r != nil {
		msg := fmt.Sprintf("internal error: %v", r)
		b, _ := json.Marshal(map[string]any{"error": Error{Message: msg, Text: msg}})
		*out = b
	}
}

// CalcFuncs are the calculator's functions (wasm/calc) by the name the page
// calls them: each takes its JSON argument (nil when missing) and returns
// JSON. Only what is listed here is linked into calc.wasm.
func (a *API) CalcFuncs() map[string]func([]byte) []byte {
	return map[string]func([]byte) []byte{
		"meta":           func([]byte) []byte { return a.Meta() },
		"addCalibration": a.AddCalibration,
	}
}

// IntervalNote says what set r's interval: its ends as multiples of the
// estimate and the class whose held-out runs they come from (or the σ).
func IntervalNote(r *model.Response) string {
	iv := r.Calibration.Interval
	ends := "The " + pctWords(r.IntervalLevel) + " interval runs from ×" + fixed2(iv.LowFactor) + " to ×" + fixed2(iv.HighFactor) + " of the estimate"
	if iv.From == model.IntervalFromSigma {
		return ends + ": log-normal with σ = " + strconv.FormatFloat(r.Calibration.SigmaLn, 'g', 2, 64) + " in ln energy."
	}
	from := iv.From
	if from == model.ClassInputBound || from == model.ClassOutside+"+"+model.ClassCore {
		from = iv.Class
	}
	text := model.IntervalClassText[from]
	if text == "" {
		text = from
	}
	if iv.From == model.ClassPooled {
		return ends + ": the spread of all " + strconv.Itoa(iv.Runs) + " validation runs, each predicted by a calibration fitted without its source (its class, " + model.IntervalClassText[iv.Class] + ", has too few runs of its own)."
	}
	return ends + ": the spread of " + strconv.Itoa(iv.Runs) + " validation runs of its class (" + text + "), each predicted by a calibration fitted without its source."
}

func pctWords(level float64) string { return strconv.FormatFloat(level*100, 'f', -1, 64) + " %" }

func fixed2(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
