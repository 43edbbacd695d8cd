package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestFailedFitNotOffered: a law fit of the page's sample with its
// energies shuffled among its rows (so nothing in the configuration
// explains them) fails its checks (held-out R² below 0). The page says so beside the coefficients, styles the status as
// a warning, keeps "Use it anyway" disabled until the user ticks the
// override, and once used the calculator marks the calibration as failing
// its checks instead of saying "inside its fitted range" (issue 30). After
// a reload the override holds: the calibration comes back, still marked.
func TestFailedFitNotOffered(t *testing.T) {
	srv := serve(t, builtSite(t))
	ctx := browser(t)
	openCalc(t, ctx, srv.URL+"/index.html")
	do(t, ctx, "sample into the box", chromedp.Click(chromedp.ID("refit-sample")))
	waitFor(t, ctx, "the sample in the box (fit.wasm makes it, loaded on this first click)", `document.getElementById('refit-text').value.length > 100`)
	csv := shuffledEnergies(t, eval[string](t, ctx, `document.getElementById('refit-text').value`))
	do(t, ctx, "the shuffled sample into the box", chromedp.SetValue(chromedp.ID("refit-text"), csv))
	eval[bool](t, ctx, `(document.getElementById('refit-kind').value='law', true)`)
	do(t, ctx, "click Fit", chromedp.Click(chromedp.ID("refit-go")))
	waitFor(t, ctx, "the law fit", `['done','error'].indexOf(document.querySelector('.refit').dataset.state) >= 0`)
	if st := eval[string](t, ctx, `document.querySelector('.refit').dataset.state`); st != "done" {
		t.Fatalf("law fit: %s", eval[string](t, ctx, `document.querySelector('.refit-status').textContent`))
	}
	if c := eval[string](t, ctx, `document.querySelector('.refit').dataset.checks`); c != "failed" {
		t.Fatalf("the law fit of shuffled energies: checks %q, want failed", c)
	}
	if kind := eval[string](t, ctx, `document.querySelector('.refit-status').dataset.kind`); kind != "warning" {
		t.Errorf("the failed fit's status is styled %q, want a warning", kind)
	}
	if msg := eval[string](t, ctx, `document.querySelector('.fit-failed').textContent`); !strings.Contains(msg, "held-out R²") {
		t.Errorf("the failed fit says %q, want the held-out R² named", msg)
	}
	if !eval[bool](t, ctx, `document.querySelector('.use-cal').disabled`) {
		t.Fatal("a failed fit's 'Use it anyway' is enabled before the override is ticked")
	}
	for _, w := range []int64{1280, 390} {
		do(t, ctx, "viewport", chromedp.EmulateViewport(w, 900))
		eval[bool](t, ctx, `(document.querySelector('.fit-failed').scrollIntoView(), true)`)
		shot(t, ctx, fmt.Sprintf("refit-failed-%d", w))
	}
	do(t, ctx, "tick the override", chromedp.Click(chromedp.CSS(".use-anyway")))
	waitFor(t, ctx, "the button enabled", `!document.querySelector('.use-cal').disabled`)
	do(t, ctx, "use it anyway", chromedp.Click(chromedp.CSS(".use-cal")))
	waitFor(t, ctx, "the calculator on it", `document.getElementById('f-cal').value !== ''`)
	name := eval[string](t, ctx, `document.getElementById('f-cal').value`)
	line := eval[string](t, ctx, `document.querySelector('.calline').textContent`)
	if !strings.Contains(line, name) || !strings.Contains(line, "failed checks") || strings.Contains(line, "inside its fitted range") {
		t.Errorf("calibration line %q, want %s marked as failing its checks", line, name)
	}
	shot(t, ctx, "refit-failed-used")
	openCalc(t, ctx, srv.URL+"/index.html?cal="+name)
	if opt := eval[string](t, ctx, `document.querySelector('#f-cal option:checked').textContent`); !strings.Contains(opt, "failed checks") {
		t.Errorf("after a reload the calibration option reads %q, want it marked as failing its checks", opt)
	}
}

// shuffledEnergies gives each row of a measurement CSV another row's
// energy (row i takes row (7i+3) mod n's), leaving everything else.
func shuffledEnergies(t *testing.T, csv string) string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	col := slices.Index(strings.Split(lines[0], ","), "energy_kwh")
	if col < 0 || len(lines) < 20 {
		t.Fatalf("the sample CSV has no energy_kwh column or few rows: %q", lines[0])
	}
	rows := lines[1:]
	out := []string{lines[0]}
	for i := range rows {
		a, b := strings.Split(rows[i], ","), strings.Split(rows[(7*i+3)%len(rows)], ",")
		a[col] = b[col]
		out = append(out, strings.Join(a, ","))
	}
	return strings.Join(out, "\n") + "\n"
}

// TestRefitFromFile opens the built calculator from disk, where a Web
// Worker cannot load fit.wasm: the refit box loads fit.wasm's embedded
// copy on its first click, puts the sample in the box, and fits it on the
// page's thread; the law fit of the sample passes its checks.
func TestRefitFromFile(t *testing.T) {
	abs, err := filepath.Abs(filepath.Join(builtSite(t), "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := browser(t)
	openCalc(t, ctx, "file://"+abs)
	do(t, ctx, "sample into the box", chromedp.Click(chromedp.ID("refit-sample")))
	waitFor(t, ctx, "the sample in the box", `document.getElementById('refit-text').value.length > 100`)
	do(t, ctx, "click Fit", chromedp.Click(chromedp.ID("refit-go")))
	waitFor(t, ctx, "the law fit", `['done','error'].indexOf(document.querySelector('.refit').dataset.state) >= 0`)
	if st := eval[string](t, ctx, `document.querySelector('.refit').dataset.state`); st != "done" {
		t.Fatalf("law fit from file://: %s", eval[string](t, ctx, `document.querySelector('.refit-status').textContent`))
	}
	if how := eval[string](t, ctx, `document.querySelector('.refit').dataset.wasmSource`); how != "embedded" {
		t.Errorf("from file:// fit.wasm ran from %q, want its embedded copy on the page", how)
	}
	if c := eval[string](t, ctx, `document.querySelector('.refit').dataset.checks`); c != "passed" {
		t.Errorf("the law fit of the sample from file://: checks %q, want passed", c)
	}
}

// TestBoxesTakeTheFirstTouch: the first touch of a box loads fit.wasm and
// still takes effect. Files pasted into the Hugging Face box fill the form;
// in another tab, the first click on "Download a sample CSV" (a link made
// only then, by fit.wasm) gives the sample, not the page, and the page
// stays where it was.
func TestBoxesTakeTheFirstTouch(t *testing.T) {
	srv := serve(t, builtSite(t))
	ctx := browser(t)
	openCalc(t, ctx, srv.URL+"/index.html")
	// The browser puts a paste's text in after the event: set it, then fire it.
	eval[bool](t, ctx, `(function(){var ta = document.getElementById('hf-text');
		ta.value = '{"model_type": "gpt2", "n_layer": 2, "n_embd": 64, "n_head": 4, "vocab_size": 100}';
		ta.dispatchEvent(new ClipboardEvent('paste', {bubbles: true, cancelable: true})); return true})()`)
	waitFor(t, ctx, "the pasted file read", `/^Filled/.test(document.querySelector('.hf-status').textContent)`)
	waitFor(t, ctx, "the form filled", `document.getElementById('f-layers').value === '2'`)

	ctx2 := browser(t)
	openCalc(t, ctx2, srv.URL+"/index.html")
	at := eval[string](t, ctx2, `location.pathname + location.hash`)
	do(t, ctx2, "click Download a sample CSV", chromedp.Click(chromedp.CSS(".sample-dl")))
	waitFor(t, ctx2, "the sample's link made", `document.querySelector('.sample-dl').href.indexOf('blob:') === 0`)
	csv := eval[string](t, ctx2, `fetch(document.querySelector('.sample-dl').href).then(function (r) { return r.text() })`)
	if !strings.HasPrefix(csv, "model,gpu,count,") || !strings.Contains(csv, "not a measurement") {
		t.Errorf("the sample link gives %.200q…, want the synthetic sample CSV", csv)
	}
	if u := eval[string](t, ctx2, `location.pathname + location.hash`); u != at {
		t.Errorf("after the click the page is at %s, before at %s", u, at)
	}
}

// TestBoxesSayWhenFitWasmIsMissing serves the site without fit.wasm and
// its embedded copy: a touch of the refit box says, in the box's status
// and as an error, that the fitting module could not run and why.
func TestBoxesSayWhenFitWasmIsMissing(t *testing.T) {
	files := http.FileServer(http.Dir(builtSite(t)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if b := path.Base(r.URL.Path); strings.HasPrefix(b, "fit.") || strings.HasPrefix(b, "fit-embed.") {
			http.NotFound(w, r)
			return
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	ctx := browser(t)
	openCalc(t, ctx, srv.URL+"/index.html")
	do(t, ctx, "sample into the box", chromedp.Click(chromedp.ID("refit-sample")))
	waitFor(t, ctx, "the box's error", `document.querySelector('.refit-status').dataset.kind === 'error'`)
	if st := eval[string](t, ctx, `document.querySelector('.refit-status').textContent`); !strings.HasPrefix(st, "The fitting module could not run: could not start fit.wasm") {
		t.Errorf("without fit.wasm the refit box says %q", st)
	}
	if role := eval[string](t, ctx, `document.querySelector('.refit-status').getAttribute('role')`); role != "alert" {
		t.Errorf("the error's role is %q, want alert", role)
	}
}
