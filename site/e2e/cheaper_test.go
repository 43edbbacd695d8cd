package e2e

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestCheaperPanel drives the "Cheaper ways to run this" panel with the
// keyboard only: Tab from the deadline controls onto the Pareto chart's
// first point, Enter loads it into the form, the estimate shown is that
// point's energy exactly, and the address, opened in a fresh tab, restores
// the chosen configuration and its energy. The panel says what it holds
// fixed (the form's sequences per optimizer step and tokens), and loading a
// point sets its micro-batch and accumulation too.
func TestCheaperPanel(t *testing.T) {
	srv := serve(t, builtSite(t))
	ctx := browser(t)
	openCalc(t, ctx, srv.URL+"/index.html")
	typeInto(t, ctx, "model", "llama-3-8b")
	choose(t, ctx, "precision", "bf16")
	for _, kv := range [][2]string{{"tokens", "1e9"}, {"seq", "4096"}, {"batch", "2"}, {"count", "8"}, {"deadline", "10"}} {
		typeInto(t, ctx, kv[0], kv[1])
	}
	waitFor(t, ctx, "the Pareto points", `document.querySelectorAll('.cheaper-out [data-pareto]').length > 1`)
	if n := eval[int](t, ctx, `document.querySelectorAll('#chart-pareto .deadline').length`); n != 1 {
		t.Errorf("deadline lines drawn: %d, want 1", n)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#chart-pareto circle.mark').length`); n != 1 {
		t.Errorf("user's configuration marks: %d, want 1", n)
	}
	if got := eval[string](t, ctx, `document.querySelector('.cheaper-best').textContent`); got == "" {
		t.Error("no recommendation sentence")
	}
	// What is held fixed: 2 sequences per GPU × 8 fsdp ranks.
	if got := eval[string](t, ctx, `(document.querySelector('.cheaper-held') || {}).textContent || ''`); !strings.Contains(got, "16 sequences per optimizer step") {
		t.Errorf("held-fixed sentence %q, want it to name the 16 sequences per optimizer step", got)
	}
	t.Logf("recommend in the page's wasm: %.1f ms (wall, the last search)", eval[float64](t, ctx, `window.wattscalePerf.lastRecommendMs || -1`))
	// Keyboard only: the chart is one tab stop after the Minimise select
	// (the recommendation); the arrow keys move along the front.
	eval[bool](t, ctx, `(function(){document.getElementById('f-minimise').focus(); return true})()`)
	do(t, ctx, "Tab", chromedp.KeyEvent(kb.Tab))
	if !eval[bool](t, ctx, `document.activeElement && document.activeElement.classList.contains('best')`) {
		t.Fatalf("Tab from Minimise focused %s, want the recommended point", eval[string](t, ctx, `document.activeElement.outerHTML.slice(0, 120)`))
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('.cheaper-out [data-pareto][tabindex="0"]').length`); n != 1 {
		t.Errorf("%d Pareto points in the tab order, want 1", n)
	}
	from := eval[int](t, ctx, `+document.activeElement.getAttribute('data-pareto')`)
	key := kb.ArrowLeft
	if from == 0 {
		key = kb.ArrowRight
	}
	do(t, ctx, "arrow", chromedp.KeyEvent(key))
	if to := eval[int](t, ctx, `+document.activeElement.getAttribute('data-pareto')`); to == from || (to-from)*(to-from) != 1 {
		t.Errorf("arrow key moved focus from point %d to %d, want a neighbour", from, to)
	}
	want := eval[float64](t, ctx, `parseFloat(document.activeElement.getAttribute('data-kwh'))`)
	label := eval[string](t, ctx, `document.activeElement.getAttribute('aria-label')`)
	do(t, ctx, "Enter", chromedp.KeyEvent(kb.Enter))
	if got := pageEnergy(t, ctx); got != want {
		t.Errorf("after Enter on %q the page shows %.17g kWh, want the point's %.17g kWh", label, got, want)
	}
	// The load is said as a success, with the GPU's name, not as an error.
	type status struct{ Text, Kind, Role, Border string }
	st := eval[status](t, ctx, `(function(){ var e = document.querySelector('.results .status'); return {Text: e.textContent, Kind: e.dataset.kind || '', Role: e.getAttribute('role'), Border: getComputedStyle(e).borderLeftColor}; })()`)
	errBorder := eval[string](t, ctx, `(function(){ var e = document.createElement('div'); e.className = 'status'; e.textContent = 'x'; document.querySelector('.results').appendChild(e); var c = getComputedStyle(e).borderLeftColor; e.remove(); return c; })()`)
	if !strings.HasPrefix(st.Text, "Loaded ") || st.Kind != "success" || st.Role != "status" || st.Border == errBorder || strings.Contains(st.Text, "-sxm") {
		t.Errorf("after loading a point the status is %+v (an error's border is %s); want a success, styled apart from errors, naming the GPU", st, errBorder)
	}
	link := eval[string](t, ctx, `location.href`)
	u, _ := url.Parse(link)
	for _, k := range []string{"gpu", "count", "strategy", "power", "deadline"} {
		if !u.Query().Has(k) {
			t.Errorf("address %s lacks %s", link, k)
		}
	}
	const fields = `JSON.stringify(['gpu','count','strategy','tensor','power','batch','accum','deadline','minimise'].map(function(k){return document.getElementById('f-'+k).value}))`
	before := eval[string](t, ctx, fields)
	if dir := os.Getenv("WATTSCALE_SHOTS"); dir != "" {
		png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(".cheaper")))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "cheaper-panel.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx2 := browser(t)
	openCalc(t, ctx2, link)
	if after := eval[string](t, ctx2, fields); after != before {
		t.Errorf("fields from the address %s, before %s", after, before)
	}
	if got := pageEnergy(t, ctx2); got != want {
		t.Errorf("energy from the address %.17g kWh, want %.17g kWh", got, want)
	}
}
