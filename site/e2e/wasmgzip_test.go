package e2e

import (
	"strings"
	"testing"
)

// TestWasmFromPlainHost: on a host that sends files as they are (Go's file
// server: no Content-Encoding), calc.js fetches calc.wasm's gzip copy
// beside it and inflates it in the page instead of downloading the raw
// file (issue 31), and computes the estimate for what was typed. On a
// host that compresses in transit, the negotiated wasm is used and no copy
// is fetched. The bytes each path moved are logged.
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
		form := eval[string](t, ctx, `document.getElementById('f-count').value`)
		if form != "8" {
			t.Fatalf("%s: GPU count field %q after typing 8", c.name, form)
		}
		waitFor(t, ctx, "the estimate for 8 GPUs", `window.wattscaleApp && window.wattscaleApp.last && window.wattscaleApp.last.response.inputs.count === 8`)
		sizes := eval[[]string](t, ctx, `performance.getEntriesByType('resource').filter(function(e){ return /\.wasm(\.gz)?$/.test(e.name); }).map(function(e){ return e.name.replace(/.*\//, '') + ': ' + e.transferSize + ' B transferred, ' + e.decodedBodySize + ' B body'; })`)
		t.Logf("%s: %s", c.name, strings.Join(sizes, "; "))
	}
}
