package e2e

import (
	"fmt"
	"path"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// TestWasmFromPlainHost: on a host that sends files as they are (Go's file
// server: no Content-Encoding), calc.js fetches calc.wasm's gzip copy
// beside it and inflates it in the page instead of downloading the raw
// file (issue 31), and computes the estimate for what was typed. On a
// host that compresses in transit, the negotiated wasm is used and no copy
// is fetched and the response is compiled as it came. The bytes each path
// moved are logged.
func TestWasmFromPlainHost(t *testing.T) {
	dir := builtSite(t)
	for _, c := range []struct {
		name string
		url  string
		gzip bool
	}{{"plain host", serve(t, dir).URL, true}, {"compressing host", serveCompressed(t, dir).URL, false}} {
		ctx := browser(t)
		openCalc(t, ctx, c.url+"/index.html")
		typeInto(t, ctx, "count", "8")
		got := eval[[]string](t, ctx, `performance.getEntriesByType('resource').map(function(e){ return e.name; }).filter(function(n){ return /\.wasm(\.gz)?$/.test(n); })`)
		fetchedGz := false
		for _, n := range got {
			fetchedGz = fetchedGz || strings.HasSuffix(n, ".wasm.gz")
		}
		if fetchedGz != c.gzip || eval[bool](t, ctx, `!!window.wattscalePerf.wasmGzip`) != c.gzip {
			t.Errorf("%s: fetched %q, wasmGzip %v; want the gzip copy fetched and inflated: %v", c.name, got, eval[bool](t, ctx, `!!window.wattscalePerf.wasmGzip`), c.gzip)
		}
		// The negotiated wasm (application/wasm from the host) is compiled
		// as it came, so that the browser can keep the compiled code; the
		// inflated copy is a response made in the page.
		want := "as-served"
		if c.gzip {
			want = "inflated"
		}
		if how := eval[string](t, ctx, `String(document.getElementById('calc-root').dataset.wasmResponse)`); how != want {
			t.Errorf("%s: the wasm response was %q, want %q", c.name, how, want)
		}
		form := eval[string](t, ctx, `document.getElementById('f-count').value`)
		if form != "8" {
			t.Fatalf("%s: GPU count field %q after typing 8", c.name, form)
		}
		waitFor(t, ctx, "the estimate for 8 GPUs", `window.wattscaleApp && window.wattscaleApp.last && window.wattscaleApp.last.post.count === 8`)
		sizes := eval[[]string](t, ctx, `performance.getEntriesByType('resource').filter(function(e){ return /\.wasm(\.gz)?$/.test(e.name); }).map(function(e){ return e.name.replace(/.*\//, '') + ': ' + e.transferSize + ' B transferred, ' + e.decodedBodySize + ' B body'; })`)
		t.Logf("%s: %s", c.name, strings.Join(sizes, "; "))
	}
}

// TestPendingUntilWasm: an edit made before the WebAssembly answers (the
// GPU count changed at DOMContentLoaded, before calc.js ran, and the
// strategy typed once the form was adopted) marks the figures shown as the
// previous estimate: the calculator is data-pending, its status line says
// so, the headline is labelled and the results are dimmed, and the
// prerendered figures stay. The first answer reflects both edits and
// clears the mark. Screenshots at 390 and 1280 px in WATTSCALE_SHOTS.
func TestPendingUntilWasm(t *testing.T) {
	dir := builtSite(t)
	for _, width := range []int64{1280, 390} {
		srv, release := serveHeld(t, dir, ".wasm")
		ctx := browser(t)
		do(t, ctx, "viewport", chromedp.EmulateViewport(width, 900))
		inputAtLoad(t, ctx)
		if _, err := chromedp.Call(ctx, page.Navigate, page.NavigateParams{URL: srv.URL + "/"}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, "the page's script started before the wasm", `window.wattscalePerf && window.wattscalePerf.startMs > 0 && document.readyState !== 'loading'`)
		type state struct {
			Pending, Ready, Status, After, Sum, KWh, Count, Strategy string
			Opacity                                                  float64
		}
		const probe = `(function(){ var r = document.getElementById('calc-root');
  return {Pending: r.dataset.pending || '', Ready: r.dataset.ready || '', Status: r.querySelector('.results .status').textContent,
    After: getComputedStyle(r.querySelector('.results .headline .big'), '::after').content, Sum: getComputedStyle(r.querySelector('.summary .s-k'), '::after').content, KWh: document.getElementById('energy').dataset.kwh,
    Count: document.getElementById('f-count').value, Strategy: document.getElementById('f-strategy').value,
    Opacity: parseFloat(getComputedStyle(r.querySelector('.results .headline')).opacity)}; })()`
		pre := eval[string](t, ctx, `document.getElementById('energy').dataset.kwh`)
		choose(t, ctx, "strategy", "ddp")
		s := eval[state](t, ctx, probe)
		if s.Pending != "1" || s.Ready != "" || !strings.Contains(s.Status, "previous estimate") || !strings.Contains(s.After, "previous estimate") || !strings.Contains(s.Sum, "previous") || !(s.Opacity < 1) || s.KWh != pre || s.Count != "8" || s.Strategy != "ddp" {
			t.Errorf("%d px, edits before the wasm: %+v; want pending, the status, the headline and the phone's summary saying the figures are the previous estimate, dimmed, the prerendered %s kWh kept, both edits in the form", width, s, pre)
		}
		shot(t, ctx, fmt.Sprintf("calc-pending-%d", width))
		release()
		waitFor(t, ctx, "the takeover", `document.getElementById('calc-root').dataset.ready === '1'`)
		a := eval[state](t, ctx, probe)
		in := eval[[]string](t, ctx, `(function(){ var p = window.wattscaleApp.last.post; return [String(p.count), p.strategy]; })()`)
		if a.Pending != "" || a.Status != "" || strings.Contains(a.After, "previous estimate") || strings.Contains(a.Sum, "previous") || a.Opacity != 1 || in[0] != "8" || in[1] != "ddp" {
			t.Errorf("%d px, after the first answer: %+v, estimate for %q; want no pending mark, an empty status, full opacity, the estimate for 8 GPUs with ddp", width, a, in)
		}
		shot(t, ctx, fmt.Sprintf("calc-answered-%d", width))
	}
}

// TestWasmGzipCopyAskedAtOnce: on a host that sends files as they are, the
// page's head (site/assets/head.js) asks for calc.wasm's gzip copy as soon
// as the raw file's headers show no Content-Encoding, before calc.js has
// run (it is held here until then). Before, calc.js asked for the copy
// after the first paint while the raw file (5 MB) downloaded (issue 31).
// The page then computes the estimate for what was typed from the copy.
func TestWasmGzipCopyAskedAtOnce(t *testing.T) {
	dir := builtSite(t)
	srv, release := serveHeld(t, dir, path.Base(assetPath(t, dir, "assets/calc.js")))
	ctx := browser(t)
	inputAtLoad(t, ctx)
	if _, err := chromedp.Call(ctx, page.Navigate, page.NavigateParams{URL: srv.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the gzip copy asked for while calc.js is held", `window.wattscalePerf && window.wattscalePerf.wasmGzip === 1 && window.wattscalePerf.wasmResponse === 'inflated'`)
	if started := eval[bool](t, ctx, `!!(window.wattscalePerf.startMs || window.wattscaleApp)`); started {
		t.Fatal("calc.js ran although it was held")
	}
	release()
	waitFor(t, ctx, "the estimate for 8 GPUs", `window.wattscaleApp && window.wattscaleApp.last && window.wattscaleApp.last.post.count === 8`)
	if how := eval[string](t, ctx, `String(document.getElementById('calc-root').dataset.wasmSource) + ' ' + String(document.getElementById('calc-root').dataset.wasmResponse) + ' ' + String(window.wattscalePerf.wasmEarly)`); how != "streaming inflated 1" {
		t.Errorf("the wasm came %q, want \"streaming inflated 1\" (the head's gzip copy, compiled as it streamed)", how)
	}
}
