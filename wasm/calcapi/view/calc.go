package view

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/internal/errctx"
	"github.com/wattscale/wattscale/wasm/calcapi"
)

// Calc is the calculator in the browser (calc.wasm): each form state the
// page hands it is answered with the page's markup. It keeps the last
// estimate that succeeded, which a form in error shows dimmed, and the
// preset a custom shape starts from.
type Calc struct {
	api    *calcapi.API
	meta   calcapi.Meta
	last   *calcapi.EstimateOutput
	preset *calcapi.PresetInfo     // the last estimate's preset
	shown  shown                   // the parts the page shows (RenderInput.Parts, CalcCall.Seen)
	def    *calcapi.EstimateOutput // the default form's estimate, computed once, behind a first form in error
	buf    []byte                  // the markup's buffer, reused from one answer to the next
	sweeps calcapi.SweepMemo       // the charts' last sweep, kept while only the count or strategy changes
}

// NewCalc is the calculator over api's catalog.
func NewCalc(api *calcapi.API) *Calc {
	return &Calc{api: api, meta: api.MetaOf()}
}

// Refresh reads the catalog's calibrations again (after the user added
// their own).
func (c *Calc) Refresh() { c.meta = c.api.MetaOf() }

// CalcFuncs are calc.wasm's functions by the name calc.js calls them,
// over plain values (jsexport.ValueFunc: arguments as strings, numbers,
// booleans, arrays and objects, the answer a JavaScript value), so that no
// JSON codec is linked into the calculator:
//
//	render(call)            the markup for what the visitor did (CalcCallOf, Call)
//	advise(query, width)    the recommender's panel (Advice)
//	addCalibration(json)    the user's own calibrations (calcapi.API.AddCalibration's answer)
//
// query is the form state as a query string (calcapi.ParseFormQuery).
// After addCalibration the form lists the user's calibrations.
func CalcFuncs(api *calcapi.API) map[string]func(args []any) any {
	c := NewCalc(api)
	return map[string]func([]any) any{
		"render": func(a []any) any { return c.Call(CalcCallOf(a)).Value() },
		"advise": func(a []any) any { return c.Advise(argStr(a, 0), argNum(a, 1)) },
		"addCalibration": func(a []any) any {
			out := AddCalibration(api, []byte(argStr(a, 0)))
			c.Refresh()
			return out
		},
	}
}

// AddCalibration is calc.wasm's addCalibration: the user's own
// calibrations, {"calibrations": [...]} (calcapi.OwnCalibrations, read
// without encoding/json), added to api's catalog
// (calcapi.API.AddCalibrations); the answer {} or {"error": {code,
// message, say}}, what the page reads of an error (its code, and its words
// for the page or else its message).
func AddCalibration(api *calcapi.API, input []byte) (v map[string]any) {
	fail := func(e *calcapi.Error) map[string]any {
		return map[string]any{"error": map[string]any{"code": e.Code, "message": e.Message, "say": e.Say}}
	}
	defer func() {
		if r := recover(); r != nil {
			msg := "internal error: " + errctx.Text(r)
			v = fail(&calcapi.Error{Message: msg, Say: msg})
		}
	}()
	raws, accept, e := calcapi.OwnCalibrations(input)
	if e != nil {
		return fail(e)
	}
	if out := api.AddCalibrations(raws, accept); out.Error != nil {
		return fail(out.Error)
	}
	return map[string]any{}
}

// argStr and argNum read argument i of a call (a string, a number), the
// zero value when it is missing or of another type.
func argStr(a []any, i int) string {
	if i < len(a) {
		s, _ := a[i].(string)
		return s
	}
	return ""
}

func argNum(a []any, i int) float64 {
	if i < len(a) {
		x, _ := a[i].(float64)
		return x
	}
	return 0
}

// Advise is the recommender's panel (Advice) for the form state query
// (calcapi.ParseFormQuery; the default form when it does not parse) in a
// box width CSS pixels wide: the markup the page puts into .cheaper-out.
func (c *Calc) Advise(query string, width float64) string {
	form, err := calcapi.ParseFormQuery(query)
	if err != nil || len(form) == 0 {
		form = calcapi.DefaultForm()
	}
	return Advice(c.api, &c.meta, form, width)
}

// RenderInput is what RenderOf draws (Call makes it from the page's
// call): the form as the user left it, the input they just changed (""
// at the start and on a link), the widths of the charts' boxes, and
// whether the calculator is the embedded one (no summary, recommender or
// snippets).
type RenderInput struct {
	Form calcapi.Form
	// Parts asks for the markup's parts only (the page has the whole
	// layout already): HTML is then empty, and only the parts whose markup
	// changed since the last answer come back.
	Parts   bool
	Changed string
	Widths  Widths
	Embed   bool
}

// RenderOutput is RenderOf's answer: the markup of the calculator's
// .calc-layout, the form state it shows (the view's rules may change
// values: a region fills in its intensity, a custom shape starts from the
// last preset), the address's query for it, "ok" or "error", and, for an
// estimate, the figures an embedding page is told.
type RenderOutput struct {
	HTML  string
	Parts []Part
	Form  calcapi.Form
	Query string
	State string
	Post  *Post
	// Address: the page's address should now show Query (Call).
	Address bool
}

// Value is the answer as calc.js reads it: an object of html (when not
// empty), parts (when any: [{key, html}]), form (the whole form state as
// one string, calcapi.Form.Query, which the page hands back on its next
// call without reading it), show (the same state as an object of each
// control's value, which the page reads), query, state, address (when
// true) and post (when an estimate), as js.ValueOf converts it.
//
// The form goes back as one string because Go reads each string the page
// passes through a TextEncoder: the 48 keys and values of an object cost
// about 4 ms an input in Chromium (issue 33's recompute), one string a
// few microseconds.
func (o RenderOutput) Value() map[string]any {
	show := make(map[string]any, len(o.Form))
	for k, v := range o.Form {
		show[k] = v
	}
	v := map[string]any{"form": o.Form.Query(), "show": show, "query": o.Query, "state": o.State}
	if o.Address {
		v["address"] = true
	}
	if o.HTML != "" {
		v["html"] = o.HTML
	}
	if len(o.Parts) > 0 {
		parts := make([]any, len(o.Parts))
		for i, p := range o.Parts {
			parts[i] = map[string]any{"key": p.Key, "html": p.HTML}
		}
		v["parts"] = parts
	}
	if p := o.Post; p != nil {
		v["post"] = map[string]any{"energy_kwh": p.EnergyKWh, "energy_interval_kwh": []any{p.EnergyIntervalKWh[0], p.EnergyIntervalKWh[1]}, "co2e_kg": p.CO2eKg,
			"time_s": p.TimeS, "model": p.Model, "gpu": p.GPU, "count": p.Count, "strategy": p.Strategy, "calibration": p.Calibration}
	}
	return v
}

// Post is what an embedded calculator tells the page around it
// (assets/embed.js, which reads these names): the figures the page shows
// anyway.
type Post struct {
	EnergyKWh         float64    // energy_kwh
	EnergyIntervalKWh [2]float64 // energy_interval_kwh
	CO2eKg            float64    // co2e_kg
	TimeS             float64    // time_s
	Model             string     // model
	GPU               string     // gpu
	Count             int        // count
	Strategy          string     // strategy: the layout's (single, ddp, fsdp, tp, hybrid)
	Calibration       string     // calibration: name and version
}

// CalcCall is what calc.js hands render: what the visitor did to the
// form Go last answered with. At the start, Form is nil: the form is then
// the page's link (Link, the address's query) with what the visitor typed
// before the WebAssembly started (Typed, in the order of the page's
// controls) over it, as Call says. Changed is the input the visitor
// changed and Value its new value (nil when Values or the form hold it).
// Action "hf" (the Hugging Face files' form values) or "load" (a
// recommender point's, its data-load) puts Values over the form. Widths
// are the charts' boxes' widths, those the markup marks data-width in its
// order (energy, time); Embed and Parts are RenderInput's. Seen, at the
// start of a prerendered page the visitor has not changed, is the
// prerender's part hashes (Calculator): the parts the page already shows
// are not sent again.
type CalcCall struct {
	Form    calcapi.Form
	Link    string
	Typed   [][2]string
	Changed string
	Value   *string
	Action  string
	Values  map[string]string
	Widths  []float64
	Embed   bool
	Parts   bool
	Seen    string
}

// CalcCallOf is the CalcCall in calc.js's argument a[0], an object of
// form, link, typed ([[key, value], ...]), changed, value, action,
// values, widths, embed, parts and seen (jsexport.ValueFunc's plain values); a
// field that is missing or of another type is the zero value, and a typed
// pair that is not two strings is left out. The form is the string the
// last answer gave (Value; its keys over the default form's), or an
// object of strings; a string that is not a form query is no form (the
// page only hands back what Go wrote).
func CalcCallOf(a []any) CalcCall {
	m, _ := argAt(a, 0).(map[string]any)
	var in CalcCall
	str := func(k string) string { s, _ := m[k].(string); return s }
	strs := func(v any) map[string]string {
		o, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		f := make(map[string]string, len(o))
		for k, x := range o {
			if s, ok := x.(string); ok {
				f[k] = s
			}
		}
		return f
	}
	switch f := m["form"].(type) {
	case string: // Value's form, handed back
		if q, err := calcapi.ParseFormQuery(f); err == nil && len(q) > 0 {
			in.Form = calcapi.DefaultForm()
			for k, v := range q {
				in.Form[k] = v
			}
		}
	default:
		if f := strs(f); f != nil {
			in.Form = f
		}
	}
	in.Link, in.Changed, in.Action, in.Values, in.Seen = str("link"), str("changed"), str("action"), strs(m["values"]), str("seen")
	if v, ok := m["value"].(string); ok {
		in.Value = &v
	}
	typed, _ := m["typed"].([]any)
	for _, p := range typed {
		if kv, ok := p.([]any); ok && len(kv) == 2 {
			k, ok1 := kv[0].(string)
			v, ok2 := kv[1].(string)
			if ok1 && ok2 {
				in.Typed = append(in.Typed, [2]string{k, v})
			}
		}
	}
	widths, _ := m["widths"].([]any)
	for _, w := range widths {
		x, _ := w.(float64)
		in.Widths = append(in.Widths, x)
	}
	in.Embed, _ = m["embed"].(bool)
	in.Parts, _ = m["parts"].(bool)
	return in
}

// argAt is argument i of a call, nil when it is missing.
func argAt(a []any, i int) any {
	if i < len(a) {
		return a[i]
	}
	return nil
}

// Call is RenderOf for what the visitor did (in). At the start the form
// is the default form with each of the link's form keys over it (others
// are ignored), what was typed over that, and a grid region the link
// names without an intensity giving its figure; the first input typed is
// then the one changed. The answer's Address says whether the page's
// address should now show its Query: after a change, an action or typing,
// not when a link is only opened.
func (c *Calc) Call(in CalcCall) RenderOutput {
	form, changed := calcapi.Form{}, in.Changed
	if in.Form == nil {
		link, _ := calcapi.ParseFormQuery(strings.TrimPrefix(in.Link, "?"))
		for _, kv := range in.Typed {
			link[kv[0]] = kv[1]
		}
		if len(in.Typed) > 0 {
			changed = in.Typed[0][0]
		}
		form = calcapi.DefaultForm()
		for k, v := range link {
			if _, ok := form[k]; ok {
				form[k] = v
			}
		}
		_, region := link["region"]
		if _, carbon := link["carbon"]; region && !carbon {
			form["carbon"] = ""
			form.Follow("region", c.meta.Regions)
		}
	} else {
		for k, v := range in.Form {
			form[k] = v
		}
	}
	for k, v := range in.Values {
		form[k] = v
	}
	if in.Value != nil && changed != "" {
		form[changed] = *in.Value
	}
	var w Widths
	if len(in.Widths) > 0 {
		w.E = in.Widths[0]
	}
	if len(in.Widths) > 1 {
		w.T = in.Widths[1]
	}
	c.shown.prerendered(in.Seen)
	out := c.RenderOf(RenderInput{Form: form, Changed: changed, Widths: w, Embed: in.Embed, Parts: in.Parts})
	out.Address = changed != "" || in.Action != ""
	return out
}

// RenderOf draws in: the estimate of its form and the markup (Call makes
// in from the page's call).
func (c *Calc) RenderOf(in RenderInput) RenderOutput {
	form := calcapi.Form{}
	for k, v := range in.Form {
		form[k] = v
	}
	form.Follow(in.Changed, c.meta.Regions)
	if in.Changed == "model" && form["model"] == "custom" && c.preset != nil {
		// A custom shape starts from the preset the user had.
		a := c.preset.Arch
		form["layers"], form["hidden"], form["heads"] = strconv.Itoa(a.Layers), strconv.Itoa(a.Hidden), strconv.Itoa(a.Heads)
		form["kv_heads"], form["ffn"], form["vocab"] = "", strconv.Itoa(a.FFN), strconv.Itoa(a.Vocab)
		if a.KVHeads > 0 {
			form["kv_heads"] = strconv.Itoa(a.KVHeads)
		}
		form["glu"] = ""
		if a.GLU {
			form["glu"] = "1"
		}
	}
	v := calcView{meta: &c.meta, state: form, embed: in.Embed, widths: in.Widths}
	out := RenderOutput{Form: form, State: "ok"}
	if strings.TrimSpace(form["model"]) == "" && in.Changed == "model" && c.last != nil {
		// Cleared to browse the presets: not a mistake yet. The estimate
		// stays.
		v.out, v.modelHint = c.last, "Pick a model from the list, or type custom to give its shape."
	} else {
		n, _ := strconv.Atoi(strings.TrimSpace(form["count"]))
		if n <= 0 || n >= 1e6 {
			n = 4
		}
		o := c.api.EstimateForm(form, &calcapi.SweepSpec{Counts: sweepCounts(n), Strategies: sweepStrategies, Memo: &c.sweeps})
		if o.Error == nil {
			c.last, v.out = &o, &o
			c.preset = nil
			for i := range c.meta.Presets {
				if c.meta.Presets[i].Name == o.Response.Inputs.Model {
					c.preset = &c.meta.Presets[i]
				}
			}
			r := o.Response
			out.Post = &Post{r.EnergyKWh, r.EnergyIntervalKWh, r.CO2eKg, r.TimeS, r.Inputs.Model, r.Inputs.GPU, r.Inputs.Count, string(r.Parallel.Strategy), r.Calibration.Name + " " + r.Calibration.Version}
		} else {
			out.State = "error"
			v.errs = o.Errors
			if len(v.errs) == 0 {
				v.errs = []*calcapi.Error{o.Error}
			}
			v.out, v.stale = c.last, true
			if c.last == nil {
				// Nothing to dim: the default's figures, hidden.
				if c.def == nil {
					d := c.api.EstimateForm(calcapi.DefaultForm(), &calcapi.SweepSpec{Counts: sweepCounts(4), Strategies: sweepStrategies})
					c.def = &d
				}
				v.out, v.empty = c.def, true
			}
		}
	}
	// The markup is written into the last answer's buffer (every string
	// taken from it is a copy), and only the parts when they are all the
	// page asked for.
	v.b, v.partsOnly = *bytes.NewBuffer(c.buf[:0]), in.Parts
	html, err := v.markup()
	c.buf = v.b.Bytes()[:0]
	if err != nil {
		html = `<div class="calc-layout"><p class="err">` + esc(err.Error()) + `</p></div>`
	}
	out.Query = v.query()
	out.Parts, out.HTML = c.shown.answer(v.parts, html, in.Parts && err == nil)
	return out
}
