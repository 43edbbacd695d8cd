package view

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

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
	sent   map[string]string       // the parts' markup as last sent (RenderInput.Parts)
	def    *calcapi.EstimateOutput // the default form's estimate, computed once, behind a first form in error
}

// NewCalc is the calculator over api's catalog.
func NewCalc(api *calcapi.API) *Calc {
	return &Calc{api: api, meta: api.MetaOf()}
}

// Refresh reads the catalog's calibrations again (after the user added
// their own).
func (c *Calc) Refresh() { c.meta = c.api.MetaOf() }

// CalcFuncs are calc.wasm's functions: calcapi's (CalcFuncs), render (the
// calculator's markup for a form state, Render), and addCalibration,
// after which the form lists the user's calibrations.
func CalcFuncs(api *calcapi.API) map[string]func([]byte) []byte {
	c, fns := NewCalc(api), api.CalcFuncs()
	fns["render"] = c.Render
	add := fns["addCalibration"]
	fns["addCalibration"] = func(b []byte) []byte {
		out := add(b)
		c.Refresh()
		return out
	}
	return fns
}

// RenderInput is what the page hands Render: the form as the user left
// it, the input they just changed ("" at the start and on a link), the
// widths of the charts' boxes, and whether the calculator is the embedded
// one (no summary, recommender or snippets).
type RenderInput struct {
	Form calcapi.Form `json:"form"`
	// Parts asks for the markup's parts only (the page has the whole
	// layout already): HTML is then empty, and only the parts whose markup
	// changed since the last answer come back.
	Parts   bool   `json:"parts,omitempty"`
	Changed string `json:"changed,omitempty"`
	Widths  Widths `json:"widths"`
	Embed   bool   `json:"embed,omitempty"`
}

// RenderOutput is Render's answer: the markup of the calculator's
// .calc-layout, the form state it shows (the view's rules may change
// values: a region fills in its intensity, a custom shape starts from the
// last preset), the address's query for it, "ok" or "error", and, for an
// estimate, the figures an embedding page is told.
type RenderOutput struct {
	HTML  string       `json:"html,omitempty"`
	Parts []Part       `json:"parts,omitempty"`
	Form  calcapi.Form `json:"form"`
	Query string       `json:"query"`
	State string       `json:"state"`
	Post  *Post        `json:"post,omitempty"`
}

// Post is what an embedded calculator tells the page around it
// (assets/embed.js): the figures the page shows anyway.
type Post struct {
	EnergyKWh         float64    `json:"energy_kwh"`
	EnergyIntervalKWh [2]float64 `json:"energy_interval_kwh"`
	CO2eKg            float64    `json:"co2e_kg"`
	TimeS             float64    `json:"time_s"`
	Model             string     `json:"model"`
	GPU               string     `json:"gpu"`
	Count             int        `json:"count"`
	Strategy          string     `json:"strategy"` // the layout's strategy (single, ddp, fsdp, tp, hybrid)
	Calibration       string     `json:"calibration"`
}

// Render answers the page's JSON (RenderInput) with RenderOutput's.
func (c *Calc) Render(input []byte) []byte {
	var in RenderInput
	if err := json.Unmarshal(input, &in); err != nil || len(in.Form) == 0 {
		in.Form = calcapi.DefaultForm()
	}
	// (Markup as it is: json.Marshal would escape each < and > as \u003c.)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(c.RenderOf(in))
	return b.Bytes()
}

// RenderOf is Render for a decoded input.
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
		o := c.api.EstimateOf(calcapi.EstimateInput{Form: form, Sweep: &calcapi.SweepSpec{Counts: sweepCounts(n), Strategies: sweepStrategies}})
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
					d := c.api.EstimateOf(calcapi.EstimateInput{Form: calcapi.DefaultForm(), Sweep: &calcapi.SweepSpec{Counts: sweepCounts(4), Strategies: sweepStrategies}})
					c.def = &d
				}
				v.out, v.empty = c.def, true
			}
		}
	}
	html, err := v.markup()
	if err != nil {
		html = `<div class="calc-layout"><p class="err">` + esc(err.Error()) + `</p></div>`
	}
	out.Query = v.query()
	if in.Parts && err == nil {
		// Only the parts that changed since the last answer go back.
		if c.sent == nil {
			c.sent = map[string]string{}
		}
		for _, p := range v.parts {
			if c.sent[p.Key] != p.HTML {
				out.Parts = append(out.Parts, p)
				c.sent[p.Key] = p.HTML
			}
		}
	} else {
		c.sent = nil
		out.HTML = html
	}
	return out
}
