package view

// Number formatting and SVG charts for the calculator and the planner,
// the same at build time and in the WebAssembly. (They were written to
// print what the page's script printed when it drew the calculator, which
// is why ToFixed and Num follow JavaScript's rules; site/gen/format.go
// formats the other pages in the site's own style.)

import (
	"html"
	"math"
	"strconv"
	"strings"
)

// ToFixed is Number.prototype.toFixed: the exact value of x rounded to
// d decimals, a tie going away from zero. (strconv rounds a tie to even;
// an exact tie at d decimals is a value whose 2^(d+1) multiple is an odd
// whole number, and its shortest form is then its exact decimal.)
func ToFixed(x float64, d int) string {
	a := math.Abs(x)
	var s string
	if y := math.Ldexp(a, d+1); y == math.Trunc(y) && math.Mod(y, 2) == 1 {
		s = roundHalfUp(strconv.FormatFloat(a, 'f', -1, 64), d)
	} else {
		s = strconv.FormatFloat(a, 'f', d, 64)
	}
	if x < 0 && strings.Trim(s, "0.") != "" {
		return "-" + s
	}
	return s
}

// roundHalfUp rounds a non-negative decimal string to d decimals, a tie
// going up.
func roundHalfUp(s string, d int) string {
	whole, frac, _ := strings.Cut(s, ".")
	for len(frac) <= d {
		frac += "0"
	}
	keep := []byte(whole + frac[:d])
	if frac[d] >= '5' {
		i := len(keep) - 1
		for ; i >= 0; i-- {
			if keep[i] == '9' {
				keep[i] = '0'
				continue
			}
			keep[i]++
			break
		}
		if i < 0 {
			keep = append([]byte{'1'}, keep...)
		}
	}
	w := len(keep) - d
	out := string(keep[:w])
	out = strings.TrimLeft(out, "0")
	if out == "" {
		out = "0"
	}
	if d > 0 {
		out += "." + string(keep[w:])
	}
	return out
}

// Num is JavaScript's String(x) for the numbers the script prints
// unformatted (GPU memory, board power, tick values of a base-2 axis,
// data-kwh attributes): the shortest decimal that reads back as x, with an
// exponent ("1e-7", "1e+21") outside 1e-6 to 1e21.
func Num(x float64) string {
	if a := math.Abs(x); x == 0 || a >= 1e-6 && a < 1e21 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	s := strconv.FormatFloat(x, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(exp)
	if e > 0 {
		return mant + "e+" + strconv.Itoa(e)
	}
	return mant + "e" + strconv.Itoa(e)
}

func EnergyParts(kwh float64) (string, string) {
	a := math.Abs(kwh)
	switch {
	case a < 1:
		return Sig(kwh*1000, 3), "Wh"
	case a < 1e4:
		return Sig(kwh, 3), "kWh"
	case a < 1e7:
		return Sig(kwh/1000, 3), "MWh"
	}
	return Sig(kwh/1e6, 3), "GWh"
}

func EnergyText(kwh float64) string { v, u := EnergyParts(kwh); return v + " " + u }

func MassText(kg float64) string {
	a := math.Abs(kg)
	switch {
	case a < 1:
		return Sig(kg*1000, 3) + " g CO₂e"
	case a < 1000:
		return Sig(kg, 3) + " kg CO₂e"
	}
	return Sig(kg/1000, 3) + " t CO₂e"
}

func PowerText(w float64) string {
	if w < 1e4 {
		return Sig(w, 3) + " W"
	}
	return Sig(w/1000, 3) + " kW"
}

func USD(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "—"
	}
	if a := math.Abs(x); a < 1 || a >= 1e6 {
		return "$" + Sig(x, 3)
	}
	whole, frac, _ := strings.Cut(strconv.FormatFloat(math.Abs(x), 'f', 2, 64), ".")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return minusIf(x, "$"+b.String()+"."+frac)
}

// minusIf puts the true minus sign before s when x is negative.
func minusIf(x float64, s string) string {
	if x < 0 || math.Signbit(x) {
		return "−" + s
	}
	return s
}

// Pct is Math.round(x*100) + " %".
func Pct(x float64) string { return strconv.Itoa(int(math.Floor(x*100+0.5))) + " %" }

func ParamsText(n float64) string {
	if n >= 1e9 {
		return Sig(n/1e9, 3) + " B"
	}
	return Sig(n/1e6, 3) + " M"
}

// esc escapes text for HTML.
func esc(s string) string { return html.EscapeString(s) }

func fx1(x float64) string { return ToFixed(x, 1) }

// svgPath is an SVG path's d attribute through n points, each in the
// chart's pixels to one decimal.
func svgPath(n int, at func(i int) (x, y float64)) string {
	var d strings.Builder
	for i := range n {
		if i > 0 {
			d.WriteByte('L')
		} else {
			d.WriteByte('M')
		}
		x, y := at(i)
		d.WriteString(fx1(x) + " " + fx1(y))
	}
	return d.String()
}

/* ---------- charts: axes and line charts ---------- */

func jsNiceStep(span float64, n int) float64 {
	raw := span / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	f := raw / p
	switch {
	case f < 1.5:
		return p
	case f < 3:
		return 2 * p
	case f < 7:
		return 5 * p
	}
	return 10 * p
}

type chartAxis struct {
	mapv  func(float64) float64
	ticks []float64
}

// makeAxis is a scale: [lo, hi] onto pixels [a, b], ticks at
// 1-2-5 per decade (fewer on wide spans) or powers of two on a log scale,
// round steps (one per 70 px or so) on a linear one.
func makeAxis(lo, hi, a, b float64, log, base2 bool) chartAxis {
	var ticks []float64
	prec12 := func(t float64) float64 { v, _ := strconv.ParseFloat(strconv.FormatFloat(t, 'g', 12, 64), 64); return v }
	if log {
		lmin, lmax := math.Log(lo), math.Log(hi)
		if lmax-lmin < 1e-9 {
			lmin -= 0.5
			lmax += 0.5
		}
		m := func(v float64) float64 { return a + (math.Log(v)-lmin)/(lmax-lmin)*(b-a) }
		if base2 {
			for v := 1.0; v <= hi*1.0001; v *= 2 {
				if v >= lo/1.0001 {
					ticks = append(ticks, v)
				}
			}
		} else {
			e0, e1 := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
			mults := []float64{1}
			if e1-e0 <= 2 {
				mults = []float64{1, 2, 5}
			} else if e1-e0 <= 4 {
				mults = []float64{1, 3}
			}
			for e := e0; e <= e1; e++ {
				for _, k := range mults {
					t := k * math.Pow(10, float64(e))
					if t >= lo*0.999 && t <= hi*1.001 {
						ticks = append(ticks, prec12(t))
					}
				}
			}
			if len(ticks) < 2 {
				ticks = []float64{lo, hi}
			}
		}
		return chartAxis{m, ticks}
	}
	span := hi - lo
	if span == 0 {
		span = 1
	}
	n := int(math.Floor(math.Abs(b-a)/70 + 0.5))
	step := jsNiceStep(span, max(2, min(6, n)))
	l, h := math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	if h == l {
		h = l + step
	}
	for t := l; t <= h+step/2; t += step {
		ticks = append(ticks, prec12(t))
	}
	return chartAxis{func(v float64) float64 { return a + (v-l)/(h-l)*(b-a) }, ticks}
}

type chartSeries struct {
	name, key string
	pts       [][2]float64
	note      string // legend: why the series has no point
	cls       string // legend: the swatch's classes; "" = "s-" + key
}

type chartMark struct {
	x, y  float64
	label string
}

type lineChartSpec struct {
	id, title, desc, xLabel, yLabel string
	series                          []chartSeries
	fmtY                            func(float64) string
	mark                            *chartMark
	xBase2                          bool
	// width is the chart's box's width in CSS pixels (clamped to
	// 280–760); 0 = the prerendered page's, held at its height.
	width float64
}

// clampChart is a chart's width for a box w pixels wide.
func clampChart(w float64) float64 {
	return math.Round(max(280, min(760, w)))
}

// prerenderChartW is the width the prerendered charts are drawn at: a
// chart's box on a desktop-wide page. At run time each chart is drawn at its
// box's width, 300 px high plus the chart frame's padding and border
// (site.css .chart: 22 px); the prerendered one is held at that height
// (style) on narrower pages too, so that nothing below it moves then.
const prerenderChartW = 390.0

// axisSpec is one axis of a chart's frame: its range and scale, the
// ticks (nil = computed by makeAxis), their format and the axis label.
type axisSpec struct {
	min, max   float64
	log, base2 bool
	ticks      []float64
	fmt        func(float64) string
	label      string
}

// frameSpec is a chart frame's spec: the chart's id, title and description
// ("" = none), its size (0 = 560 × 300) and left margin (0 = 64), and the
// axes. style, when not "", is the svg's style attribute (a prerendered
// chart's held height).
type frameSpec struct {
	id, title, desc, style string
	attrs                  string // more attributes of the svg (` name="value"`)
	role, cls              string // the svg's role ("" = img) and more classes than chart
	width, height, left    float64
	x, y                   axisSpec
}

// frame is a chart's axes, size and margins (xa, ya, W, H, L, R, T, B).
type frame struct {
	xa, ya           chartAxis
	W, H, L, R, T, B float64
}

// chartFrame writes a chart's frame: the svg's opening, the grid, ticks, axes
// and axis labels, written into b; it returns the two axes and the chart's
// size and margins.
func chartFrame(b *strings.Builder, o frameSpec) frame {
	f := frame{W: o.width, H: o.height, L: o.left, R: 16, T: 16, B: 50}
	if f.W == 0 {
		f.W = 560
	}
	if f.H == 0 {
		f.H = 300
	}
	if f.L == 0 {
		f.L = 64
	}
	W, H, L, R, T, B := f.W, f.H, f.L, f.R, f.T, f.B
	xa := makeAxis(o.x.min, o.x.max, L, W-R, o.x.log, o.x.base2)
	ya := makeAxis(o.y.min, o.y.max, H-B, T, o.y.log, o.y.base2)
	if o.x.ticks != nil {
		xa.ticks = o.x.ticks
	}
	if o.y.ticks != nil {
		ya.ticks = o.y.ticks
	}
	two := func(v float64) string { return Sig(v, 2) }
	fx, fy := o.x.fmt, o.y.fmt
	if fx == nil {
		fx = two
	}
	if fy == nil {
		fy = two
	}
	n := Num
	labelledBy := o.id + "-t"
	if o.desc != "" {
		labelledBy += " " + o.id + "-d"
	}
	style := ""
	if o.style != "" {
		style = ` style="` + o.style + `"`
	}
	role, cls := o.role, ""
	if role == "" {
		role = "img"
	}
	if o.cls != "" {
		cls = " " + o.cls
	}
	b.WriteString(`<svg viewBox="0 0 ` + n(W) + ` ` + n(H) + `" width="` + n(W) + `" height="` + n(H) + `"` + style + ` role="` + role + `" aria-labelledby="` + labelledBy + `" class="chart` + cls + `" id="` + o.id + `"` + o.attrs + `>`)
	b.WriteString(`<title id="` + o.id + `-t">` + esc(o.title) + `</title>`)
	if o.desc != "" {
		b.WriteString(`<desc id="` + o.id + `-d">` + esc(o.desc) + `</desc>`)
	}
	for _, t := range ya.ticks {
		y := fx1(ya.mapv(t))
		b.WriteString(`<line class="grid" x1="` + n(L) + `" x2="` + n(W-R) + `" y1="` + y + `" y2="` + y + `"/>`)
		b.WriteString(`<text class="tick" x="` + n(L-6) + `" y="` + y + `" dy="0.32em" text-anchor="end">` + esc(fy(t)) + `</text>`)
	}
	lastEnd := math.Inf(-1)
	for _, t := range xa.ticks {
		x := xa.mapv(t)
		label := fx(t)
		half := float64(len([]rune(label))) * 3.6
		b.WriteString(`<line class="grid" y1="` + n(T) + `" y2="` + n(H-B) + `" x1="` + fx1(x) + `" x2="` + fx1(x) + `"/>`)
		if x-half < lastEnd+6 {
			continue
		}
		lastEnd = x + half
		b.WriteString(`<text class="tick" y="` + n(H-B+18) + `" x="` + fx1(x) + `" text-anchor="middle">` + esc(label) + `</text>`)
	}
	b.WriteString(`<line class="axis" x1="` + n(L) + `" x2="` + n(W-R) + `" y1="` + n(H-B) + `" y2="` + n(H-B) + `"/>`)
	b.WriteString(`<line class="axis" x1="` + n(L) + `" x2="` + n(L) + `" y1="` + n(T) + `" y2="` + n(H-B) + `"/>`)
	b.WriteString(`<text class="label" x="` + n((L+W-R)/2) + `" y="` + n(H-10) + `" text-anchor="middle">` + esc(o.x.label) + `</text>`)
	b.WriteString(`<text class="label" transform="translate(15 ` + n((T+H-B)/2) + `) rotate(-90)" text-anchor="middle">` + esc(o.y.label) + `</text>`)
	f.xa, f.ya = xa, ya
	return f
}

// lineChart is a line chart (through chartFrame).
func lineChart(o lineChartSpec) string {
	var xs, ys []float64
	for _, s := range o.series {
		for _, p := range s.pts {
			xs = append(xs, p[0])
			ys = append(ys, p[1])
		}
	}
	if o.mark != nil {
		xs = append(xs, o.mark.x)
		ys = append(ys, o.mark.y)
	}
	if len(xs) == 0 {
		return `<p class="muted">No feasible configuration to chart.</p>`
	}
	xmin, xmax, ymin, ymax := minOf(xs), maxOfF(xs), minOf(ys), maxOfF(ys)
	y := axisSpec{min: 0, max: ymax * 1.05, fmt: o.fmtY, label: o.yLabel}
	if ymax/ymin > 8 {
		y = axisSpec{min: ymin, max: ymax, log: true, fmt: o.fmtY, label: o.yLabel + " (log scale)"}
	}
	var b strings.Builder
	width, style := prerenderChartW, "height:302px"
	if o.width > 0 {
		width, style = clampChart(o.width), ""
	}
	f := chartFrame(&b, frameSpec{id: o.id, title: o.title, desc: o.desc, width: width, style: style,
		x: axisSpec{min: xmin, max: xmax, log: true, base2: o.xBase2, fmt: Num, label: o.xLabel}, y: y})
	xa, ya := f.xa, f.ya
	for _, s := range o.series {
		if len(s.pts) == 0 {
			continue
		}
		d := svgPath(len(s.pts), func(i int) (float64, float64) { return xa.mapv(s.pts[i][0]), ya.mapv(s.pts[i][1]) })
		b.WriteString(`<path class="line s-` + s.key + `" d="` + d + `"/>`)
		if len(s.pts) == 1 {
			b.WriteString(`<circle class="dot s-` + s.key + `" r="4" cx="` + fx1(xa.mapv(s.pts[0][0])) + `" cy="` + fx1(ya.mapv(s.pts[0][1])) + `"/>`)
		}
	}
	if o.mark != nil {
		mx, my := xa.mapv(o.mark.x), ya.mapv(o.mark.y)
		b.WriteString(`<circle class="mark" r="6" cx="` + fx1(mx) + `" cy="` + fx1(my) + `"/>`)
		anchor, dx := "start", 10.0
		if mx > f.W-150 {
			anchor, dx = "end", -10
		}
		b.WriteString(`<text class="mark-label" x="` + fx1(mx+dx) + `" y="` + fx1(my-10) + `" text-anchor="` + anchor + `">` + esc(o.mark.label) + `</text>`)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// legendHTML is a chart's legend; a series with a note is struck through
// and says why.
func legendHTML(series []chartSeries) string {
	var b strings.Builder
	b.WriteString(`<ul class="legend">`)
	for _, s := range series {
		if s.note != "" {
			b.WriteString(`<li class="absent" data-absent="` + esc(s.key) + `"><span class="swatch s-` + s.key + `" aria-hidden="true"></span>` + esc(s.name) + ` <span class="why">` + esc(s.note) + `</span></li>`)
			continue
		}
		cls := s.cls
		if cls == "" {
			cls = "s-" + s.key
		}
		b.WriteString(`<li><span class="swatch ` + cls + `" aria-hidden="true"></span>` + esc(s.name) + `</li>`)
	}
	b.WriteString(`</ul>`)
	return b.String()
}

func minOf(xs []float64) float64 {
	m := math.Inf(1)
	for _, x := range xs {
		m = math.Min(m, x)
	}
	return m
}

func maxOfF(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = math.Max(m, x)
	}
	return m
}
