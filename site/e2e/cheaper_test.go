package e2e

import (
	"context"
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
	// The panel is drawn after the figures (adviseLater), so a panel for
	// an earlier state of the form can be there first: wait for the one
	// for the last input, the deadline, with the 16 sequences per step.
	waitFor(t, ctx, "the Pareto points for the form as typed", `document.querySelectorAll('.cheaper-out [data-pareto]').length > 1 && document.querySelectorAll('#chart-pareto .deadline').length > 0 && ((document.querySelector('.cheaper-held') || {}).textContent || '').indexOf('16 sequences') >= 0`)
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
	// Keyboard only: the chart is one tab stop after the panel's last
	// control, the "Only my GPU type" box (the recommendation); the arrow
	// keys move along the front.
	eval[bool](t, ctx, `(function(){document.getElementById('f-only_gpu').focus(); return true})()`)
	do(t, ctx, "Tab", chromedp.KeyEvent(kb.Tab))
	if !eval[bool](t, ctx, `document.activeElement && document.activeElement.classList.contains('best')`) {
		t.Fatalf("Tab from Only my GPU type focused %s, want the recommended point", eval[string](t, ctx, `document.activeElement.outerHTML.slice(0, 120)`))
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
	link := address(t, ctx)
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

// TestCheaperOnlyMyGPU: the panel's "Only my GPU type" box limits the
// search to the form's GPU (every point of the chart on it), is kept in the
// address (a fresh tab opened from it searches the same), and the panel
// says what it searched and the form's configuration's memory check, naming
// the GPU, not its id.
func TestCheaperOnlyMyGPU(t *testing.T) {
	srv := serve(t, builtSite(t))
	ctx := browser(t)
	openCalc(t, ctx, srv.URL+"/index.html")
	waitFor(t, ctx, "the Pareto points", `document.querySelectorAll('.cheaper-out [data-pareto]').length > 0`)
	if got := eval[string](t, ctx, `(document.querySelector('.cheaper-searched') || {}).textContent || ''`); !strings.Contains(got, "every GPU type") {
		t.Errorf("before the box is ticked the panel says %q, want every GPU type searched", got)
	}
	gpu := eval[string](t, ctx, `document.getElementById('f-gpu').value`)
	name := eval[string](t, ctx, `(function(){ var o = document.querySelector('datalist option[value="'+document.getElementById('f-gpu').value+'"]'); return o ? o.textContent : ''; })()`)
	do(t, ctx, "tick only my GPU type", chromedp.Click(chromedp.ID("f-only_gpu")))
	waitFor(t, ctx, "the limited search", `/Searched only/.test((document.querySelector('.cheaper-searched') || {}).textContent || '')`)
	check := func(ctx context.Context, where string) {
		t.Helper()
		labels := eval[[]string](t, ctx, `Array.prototype.map.call(document.querySelectorAll('.cheaper-out [data-pareto]'), function (g) { return g.getAttribute('aria-label'); })`)
		if len(labels) == 0 {
			t.Fatalf("%s: no Pareto points", where)
		}
		for _, l := range labels {
			if name == "" || !strings.Contains(l, " × "+name+",") {
				t.Errorf("%s: point %q is not on the form's GPU %q", where, l, name)
			}
		}
		said := eval[string](t, ctx, `document.querySelector('.cheaper-did').textContent`)
		if !strings.Contains(said, "Searched only "+name) || !strings.Contains(said, "memory check") || strings.Contains(said, " "+gpu) {
			t.Errorf("%s: the panel says %q; want the search limited to %s and the memory check, by name (not %s)", where, said, name, gpu)
		}
	}
	check(ctx, "ticked")
	link := address(t, ctx)
	if u, _ := url.Parse(link); u.Query().Get("only_gpu") != "1" {
		t.Errorf("address %s lacks only_gpu=1", link)
	}
	if dir := os.Getenv("WATTSCALE_SHOTS"); dir != "" {
		png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(".cheaper")))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "cheaper-only-gpu.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx2 := browser(t)
	openCalc(t, ctx2, link)
	if !eval[bool](t, ctx2, `document.getElementById('f-only_gpu').checked`) {
		t.Error("the box is not ticked in a tab opened from the address")
	}
	waitFor(t, ctx2, "the Pareto points", `document.querySelectorAll('.cheaper-out [data-pareto]').length > 0`)
	check(ctx2, "from the address")
}
