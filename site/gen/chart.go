package gen

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strconv"
	"strings"
)

// Chart is a deterministic, hand-written SVG chart: two axes (linear or
// logarithmic), series of markers and lines, error bars and reference
// lines. Colours and strokes come from CSS classes (site.css), so the same
// SVG follows the light and dark colour schemes. The same Chart always
// gives the same bytes.
type Chart struct {
	ID     string // unique within the page; prefixes the title and description ids
	Title  string // the accessible name, also shown as the caption
	Desc   string // one or two sentences saying what the chart shows
	X, Y   Axis
	Series []Series
	// Height is the SVG's height in user units (the width is 560); 0 means
	// 360. A log–log chart of predicted against measured is square.
	Height float64
}

// Axis is one axis. Min and Max zero mean "fit the data". Powers labels a
// log axis's ticks as powers of ten (10⁻³ … 10⁸), for axes that span many
// decades.
type Axis struct {
	Label    string
	Log      bool
	Powers   bool
	Min, Max float64
}

// Series is one set of points. Class selects the colour (s0 … s5, ref);
// Marker is circle, square, triangle, diamond, ring or "" for none; Open
// draws the markers hollow (a second way, beside the colour, to tell
// series apart); Line joins the points in order; Dash draws the line
// dashed (derived or assumed curves); Area fills the polygon the points
// outline, behind everything else (a band).
type Series struct {
	Name   string
	Class  string
	Marker string
	Open   bool
	Line   bool
	Dash   bool
	Area   bool
	Points []Point
}

// Point is one datum; YLow and YHigh, when both non-zero, draw an error bar.
// Label, when set, is the point's tooltip. NoMarker leaves out the
// series' marker at this point (the corners of a step line).
type Point struct {
	X, Y, YLow, YHigh float64
	Label             string
	NoMarker          bool
}

// Chart geometry in SVG user units.
const (
	chartW, chartH                       = 560.0, 360.0
	padLeft, padRight, padTop, padBottom = 68.0, 16.0, 14.0, 52.0
)

// SVG renders the chart as a figure with an inline SVG and an HTML legend.
func (c Chart) SVG() template.HTML {
	xs, ys := c.domain()
	var b strings.Builder
	id := html.EscapeString(c.ID)
	fmt.Fprintf(&b, `<figure class="chart" id="%s">`, id)
	chartH := chartH
	if c.Height > 0 {
		chartH = c.Height
	}
	fmt.Fprintf(&b, `<svg viewBox="0 0 %s %s" role="img" aria-labelledby="%s-title %s-desc" class="chart-svg">`, f1(chartW), f1(chartH), id, id)
	fmt.Fprintf(&b, `<title id="%s-title">%s</title><desc id="%s-desc">%s</desc>`, id, html.EscapeString(c.Title), id, html.EscapeString(c.Desc))
	x0, x1, y0, y1 := padLeft, chartW-padRight, chartH-padBottom, padTop
	px := func(v float64) float64 { return x0 + (x1-x0)*xs.frac(v) }
	py := func(v float64) float64 { return y0 + (y1-y0)*ys.frac(v) }
	// Grid and ticks.
	b.WriteString(`<g class="grid">`)
	for _, t := range xs.ticks {
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s"/>`, f1(px(t)), f1(y0), f1(px(t)), f1(y1))
	}
	for _, t := range ys.ticks {
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s"/>`, f1(x0), f1(py(t)), f1(x1), f1(py(t)))
	}
	b.WriteString(`</g><g class="axis">`)
	fmt.Fprintf(&b, `<path d="M%s %sV%sH%s"/>`, f1(x0), f1(y1), f1(y0), f1(x1))
	// On a crowded x axis every other label has class alt, which phones hide.
	for i, t := range xs.ticks {
		alt := ""
		if len(xs.ticks) > 8 && i%2 == 1 {
			alt = ` class="alt"`
		}
		fmt.Fprintf(&b, `<text%s x="%s" y="%s" text-anchor="middle">%s</text>`, alt, f1(px(t)), f1(y0+18), c.X.tick(t))
	}
	for _, t := range ys.ticks {
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="end">%s</text>`, f1(x0-6), f1(py(t)+4.5), c.Y.tick(t))
	}
	fmt.Fprintf(&b, `<text class="label" x="%s" y="%s" text-anchor="middle">%s</text>`, f1((x0+x1)/2), f1(chartH-8), html.EscapeString(c.X.Label))
	fmt.Fprintf(&b, `<text class="label" transform="translate(15 %s) rotate(-90)" text-anchor="middle">%s</text>`, f1((y0+y1)/2), html.EscapeString(c.Y.Label))
	b.WriteString(`</g>`)
	// Lines and error bars, clipped to the plot area; markers on top,
	// unclipped, so that a point on an edge shows whole.
	fmt.Fprintf(&b, `<clipPath id="%s-clip"><rect x="%s" y="%s" width="%s" height="%s"/></clipPath>`, id, f1(x0), f1(y1), f1(x1-x0), f1(y0-y1))
	fmt.Fprintf(&b, `<g clip-path="url(#%s-clip)">`, id)
	for _, s := range c.Series {
		if !s.Area || len(s.Points) < 3 {
			continue
		}
		fmt.Fprintf(&b, `<g class="series %s"><path class="area" d="`, html.EscapeString(s.Class))
		for i, p := range s.Points {
			cmd := "L"
			if i == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&b, "%s%s %s", cmd, f1(px(p.X)), f1(py(p.Y)))
		}
		b.WriteString(`Z"/></g>`)
	}
	for _, s := range c.Series {
		if s.Area {
			continue
		}
		fmt.Fprintf(&b, `<g class="series %s">`, html.EscapeString(s.Class))
		if s.Line && len(s.Points) > 1 {
			b.WriteString(`<path class="line`)
			if s.Dash {
				b.WriteString(` dash`)
			}
			b.WriteString(`" d="`)
			for i, p := range s.Points {
				cmd := "L"
				if i == 0 {
					cmd = "M"
				}
				fmt.Fprintf(&b, "%s%s %s", cmd, f1(px(p.X)), f1(py(p.Y)))
			}
			b.WriteString(`"/>`)
		}
		for _, p := range s.Points {
			if p.YLow != 0 && p.YHigh != 0 {
				fmt.Fprintf(&b, `<path class="err" d="M%s %sV%sM%s %sh8M%s %sh8"/>`, f1(px(p.X)), f1(py(p.YLow)), f1(py(p.YHigh)),
					f1(px(p.X)-4), f1(py(p.YLow)), f1(px(p.X)-4), f1(py(p.YHigh)))
			}
		}
		b.WriteString(`</g>`)
	}
	b.WriteString(`</g>`)
	for _, s := range c.Series {
		if s.Marker == "" {
			continue
		}
		fmt.Fprintf(&b, `<g class="series %s">`, html.EscapeString(s.Class))
		for _, p := range s.Points {
			if !p.NoMarker {
				b.WriteString(marker(s.Marker, s.Open, px(p.X), py(p.Y), p.Label))
			}
		}
		b.WriteString(`</g>`)
	}
	b.WriteString(`</svg>`)
	// Legend.
	if len(c.Series) > 1 || (len(c.Series) == 1 && c.Series[0].Name != "") {
		b.WriteString(`<figcaption><span class="chart-title">` + html.EscapeString(c.Title) + `</span><ul class="legend">`)
		for _, s := range c.Series {
			if s.Name == "" {
				continue
			}
			fmt.Fprintf(&b, `<li>%s%s</li>`, s.Key(), html.EscapeString(s.Name))
		}
		b.WriteString(`</ul></figcaption>`)
	} else {
		b.WriteString(`<figcaption><span class="chart-title">` + html.EscapeString(c.Title) + `</span></figcaption>`)
	}
	b.WriteString(`</figure>`)
	return template.HTML(b.String())
}

// Key is the series' legend key: a small inline SVG of its line, band or
// marker, hidden from assistive technology (the name beside it says it).
// Tables that list the same series show it too.
func (s Series) Key() template.HTML {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="key %s" viewBox="0 0 28 14" width="28" height="14" aria-hidden="true">`, html.EscapeString(s.Class))
	if s.Area {
		b.WriteString(`<rect class="area" x="1" y="2" width="26" height="10"/>`)
	}
	if s.Line {
		cls := "line"
		if s.Dash {
			cls += " dash"
		}
		fmt.Fprintf(&b, `<path class="%s" d="M1 7H27"/>`, cls)
	}
	if s.Marker != "" {
		b.WriteString(marker(s.Marker, s.Open, 14, 7, ""))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// marker draws one marker centred on (x, y), hollow when open, with an
// optional tooltip.
func marker(kind string, open bool, x, y float64, label string) string {
	var tip string
	if label != "" {
		tip = "<title>" + html.EscapeString(label) + "</title>"
	}
	cls := "mk"
	if open || kind == "ring" {
		cls = "mk ring"
	}
	const r = 4.5
	var shape string
	switch kind {
	case "square":
		shape = fmt.Sprintf(`<rect class="%s" x="%s" y="%s" width="8" height="8">`, cls, f1(x-4), f1(y-4))
		return shape + tip + "</rect>"
	case "triangle":
		shape = fmt.Sprintf(`<path class="%s" d="M%s %sL%s %sL%s %sZ">`, cls, f1(x), f1(y-5.5), f1(x+5), f1(y+4), f1(x-5), f1(y+4))
		return shape + tip + "</path>"
	case "diamond":
		shape = fmt.Sprintf(`<path class="%s" d="M%s %sL%s %sL%s %sL%s %sZ">`, cls, f1(x), f1(y-5.5), f1(x+5.5), f1(y), f1(x), f1(y+5.5), f1(x-5.5), f1(y))
		return shape + tip + "</path>"
	}
	shape = fmt.Sprintf(`<circle class="%s" cx="%s" cy="%s" r="%s">`, cls, f1(x), f1(y), f1(r))
	return shape + tip + "</circle>"
}

// scale maps data values to [0, 1] along an axis and holds its ticks.
type scale struct {
	lo, hi float64
	log    bool
	ticks  []float64
}

func (s scale) frac(v float64) float64 {
	if s.log {
		return (math.Log(v) - math.Log(s.lo)) / (math.Log(s.hi) - math.Log(s.lo))
	}
	return (v - s.lo) / (s.hi - s.lo)
}

// domain fits both axes to the data (points and error bars) unless the
// axis fixes them.
func (c Chart) domain() (scale, scale) {
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for _, p := range s.Points {
			xlo, xhi = math.Min(xlo, p.X), math.Max(xhi, p.X)
			ylo, yhi = math.Min(ylo, p.Y), math.Max(yhi, p.Y)
			if p.YLow != 0 && p.YHigh != 0 {
				ylo, yhi = math.Min(ylo, p.YLow), math.Max(yhi, p.YHigh)
			}
		}
	}
	return axisScale(c.X, xlo, xhi), axisScale(c.Y, ylo, yhi)
}

func axisScale(a Axis, lo, hi float64) scale {
	if a.Min != 0 || a.Max != 0 {
		lo, hi = a.Min, a.Max
	}
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) {
		lo, hi = 1, 10
	}
	if a.Log {
		if lo <= 0 {
			lo = hi / 100
		}
		if hi <= lo {
			hi = lo * 10
		}
		if a.Min == 0 && a.Max == 0 {
			lo, hi = niceLogFloor(lo), niceLogCeil(hi)
		}
		return scale{lo: lo, hi: hi, log: true, ticks: logTicks(lo, hi)}
	}
	if hi <= lo {
		hi = lo + 1
	}
	step := niceStep((hi - lo) / 5)
	if a.Min == 0 && a.Max == 0 {
		lo, hi = math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	}
	var ticks []float64
	for t := math.Ceil(lo/step-1e-9) * step; t <= hi+step*1e-9; t += step {
		ticks = append(ticks, math.Round(t/step)*step)
	}
	return scale{lo: lo, hi: hi, ticks: ticks}
}

// niceStep rounds a raw step up to 1, 2 or 5 × 10^k.
func niceStep(raw float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw-1e-12 {
			return m * p
		}
	}
	return 10 * p
}

// niceLogFloor is the largest 1, 2 or 5 × 10^k not above x.
func niceLogFloor(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)+1e-12))
	for _, m := range []float64{5, 2, 1} {
		if m*p <= x*(1+1e-12) {
			return m * p
		}
	}
	return p
}

// niceLogCeil is the smallest 1, 2 or 5 × 10^k not below x.
func niceLogCeil(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)-1e-12))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x*(1-1e-12) {
			return m * p
		}
	}
	return 10 * p
}

// logTicks are the decades inside [lo, hi], with 2 and 5 between them when
// the range spans fewer than three decades.
func logTicks(lo, hi float64) []float64 {
	decades := math.Log10(hi / lo)
	mult := []float64{1}
	if decades < 3 {
		mult = []float64{1, 2, 5}
	}
	var out []float64
	for k := math.Floor(math.Log10(lo)) - 1; k <= math.Ceil(math.Log10(hi)); k++ {
		for _, m := range mult {
			t := m * math.Pow(10, k)
			if t >= lo*(1-1e-9) && t <= hi*(1+1e-9) {
				out = append(out, t)
			}
		}
	}
	return out
}

// tick labels a tick of the axis.
func (a Axis) tick(v float64) string {
	if a.Log && a.Powers && v > 0 {
		if e := math.Round(math.Log10(v)); math.Abs(v/math.Pow(10, e)-1) < 1e-9 {
			return "10" + superscript(int(e))
		}
	}
	return tickLabel(v, a.Log)
}

// tickLabel prints a tick value compactly.
func tickLabel(v float64, log bool) string {
	a := math.Abs(v)
	if a != 0 && (a >= 1e5 || a < 1e-3) {
		e := int(math.Round(math.Log10(a)))
		if m := v / math.Pow(10, float64(e)); math.Abs(m-1) < 1e-9 {
			return "10" + superscript(e)
		}
		return trimZeros(sig(v, 2))
	}
	return trimZeros(sig(v, 3))
}

// f1 formats an SVG coordinate with one decimal.
func f1(x float64) string {
	return strconv.FormatFloat(math.Round(x*10)/10, 'f', -1, 64)
}
