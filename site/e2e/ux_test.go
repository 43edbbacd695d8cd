package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// What a first-time visitor trips over (issue 14), each checked in the
// browser as a visitor meets it.

// TestPhoneSummaryInFirstViewport opens the calculator at 390 px: the
// summary (energy with its interval, time, CO₂e) is inside the first
// viewport, shows the estimate's energy, stays in view while the form
// scrolls, and one tap brings the full estimate.
func TestPhoneSummaryInFirstViewport(t *testing.T) {
	srv := serve(t, builtSite(t))
	ctx := browser(t)
	do(t, ctx, "phone viewport", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	openCalc(t, ctx, srv.URL+"/index.html")
	saveShot(t, ctx, "ux-calculator-phone-top")
	type box struct {
		Top, Bottom float64
		Text        string
		KWh, Full   string
	}
	sum := func() box {
		return eval[box](t, ctx, `(function(){var e=document.getElementById('sum-energy'), r=e.getBoundingClientRect();
  return {Top: r.top, Bottom: r.bottom, Text: e.closest('.summary').innerText, KWh: e.dataset.kwh, Full: document.getElementById('energy').dataset.kwh}})()`)
	}
	b := sum()
	if b.Top < 0 || b.Bottom > 844 {
		t.Errorf("summary energy at %.0f–%.0f px, want inside the first 844 px", b.Top, b.Bottom)
	}
	if b.KWh == "" || b.KWh != b.Full {
		t.Errorf("summary energy %q kWh, estimate %q kWh", b.KWh, b.Full)
	}
	for _, want := range []string{"Wh", "90 %", "min", "CO₂e"} {
		if !strings.Contains(b.Text, want) {
			t.Errorf("summary %q lacks %q (energy, interval, time, CO₂e)", b.Text, want)
		}
	}
	// Scroll the form: the summary stays on screen.
	eval[bool](t, ctx, `(document.getElementById('f-cal').scrollIntoView({block:'center'}), true)`)
	settle(t, ctx)
	if b := sum(); b.Top < 0 || b.Bottom > 844 {
		t.Errorf("after scrolling to the calibration field the summary is at %.0f–%.0f px, want in view", b.Top, b.Bottom)
	}
	// Typing in the form updates it.
	typeInto(t, ctx, "count", "8")
	if b := sum(); b.KWh != b.Full || b.KWh == "" {
		t.Errorf("after typing 8 GPUs the summary says %q kWh, the estimate %q", b.KWh, b.Full)
	}
	saveShot(t, ctx, "ux-calculator-phone-scrolled")
	// One tap: the full estimate.
	do(t, ctx, "tap the summary", chromedp.Click(chromedp.CSS(".summary")))
	settle(t, ctx)
	if top := eval[float64](t, ctx, `document.getElementById('energy').getBoundingClientRect().top`); top < 0 || top > 844 {
		t.Errorf("after tapping the summary the headline energy is at %.0f px, want in view", top)
	}
	// Chart text is drawn at one size, at least 12 px, on the phone too.
	checkChartText(t, ctx, "calculator at 390 px")
}

// checkChartText measures every chart text's rendered font size.
func checkChartText(t *testing.T, ctx context.Context, where string) {
	t.Helper()
	sizes := eval[[]float64](t, ctx, `Array.prototype.map.call(document.querySelectorAll('#calc-root svg.chart text'), function(e){
  var svg = e.ownerSVGElement, vb = svg.viewBox.baseVal, k = vb && vb.width ? svg.getBoundingClientRect().width / vb.width : 1;
  return Math.round(parseFloat(getComputedStyle(e).fontSize) * k * 10) / 10 })`)
	if len(sizes) == 0 {
		t.Fatalf("%s: no chart text", where)
	}
	seen := map[float64]bool{}
	for _, s := range sizes {
		seen[s] = true
		if s < 12 {
			t.Errorf("%s: chart text drawn at %.1f px, want at least 12", where, s)
			break
		}
	}
	if len(seen) > 1 {
		t.Errorf("%s: chart text at %d sizes %v, want one", where, len(seen), seen)
	}
}

// saveShot saves the viewport as NAME.png under $WATTSCALE_SHOTS.
func saveShot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("WATTSCALE_SHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPlannerBadgeAndOwnNumbers checks the planner's ranking and first
// states: a hand-written ?set=all works and marks sft-1b, not the
// total-only sft-7b; the total-only bar has a legend entry; "My own
// numbers" opens on a valid editable plan; a quality of 7 is refused beside
// its field, 70 % accepted.
func TestPlannerBadgeAndOwnNumbers(t *testing.T) {
	srv := serve(t, builtSite(t))
	ctx := browser(t)
	openCalc(t, ctx, srv.URL+"/planner/index.html?set=all")
	if st := eval[string](t, ctx, `document.getElementById('calc-root').dataset.state`); st != "ok" {
		t.Fatalf("?set=all: state %q: %s", st, eval[string](t, ctx, `document.querySelector('.results .status').textContent`))
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('.option').length`); n != 7 {
		t.Errorf("?set=all shows %d options, want 7", n)
	}
	if best := eval[string](t, ctx, `(document.querySelector('.option.best')||{dataset:{}}).dataset.option || ''`); best != "sft-1b" {
		t.Errorf("badge on %q, want sft-1b (sft-7b is published as a total only)", best)
	}
	if leg := eval[string](t, ctx, `document.querySelector('.stages .legend').innerText`); !strings.Contains(leg, "Total only") {
		t.Errorf("stage legend %q has no entry for the total-only bar", leg)
	}
	saveShot(t, ctx, "ux-planner-all-desktop")

	choose(t, ctx, "set", "custom")
	waitFor(t, ctx, "the custom plan", `document.getElementById('f-o1.name') !== null`)
	if st := eval[string](t, ctx, `document.getElementById('calc-root').dataset.state`); st != "ok" {
		t.Errorf("'My own numbers' opens in state %q: %s", st, eval[string](t, ctx, `document.querySelector('.results .status').textContent`))
	}
	if v := eval[string](t, ctx, `document.getElementById('f-o2.teacher').value`); v == "" {
		t.Error("'My own numbers' opens with no teacher energy to edit")
	}
	typeInto(t, ctx, "o2.q", "7")
	msg := eval[string](t, ctx, `document.getElementById('f-o2.q-err').textContent`)
	if !strings.Contains(msg, "score from 0 to 1") || strings.Contains(msg, "options[") {
		t.Errorf("quality 7: message %q, want one saying Q is a score from 0 to 1, without a JSON path", msg)
	}
	typeInto(t, ctx, "o2.q", "70 %")
	if st := eval[string](t, ctx, `document.getElementById('calc-root').dataset.state`); st != "ok" {
		t.Errorf("quality 70 %%: state %q: %s", st, eval[string](t, ctx, `document.getElementById('f-o2.q-err').textContent`))
	}
	if q := eval[string](t, ctx, `document.querySelector('.option[data-option="my logit KD"]').innerText`); !strings.Contains(q, "Q 0.70") {
		t.Errorf("quality 70 %% shows as %q, want Q 0.70", q)
	}
}

// TestMessagesInTheFormsWords types what a visitor typed and checks the
// message beside the field: no JSON paths or API routes, an example that
// fits the field, and a link with several bad fields marks them all.
func TestMessagesInTheFormsWords(t *testing.T) {
	srv := serve(t, builtSite(t))
	ctx := browser(t)
	openCalc(t, ctx, srv.URL+"/index.html")
	cases := []struct{ key, typed, want, orig string }{
		{"gpu", "h999", "the list under the field", "a100-sxm4-80gb"},
		{"count", "abc", "whole number, for example 8", "4"},
		{"tokens", "1e400", "too large", "2e8"},
		{"tokens", "0", "more than 0 tokens", "2e8"},
	}
	for _, c := range cases {
		typeInto(t, ctx, c.key, c.typed)
		msg := eval[string](t, ctx, fmt.Sprintf(`document.getElementById('f-%s-err').textContent`, c.key))
		status := eval[string](t, ctx, `document.querySelector('.results .status').textContent`)
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s = %q: message %q, want %q", c.key, c.typed, msg, c.want)
		}
		for _, bad := range []string{"training.", "hardware.", "GET /api", "dataset_tokens", "2e8, 200M or 0.15"} {
			if strings.Contains(msg+status, bad) {
				t.Errorf("%s = %q: message %q / status %q speaks code (%q)", c.key, c.typed, msg, status, bad)
			}
		}
		typeInto(t, ctx, c.key, c.orig)
	}
	// Clearing the model to browse the presets is not an error.
	typeInto(t, ctx, "model", "")
	if n := eval[int](t, ctx, `document.querySelectorAll('.field.invalid').length`); n != 0 {
		t.Errorf("clearing the model field marks %d fields invalid", n)
	}
	if e := pageEnergy(t, ctx); !(e > 0) {
		t.Errorf("clearing the model field lost the estimate (%v)", e)
	}
	typeInto(t, ctx, "model", "bert-base")
	// A link with three bad fields reports all three.
	openCalc(t, ctx, srv.URL+"/index.html?batch=0&count=many&pue=9")
	bad := eval[[]string](t, ctx, `Array.prototype.map.call(document.querySelectorAll('.field.invalid'), function(f){return f.dataset.key})`)
	if strings.Join(bad, ",") != "batch,count,pue" {
		t.Errorf("a link with bad batch, count and PUE marks %v", bad)
	}
	if s := eval[string](t, ctx, `document.querySelector('.results .status').textContent`); !strings.Contains(s, "2 more fields") {
		t.Errorf("status %q does not say there are more bad fields", s)
	}
	saveShot(t, ctx, "ux-calculator-bad-link")
}

// TestDefaultOpensInsideEnvelope checks that the calculator opens without an
// envelope warning, and that outside the envelope (seq 32, below every
// run the default calibration was fitted on) the page says in plain words
// what to change.
func TestDefaultOpensInsideEnvelope(t *testing.T) {
	srv := serve(t, builtSite(t))
	ctx := browser(t)
	openCalc(t, ctx, srv.URL+"/index.html")
	if n := eval[int](t, ctx, `document.querySelectorAll('.results .warnings').length`); n != 0 {
		t.Errorf("default page shows %d warning boxes: %s", n, eval[string](t, ctx, `document.querySelector('.results .notes').innerText`))
	}
	if l := eval[string](t, ctx, `document.querySelector('.calline').textContent`); !strings.Contains(l, "inside its fitted range") {
		t.Errorf("default calibration line %q", l)
	}
	checkChartText(t, ctx, "calculator at 1280 px")
	typeInto(t, ctx, "seq", "32")
	note := eval[string](t, ctx, `(document.querySelector('.warnings.envelope')||{innerText:''}).innerText`)
	for _, want := range []string{"Sequence length 32 is below the range", "choose a sequence length inside that range", "widened"} {
		if !strings.Contains(note, want) {
			t.Errorf("envelope note %q lacks %q", note, want)
		}
	}
	if strings.Contains(note, "seq_len") {
		t.Errorf("envelope note %q uses the JSON name seq_len", note)
	}
}

// TestStrategiesThatDoNotFitStayInTheLegend: Llama-3-8B on H100s fits
// only with FSDP and tensor parallelism; single GPU and DDP stay in the
// legend, saying they do not fit in 80 GB and why.
func TestStrategiesThatDoNotFitStayInTheLegend(t *testing.T) {
	srv := serve(t, builtSite(t))
	ctx := browser(t)
	openCalc(t, ctx, srv.URL+"/index.html?model=llama-3-8b&gpu=h100&count=4&strategy=fsdp&seq=2048&batch=4&precision=bf16")
	items := eval[[]string](t, ctx, `Array.prototype.map.call(document.querySelectorAll('.legend-wrap li'), function(l){return l.innerText})`)
	if len(items) != 4 {
		t.Fatalf("legend %q, want the four strategies", items)
	}
	for _, i := range items[:2] {
		if !strings.Contains(i, "does not fit in 80 GB") || !strings.Contains(i, "GB per GPU") {
			t.Errorf("legend entry %q, want it to say it does not fit in 80 GB and why", i)
		}
	}
	// The strategy select shows its longest option whole.
	if cut := eval[bool](t, ctx, `(function(){var s=document.getElementById('f-strategy'); var c=document.createElement('canvas').getContext('2d'); var cs=getComputedStyle(s); c.font=cs.fontSize+' '+cs.fontFamily;
  return c.measureText('FSDP (fully sharded)').width + 36 > s.clientWidth})()`); cut {
		t.Error("the strategy select is too narrow for “FSDP (fully sharded)”")
	}
}

// TestRefitDoesNotBlockTheForm starts a roofline refit on the sample CSV
// and types while it runs: the estimate follows the typing (fit.wasm runs
// in a Web Worker), Cancel stops it; then a law fit runs to the end and
// its calibration is used by the calculator, labelled as the user's own,
// and is still there after a reload. The page states fit.wasm's size,
// raw and gzip -9, as the built file's to the one decimal shown.
func TestRefitDoesNotBlockTheForm(t *testing.T) {
	dir := builtSite(t)
	srv := serve(t, dir)
	ctx := browser(t)
	openCalc(t, ctx, srv.URL+"/index.html")

	raw, err := os.ReadFile(filepath.Join(dir, assetPath(t, dir, "assets/fit.wasm")))
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	w, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	w.Write(raw)
	w.Close()
	for _, c := range []struct {
		attr  string
		bytes int
	}{{"rawMb", len(raw)}, {"gzipMb", gz.Len()}} {
		stated, err := strconv.ParseFloat(eval[string](t, ctx, `document.querySelector('.fit-size').dataset.`+c.attr), 64)
		if err != nil {
			t.Fatal(err)
		}
		// The build writes it from the file (view.RefitBox), so it is
		// the file's size to the one decimal shown.
		if real := float64(c.bytes) / 1e6; math.Abs(stated-real) > 0.05+1e-9 {
			t.Errorf("page states fit.wasm %s %.1f MB, the built file is %.3f MB", c.attr, stated, real)
		}
	}

	do(t, ctx, "sample into the box", chromedp.Click(chromedp.ID("refit-sample")))
	waitFor(t, ctx, "the sample in the box (fit.wasm makes it, loaded on this first click)", `document.getElementById('refit-text').value.length > 100`)
	if v := eval[string](t, ctx, `document.getElementById('refit-text').value`); !strings.Contains(v, "not a measurement") {
		t.Fatalf("sample CSV %q…, want rows labelled synthetic", v[:min(len(v), 200)])
	}
	eval[bool](t, ctx, `(document.getElementById('refit-kind').value='roofline', true)`)
	do(t, ctx, "click Fit", chromedp.Click(chromedp.ID("refit-go")))
	waitFor(t, ctx, "the fit to start", `document.querySelector('.refit').dataset.state === 'fitting'`)
	if how := eval[string](t, ctx, `document.querySelector('.refit').dataset.wasmSource`); how != "worker" {
		t.Errorf("fit.wasm ran in %q, want worker", how)
	}
	before := pageEnergy(t, ctx)
	start := time.Now()
	typeInto(t, ctx, "count", "8")
	waitFor(t, ctx, "the estimate for 8 GPUs", fmt.Sprintf(`parseFloat(document.getElementById('energy').dataset.kwh) !== %v`, before))
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("typing during the fit took %v to update the estimate", d)
	}
	if st := eval[string](t, ctx, `document.querySelector('.refit').dataset.state`); st != "fitting" {
		t.Logf("the roofline fit ended (%s) before the typing was checked; the check still shows the form answered", st)
	} else {
		if vis := eval[bool](t, ctx, `!document.querySelector('.refit-progress').hidden`); !vis {
			t.Error("no progress shown while fitting")
		}
		do(t, ctx, "Cancel", chromedp.Click(chromedp.ID("refit-cancel")))
		if st := eval[string](t, ctx, `document.querySelector('.refit').dataset.state`); st != "cancelled" {
			t.Errorf("after Cancel the refit state is %q", st)
		}
	}

	eval[bool](t, ctx, `(document.getElementById('refit-kind').value='law', true)`)
	do(t, ctx, "click Fit", chromedp.Click(chromedp.ID("refit-go")))
	waitFor(t, ctx, "the law fit", `['done','error'].indexOf(document.querySelector('.refit').dataset.state) >= 0`)
	if st := eval[string](t, ctx, `document.querySelector('.refit').dataset.state`); st != "done" {
		t.Fatalf("law fit: %s", eval[string](t, ctx, `document.querySelector('.refit-status').textContent`))
	}
	do(t, ctx, "use it", chromedp.Click(chromedp.CSS(".use-cal")))
	name := eval[string](t, ctx, `document.getElementById('f-cal').value`)
	if name == "" {
		t.Fatal("after 'Use it in the calculator' the calibration select is on the default")
	}
	if l := eval[string](t, ctx, `document.querySelector('.calline').textContent`); !strings.Contains(l, name) || !strings.Contains(l, "yours") {
		t.Errorf("calibration line %q, want %s marked as yours", l, name)
	}
	saveShot(t, ctx, "ux-calculator-own-calibration")
	openCalc(t, ctx, srv.URL+"/index.html?cal="+name)
	if st := eval[string](t, ctx, `document.getElementById('calc-root').dataset.state`); st != "ok" {
		t.Errorf("after a reload, ?cal=%s: %s", name, eval[string](t, ctx, `document.querySelector('.results .status').textContent`))
	}
	if opt := eval[string](t, ctx, `document.querySelector('#f-cal option:checked').textContent`); !strings.Contains(opt, "yours") {
		t.Errorf("calibration option %q, want it labelled as yours", opt)
	}
}

// TestRowLabelsShowWhole opens the calculator and the planner with an
// estimated student on a hybrid layout (the form with the longest labels
// in two columns), on a wide screen and a phone, and checks every visible
// field of a two- or three-column row: its label is shown whole (no text
// cut off: before, such labels were one line with an ellipsis, and
// "Tensor-parallel degree" read "Tensor-parallel de…"), and the controls
// of the fields that start a row together are level, whatever the
// lengths of their labels.
func TestRowLabelsShowWhole(t *testing.T) {
	srv := serve(t, builtSite(t))
	type field struct {
		Key, Label       string
		Scroll, Client   float64 // the label's text width and its box's
		FieldTop, CtlTop float64
		LabelBottom      float64
		Grid             int // which row container the field is in
	}
	const probe = `(function(){
  var out = [];
  document.querySelectorAll('.grid2, .grid3').forEach(function(g, gi){
    Array.prototype.forEach.call(g.children, function(f){
      if (!f.classList.contains('field') || f.classList.contains('check') || f.offsetParent === null) return;
      var l = f.querySelector('label'), c = f.querySelector('input, select, textarea');
      if (!l || !c) return;
      out.push({Key: f.dataset.key || l.textContent, Label: l.textContent, Scroll: l.scrollWidth, Client: l.clientWidth,
        FieldTop: f.getBoundingClientRect().top, CtlTop: c.getBoundingClientRect().top, LabelBottom: l.getBoundingClientRect().bottom, Grid: gi});
    });
  });
  return out;
})()`
	pages := []struct{ name, url string }{
		{"calculator", "/index.html"},
		{"planner", "/planner/index.html?set=custom&n=1&rows=1&o1.name=mine&o1.regime=sft&o1.pre=0.4&o1.eval=0.3&o1.smode=estimate&o1.s.model=olmo-2-1b&o1.s.tokens=1e8&o1.s.seq=1024&o1.s.batch=8&o1.s.precision=bf16&o1.s.method=qlora&o1.s.gpu=h100-sxm5&o1.s.count=2&o1.s.strategy=hybrid&o1.s.tensor=2"},
	}
	for _, p := range pages {
		for _, width := range []int64{1280, 390} {
			t.Run(fmt.Sprintf("%s/%d", p.name, width), func(t *testing.T) {
				ctx := browser(t)
				do(t, ctx, "viewport", chromedp.EmulateViewport(width, 900))
				do(t, ctx, "open "+p.url, chromedp.Navigate(srv.URL+p.url))
				waitFor(t, ctx, "the page", `document.getElementById('calc-root').dataset.ready === '1'`)
				fs := eval[[]field](t, ctx, probe)
				if len(fs) < 6 {
					t.Fatalf("found %d fields in two- or three-column rows, want at least 6", len(fs))
				}
				for _, f := range fs {
					if f.Scroll > f.Client+1 {
						t.Errorf("%s: label %q is cut off (%.0f px of text in %.0f px)", f.Key, f.Label, f.Scroll, f.Client)
					}
					if f.LabelBottom > f.CtlTop+1 {
						t.Errorf("%s: label %q ends at %.0f px, below the top of its control at %.0f px", f.Key, f.Label, f.LabelBottom, f.CtlTop)
					}
				}
				for i, a := range fs {
					for _, b := range fs[i+1:] {
						if a.Grid == b.Grid && math.Abs(a.FieldTop-b.FieldTop) < 1 && math.Abs(a.CtlTop-b.CtlTop) > 1 {
							t.Errorf("%s and %s start a row together, but their controls are at %.0f and %.0f px", a.Key, b.Key, a.CtlTop, b.CtlTop)
						}
					}
				}
			})
		}
	}
}

// TestCopyButtonsSayGoWords clicks "Copy link": the button answers in the
// words the markup carries (the share box's data-copied or
// data-copy-failed, written by package view; calc.js composes none) and
// then shows its label again.
func TestCopyButtonsSayGoWords(t *testing.T) {
	srv := serve(t, builtSite(t))
	ctx := browser(t)
	openCalc(t, ctx, srv.URL+"/index.html")
	do(t, ctx, "copy the link", chromedp.Click(chromedp.CSS(`.share [data-copy="url"]`)))
	waitFor(t, ctx, "the copy button's answer", `(function(){ var s = document.querySelector('.share'), b = s.querySelector('[data-copy="url"]');
  return b.textContent !== 'Copy link' && (b.textContent === s.dataset.copied || b.textContent === s.dataset.copyFailed); })()`)
	if got := eval[string](t, ctx, `document.querySelector('.share').dataset.copied + ' / ' + document.querySelector('.share').dataset.copyFailed`); got != "Copied / Select and copy by hand" {
		t.Errorf("the share box carries %q, want the view's words", got)
	}
	waitFor(t, ctx, "the copy button's label again", `document.querySelector('.share [data-copy="url"]').textContent === 'Copy link'`)
}
