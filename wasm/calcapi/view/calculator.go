package view

// The prerendered calculator.
//
// The generator computes the calculator's default estimate at build time
// with the same Go code as the browser's WebAssembly (wasm/calcapi, which
// is native Go) and writes the whole calculator into the page: the form
// with its values and hints, the numbers, the breakdown, the charts and
// the snippets. The page thus shows a complete estimate before any script
// runs, and without JavaScript at all. calc.wasm draws the calculator
// with the same code at run time (Calc.Render), and calc.js morphs that
// markup into the page's nodes, so that when the WebAssembly takes over
// nothing moves.

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/internal/jsonv"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/wasm/calcapi"
)

// prerenderUID is the id prefix of the form's datalists and sections.
const prerenderUID = "crpre"

var sweepStrategies = []string{"single", "ddp", "fsdp", "tp"}

// sweepCounts is the GPU counts the charts show.
func sweepCounts(count int) []int {
	top := 64
	for top < 4*count && top < 4096 {
		top *= 2
	}
	var out []int
	for n := 1; n <= min(16, top); n++ {
		out = append(out, n)
	}
	for p := 16; p < top; p *= 2 {
		for _, m := range []float64{1.25, 1.5, 1.75, 2} {
			out = append(out, int(float64(p)*m+0.5))
		}
	}
	return out
}

// calcView writes the calculator for one output.
type calcView struct {
	meta  *calcapi.Meta
	state calcapi.Form
	out   *calcapi.EstimateOutput
	embed bool
	b     bytes.Buffer
	// rows are the field table's rows by key: the calculator's
	// (meta.Fields), or the planner's (planView.markup).
	rows map[string]model.Field
	// toggle: a field whose row's "when" does not hold is hidden, as
	// hidden (the planner hides its own).
	toggle bool
	// placed holds the form keys the layout writes; every other row of the
	// field table gets an input at the end of its group's fieldset
	// (extras).
	placed map[string]bool
	shown  int // fields written that apply (group)
	// controls draw the layout's keys whose Item.Control names them.
	controls map[string]func(key string) string
	// blankSelects: an empty value that no option has selects nothing
	// (the planner's selects; the calculator adds an option for it).
	blankSelects bool
	// partsOnly: the caller takes the parts alone (Calc.RenderOf with
	// RenderInput.Parts), so markup leaves the whole page's copy out.
	partsOnly bool

	// At run time (Calc): errs are the form's errors, marked beside their
	// inputs; out is then the previous estimate, shown dimmed (stale), or,
	// with none, the default's, hidden (empty). modelHint, when set,
	// replaces the model field's hint. widths are the charts' boxes'
	// widths (0: the prerender's).
	errs []*calcapi.Error
	// advice is the recommender's panel (Advice), "" = drawn later.
	advice       string
	stale, empty bool
	modelHint    string
	widths       Widths
	// parts are the markup's parts that change from one state to the
	// next, each one element marked data-part (part).
	parts []Part
	// The planner's: what its figures are ("plan"; "" = "estimate"),
	// which of its fields are hidden (instead of toggle), and the keys
	// written as selects.
	what    string
	hidden  func(key string) bool
	selects map[string]bool
}

// Part is one element of the calculator's markup, marked data-part="Key":
// the page morphs only the parts whose markup changed.
type Part struct {
	Key  string `json:"key"`
	HTML string `json:"html"`
}

// part records the markup written since start as the part key.
func (c *calcView) part(key string, start int) {
	c.parts = append(c.parts, Part{key, string(c.b.Bytes()[start:])})
}

// Widths are the widths, in CSS pixels, of the boxes the calculator's
// charts are drawn in (0: unknown, the prerendered page's).
type Widths struct {
	E float64 `json:"e,omitempty"`
	T float64 `json:"t,omitempty"`
}

// item writes one item of the form's layout (calcapi.Layout).
func (c *calcView) item(it calcapi.Item) {
	if it.Key != "" {
		if draw := c.controls[it.Control]; draw != nil {
			c.w(draw(it.Key))
		} else {
			c.w(c.input(it.Key, ""))
		}
		return
	}
	body := func() {
		for _, sub := range it.Items {
			c.item(sub)
		}
	}
	switch {
	case it.Toggle:
		c.group(it.Grid, body)
	case it.Grid != "":
		c.w(`<div class="`, it.Grid, `">`)
		body()
		c.w(`</div>`)
	default:
		body()
	}
}

// fieldset writes one fieldset of a form's layout: legend, items and
// note, then, with extras (the calculator),
// the rows of the section's group that the layout did not place.
func (c *calcView) fieldset(sec calcapi.Section, extras bool) {
	c.fieldsetPart(sec, extras, "")
}

// fieldsetPart is fieldset, marked as the part key of the markup ("" =
// none; see part).
func (c *calcView) fieldsetPart(sec calcapi.Section, extras bool, key string) {
	start := c.b.Len()
	if key != "" {
		c.w(`<fieldset data-part="`, key, `"><legend>`, esc(sec.Legend), `</legend>`)
	} else {
		c.w(`<fieldset><legend>`, esc(sec.Legend), `</legend>`)
	}
	defer func() {
		if key != "" {
			c.part(key, start)
		}
	}()
	for _, it := range sec.Items {
		c.item(it)
	}
	if sec.Note != "" {
		c.w(`<p class="hint">`, esc(sec.Note), `</p>`)
	}
	if extras {
		c.w(c.extras(sec.Group))
	}
	c.w(`</fieldset>`)
}

// extras returns the inputs of the field table's rows in group that the
// layout did not place, in table order, each with its help as a tooltip
// (every other row of the field table gets a plain input in its group's
// fieldset).
func (c *calcView) extras(group string) string {
	var b strings.Builder
	for _, f := range c.meta.Fields {
		if f.Group == group && !c.placed[f.Key] {
			b.WriteString(c.input(f.Key, f.Help))
		}
	}
	return b.String()
}

func (c *calcView) w(s ...string) {
	for _, x := range s {
		c.b.WriteString(x)
	}
}

// query is the share link's query: the active keys in form order.
func (c *calcView) query() string {
	var parts []string
	for _, k := range c.state.Active() {
		parts = append(parts, calcapi.QueryEscape(k)+"="+calcapi.QueryEscape(c.state[k]))
	}
	return strings.Join(parts, "&")
}

// hides reports whether the field of key is hidden (toggle).
func (c *calcView) hides(key string) bool {
	if c.hidden != nil {
		return c.hidden(key)
	}
	f, ok := c.rows[key]
	return c.toggle && ok && !f.When.Holds(func(k string) string { return c.state[k] })
}

func (c *calcView) markup() (string, error) {
	m, s, r := c.meta, c.state, c.out.Response
	c.b.Grow(96 << 10) // the whole calculator is about 45 KB: one allocation
	if r == nil {
		return "", errors.New("prerender: no response")
	}
	var pres *calcapi.PresetInfo
	for i := range m.Presets {
		if m.Presets[i].Name == r.Inputs.Model {
			pres = &m.Presets[i]
		}
	}
	// The hints under the model, GPU, region and calibration fields.
	modelHint, gpuHint, regionHint, calHint := "", "", "your own figure, g CO₂e per kWh", ""
	if pres != nil {
		modelHint = pres.Family + ", " + ParamsText(pres.ParamsPublished) + " parameters (" + strings.Split(pres.Source, ";")[0] + ")"
	} else {
		modelHint = "custom shape: " + ParamsText(r.Proxies.Params) + " parameters counted"
	}
	for _, g := range m.GPUs {
		if g.ID == r.Inputs.GPU {
			gpuHint = g.Name + " · " + Num(g.MemoryGB) + " GB · " + Num(g.BoardPowerW) + " W · " + g.Interconnect + " · " + strings.Join(g.Precisions, ", ")
		}
	}
	for _, reg := range m.Regions {
		if reg.ID == s["region"] {
			regionHint = reg.Source
		}
	}
	for _, cal := range m.Calibrations {
		if cal.Name == r.Calibration.Name {
			calHint = cal.Title
			if cal.Own {
				calHint = "Yours: fitted on this page and kept in this browser. " + calHint
			}
			if f := failedChecks(cal); f != "" {
				calHint = "Yours, used although it failed its fit checks: " + f + ". " + cal.Title
			}
		}
	}
	if c.modelHint != "" {
		modelHint = c.modelHint
	}

	c.rows, c.toggle = map[string]model.Field{}, true
	for _, f := range m.Fields {
		c.rows[f.Key] = f
	}
	c.w(`<div class="calc-layout">`)
	if !c.embed {
		start := c.b.Len()
		c.summary(r)
		c.part("sum", start)
	}
	// The results come before the form in the document (calc.css places
	// the form in the left column on a wide screen and above the results
	// on a narrow one): the first paint waits for the headline to be
	// parsed (the head's <link rel=expect href=#energy>), and it need not
	// wait for the form's 60 fields to be parsed, styled and laid out.
	cls, status := "results", `<div class="status" role="status" aria-live="polite" data-pending="`+PendingText+`"></div>`
	if len(c.errs) > 0 {
		cls += " stale"
		if c.empty {
			cls += " empty"
		}
		status = `<div class="status" role="alert" aria-live="polite" data-kind="error" data-pending="` + PendingText + `">` + esc(c.errorBanner()) + `</div>`
	}
	start := c.b.Len()
	c.w(`<section class="`, cls, `" aria-label="Estimate" id="`+prerenderUID+`-res" tabindex="-1" data-part="res">`, status)
	c.results(r)
	c.w(`</section>`)
	c.part("res", start)
	c.w(`<form class="calc-form" novalidate="" aria-label="Training configuration">`)
	def := ""
	for _, cal := range m.Calibrations {
		if cal.Default && def == "" {
			def = cal.Name
		}
	}
	cals := []option{{"", "Default (" + def + ")"}}
	for _, cal := range m.Calibrations {
		yours := ""
		if cal.Own {
			yours = "; yours, fitted in this browser"
		}
		if len(cal.Checks) > 0 {
			yours += ", failed checks"
		}
		cals = append(cals, option{cal.Name, cal.Name + " " + cal.Version + " (" + cal.Kind + yours + ")"})
	}
	c.controls = map[string]func(key string) string{
		calcapi.ControlPresets: func(k string) string {
			return c.field(k, c.rows[k].Label, c.textInput(k, "text", prerenderUID+"-presets"), &modelHint)
		},
		calcapi.ControlGPUs: func(k string) string {
			return c.field(k, c.rows[k].Label, c.textInput(k, "text", prerenderUID+"-gpus"), &gpuHint)
		},
		calcapi.ControlRegions: func(k string) string {
			return c.field(k, c.rows[k].Label, c.sel(k, regionOptions(m)), &regionHint)
		},
		calcapi.ControlCalibrations: func(k string) string { return c.field(k, c.rows[k].Label, c.sel(k, cals), &calHint) },
		calcapi.ControlRadios:       c.radios,
	}
	for i, sec := range m.Layout {
		c.fieldsetPart(sec, true, "fs"+strconv.Itoa(i))
	}
	start = c.b.Len()
	c.w(`<p class="err form-err" id="`+prerenderUID+`-formerr" aria-live="polite" data-part="err">`, esc(c.formErr()), `</p>`)
	c.part("err", start)
	if !c.partsOnly { // the lists are in no part
		c.w(`<datalist id="` + prerenderUID + `-presets">`)
		for _, p := range m.Presets {
			c.w(`<option value="`, esc(p.Name), `">`, esc(p.Family+" · "+ParamsText(p.ParamsPublished)), `</option>`)
		}
		for _, p := range m.Presets { // the hub ids, whose config.json the preset is
			if p.Hub != "" {
				c.w(`<option value="`, esc(p.Hub), `">`, esc(p.Name+" · Hugging Face config.json"), `</option>`)
			}
		}
		c.w(`<option value="custom">custom shape</option></datalist>`)
		c.w(`<datalist id="` + prerenderUID + `-gpus">`)
		for _, g := range m.GPUs {
			c.w(`<option value="`, esc(g.ID), `">`, esc(g.Name), `</option>`)
		}
		c.w(`</datalist>`)
	}
	c.w(`</form></div>`)
	if c.embed {
		// The link to the full calculator follows the embedded one's edits.
		start := c.b.Len()
		c.w(`<p class="embed-foot" data-part="foot"><a href="index.html?`, esc(c.query()), `" class="open-full" target="_blank" rel="noopener">Open in the full wattscale calculator</a></p>`)
		c.part("foot", start)
	}
	if c.partsOnly {
		return "", nil
	}
	return c.b.String(), nil
}

// results is the results section.
func (c *calcView) results(r *model.Response) {
	p := r.Inputs
	ev, eu := EnergyParts(r.EnergyKWh)
	kwh := Num
	c.w(`<div class="headline"><p class="kicker">Accelerator energy</p>`,
		`<p class="big">`, c.energyOutput(ev, eu, kwh(r.EnergyKWh)), `</p>`,
		`<p class="interval">`, esc(Pct(r.IntervalLevel)), ` interval `,
		`<span class="num" data-kwh="`, kwh(r.EnergyIntervalKWh[0]), `">`, esc(EnergyText(r.EnergyIntervalKWh[0])), `</span> – `,
		`<span class="num" data-kwh="`, kwh(r.EnergyIntervalKWh[1]), `">`, esc(EnergyText(r.EnergyIntervalKWh[1])), `</span>`,
		` · `, esc(EnergyText(r.FacilityEnergyKWh)), ` at the wall with PUE `, esc(Sig(p.PUE, 3)), `</p>`)
	cu := r.Calibration
	env := ", outside its fitted range: interval widened (see below)"
	if cu.InEnvelope {
		env = ", inside its fitted range"
	}
	if cal, _ := c.calInfo(cu.Name); cal.Own && len(cal.Checks) > 0 {
		env = ": your calibration failed its fit checks, so this is not an estimate you can rely on"
	}
	c.w(`<p class="calline muted small">`, esc("Calibration "+cu.Name+" "+cu.Version+" ("+cu.Kind+c.yours(cu.Name)+")"+env+" · accelerator energy only; the wall figure adds PUE"), `</p></div>`)

	plural := ""
	if p.Count > 1 {
		plural = "s"
	}
	region := ""
	if p.Region != "" {
		region = " (" + p.Region + ")"
	}
	eta, etaSub := "1", "one GPU: no parallel overhead"
	if r.Parallel.GPUs > 1 {
		eta = Sig(r.Parallel.Efficiency, 2)
		etaSub = "speedup " + Sig(r.Parallel.Speedup, 3) + "× on " + strconv.Itoa(r.Parallel.GPUs) + " GPUs (" + r.Parallel.Law + ")"
	}
	lvl := Pct(r.IntervalLevel)
	pl := r.PowerLimit
	powerSub := "the default: the run draws about " + Sig(pl.UncappedDrawW, 3) + " W per GPU"
	if pl.TimeFactor != 1 {
		powerSub = "per GPU: time ×" + Sig(pl.TimeFactor, 3) + ", energy ×" + Sig(pl.EnergyFactor, 3) + " (fitted on the Zeus power-capped runs)"
	}
	cards := [][4]string{
		{"Time", Duration(r.TimeS), lvl + " interval " + Duration(r.TimeIntervalS[0]) + " – " + Duration(r.TimeIntervalS[1]), "time"},
		{"Average power", PowerText(r.AvgPowerW), "all " + strconv.Itoa(p.Count) + " GPU" + plural + " together", "power"},
		{"GPU-hours", Sig(r.GPUHours, 3), strconv.Itoa(p.Count) + " × " + p.GPUName, "gpuh"},
		{"CO₂e", MassText(r.CO2eKg), lvl + " interval " + MassText(r.CO2eIntervalKg[0]) + " – " + MassText(r.CO2eIntervalKg[1]) + "; " + Sig(p.CarbonGPerKWh, 3) + " g/kWh" + region +
			"; plus " + MassText(r.EmbodiedCO2eKg) + " embodied (manufacturing, " + Sig(r.Embodied.KgPerGPUHour*1000, 3) + " g per GPU-hour, Luccioni et al. 2023), not in energy", "co2"},
		{"Power limit", Num(r.PowerLimit.LimitW) + " W", powerSub, "power-limit"},
		{"Cost of electricity", USD(r.CostUSD), "at $" + Sig(p.USDPerKWh, 3) + " per kWh, PUE " + Sig(p.PUE, 3), "cost"},
		{"Parallel efficiency η", eta, etaSub, "eta"},
	}
	cards = append(cards, c.methodCards(r)...)
	c.w(`<dl class="cards">`)
	for _, k := range cards {
		c.w(`<div class="card" data-card="`, k[3], `"><dt>`, esc(k[0]), `</dt><dd><span class="v">`, esc(k[1]), `</span><span class="sub">`, esc(k[2]), `</span></dd></div>`)
	}
	c.w(`</dl>`)
	c.w(`<h2 class="h">Where the energy goes</h2><div class="breakdown">`)
	c.breakdown(r)
	c.w(`</div><div class="prov">`)
	c.provenance(r)
	c.w(`</div><div class="notes">`)
	c.notes(r)
	c.w(`</div>`)
	c.w(`<h2 class="h">Energy and time against GPU count</h2>`,
		`<p class="muted small chart-note">Same model, tokens and batch per GPU; each line is a strategy, the ring is your configuration. More GPUs finish sooner but parallel overhead costs energy.</p>`)
	c.charts(r)
	if !c.embed {
		c.w(`<section class="cheaper" aria-labelledby="cheaper-h"><h2 class="h" id="cheaper-h">Cheaper ways to run this</h2>`,
			`<p class="muted small">The same model, tokens and global batch (your sequences per optimizer step: each configuration’s micro-batch and gradient accumulation are chosen to reproduce it and fit in memory) on every GPU type of the table (up to 64 each), every layout and eight power limits: `,
			`each marker is a configuration no other beats on both energy and time. Select one (click, or Tab then Enter) to load it into the form.</p>`,
			`<div class="cheaper-ctl grid2">`, c.inputs("deadline", "minimise", "only_gpu"),
			`</div><div class="cheaper-out" data-js="" data-part="adv" data-fail="`+AdviceFailed+`">`, c.advice, `</div></section>`)
		c.w(`<h2 class="h">Share and cite</h2><div class="share" data-copied="` + CopyDone + `" data-copy-failed="` + CopyFailed + `">`)
		c.share()
		c.w(`</div>`)
	}
}

func (c *calcView) breakdown(r *model.Response) {
	b, total := r.Breakdown, r.EnergyKWh
	parts := []struct {
		key, name string
		kwh       float64
	}{{"compute", "Compute", b.ComputeKWh}, {"memory", "Memory traffic and step latency", b.MemoryKWh}, {"host", "Waiting for the host to launch kernels", b.HostWaitKWh}, {"parallel", "Parallel overhead", b.ParallelKWh}, {"fixed", "Start-up and first-step warm-up (fixed)", b.FixedKWh + b.WarmupKWh}}
	const W, H = 560.0, 28
	x := 0.0
	var rects, desc, rows []string
	for _, p := range parts {
		w := max(0, p.kwh/total*W)
		rects = append(rects, `<rect class="b-`+p.key+`" x="`+ToFixed(x, 2)+`" y="0" width="`+ToFixed(w, 2)+`" height="28"/>`)
		x += w
		desc = append(desc, p.name+" "+EnergyText(p.kwh)+" ("+Pct(p.kwh/total)+")")
		rows = append(rows, `<tr><th scope="row"><span class="swatch b-`+p.key+`" aria-hidden="true"></span>`+esc(p.name)+`</th><td>`+esc(EnergyText(p.kwh))+`</td><td>`+esc(Pct(p.kwh/total))+`</td></tr>`)
	}
	bound := "Memory-bound"
	if r.Roofline.Bound == "compute" {
		bound = "Compute-bound"
	}
	rf := r.Roofline
	c.w(`<svg class="bar" viewBox="0 0 560 28" preserveAspectRatio="none" role="img" aria-label="`, esc("Energy breakdown: "+strings.Join(desc, "; ")), `">`, strings.Join(rects, ""), `</svg>`,
		`<table class="bd"><caption class="offscreen">Energy breakdown</caption><tbody>`, strings.Join(rows, ""), `</tbody></table>`,
		`<p class="muted small">`, esc(bound), `: arithmetic intensity `, esc(Sig(rf.ArithmeticIntensity, 3)),
		` FLOP/byte against a machine balance of `, esc(Sig(rf.MachineBalance, 3)), ` (`, esc(Sig(rf.PeakTFLOPS, 3)), ` TFLOP/s peak at `, esc(string(r.Inputs.Precision)), `). `,
		`Roofline floor `, esc(EnergyText(rf.EnergyLowerBoundKWh)), `; `, esc(Sig(rf.FLOPs, 3)), ` FLOPs in all.</p>`)
}

func (c *calcView) provenance(r *model.Response) {
	cu := r.Calibration
	env := `<span class="ok">inside the range it was fitted on</span>`
	if !cu.InEnvelope {
		env = `<span class="warn-t">outside the range it was fitted on</span> (` + esc(strings.Join(cu.Outside, "; ")) + `), so the interval is widened`
	}
	c.w(`<h2 class="h">Where these numbers come from</h2>`,
		`<p>Calibration <strong class="cal-name">`, esc(cu.Name), `</strong> version <span class="cal-version">`, esc(cu.Version), `</span> (`, esc(cu.Kind), `): `, env, `. `,
		`<span class="interval-note">`, esc(c.out.Interval), `</span></p>`,
		`<p class="muted small cite">`, esc(cu.Citation), `</p>`)
}

func (c *calcView) notes(r *model.Response) {
	env, warns := c.out.Envelope, c.out.Warnings
	c.w(noteList(`<div class="warnings envelope" role="note"><h3>Outside the range this calibration was fitted on</h3>`, env, `</div>`),
		noteList(`<div class="warnings" role="note"><h3>Warnings</h3>`, warns, `</div>`), assumptionsHTML(c.out.Assumptions))
}

// noteList is a list of notes (warnings, assumptions) between
// open and close; "" when there are none.
func noteList(open string, items []string, close string) string {
	if len(items) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(open + `<ul>`)
	for _, x := range items {
		b.WriteString(`<li>` + esc(x) + `</li>`)
	}
	return b.String() + `</ul>` + close
}

// assumptionsHTML is the folded list of an answer's assumptions.
func assumptionsHTML(as []string) string {
	return noteList(`<details class="assumptions"><summary>Assumptions used (`+strconv.Itoa(len(as))+`)</summary>`, as, `</details>`)
}

func (c *calcView) charts(r *model.Response) {
	type ser struct {
		key, name string
		e, t      [][2]float64
		bad       []model.SweepPoint
	}
	series := make([]*ser, len(sweepStrategies))
	idx := map[string]int{}
	for i, s := range sweepStrategies {
		series[i] = &ser{key: s, name: model.RequestField("strategy").Text(s)}
		idx[s] = i
	}
	for _, p := range c.out.Sweep {
		i, ok := idx[p.Strategy]
		if !ok {
			continue
		}
		if p.Error != "" {
			series[i].bad = append(series[i].bad, p)
			continue
		}
		series[i].e = append(series[i].e, [2]float64{float64(p.GPUs), p.EnergyKWh})
		series[i].t = append(series[i].t, [2]float64{float64(p.GPUs), p.TimeS / 3600})
	}
	n, strat := r.Parallel.GPUs, r.Parallel.Strategy
	label := strconv.Itoa(n) + " × " + strings.ToUpper(strat)
	if strat == model.Hybrid {
		label = strconv.Itoa(n) + " × hybrid"
	}
	_, eUnit := EnergyParts(r.EnergyKWh)
	eScale := map[string]float64{"Wh": 1000, "kWh": 1, "MWh": 1e-3, "GWh": 1e-6}[eUnit]
	var es, ts, shown []chartSeries
	for _, s := range series {
		var pe [][2]float64
		for _, p := range s.e {
			pe = append(pe, [2]float64{p[0], p[1] * eScale})
		}
		es = append(es, chartSeries{name: s.name, key: s.key, pts: pe})
		ts = append(ts, chartSeries{name: s.name, key: s.key, pts: s.t})
		if len(s.e) == 0 {
			shown = append(shown, chartSeries{name: s.name, key: s.key, note: "— " + absent(s.bad).String()})
			continue
		}
		name := s.name
		if len(s.bad) > 0 {
			fits, bad := make([]float64, len(s.e)), make([]float64, len(s.bad))
			for i, p := range s.e {
				fits[i] = p[0]
			}
			for i, p := range s.bad {
				bad[i] = float64(p.GPUs)
			}
			if minOf(fits) > maxOfF(bad) {
				why := absent(s.bad).Lead(true)
				name += " (from " + Num(minOf(fits)) + " GPUs; fewer " + why + ")"
			} else {
				name += " (not possible at " + strconv.Itoa(len(bad)) + " of " + strconv.Itoa(len(bad)+len(fits)) + " GPU counts: " + absent(s.bad).Detail() + ")"
			}
		}
		shown = append(shown, chartSeries{name: name, key: s.key})
	}
	desc := func(energy bool) string {
		var parts []string
		for _, s := range series {
			if len(s.e) == 0 {
				parts = append(parts, s.name+": "+absent(s.bad).String())
				continue
			}
			a := s.t
			if energy {
				a = s.e
			}
			last := a[len(a)-1]
			var mid string
			if energy {
				mid = EnergyText(a[0][1]) + " at " + Num(a[0][0]) + " GPU to " + EnergyText(last[1])
			} else {
				mid = Duration(a[0][1]*3600) + " at " + Num(a[0][0]) + " GPU to " + Duration(last[1]*3600)
			}
			parts = append(parts, s.name+": "+strconv.Itoa(len(a))+" points, "+mid+" at "+Num(last[0])+" GPUs")
		}
		return strings.Join(parts, ". ")
	}
	fmtN := func(v float64) string { return Sig(v, 2) }
	// The page hands the boxes' widths to the next answer (data-width;
	// CalcCall.Widths), unless there is no estimate to draw.
	measure := ` data-width=""`
	if c.empty {
		measure = ""
	}
	c.w(`<div class="charts"><figure class="chart-e"`+measure+`>`, lineChart(lineChartSpec{id: "chart-energy", title: "Energy against GPU count by strategy", desc: desc(true), series: es, xBase2: true,
		xLabel: "GPUs", yLabel: "Energy (" + eUnit + ")", fmtY: fmtN, mark: &chartMark{float64(n), r.EnergyKWh * eScale, label}, width: c.widths.E}), `<figcaption>Accelerator energy</figcaption></figure>`)
	c.w(`<figure class="chart-t"`+measure+`>`, lineChart(lineChartSpec{id: "chart-time", title: "Training time against GPU count by strategy", desc: desc(false), series: ts, xBase2: true,
		xLabel: "GPUs", yLabel: "Time (hours)", fmtY: fmtN, mark: &chartMark{float64(n), r.TimeS / 3600, label}, width: c.widths.T}), `<figcaption>Wall-clock time</figcaption></figure></div>`)
	c.w(`<div class="legend-wrap">`, legendHTML(shown), `</div>`)
}

func (c *calcView) share() {
	// The request as the command line reads it, keys sorted, two spaces
	// an indent (jsonv.Indent writes what encoding/json's indented
	// encoder writes for it).
	var req string
	if v, err := jsonv.Parse(c.out.Request); err == nil {
		req = string(jsonv.Indent(nil, v, "  "))
	}
	sn := c.out.Snippets
	c.w(`<div class="share-row"><label for="share-url">Link to this estimate</label><div class="row"><input id="share-url" type="text" readonly="" value="?`, esc(c.query()), `"><button type="button" class="btn" data-copy="url">Copy link</button></div></div>`,
		`<div class="snip"><div class="snip-h"><h3 id="card-h">Hugging Face model card (<code>co2_eq_emissions</code>)</h3><button type="button" class="btn" data-copy="card" aria-describedby="card-h">Copy</button></div><pre id="snip-card" tabindex="0" aria-labelledby="card-h">`, esc(sn.ModelCard), `</pre></div>`,
		`<div class="snip"><div class="snip-h"><h3 id="cite-h">Sentence for a paper</h3><button type="button" class="btn" data-copy="cite" aria-describedby="cite-h">Copy</button></div><p id="snip-cite" class="cite-text">`, esc(sn.Citation), `</p></div>`,
		`<details class="snip"><summary>Request JSON for the command line</summary><div class="snip-h"><p class="muted small"><code>go run ./site estimate &lt; request.json</code> gives the same answer.</p><button type="button" class="btn" data-copy="req">Copy</button></div><pre id="snip-req" tabindex="0" aria-label="Request JSON">`, esc(req), `</pre></details>`)
}

// summary is the estimate's summary above the form (on a phone the form
// comes first).
func (c *calcView) summary(r *model.Response) {
	if c.empty {
		// No estimate yet for this form: the numbers go, the summary
		// stays in view.
		c.w(`<a class="summary" href="#`+prerenderUID+`-res" aria-label="Estimate summary: jump to the full estimate" data-part="sum">`,
			`<span class="s-e"><span class="s-k">Energy</span> <output id="sum-energy" data-kwh=""></output></span>`,
			`<span class="s-i"></span><span class="s-t"></span><span class="s-c"></span><span class="s-go" aria-hidden="true">Details ↓</span></a>`)
		return
	}
	c.w(`<a class="summary" href="#`+prerenderUID+`-res" aria-label="Estimate summary: jump to the full estimate" data-part="sum">`,
		`<span class="s-e"><span class="s-k">Energy</span> <output id="sum-energy" data-kwh="`, Num(r.EnergyKWh), `">`, esc(EnergyText(r.EnergyKWh)), `</output></span>`,
		`<span class="s-i">`, esc(Pct(r.IntervalLevel)+" "+EnergyText(r.EnergyIntervalKWh[0])+" – "+EnergyText(r.EnergyIntervalKWh[1])), `</span>`,
		`<span class="s-t">`, esc(Duration(r.TimeS)), `</span><span class="s-c">`, esc(MassText(r.CO2eKg)), `</span>`,
		`<span class="s-go" aria-hidden="true">Details ↓</span></a>`)
}

// absent is why a strategy has no point at some GPU counts of the sweep,
// from the first refused point's code and numbers (calcapi.AbsenceOf).
func absent(bad []model.SweepPoint) calcapi.Absence {
	if len(bad) == 0 {
		return calcapi.AbsenceOf(nil)
	}
	return calcapi.AbsenceOf(&bad[0])
}
