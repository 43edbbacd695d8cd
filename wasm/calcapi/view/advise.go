package view

import (
	"math"
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/wasm/calcapi"
)

// Advice is the recommender's panel ("Cheaper ways to run this") for the
// form state form: the content of the calculator's .cheaper-out element
// (data-part "adv"). It runs the search (calcapi.API.RecommendOf) and
// draws its best configuration, the saving against the form's, the Pareto
// chart (energy against wall-clock time; the user's configuration ringed,
// the best filled, the deadline a dashed line) and what the search did.
// width is the width of the panel's box in CSS pixels (0: unknown, as at
// build time); the chart is at most 640 px wide.
//
// The generator calls it for the prerendered page (Calculator's advice)
// and calc.wasm's advise for every form state, after the estimate has
// been painted: the search costs tens of milliseconds, which an input's
// render does not pay.
//
// Each point of the front carries the form values that load it
// (data-load, a query string) and what the page then says (data-loaded).
// A deadline or an objective in error is named on the panel's message
// (data-input, data-msg), which the page shows beside that input.
func Advice(api *calcapi.API, m *calcapi.Meta, form calcapi.Form, width float64) string {
	o := api.RecommendOf(form)
	a := advice{m: m}
	if o.Error != nil {
		e := o.Error
		attrs := ""
		if e.Input == "deadline" || e.Input == "minimise" {
			msg := firstOf(e.Say, e.Message)
			if e.Value != "" {
				msg += " (got " + e.Value + ")"
			}
			attrs = ` data-input="` + e.Input + `" data-msg="` + esc(msg) + `"`
		}
		return `<p class="muted"` + attrs + `>` + esc(firstOf(e.Say, e.Text, e.Message)) + `</p>`
	}
	a.draw(o.Result, o.Say, width)
	return a.b.String()
}

func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// advice writes the panel.
type advice struct {
	m *calcapi.Meta
	b strings.Builder
}

func (a *advice) w(s ...string) {
	for _, x := range s {
		a.b.WriteString(x)
	}
}

// gpuName is the GPU's display name, or its id when the table has none.
func (a *advice) gpuName(id string) string { return gpuName(a.m, id) }

func gpuName(m *calcapi.Meta, id string) string {
	for _, g := range m.GPUs {
		if g.ID == id && g.Name != "" {
			return g.Name
		}
	}
	return id
}

// strategyText is a configuration's layout in words.
func strategyText(s model.Strategy) string {
	switch s.Name {
	case model.Single:
		return "single GPU"
	case model.Hybrid, "":
		mode := s.DataMode
		if mode == "" {
			mode = model.FSDP
		}
		return "tensor " + Num(s.Tensor) + " × " + strings.ToUpper(mode) + " " + Num(s.Data)
	}
	return strings.ToUpper(s.Name)
}

// configText is a configuration in words: count, GPU, layout, power limit.
func (a *advice) configText(c *model.Config) string { return configText(a.m, c.Hardware, c.Strategy) }

// configText is a searched configuration (the calculator's or a planner
// stage's) in words.
func configText(m *calcapi.Meta, hw model.ConfigHardware, s model.Strategy) string {
	return strconv.Itoa(hw.Count) + " × " + gpuName(m, hw.GPU) + ", " + strategyText(s) + ", " + Num(hw.PowerLimitW) + " W limit"
}

// load is the form values that put configuration c into the form, as a
// query string, and what the page says once it has.
func (a *advice) load(c *model.Config) (query, said string) {
	q := calcapi.Form{"gpu": c.Hardware.GPU, "count": strconv.Itoa(c.Hardware.Count), "power": Num(c.Hardware.PowerLimitW)}
	if c.BatchPerGPU > 0 {
		// the micro-batch and accumulation that hold the global batch
		q["batch"], q["accum"] = strconv.Itoa(c.BatchPerGPU), ""
		if c.GradientAccumulation > 1 {
			q["accum"] = strconv.Itoa(c.GradientAccumulation)
		}
	}
	if s := c.Strategy; s.Name != model.Hybrid && s.Name != "" {
		q["strategy"] = s.Name
	} else {
		mode := s.DataMode
		if mode == "" {
			mode = model.FSDP
		}
		q["strategy"], q["tensor"], q["data_mode"] = model.Hybrid, Num(s.Tensor), mode
	}
	return q.Query(), "Loaded " + strconv.Itoa(c.Hardware.Count) + " × " + a.gpuName(c.Hardware.GPU) + " at " + Num(c.Hardware.PowerLimitW) + " W."
}

// same reports whether two configurations are the same hardware and
// layout.
func same(x, y *model.Config) bool { return x.Hardware == y.Hardware && x.Strategy == y.Strategy }

func (a *advice) draw(r *model.RecommendResponse, say *calcapi.RecommendSay, width float64) {
	if say == nil {
		say = &calcapi.RecommendSay{}
	}
	// What the search did (calcapi's words, GPUs by name): which types it
	// searched, your configuration's memory check, the counts left out.
	var did strings.Builder
	did.WriteString(`<div class="cheaper-did muted small"><p class="cheaper-searched">` + esc(say.Searched) + `</p>`)
	if say.Current != "" {
		did.WriteString(`<p class="cheaper-current">` + esc(say.Current) + `</p>`)
	}
	if len(say.Skipped) > 0 {
		did.WriteString(`<details class="cheaper-skipped"><summary>` + strconv.Itoa(len(say.Skipped)) + ` GPU counts left out</summary><ul>`)
		for _, s := range say.Skipped {
			did.WriteString(`<li>` + esc(s) + `</li>`)
		}
		did.WriteString(`</ul></details>`)
	}
	did.WriteString(`</div>`)
	if r.Best == nil {
		a.w(`<p class="muted">`, esc(strings.Join(say.Warnings, " ")), `</p>`, did.String())
		return
	}
	b, cur := r.Best, r.Current
	obj := objective[r.Minimise]
	lead := "Nothing meets the deadline; fastest"
	if r.MeetsDeadline {
		lead = "Least " + esc(obj)
		if r.DeadlineS > 0 {
			lead += " within the deadline"
		}
	}
	a.w(`<p class="cheaper-best"><strong>`, lead, `:</strong> `, esc(a.configText(b)), ` — `, esc(EnergyText(b.EnergyKWh)), `, `, esc(Duration(b.TimeS)), `, `,
		esc(MassText(b.CO2eKg)), ` operational + `, esc(MassText(b.EmbodiedCO2eKg)), ` embodied, `, esc(USD(b.CostUSD)), `.</p>`)
	if r.Held != nil {
		a.w(`<p class="cheaper-held muted small">Held fixed: `, strconv.Itoa(r.Held.SequencesPerStep), ` sequences per optimizer step (yours) and `, esc(Sig(r.Held.Tokens, 3)), ` tokens.</p>`)
	}
	if sv := r.Saving; cur != nil && sv != nil {
		a.w(`<p class="cheaper-saving">`)
		if sv.EnergyKWh > 0 {
			a.w(`Switching from yours (`, esc(a.configText(cur)), `) saves `, esc(EnergyText(sv.EnergyKWh)), ` (`, strconv.Itoa(int(math.Floor(sv.EnergyPct+0.5))), ` %)`)
			if sv.TimeS < 0 {
				a.w(` and takes `, esc(Duration(-sv.TimeS)), ` longer`)
			} else {
				a.w(` and finishes `, esc(Duration(sv.TimeS)), ` sooner`)
			}
		} else {
			a.w(`Your configuration is already the least `, esc(obj), ` of those searched`)
		}
		a.w(`.</p>`)
	}
	a.chart(r, width)
	a.w(did.String())
	if len(say.Warnings) > 0 {
		a.w(`<ul class="muted small">`)
		for _, w := range say.Warnings {
			a.w(`<li>`, esc(w), `</li>`)
		}
		a.w(`</ul>`)
	}
}

// chart is the Pareto front's figure.
func (a *advice) chart(r *model.RecommendResponse, width float64) {
	b, cur, pts := r.Best, r.Current, r.Pareto
	var xs, ys []float64
	for _, c := range pts {
		xs, ys = append(xs, c.TimeS/3600), append(ys, c.EnergyKWh)
	}
	if cur != nil {
		xs, ys = append(xs, cur.TimeS/3600), append(ys, cur.EnergyKWh)
	}
	if r.DeadlineS > 0 {
		xs = append(xs, r.DeadlineS/3600)
	}
	var o strings.Builder
	if width <= 0 {
		width = 560
	}
	f := chartFrame(&o, frameSpec{id: "chart-pareto", role: "group", cls: "pareto", width: min(640, clampChart(width)), height: 320, // .pareto-fig is at most 640 px wide
		title: "Energy against wall-clock time of the least-energy configurations (" + strconv.Itoa(len(pts)) + " on the front)",
		x:     axisSpec{min: minOf(xs) / 1.15, max: maxOfF(xs) * 1.15, log: true, label: "Wall-clock time (hours, log scale)"},
		y:     axisSpec{min: minOf(ys) / 1.15, max: maxOfF(ys) * 1.15, log: true, label: "Accelerator energy (kWh, log scale)"}})
	xa, ya := f.xa, f.ya
	if r.DeadlineS > 0 {
		dx := fx1(xa.mapv(r.DeadlineS / 3600))
		o.WriteString(`<line class="deadline" x1="` + dx + `" x2="` + dx + `" y1="` + Num(f.T) + `" y2="` + Num(f.H-f.B) + `"/><text class="mark-label" x="` + dx + `" y="` + Num(f.T+12) + `" dx="-4" text-anchor="end">deadline</text>`)
	}
	o.WriteString(`<path class="line s-fsdp" d="` + svgPath(len(pts), func(i int) (float64, float64) { return xa.mapv(pts[i].TimeS / 3600), ya.mapv(pts[i].EnergyKWh) }) + `"/>`)
	// One tab stop for the whole front (the recommendation); the arrow
	// keys move along it.
	focusAt := 0
	for i := range pts {
		if same(&pts[i], b) {
			focusAt = i
		}
	}
	for i := range pts {
		c := &pts[i]
		best := same(c, b)
		label := a.configText(c) + ": " + EnergyText(c.EnergyKWh) + ", " + Duration(c.TimeS)
		cls, r := "pt", "5"
		if best {
			label += " (recommended)"
			cls, r = "pt best", "7"
		}
		if !c.MeetsDeadline {
			label += " (misses the deadline)"
			cls += " late"
		}
		label += ". Load into the form."
		tab := "-1"
		if i == focusAt {
			tab = "0"
		}
		q, said := a.load(c)
		o.WriteString(`<g class="` + cls + `" data-pareto="` + strconv.Itoa(i) + `" data-kwh="` + Num(c.EnergyKWh) + `" data-load="` + esc(q) + `" data-loaded="` + esc(said) + `" tabindex="` + tab + `" role="button" aria-label="` + esc(label) + `">` +
			`<title>` + esc(label) + `</title><circle r="` + r + `" cx="` + fx1(xa.mapv(c.TimeS/3600)) + `" cy="` + fx1(ya.mapv(c.EnergyKWh)) + `"/></g>`)
	}
	if cur != nil {
		cx, cy := xa.mapv(cur.TimeS/3600), ya.mapv(cur.EnergyKWh)
		o.WriteString(`<circle class="mark" r="8" cx="` + fx1(cx) + `" cy="` + fx1(cy) + `"/>`)
		anc, dx := "start", 12.0
		if cx > f.W-150 {
			anc, dx = "end", -12
		}
		o.WriteString(`<text class="mark-label" x="` + fx1(cx+dx) + `" y="` + fx1(cy-10) + `" text-anchor="` + anc + `">yours</text>`)
	}
	o.WriteString(`</svg>`)
	deadline := ""
	if r.DeadlineS > 0 {
		deadline = "Dashed line: the deadline. "
	}
	a.w(`<figure class="pareto-fig">`, o.String(), `<figcaption>Ring: your configuration. Large dot: the recommendation. `, deadline,
		strconv.Itoa(r.Searched), ` configurations searched, `, strconv.Itoa(r.Feasible), ` fit in memory. Embodied CO₂e: `, esc(Sig(b.EmbodiedCO2eKg/b.GPUHours*1000, 3)), ` g per GPU-hour (Luccioni et al. 2023). `,
		`Power-limit response fitted on the Zeus power-capped runs (You et al., NSDI 2023).</figcaption></figure>`)
}
