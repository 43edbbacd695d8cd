package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/wattscale/wattscale/wasm/calcapi"
)

// The prerendered planner (wasm/calcapi/view/planner.go) and its takeover by
// planner.wasm (site/assets/calc.js Planner, adopt) in a real browser.

// serveHeld serves dir as serve does, but holds every request whose path
// contains held until release is called (or the test ends): the page then
// stays prerendered for as long as the test needs.
func serveHeld(t testing.TB, dir, held string) (srv *httptest.Server, release func()) {
	t.Helper()
	gate := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	files := http.FileServer(http.Dir(dir))
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, held) {
			select {
			case <-gate:
			case <-r.Context().Done():
				return
			}
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(release) // runs first: nothing stays held while the server closes
	return srv, release
}

// planLayoutProbe is layoutProbe for the planner's parts, boxes measured
// from the top left of its layout (every part laid out, as layoutProbe
// does).
const planLayoutProbe = `(function(){
  ` + layOutAll + `;
  try { return measure(); } finally { ` + layOutAllUndo + `; }
  function measure(){
  var o = document.querySelector('#calc-root .plan-layout').getBoundingClientRect();
  var sels = ['.calc-form', '#f-set', '#f-n', '#f-o1\\.preset', '#f-o1\\.preset-hint', '#f-o3\\.q', '#f-region', '#f-minimise', '.options', '.options .option.best', '.stages', '.stages svg', '.stage-rec', '.curve', '.curve svg', '.plane', '.plane svg', '.advice-box', '.pnotes'];
  // (The first match that is displayed: the prerendered charts are drawn
  // twice, for a desktop and for a phone, and one of them is hidden.)
  return sels.map(function(s){ var e = Array.prototype.filter.call(document.querySelectorAll(s), function(x){ return x.getClientRects().length > 0; })[0]; if (!e) return {S: s, Missing: true};
    var r = e.getBoundingClientRect();
    return {S: s, X: Math.round(r.left - o.left), Y: Math.round(r.top - o.top), W: Math.round(r.width), H: Math.round(r.height), Text: (e.innerText || e.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 400)}; });
  }
})()`

// planControlsProbe lists the planner's controls with their value and
// choices; a control the visitor cannot see (an estimated student's
// inputs on a preset row) shows no value.
const planControlsProbe = `Array.prototype.map.call(document.querySelectorAll('#calc-root .plan-layout input, #calc-root .plan-layout select, #calc-root .plan-layout button'), function(c){
  var seen = c.offsetParent !== null;
  return [c.tagName, c.id, c.name, c.type, seen ? c.value : '(hidden)', c.options ? Array.prototype.map.call(c.options, function(o){ return o.value + '=' + o.text; }).join('|') : '', c.getAttribute('aria-describedby') || '', (c.textContent || '').trim()].join(' · ');
})`

// planNumbers are the numbers the planner's option cards carry.
const planNumbers = `Array.prototype.map.call(document.querySelectorAll('.options .option'), function(o){
  return {Name: o.dataset.option, OneOff: parseFloat(o.dataset.oneoff), Student: parseFloat(o.dataset.student), NStar: o.dataset.nstar ? parseFloat(o.dataset.nstar) : -1}; })`

type planCard struct {
	Name                   string
	OneOff, Student, NStar float64
}

// defaultPlanCLI is `go run ./site distill` on the planner's default plan.
func defaultPlanCLI(t testing.TB) map[string]planCard {
	t.Helper()
	plan, ferr := calcapi.DefaultPlanForm().Plan(calcapi.DefaultRegions())
	if ferr != nil {
		t.Fatal(ferr.Text)
	}
	b, _ := json.Marshal(plan)
	var res struct {
		Options []struct {
			Name       string   `json:"name"`
			OneOffKWh  float64  `json:"one_off_kwh"`
			StudentKWh float64  `json:"student_kwh"`
			NStar      *float64 `json:"n_star"`
		} `json:"options"`
	}
	if err := json.Unmarshal(runCLI(t, b, "distill"), &res); err != nil {
		t.Fatal(err)
	}
	out := map[string]planCard{}
	for _, o := range res.Options {
		c := planCard{Name: o.Name, OneOff: o.OneOffKWh, Student: o.StudentKWh, NStar: -1}
		if o.NStar != nil {
			c.NStar = *o.NStar
		}
		out[o.Name] = c
	}
	return out
}

// checkCards compares the page's option cards with the command line's.
func checkCards(t testing.TB, where string, got []planCard, want map[string]planCard) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d option cards, want %d (site distill on the default plan)", where, len(got), len(want))
	}
	for _, g := range got {
		w, ok := want[g.Name]
		if !ok {
			t.Errorf("%s: option %q, which site distill does not have", where, g.Name)
			continue
		}
		if relDiff(g.OneOff, w.OneOff) > 1e-12 || relDiff(g.Student, w.Student) > 1e-12 || (w.NStar < 0) != (g.NStar < 0) || w.NStar >= 0 && relDiff(g.NStar, w.NStar) > 1e-12 {
			t.Errorf("%s: %s one-off %.6g kWh, student %.6g kWh, N* %.6g; site distill %.6g, %.6g, %.6g", where, g.Name, g.OneOff, g.Student, g.NStar, w.OneOff, w.Student, w.NStar)
		}
	}
}

// TestPlannerPrerenderedWithoutJavaScript opens the planner with
// JavaScript off: it shows the default plan complete (the command line's
// numbers for it, the stage bars, the curve with N*, the plane, the plan's
// total) and says that changing it needs JavaScript.
func TestPlannerPrerenderedWithoutJavaScript(t *testing.T) {
	srv := serve(t, builtSite(t))
	want := defaultPlanCLI(t)
	ctx := browser(t)
	noScript(t, ctx)
	do(t, ctx, "open the planner", chromedp.Navigate(srv.URL+"/planner/"))
	checkCards(t, "without JavaScript", eval[[]planCard](t, ctx, planNumbers), want)
	type shape struct {
		Rows, Bars, Curves, NStars, Points int
		Total, Noscr, Ready, Set           string
	}
	got := eval[shape](t, ctx, `({Rows: document.querySelectorAll('.row-opt').length, Bars: document.querySelectorAll('.stages svg rect').length,
  Curves: document.querySelectorAll('#curve path.line').length, NStars: document.querySelectorAll('#curve line.nstar').length, Points: document.querySelectorAll('#plane circle.pt').length,
  Total: document.querySelector('.pnotes').textContent, Noscr: (document.querySelector('#calc-root noscript') || {}).textContent || '',
  Ready: document.getElementById('calc-root').dataset.ready || '', Set: document.getElementById('f-set').value})`)
	if got.Rows != 3 || got.Bars < 9 || got.Curves != 2 || got.NStars != 2 || got.Points != 2 || got.Set != "1b" {
		t.Errorf("prerendered planner: %+v; want 3 option rows, the stage bars, 2 curves with their N*, 2 points on the plane and the 1B plan chosen", got)
	}
	if !strings.Contains(got.Total, "Whole plan:") || !strings.Contains(got.Total, "kWh") {
		t.Errorf("plan notes = %q, want the whole plan's total", got.Total)
	}
	if got.Ready != "" {
		t.Errorf("data-ready = %q without JavaScript: nothing should have run", got.Ready)
	}
	if !strings.Contains(got.Noscr, "default plan") || !strings.Contains(got.Noscr, "needs JavaScript") {
		t.Errorf("noscript notice = %q, want it to say this is the default plan and that changing it needs JavaScript", got.Noscr)
	}
	shot(t, ctx, "nojs-planner")
}

// shot writes a full-page screenshot to $WATTSCALE_SHOTS/name.png, when
// that is set.
func shot(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("WATTSCALE_SHOTS")
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	png, err := fullShot(t, ctx)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, name+".png")
	if err := os.WriteFile(file, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", file)
}

// TestPlannerPrerenderTakeover loads the planner over the slow
// link and checks that planner.wasm takes the prerendered plan over in
// place: the same numbers as the command line, every part with the same
// box and text as without JavaScript, the same controls, a cumulative
// layout shift below 0.01, and the prerendered nodes still on the page.
func TestPlannerPrerenderTakeover(t *testing.T) {
	dir := builtSite(t)
	srv := serve(t, dir)
	want := defaultPlanCLI(t)
	for _, width := range []int64{1280, 390} {
		t.Run(strconv.Itoa(int(width)), func(t *testing.T) {
			static := browser(t)
			do(t, static, "viewport", chromedp.EmulateViewport(width, 900))
			noScript(t, static)
			do(t, static, "open without JavaScript", chromedp.Navigate(srv.URL+"/planner/"))
			before := eval[[]probed](t, static, planLayoutProbe)
			beforeCtl := eval[[]string](t, static, planControlsProbe)

			// planner.wasm is held back until the prerendered nodes are
			// marked, then arrives over the slow link.
			held, release := serveHeld(t, dir, "/planner.")
			ctx := browser(t)
			do(t, ctx, "viewport", chromedp.EmulateViewport(width, 900))
			throttle(t, ctx)
			do(t, ctx, "open the planner", chromedp.Navigate(held.URL+"/planner/"))
			marked := eval[bool](t, ctx, `(function(){ if (document.getElementById('calc-root').dataset.ready === '1') return false;
  window.wsPre = [document.querySelector('.plan-layout'), document.getElementById('f-n'), document.querySelector('.options .option'), document.getElementById('curve'), document.querySelector('.pnotes p')];
  return window.wsPre.every(function(n){ return !!n; }); })()`)
			if !marked {
				t.Fatal("the prerendered planner lacks a marked node, or planner.wasm ran although it was held back")
			}
			release()
			waitFor(t, ctx, "the takeover", `document.getElementById('calc-root').dataset.ready === '1'`)
			if kept := eval[[]bool](t, ctx, `window.wsPre.map(function(n){ return document.contains(n); })`); len(kept) != 5 || !(kept[0] && kept[1] && kept[2] && kept[3] && kept[4]) {
				t.Errorf("prerendered nodes on the page after the takeover (layout, #f-n, first option card, #curve, plan notes): %v; want all kept", kept)
			}
			checkCards(t, "after the takeover", eval[[]planCard](t, ctx, planNumbers), want)
			after := eval[[]probed](t, ctx, planLayoutProbe)
			afterCtl := eval[[]string](t, ctx, planControlsProbe)
			checkTakeover(t, ctx, width, before, after, beforeCtl, afterCtl, 1)
			shot(t, static, fmt.Sprintf("planner-nojs-%d", width))
			shot(t, ctx, fmt.Sprintf("planner-takeover-%d", width))
			if width != 1280 {
				return
			}
			// Typing into the prerendered number of students: Go redraws
			// the form on each key, into an error and out of it, and the
			// input stays the prerendered node, focused, with the caret
			// after what was typed.
			eval[bool](t, ctx, `(function(){ var e = document.getElementById('f-n'); e.focus(); e.setSelectionRange(1, 1); return true; })()`)
			type caret struct {
				Same, Focused, Invalid bool
				At                     int
				Value, Msg             string
			}
			const probe = `({Same: document.getElementById('f-n') === window.wsPre[1], Focused: document.activeElement === window.wsPre[1], At: window.wsPre[1].selectionStart,
  Value: window.wsPre[1].value, Invalid: window.wsPre[1].closest('.field').classList.contains('invalid'), Msg: document.getElementById('f-n-err').textContent})`
			for _, k := range []struct {
				key, value string
				invalid    bool
			}{{"x", "1x", true}, {kb.Backspace, "1", false}, {"2", "12", false}} {
				do(t, ctx, "type "+k.key, chromedp.KeyEvent(k.key))
				waitFor(t, ctx, "the plan for n = "+k.value, fmt.Sprintf(`window.wattscaleApp.state.n === %q`, k.value))
				c := eval[caret](t, ctx, probe)
				if !c.Same || !c.Focused || c.At != len(k.value) || c.Value != k.value || c.Invalid != k.invalid || (c.Msg != "") != k.invalid {
					t.Errorf("after typing to %q: %+v; want the prerendered input kept, focused, the caret at %d, in error %v with its message", k.value, c, len(k.value), k.invalid)
				}
			}
		})
	}
}

// TestPlannerPrerenderLinked: a link with a plan shows the prerendered
// default only with a notice until planner.wasm has computed the linked
// plan; what the visitor types meanwhile is kept.
func TestPlannerPrerenderLinked(t *testing.T) {
	srv, release := serveHeld(t, builtSite(t), "/planner.")
	ctx := browser(t)
	do(t, ctx, "open a link", chromedp.Navigate(srv.URL+"/planner/?set=13b"))
	type early struct {
		Linked, Ready, Status string
	}
	e := eval[early](t, ctx, `({Linked: document.getElementById('calc-root').getAttribute('data-linked') || '', Ready: document.getElementById('calc-root').dataset.ready || '',
  Status: document.querySelector('.results .status').textContent})`)
	if e.Linked != "1" || e.Ready != "" || !strings.Contains(e.Status, "default plan") {
		t.Errorf("while loading a link: data-linked=%q, data-ready=%q, status %q; want the notice that the default plan is shown", e.Linked, e.Ready, e.Status)
	}
	// Type a number of students while planner.wasm is held back.
	typeInto(t, ctx, "n", "4")
	release()
	waitFor(t, ctx, "the takeover", `document.getElementById('calc-root').dataset.ready === '1'`)
	type late struct {
		Linked, Status, N, Search string
		Options                   []string
		PerStudent                string
	}
	address(t, ctx)
	l := eval[late](t, ctx, `({Linked: document.getElementById('calc-root').getAttribute('data-linked') || '', Status: document.querySelector('.results .status').textContent,
  N: document.getElementById('f-n').value, Search: location.search,
  Options: Array.prototype.map.call(document.querySelectorAll('.options .option'), function(o){ return o.dataset.option; }),
  PerStudent: (document.querySelector('[data-option="kd-13b"]') || {}).textContent || ''})`)
	if l.Linked != "" || l.Status != "" || strings.Join(l.Options, ",") != "sft-13b,kd-13b,synthetic-13b" {
		t.Errorf("after the takeover: %+v; want no notice and the link's 13B plan", l)
	}
	if l.N != "4" || !strings.Contains(l.Search, "n=4") || !strings.Contains(l.PerStudent, "at N = 4") {
		t.Errorf("after the takeover: n field %q, address %q, kd-13b card %q; want the 4 students typed while loading", l.N, l.Search, l.PerStudent)
	}
}

// planVisibleMs is when the planner's first plan was painted, in ms from
// the start of navigation: the first contentful paint if the first option
// card had been parsed by then, else the first frame after it was
// (watchPlan records both), as estimateVisibleMs for the calculator.
const planVisibleMs = `new Promise(function(res){ var t0 = performance.now();
  (function wait(){
    var w = window.wattscalePlanSeen || {parsed: -1, frame: -1}, fcp = performance.getEntriesByName('first-contentful-paint')[0];
    if (fcp && w.parsed >= 0 && w.frame >= 0 && performance.now() - t0 > 200) res(w.parsed <= fcp.startTime ? fcp.startTime : w.frame);
    else if (performance.now() > 120000) res(-1);
    else setTimeout(wait, 20); })(); })`

// plannerFirstPlan opens the planner in a cold browser (throttled to the
// issue's slow link when slow) and returns when its first plan was
// visible and when planner.wasm had computed it, in ms from the start of
// navigation.
func plannerFirstPlan(t testing.TB, url string, slow bool) (visible, computed float64) {
	t.Helper()
	ctx := coldBrowser(t)
	if slow {
		throttle(t, ctx)
	}
	const src = `(function(){ var w = window.wattscalePlanSeen = {parsed: -1, frame: -1};
  new MutationObserver(function(_, o){ if (document.querySelector('#plan-results .options .option')) { o.disconnect(); w.parsed = performance.now(); requestAnimationFrame(function(){ w.frame = performance.now(); }); } }).observe(document, {childList: true, subtree: true}); })()`
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: src}); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "open the planner", chromedp.Navigate(url))
	visible = eval[float64](t, ctx, planVisibleMs)
	waitFor(t, ctx, "the takeover", `document.getElementById('calc-root').dataset.ready === '1'`)
	return visible, eval[float64](t, ctx, `window.wattscalePerf.firstEstimateMs`)
}

// plannerReport adds the planner's rows to BenchmarkPerformanceReport: the
// first plan visible (prerendered) and computed by planner.wasm, on
// localhost and over the slow link, served compressed.
func plannerReport(t testing.TB, dir string, add func(what, value, goal string)) {
	cs := serveCompressed(t, dir)
	ms := func(xs []float64) string {
		return fmt.Sprintf("%.0f ms (median of %d; min %.0f, max %.0f)", median(xs), len(xs), minOfF(xs), maxOf(xs))
	}
	var local, localWasm, slow, slowWasm []float64
	for i := 0; i < 5; i++ {
		v, c := plannerFirstPlan(t, cs.URL+"/planner/", false)
		local, localWasm = append(local, v), append(localWasm, c)
		v, c = plannerFirstPlan(t, cs.URL+"/planner/", true)
		slow, slowWasm = append(slow, v), append(slowWasm, c)
	}
	add("planner: navigation → first plan visible, localhost (prerendered)", ms(local), "< 300 ms")
	add("planner: navigation → first plan computed by planner.wasm, localhost", ms(localWasm), "")
	add("planner: 10 Mbit/s + 40 ms: navigation → first plan visible", ms(slow), "< 500 ms")
	add("planner: 10 Mbit/s + 40 ms: navigation → first plan computed by planner.wasm", ms(slowWasm), "")
}

// TestPlannerPrerenderWithoutWasm: when planner.wasm cannot be loaded at
// all (a host that lost it), the prerendered plan stays, with an alert
// that says the planner could not start and that the plan shown is the
// default one.
func TestPlannerPrerenderWithoutWasm(t *testing.T) {
	files := http.FileServer(http.Dir(builtSite(t)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/planner.") || strings.Contains(r.URL.Path, "/planner-embed.") {
			http.NotFound(w, r)
			return
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	ctx := browser(t)
	do(t, ctx, "open the planner", chromedp.Navigate(srv.URL+"/planner/"))
	waitFor(t, ctx, "the alert", `document.querySelector('#calc-root .fatal')`)
	type state struct {
		Alert, Ready string
		Cards        int
	}
	got := eval[state](t, ctx, `({Alert: document.querySelector('#calc-root .fatal').textContent, Ready: document.getElementById('calc-root').dataset.ready || '',
  Cards: document.querySelectorAll('.options .option').length})`)
	if !strings.Contains(got.Alert, "planner could not start") || !strings.Contains(got.Alert, "default plan") || got.Ready != "" || got.Cards != 3 {
		t.Errorf("planner without its wasm: %+v; want the alert naming the planner and the default plan, and the 3 prerendered option cards kept", got)
	}
}
