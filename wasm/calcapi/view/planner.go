package view

// The prerendered distillation planner.
//
// As for the calculator (prerender.go), the generator evaluates the
// planner's default plan at build time with the same Go code as
// planner.wasm (wasm/calcapi's Distill over model/distill) and writes the
// planner into the page: the form with its values, the option cards, the
// stage bars, the amortisation curve with N*, the energy–quality plane,
// the advice and the notes. planner.wasm draws the planner with the same
// code at run time (Plan.Render), and calc.js morphs that markup into the
// page's nodes, so that when the WebAssembly takes over nothing moves.

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/distill"
	"github.com/wattscale/wattscale/wasm/calcapi"
)

// planStages is each stage's name in the plan and its row
// key.
var planStages = [][2]string{{"preprocess", "pre"}, {"teacher", "teacher"}, {"student", "student"}, {"eval", "eval"}}

// regimeName is a regime's name in the planner's words.
func regimeName(r string) string { return distill.PlanFieldByKey("oK.regime").Text(r) }

// The planner's charts are prerendered twice: at their box's width on a
// desktop-wide page (site/assets/calc.css holds .stages, .curve and .plane
// to 720 px; at run time the charts are drawn at the box's width) and on a
// 390 px phone (the page's width less its padding); calc.css shows the
// one that fits (data-pre wide or narrow), and the takeover keeps one,
// redrawn at the box's width. The phone's comes first, so that the
// legend follows the one shown. Each is held at the height it has at its
// width, so that on other widths the takeover moves what is below it by a
// few pixels only.
const (
	prerenderPlanChartW       = 720.0
	prerenderPlanChartNarrowW = 358.0
)

// planView writes the planner for one output; c holds the form's
// display values (what each control shows) and writes
// the controls with the calculator's helpers.
type planView struct {
	meta  *calcapi.Meta
	pm    *calcapi.PlannerMeta
	state calcapi.PlanForm
	out   *calcapi.PlanOutput
	c     calcView // writes the markup
	// At run time (Plan): width is the charts' box's width (0: the
	// prerender's two widths); errs the plan's errors, marked beside their
	// inputs, out then the previous plan, dimmed (stale), or the default's,
	// hidden (empty); rec the per-stage search of the estimated stages, or
	// recErr why there is none.
	width        float64
	errs         []*calcapi.Error
	stale, empty bool
	rec          *distill.Recommendation
	recErr       *calcapi.Error
}

func (v *planView) w(s ...string) { v.c.w(s...) }

func (v *planView) rows() int {
	n, err := strconv.Atoi(v.state["rows"])
	if err != nil || n <= 0 || n > v.pm.MaxRows {
		return 0
	}
	return n
}

func (v *planView) preset(name string) *distill.Preset {
	for i := range v.pm.Presets {
		if v.pm.Presets[i].Name == name {
			return &v.pm.Presets[i]
		}
	}
	return nil
}

// display is what each control shows: a preset
// row shows the paper's numbers.
func (v *planView) display() calcapi.Form {
	st := v.state
	out := calcapi.Form{}
	for k, x := range st {
		out[k] = x
	}
	for i := 1; i <= v.rows(); i++ {
		o := "o" + strconv.Itoa(i) + "."
		p := v.preset(st[o+"preset"])
		if p == nil {
			continue
		}
		out[o+"smode"] = ""
		for _, k := range v.pm.StudentKeys {
			out[o+"s."+k] = ""
		}
		out[o+"name"], out[o+"regime"], out[o+"q"] = p.Name, p.Regime, ""
		if p.Quality != nil {
			out[o+"q"] = Num(*p.Quality)
		}
		for _, s := range planStages {
			out[o+s[1]] = ""
			if x := p.StagesKWh.Get(s[0]); x != nil {
				out[o+s[1]] = Num(*x)
			}
		}
	}
	// An optional choice left out shows the value the model then uses
	// (the table's default, when it is one of the choices).
	for _, f := range v.pm.Fields {
		opts := f.Options()
		if !f.Optional || opts == nil || slices.Contains(opts, "") || !slices.Contains(opts, f.Default) {
			continue
		}
		keys := []string{f.Key}
		if strings.HasPrefix(f.Key, distill.OptionKeyPrefix) {
			keys = nil
			for i := 1; i <= v.rows(); i++ {
				keys = append(keys, distill.RowKey(f.Key, i))
			}
		}
		for _, k := range keys {
			if out[k] == "" {
				out[k] = f.Default
			}
		}
	}
	return out
}

// regime is row o's regime: its preset's, else the row's own.
func (v *planView) regime(o string) string {
	if p := v.preset(v.state[o+"preset"]); p != nil {
		return p.Regime
	}
	return v.state[o+"regime"]
}

// hiddenIf is the hidden attribute fill sets.
func hiddenIf(h bool) string {
	if h {
		return " hidden"
	}
	return ""
}

// markField puts attrs on the field div of key that field wrote.
func markField(html, key, attrs string) string {
	return strings.Replace(html, ` data-key="`+key+`"`, ` data-key="`+key+`"`+attrs, 1)
}

// hidden reports whether the field of key is hidden: a direct-SFT row's
// teacher stage and baseline, an estimated student's measured energy, and
// the inputs of an estimate that a row does not make or whose row of the
// field table does not apply.
func (v *planView) hidden(key string) bool {
	num, rest, ok := rowKey(key)
	if !ok {
		return false
	}
	o := "o" + num + "."
	switch {
	case rest == "teacher", rest == "baseline":
		return v.regime(o) == distill.RegimeSFT
	case rest == "student":
		return v.estimated(o)
	case strings.HasPrefix(rest, "s."):
		sub := func(k string) string { return v.state[o+strings.TrimPrefix(k, distill.OptionKeyPrefix)] }
		return !v.estimated(o) || !v.c.rows[key].When.Holds(sub)
	}
	return false
}

func (v *planView) markup() (string, error) {
	r := v.out.Result
	if r == nil {
		return "", fmt.Errorf("prerender planner: no result")
	}
	v.c = calcView{meta: v.meta, state: v.display(), blankSelects: true, rows: map[string]model.Field{}, what: "plan", errs: v.errs, stale: v.stale, empty: v.empty, hidden: v.hidden}
	c := &v.c
	if e := v.recErr; e != nil && (e.Input == "deadline" || e.Input == "minimise") {
		c.errs = append(c.errs, e) // beside its field; the plan stands
	}
	for _, f := range v.pm.Fields {
		if !strings.HasPrefix(f.Key, distill.OptionKeyPrefix) {
			c.rows[f.Key] = f
		}
		for i := 1; i <= v.rows(); i++ {
			c.rows[distill.RowKey(f.Key, i)] = f
		}
	}
	v.w(`<div class="plan-layout">`)
	at := c.b.Len()
	v.summary(r)
	c.part("sum", at)
	at = c.b.Len()
	v.w(`<form class="calc-form" novalidate="" aria-label="Distillation plan" data-part="form">`,
		`<a href="#plan-results" class="btn skip-results">Jump to the result ↓</a>`)
	c.controls = map[string]func(key string) string{
		calcapi.ControlRegions: func(k string) string { return c.field(k, c.rows[k].Label, c.sel(k, regionOptions(v.meta)), nil) },
	}
	for _, sec := range v.pm.Layout {
		if sec.Rows {
			for i := 1; i <= v.rows(); i++ {
				v.row(i)
			}
			v.w(`<p><button type="button" class="btn" data-act="add">+ Add an option</button></p>`)
			continue
		}
		c.fieldset(sec, false)
	}
	v.w(`<p class="err form-err" aria-live="polite">`, esc(c.formErr()), `</p></form>`)
	c.part("form", at)

	cls, status := "results", `<div class="status" role="status" aria-live="polite"></div>`
	if len(v.errs) > 0 {
		cls += " stale"
		if v.empty {
			cls += " empty"
		}
		status = `<div class="status" role="alert" aria-live="polite" data-kind="error">` + esc(c.errorBanner()) + `</div>`
	}
	at = c.b.Len()
	v.w(`<section class="`, cls, `" aria-label="Plan result" id="plan-results" tabindex="-1" data-part="res">`, status,
		`<h2 class="h first">Options side by side</h2><div class="options">`)
	v.options(r, v.out.BestPerStudent)
	v.w(`</div><h2 class="h">Energy by stage</h2><div class="stages" data-width="">`)
	if v.width > 0 {
		v.stages(r, clampChart(v.width), "", true)
	} else {
		v.stages(r, prerenderPlanChartNarrowW, "narrow", false)
		v.stages(r, prerenderPlanChartW, "wide", true)
	}
	v.w(`</div><section class="stage-rec-box" aria-labelledby="stage-rec-h"><h2 class="h" id="stage-rec-h">Cheaper hardware per stage</h2><p class="muted small">Each estimated GPU stage searched on its own over GPU type × count × layout (and power limit for training), as the calculator's “Cheaper ways to run this”, keeping a training stage’s tokens and sequences per optimizer step; teacher and student may end up on different hardware.</p><div class="stage-rec">`)
	v.stageRec()
	v.w(`</div></section>`,
		`<h2 class="h">Energy per student against reuse</h2><p class="muted small">Per-student energy Ē(N) = E_teacher/N + E_student of each distilled option; the dashed line is its direct-SFT baseline's student stage. Distillation pays off right of N*.</p><div class="curve">`)
	if v.width > 0 {
		v.curve(r, clampChart(v.width), "", "", true)
	} else {
		v.curve(r, prerenderPlanChartNarrowW, "-n", "narrow", false)
		v.curve(r, prerenderPlanChartW, "", "wide", true)
	}
	v.w(`</div><h2 class="h">Energy and quality</h2><p class="muted small">One-off pipeline energy against quality Q (student score ÷ teacher score); the dashed line joins the Pareto-efficient options.</p><div class="plane">`)
	if v.width > 0 {
		v.plane(r, clampChart(v.width), "", "", true)
	} else {
		v.plane(r, prerenderPlanChartNarrowW, "-n", "narrow", false)
		v.plane(r, prerenderPlanChartW, "", "wide", true)
	}
	v.w(`</div><div class="tstar">`)
	v.tstar(r)
	v.w(`</div><div class="advice-box">`)
	if len(r.Advice) > 0 {
		v.w(`<h2 class="h">What the numbers say</h2><ul class="advice">`)
		for _, a := range r.Advice {
			v.w(`<li>`, esc(a), `</li>`)
		}
		v.w(`</ul>`)
	}
	v.w(`</div><div class="pnotes">`)
	v.notes(r)
	v.w(`</div></section>`)
	c.part("res", at)
	v.w(`</div>`)
	return v.c.b.String(), nil
}

// row writes option i's row of the form, with each field's visibility
// and hint.
func (v *planView) row(i int) {
	o := "o" + strconv.Itoa(i) + "."
	st, c := v.state, &v.c
	pr := v.preset(st[o+"preset"])
	presets := []option{{"", "My own numbers"}}
	for _, p := range v.pm.Presets {
		presets = append(presets, option{p.Name, p.Name + " — " + regimeName(p.Regime)})
	}
	hint := "stage energies you measured, kWh"
	if pr != nil {
		hint = "student " + pr.Student + "; "
		if pr.TeacherWork != "" {
			hint = "teacher: " + pr.TeacherWork + "; "
		}
		hint += "published total " + Num(pr.TotalKWh) + " kWh"
		if pr.StagesKWh.Student == nil {
			hint += " (no stage split published)"
		}
	}
	v.w(`<fieldset class="row-opt" data-row="`, strconv.Itoa(i), `"><legend>Option `, strconv.Itoa(i), `</legend>`, c.field(o+"preset", c.rows[o+"preset"].Label, c.sel(o+"preset", presets), &hint))
	v.w(`<div class="grid2">`, c.inputs(o+"name", o+"regime"), `</div><div class="grid2">`)
	for _, s := range planStages {
		f := c.inputs(o + s[1])
		switch s[1] {
		case "teacher":
			f = markField(f, o+s[1], ` data-teacher="1"`)
		}
		v.w(f)
	}
	v.w(`</div>`, c.inputs(o+"smode"))
	v.w(`<div class="grid2 student-est" data-student-est="1"`, hiddenIf(!v.estimated(o)), `>`)
	for _, k := range v.pm.StudentKeys {
		key := o + "s." + k
		f := ""
		switch k {
		case "model", "gpu": // a select of the catalogue's
			var opts []option
			for _, p := range v.meta.Presets {
				opts = append(opts, option{p.Name, p.Name})
			}
			if k == "model" {
				opts = append(opts, option{"custom", "custom shape"})
			}
			if k == "gpu" {
				opts = nil
				for _, g := range v.meta.GPUs {
					opts = append(opts, option{g.ID, g.Name})
				}
			}
			f = c.field(key, c.rows[key].Label, c.sel(key, opts), fieldHint(c.rows[key]))
		default:
			f = c.inputs(key)
		}
		v.w(markField(f, key, ` data-skey="`+k+`"`))
	}
	v.w(`</div>`)
	bl := []option{{"", "The plan's direct-SFT option"}}
	for j := 1; j <= v.rows(); j++ {
		oj := "o" + strconv.Itoa(j) + "."
		if v.regime(oj) == distill.RegimeSFT {
			n := st[oj+"preset"]
			if n == "" {
				n = st[oj+"name"]
			}
			bl = append(bl, option{n, n})
		}
	}
	v.w(`<div class="grid2">`, c.inputs(o+"q"),
		markField(c.field(o+"baseline", c.rows[o+"baseline"].Label, c.sel(o+"baseline", bl), nil), o+"baseline", ` data-distilled="1"`), `</div>`)
	if v.rows() > 1 {
		v.w(`<button type="button" class="btn small" data-act="remove" data-act-row="`, strconv.Itoa(i), `">Remove option `, strconv.Itoa(i), `</button>`)
	}
	v.w(`</fieldset>`)
}

// estimated says whether row o's student stage is estimated.
func (v *planView) estimated(o string) bool {
	return v.state[o+"preset"] == "" && v.state[o+"smode"] == calcapi.StudentModeEstimate
}

// options writes the option cards.
func (v *planView) options(r *distill.Result, bestName string) {
	for i := range r.Options {
		o := &r.Options[i]
		best := o.Name == bestName
		ns := `<span class="nstar">` + esc(v.out.NStar[o.Name]) + `</span>`
		cls := "option"
		if best {
			cls += " best"
		}
		v.w(`<div class="`, cls, `" data-option="`, esc(o.Name), `"`)
		if o.NStar != nil {
			v.w(` data-nstar="`, Num(*o.NStar), `"`)
		}
		rn := regimeName(o.Regime)
		v.w(` data-oneoff="`, Num(o.OneOffKWh), `" data-student="`, Num(o.StudentKWh), `">`,
			`<h3>`, esc(o.Name), `</h3><span class="sub">`, esc(rn), ` · `, esc(o.Source), `</span>`,
			`<span class="v">`, esc(EnergyText(o.OneOffKWh)), `</span><span class="sub">one-off pipeline`)
		if o.Regime != distill.RegimeSFT {
			v.w(`; `, esc(EnergyText(o.KWhPerStudent)), ` per student at N = `, strconv.Itoa(o.Students))
		}
		v.w(`</span><span class="sub">`, esc(MassText(o.CO2eKg)), ` · `, esc(USD(o.CostUSD)))
		if o.Quality != nil {
			v.w(` · Q `, esc(Sig(*o.Quality, 2)))
		}
		if o.JPerToken != 0 {
			v.w(` · `, esc(Sig(o.JPerToken, 3)), ` J/token`)
		}
		v.w(`</span>`)
		if o.Regime != distill.RegimeSFT {
			v.w(`<p class="small">`, ns)
			if o.Baseline != "" {
				v.w(` (against `, esc(o.Baseline), `)`)
			}
			v.w(`</p>`)
		}
		if len(o.Stages) > 0 && o.Stages[0].Stage == distill.StageUnsplit {
			v.w(`<p class="small muted">Total only: no stage split published, so not ranked per student.</p>`)
		}
		if best {
			v.w(`<p class="small"><strong>Lowest energy per student</strong></p>`)
		}
		v.w(`</div>`)
	}
}

// chartHeight is the height a chart of viewBox size w × h takes on the
// page when its box is w wide (site.css .chart: 0.75rem padding left and
// right, 0.75rem + 0.5rem top and bottom, a 1 px border; the svg keeps its
// aspect ratio), held as the prerendered chart's style.
func chartHeight(w, h float64) string {
	const pad, padV = 2*12 + 2, 12 + 8 + 2
	return "height:" + ToFixed((w-pad)*h/w+padV, 2) + "px"
}

// preAttrs are a prerendered chart's attributes at width W: data-pre
// (cls: wide or narrow) and the height it is held at; none at run time
// (cls "").
func preAttrs(W float64, cls string) (attrs, style string) {
	if cls == "" {
		return "", ""
	}
	return ` data-pre="` + cls + `"`, chartHeight(W, 300)
}

// stages writes the stage bars at width W, marked data-pre=cls (wide
// or narrow); legend: with the legend after it.
func (v *planView) stages(r *distill.Result, W float64, cls string, legend bool) {
	rowH := 32.0
	L, R := math.Min(150, math.Floor(W*0.3+0.5)), 86.0
	H := float64(len(r.Options))*rowH + 10
	top := 0.0
	for _, o := range r.Options {
		top = math.Max(top, o.OneOffKWh)
	}
	if top == 0 {
		top = 1
	}
	xa := makeAxis(0, top, L, W-R, false, false)
	maxChars := int(math.Floor((L - 8) / 7.2))
	var names []string
	for _, o := range r.Options {
		names = append(names, o.Name+" "+EnergyText(o.OneOffKWh))
	}
	n := Num
	pre := ""
	if cls != "" {
		pre = ` data-pre="` + cls + `"`
	}
	v.w(`<svg class="chart"`, pre, ` viewBox="0 0 `, n(W), ` `, n(H), `" width="`, n(W), `" height="`, n(H), `"`)
	if cls != "" {
		v.w(` style="`, chartHeight(W, H), `"`)
	}
	v.w(` role="img" aria-label="`, esc("Energy by stage of each option: "+strings.Join(names, "; ")), `">`)
	present := map[string]bool{}
	for i, o := range r.Options {
		y, x := 5+float64(i)*rowH, L
		name := o.Name
		if rs := []rune(name); len(rs) > maxChars {
			name = string(rs[:maxChars-1]) + "…"
		}
		v.w(`<text class="bar-label" x="`, n(L-8), `" y="`, n(y+16), `" text-anchor="end">`, esc(name), `</text>`)
		for _, s := range o.Stages {
			e := s.EnergyKWh
			if s.Source == distill.SourceShared {
				e = 0
			}
			if s.Stage == distill.StageTeacher && o.TeacherSharedWith != "" {
				e = o.OneOffKWh - o.TotalKWh
			}
			w := xa.mapv(e) - L
			if w <= 0 {
				continue
			}
			present[s.Stage] = true
			what := s.Stage
			if s.Stage == distill.StageUnsplit {
				what = "total, no stage split published"
			}
			v.w(`<rect class="st-`, esc(s.Stage), `" x="`, fx1(x), `" y="`, n(y), `" width="`, fx1(w), `" height="`, n(rowH-10), `"><title>`, esc(what+": "+EnergyText(e)), `</title></rect>`)
			x += w
		}
		v.w(`<text class="bar-label" x="`, fx1(x+6), `" y="`, n(y+16), `">`, esc(EnergyText(o.OneOffKWh)), `</text>`)
	}
	v.w(`</svg>`)
	if !legend {
		return
	}
	var items []chartSeries
	for _, s := range [][2]string{{"prerun", "Prerun"}, {"preprocess", "Preprocess"}, {"teacher", "Teacher"}, {"student", "Student"}, {"eval", "Evaluation"}, {"unsplit", "Total only (no stage split published)"}} {
		if present[s[0]] {
			items = append(items, chartSeries{key: s[0], name: s[1], cls: "st-" + s[0] + " block"})
		}
	}
	v.w(legendHTML(items))
}

// curve is the chart of energy per student against N, at width
// W; id is added to the chart's id, cls is its data-pre; legend: with the
// legend after it (and the note that replaces the chart when there is
// none).
func (v *planView) curve(r *distill.Result, W float64, id, cls string, legend bool) {
	var dist []*distill.OptionResult
	for i := range r.Options {
		if len(r.Options[i].Curve) > 0 {
			dist = append(dist, &r.Options[i])
		}
	}
	if len(dist) == 0 {
		if legend {
			v.w(`<p class="muted">No distilled option: nothing to amortise.</p>`)
		}
		return
	}
	var titles []string
	top := math.Inf(-1)
	for _, o := range dist {
		for _, p := range o.Curve {
			top = math.Max(top, p.KWhPerStudent)
		}
		if o.BaselineStudentKWh != nil {
			top = math.Max(top, *o.BaselineStudentKWh)
		}
		t := o.Name + " does not break even"
		if o.NStar != nil {
			t = o.Name + " breaks even at N* = " + Sig(*o.NStar, 3)
		}
		titles = append(titles, t)
	}
	var b strings.Builder
	attrs, style := preAttrs(W, cls)
	f := chartFrame(&b, frameSpec{id: "curve" + id, attrs: attrs, width: W, left: 60, style: style,
		title: "Energy per student against the number of students: " + strings.Join(titles, "; "),
		x:     axisSpec{min: 1, max: 50, log: true, ticks: []float64{1, 2, 5, 10, 20, 50}, fmt: Num, label: "Students sharing the teacher stage (N)"},
		y:     axisSpec{min: 0, max: top * 1.05, label: "kWh per student"}})
	xa, ya, L, R, T, B := f.xa, f.ya, f.L, f.R, f.T, f.B
	W, H := f.W, f.H
	keys := []string{"ddp", "tp", "fsdp", "hybrid", "single"}
	var items []chartSeries
	for i, o := range dist {
		key := keys[i%len(keys)]
		d := svgPath(len(o.Curve), func(j int) (float64, float64) {
			return xa.mapv(float64(o.Curve[j].N)), ya.mapv(o.Curve[j].KWhPerStudent)
		})
		b.WriteString(`<path class="line s-` + key + `" d="` + d + `"/>`)
		if o.BaselineStudentKWh != nil {
			by := fx1(ya.mapv(*o.BaselineStudentKWh))
			b.WriteString(`<line class="line s-` + key + `" stroke-dasharray="6 4" x1="` + Num(L) + `" x2="` + Num(W-R) + `" y1="` + by + `" y2="` + by + `"/>`)
		}
		if o.NStar != nil && *o.NStar >= 1 && *o.NStar <= 50 && o.BaselineStudentKWh != nil {
			nx := fx1(xa.mapv(*o.NStar))
			ny := fx1(ya.mapv(*o.BaselineStudentKWh))
			b.WriteString(`<line class="nstar" x1="` + nx + `" x2="` + nx + `" y1="` + Num(T) + `" y2="` + Num(H-B) + `"/><circle class="mark" r="5" cx="` + nx + `" cy="` + ny + `"/>`)
			x, _ := strconv.ParseFloat(nx, 64)
			right := x > (L+W-R)/2
			tx, anchor := x+6, "start"
			if right {
				tx, anchor = x-6, "end"
			}
			b.WriteString(`<text class="mark-label" x="` + Num(tx) + `" y="` + Num(T+14+float64(i)*18) + `" text-anchor="` + anchor + `">N* = ` + esc(Sig(*o.NStar, 3)) + ` (` + esc(o.Name) + `)</text>`)
		}
		name := o.Name
		if o.Baseline != "" {
			name += " (dashed: " + o.Baseline + " student)"
		}
		items = append(items, chartSeries{key: key, name: name})
	}
	b.WriteString(`</svg>`)
	v.w(b.String())
	if legend {
		v.w(legendHTML(items))
	}
}

// plane is the chart of energy against quality with the Pareto
// front dashed, at width W (id, cls and legend as for curve).
func (v *planView) plane(r *distill.Result, W float64, id, cls string, legend bool) {
	var pts []*distill.OptionResult
	for i := range r.Options {
		if r.Options[i].Quality != nil {
			pts = append(pts, &r.Options[i])
		}
	}
	if len(pts) == 0 {
		if legend {
			v.w(`<p class="muted">No option has a quality score: give Q to place options on the plane.</p>`)
		}
		return
	}
	xmax, qmin, qmax := math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, o := range pts {
		xmax = math.Max(xmax, o.OneOffKWh)
		qmin, qmax = math.Min(qmin, *o.Quality), math.Max(qmax, *o.Quality)
	}
	var par, dom []string
	for _, p := range r.Pareto {
		par = append(par, p.Name)
	}
	for _, d := range r.Dominated {
		dom = append(dom, d.Name)
	}
	domText := strings.Join(dom, ", ")
	if domText == "" {
		domText = "none"
	}
	var b strings.Builder
	attrs, style := preAttrs(W, cls)
	f := chartFrame(&b, frameSpec{id: "plane" + id, attrs: attrs, width: W, left: 60, style: style,
		title: "Energy–quality plane. Pareto-efficient: " + strings.Join(par, ", ") + ". Dominated: " + domText,
		x:     axisSpec{min: 0, max: xmax * 1.1, label: "One-off pipeline energy (kWh)"},
		y:     axisSpec{min: math.Max(0, qmin-0.05), max: math.Min(1.05, qmax+0.05), label: "Quality Q (0 to 1)"}})
	xa, ya := f.xa, f.ya
	front := append([]distill.Point(nil), r.Pareto...)
	sort.SliceStable(front, func(i, j int) bool { return front[i].EnergyKWh < front[j].EnergyKWh })
	if len(front) > 1 {
		var d strings.Builder
		for i, p := range front {
			x, y := fx1(xa.mapv(p.EnergyKWh)), fx1(ya.mapv(p.Quality))
			if i == 0 {
				d.WriteString("M" + x + " " + y)
			} else {
				d.WriteString("H" + x + "V" + y)
			}
		}
		b.WriteString(`<path class="front" d="` + d.String() + `"/>`)
	}
	onFront := map[string]bool{}
	for _, p := range r.Pareto {
		onFront[p.Name] = true
	}
	for _, o := range pts {
		x, y := xa.mapv(o.OneOffKWh), ya.mapv(*o.Quality)
		key := map[string]string{distill.RegimeSFT: "single", distill.RegimeKD: "ddp", distill.RegimeSynthetic: "tp"}[o.Regime]
		if key == "" {
			key = "fsdp"
		}
		rad, suffix := "5", " (dominated)"
		if onFront[o.Name] {
			rad, suffix = "7", ""
		}
		b.WriteString(`<circle class="pt s-` + key + `" style="fill:var(--s-` + key + `)" r="` + rad + `" cx="` + fx1(x) + `" cy="` + fx1(y) + `"/>`)
		anchor, dx := "start", 10.0
		if x > f.W-140 {
			anchor, dx = "end", -10
		}
		b.WriteString(`<text class="mark-label" x="` + fx1(x+dx) + `" y="` + fx1(y+4) + `" text-anchor="` + anchor + `">` + esc(o.Name) + suffix + `</text>`)
	}
	b.WriteString(`</svg>`)
	v.w(b.String())
	if legend {
		v.w(legendHTML([]chartSeries{{key: "single", name: "Direct SFT"}, {key: "ddp", name: "Logit KD"}, {key: "tp", name: "Synthetic-data SFT"}}))
	}
}

// tstar is the list of serving thresholds.
func (v *planView) tstar(r *distill.Result) {
	var ts []*distill.OptionResult
	for i := range r.Options {
		if r.Options[i].TStarTokens != nil {
			ts = append(ts, &r.Options[i])
		}
	}
	if len(ts) == 0 {
		return
	}
	v.w(`<h2 class="h">Serving threshold T*</h2><ul>`)
	for _, o := range ts {
		v.w(`<li data-tstar="`, Num(*o.TStarTokens), `"><strong>`, esc(o.Name), `</strong>: `, esc(Sig(*o.TStarTokens, 3)), ` served tokens repay its `, esc(EnergyText(o.ExtraTrainKWh)), ` of extra training energy.</li>`)
	}
	v.w(`</ul>`)
}

// notes is the warnings, the whole plan's line and the assumptions.
func (v *planView) notes(r *distill.Result) {
	v.w(noteList(`<div class="warnings" role="note"><h3>Warnings</h3>`, v.out.Warnings, `</div>`)) // in the form's words
	s := r.Site
	region := ""
	if s.Region != "" {
		region = " (" + esc(s.Region) + ")"
	}
	v.w(`<p class="muted small">Whole plan: `, esc(EnergyText(r.PlanTotalKWh)), `, `, esc(MassText(r.PlanCO2eKg)), ` and `, esc(USD(r.PlanCostUSD)),
		` at PUE `, esc(Sig(s.PUE, 3)), `, `, esc(Sig(s.CarbonGPerKWh, 3)), ` g CO₂e/kWh`, region, ` and $`, esc(Sig(s.USDPerKWh, 3)), `/kWh. `,
		`Preset stage energies: `, esc(v.pm.Citation), `.</p>`, assumptionsHTML(r.Assumptions))
}
