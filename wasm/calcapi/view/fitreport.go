package view

import (
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/wasm/calcapi"
)

// FitReport is the markup of a refit's result on the calculator page
// (wasm/fitapi hands it to the page): the coefficient table, the fit's
// statistics and notes, and the way to use it. A fit that fails
// model.FitChecks is headed "failed", says each check in the page's words
// with what to do, and offers its calibration only behind an explicit
// override (a checkbox the "Use it anyway" button waits for); the
// calculator then marks it "failed checks" wherever it names it. kind is
// the fit asked for (law, paper or roofline), as the command line names
// it.
func FitReport(c model.Calibration, kind string, checks []model.Message) string {
	var b strings.Builder
	w := func(s ...string) {
		for _, x := range s {
			b.WriteString(x)
		}
	}
	w(`<h3>`, esc(c.Title), `</h3>`)
	if len(checks) > 0 {
		w(`<div class="fit-failed" role="alert"><p><strong>This fit failed its checks</strong>; do not read it as a calibration of your runs:</p><ul>`)
		for _, m := range checks {
			w(`<li data-code="`, esc(m.Code), `">`, esc(calcapi.Say(m)), `</li>`)
		}
		w(`</ul></div>`)
	}
	f := c.Fit
	if f == nil {
		f = &model.FitSummary{}
	}
	w(`<div class="fit-scroll"><table class="coef"><caption>Coefficients of <code>`, esc(c.Name), `</code> (`, esc(c.Kind), `)</caption><thead><tr><th scope="col">term</th><th scope="col">estimate</th><th scope="col">SE</th><th scope="col">95 % CI</th><th scope="col">p</th></tr></thead><tbody>`)
	for _, k := range f.Coefficients {
		se, ci, p := "—", "—", "—"
		if k.SE != 0 {
			se = Sig(k.SE, 3)
		}
		if k.CILow != 0 || k.CIHigh != 0 {
			ci = Sig(k.CILow, 3) + " to " + Sig(k.CIHigh, 3)
		}
		switch {
		case k.P != 0 && k.P < 1e-4:
			p = "< 0.0001"
		case k.P != 0:
			p = Sig(k.P, 2)
		}
		w(`<tr data-coef="`, esc(k.Name), `"><th scope="row"><code>`, esc(k.Name), `</code></th><td class="num" data-value="`, Num(k.Value), `">`, esc(Sig(k.Value, 4)),
			`</td><td class="num" data-se="`, Num(k.SE), `">`, esc(se), `</td><td class="num">`, esc(ci), `</td><td class="num">`, esc(p), `</td></tr>`)
	}
	w(`</tbody></table></div><dl class="fitstats">`)
	stat := func(label, v string) {
		if v != "" {
			w(`<div><dt>`, esc(label), `</dt><dd>`, esc(v), `</dd></div>`)
		}
	}
	sig := func(x float64, n int, ok bool) string {
		if !ok {
			return ""
		}
		return Sig(x, n)
	}
	cv := f.CVMethod != ""
	stat("Runs (n)", strconv.Itoa(f.N))
	if f.Groups > 0 {
		stat("Workload groups", strconv.Itoa(f.Groups))
	}
	stat("R²", Sig(f.R2, 4))
	stat("Adjusted R²", Sig(f.AdjR2, 4))
	if g := f.WithoutEta; g != nil {
		stat("Adjusted R² without η", Sig(g.AdjR2, 4))
		stat("RMSE without η (ln)", Sig(g.RMSELn, 3))
	}
	stat("RMSE (ln energy)", Sig(f.RMSELn, 3))
	stat("Residual SD (ln)", sig(f.ResidualSDLn, 3, f.ResidualSDLn != 0))
	stat("Held-out R²", sig(f.CVR2, 4, cv))
	stat("Held-out RMSE (ln)", sig(f.CVRMSELn, 3, cv))
	if cv {
		stat("Interval coverage held out", Pct(f.CVCoverage))
	}
	stat("Cross-validation", f.CVMethod)
	w(`</dl>`)
	if len(f.Notes) > 0 {
		w(`<ul class="notes-list">`)
		for _, n := range f.Notes {
			w(`<li>`, esc(n), `</li>`)
		}
		w(`</ul>`)
	}
	same := `<span class="muted small">Same JSON as <code>go run ./site fit -data FILE -kind ` + esc(kind) + `</code>.</span>`
	dl := `<a class="btn dl" download="` + esc(c.Name) + `.json" href="#">Download the calibration JSON</a>`
	if len(checks) == 0 {
		w(`<p><button type="button" class="btn primary use-cal">Use it in the calculator</button> `, dl, ` `, same, `</p>`)
	} else {
		w(`<p><label class="small"><input type="checkbox" class="use-anyway"> I know it failed its checks; use it anyway (the calculator will say so)</label></p>`,
			`<p><button type="button" class="btn use-cal" data-failed="1" disabled>Use it anyway</button> `, dl, ` `, same, `</p>`)
	}
	w(`<p class="use-note small" role="status"></p>`)
	return b.String()
}
