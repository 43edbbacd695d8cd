package view

// The distillation planner in the browser (planner.wasm): each change the
// page reports is answered with the planner's markup, drawn by planner.go
// as at build time, and with the form state the planner's rules made of
// it (planform.go).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/wattscale/wattscale/model/distill"
	"github.com/wattscale/wattscale/wasm/calcapi"
)

// Plan is the planner in the browser. It keeps the last plan that
// evaluated, which a form in error shows dimmed, the per-stage search last
// shown (its "Use it" buttons load from it), and the parts last sent.
type Plan struct {
	api   *calcapi.API
	meta  calcapi.Meta
	pm    calcapi.PlannerMeta
	last  *calcapi.PlanOutput
	def   *calcapi.PlanOutput // the default plan's, behind a first form in error
	rec   *distill.Recommendation
	shown shown // the parts the page shows (PlanRenderInput.Parts, Seen)
}

// NewPlan is the planner over api's catalog.
func NewPlan(api *calcapi.API) *Plan {
	return &Plan{api: api, meta: api.MetaOf(), pm: calcapi.PlannerMetaOf()}
}

// PlanFuncs are planner.wasm's functions: render (the planner's markup
// for a change to its form, Render), all the page calls.
func PlanFuncs(api *calcapi.API) map[string]func([]byte) []byte {
	return map[string]func([]byte) []byte{"render": NewPlan(api).Render}
}

// PlanRenderInput is what the page hands Render: the form state Go last
// answered with (nil at the start, when Link, the address's query, says
// which plan to open and Typed what the visitor typed before the
// WebAssembly started, applied in order as changes), and what the visitor
// did: changed an input (Changed, to Value), or an action on a row (Action
// "add", "remove" Row, "use" the per-stage search's Row-th searched stage,
// "hf" the calculator form Values read from Hugging Face files into Row's
// student stage). Widths are the widths of the boxes the markup marks
// data-width (the charts' box; none: unknown, both prerendered widths);
// Parts asks for the changed parts only, as RenderInput.Parts; Seen, on
// the first answer, is the prerendered page's part hashes, as
// CalcCall.Seen.
type PlanRenderInput struct {
	Form    calcapi.PlanForm  `json:"form,omitempty"`
	Link    string            `json:"link,omitempty"`
	Typed   [][2]string       `json:"typed,omitempty"`
	Changed string            `json:"changed,omitempty"`
	Value   string            `json:"value,omitempty"`
	Action  string            `json:"action,omitempty"`
	Row     int               `json:"row,omitempty"`
	Values  map[string]string `json:"values,omitempty"`
	Widths  []float64         `json:"widths,omitempty"`
	Parts   bool              `json:"parts,omitempty"`
	Seen    string            `json:"seen,omitempty"`
}

// PlanRenderOutput is Render's answer: the markup (HTML, or the changed
// Parts), the form state, Show (what each control shows: a preset row
// shows the paper's numbers), the address's query and whether the address
// should now show it (after a change, an action or typing, not when a link
// is only opened), "ok" or "error", the
// input to focus after a row was added, the Hugging Face values the row
// did not take (Left), and for the Hugging Face box its "Option to fill"
// choices (HFOptions, markup) and the calculator form each row's files are
// read against (HF).
type PlanRenderOutput struct {
	HTML      string              `json:"html,omitempty"`
	Parts     []Part              `json:"parts,omitempty"`
	Form      calcapi.PlanForm    `json:"form"`
	Show      calcapi.Form        `json:"show"`
	Query     string              `json:"query"`
	Address   bool                `json:"address,omitempty"`
	State     string              `json:"state"`
	Focus     string              `json:"focus,omitempty"`
	Left      []string            `json:"left,omitempty"`
	HFOptions string              `json:"hf_options"`
	HF        []map[string]string `json:"hf"`
}

// Render answers the page's JSON (PlanRenderInput) with PlanRenderOutput's.
func (p *Plan) Render(input []byte) (out []byte) {
	defer func() {
		if r := recover(); r != nil {
			out, _ = json.Marshal(PlanRenderOutput{State: "error", HTML: `<p class="fatal">` + esc(fmt.Sprint("internal error: ", r)) + `</p>`})
		}
	}()
	var in PlanRenderInput
	if err := json.Unmarshal(input, &in); err != nil {
		in = PlanRenderInput{}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(p.RenderOf(in))
	return b.Bytes()
}

// RenderOf is Render for a decoded input.
func (p *Plan) RenderOf(in PlanRenderInput) PlanRenderOutput {
	f := planForm{pm: &p.pm, st: calcapi.PlanForm{}}
	var out PlanRenderOutput
	p.shown.prerendered(in.Seen)
	if in.Form == nil {
		f.open(in.Link)
		for _, kv := range in.Typed {
			f.change(kv[0], kv[1], p.meta.Regions)
		}
	} else {
		for k, v := range in.Form {
			f.st[k] = v
		}
		switch in.Action {
		case "add":
			out.Focus = f.add()
		case "remove":
			f.remove(in.Row)
		case "use":
			f.use(p.rec, in.Row)
		case "hf":
			out.Left = f.takeHF(in.Row, in.Values)
		case "":
			if in.Changed != "" {
				f.change(in.Changed, in.Value, p.meta.Regions)
			}
		}
	}
	form := f.st
	o := p.api.DistillOf(calcapi.PlanInput{Form: form})
	v := planView{meta: &p.meta, pm: &p.pm, state: form}
	if len(in.Widths) > 0 {
		v.width = in.Widths[0]
	}
	out.Form, out.State = form, "ok"
	out.Address = in.Changed != "" || in.Action != "" || len(in.Typed) > 0
	if o.Error == nil {
		p.last, v.out = &o, &o
		p.rec, v.rec, v.recErr = nil, nil, nil
		if f.anyEstimated() {
			r := p.api.DistillRecommendOf(form)
			p.rec, v.rec, v.recErr = r.Result, r.Result, r.Error
			if v.recErr == nil && v.rec == nil {
				v.recErr = &calcapi.Error{Message: "no answer"}
			}
		}
	} else {
		out.State = "error"
		v.errs = []*calcapi.Error{o.Error}
		v.out, v.stale = p.last, true
		if p.last == nil {
			if p.def == nil {
				d := p.api.DistillOf(calcapi.PlanInput{Form: p.pm.Default})
				p.def = &d
			}
			v.out, v.empty = p.def, true
		}
	}
	html, err := v.markup()
	if err != nil {
		html = `<div class="plan-layout"><p class="err">` + esc(err.Error()) + `</p></div>`
	}
	out.Show = v.c.state
	out.Query = f.query()
	for i := 1; i <= f.rows(); i++ {
		o := "o" + strconv.Itoa(i) + "."
		name := form[o+"preset"]
		if name == "" {
			name = form[o+"name"]
		}
		out.HFOptions += `<option value="` + strconv.Itoa(i) + `">` + esc("Option "+strconv.Itoa(i)+": "+name) + `</option>`
		out.HF = append(out.HF, f.studentForm(o))
	}
	out.Parts, out.HTML = p.shown.answer(v.c.parts, html, in.Parts && err == nil)
	return out
}
