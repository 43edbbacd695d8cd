package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/chromedp/chromedp"
)

// gzipSize is the size of b compressed with gzip at best compression.
func gzipSize(t testing.TB, b []byte) int {
	t.Helper()
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	w.Write(b)
	w.Close()
	return buf.Len()
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

func maxOf(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// BenchmarkPerformanceReport prints the speed and size report of `make
// bench-browser` once: the WebAssembly sizes, the calculator page's
// first-load size (every file the browser fetched, gzipped), and timings
// measured with performance.now() in headless Chromium on localhost. A
// report, not an assertion (speed goals are measured, not timed
// assertions): go test -run '^$' -bench '^BenchmarkPerformanceReport$'
// -benchtime 1x ./site/e2e.
func BenchmarkPerformanceReport(bm *testing.B) {
	var t testing.TB = bm
	dir := builtSite(t)
	srv := serve(t, dir)
	var rows [][3]string
	add := func(what, value, goal string) { rows = append(rows, [3]string{what, value, goal}) }

	for _, w := range []struct{ file, goal string }{{"assets/calc.wasm", "≤ 650 KB gzip"}, {"assets/planner.wasm", "the planner page only"}, {"assets/fit.wasm", "loaded only on refit"}} {
		p := filepath.Join(dir, assetPath(t, dir, w.file))
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		br := "no .br"
		if fi, err := os.Stat(p + ".br"); err == nil {
			br = fmt.Sprintf("%.0f KB brotli (the .br site build writes)", float64(fi.Size())/1000)
		}
		add(w.file, fmt.Sprintf("%.0f KB raw, %.0f KB gzip, %s", float64(len(b))/1000, float64(gzipSize(t, b))/1000, br), w.goal)
	}

	// Cold loads: a fresh browser profile each time.
	var navMs []float64
	var firstLoad []string
	for i := 0; i < 3; i++ {
		ctx := browser(t)
		openCalc(t, ctx, srv.URL+"/index.html")
		navMs = append(navMs, eval[float64](t, ctx, `window.wattscalePerf.firstEstimateMs`))
		if i == 0 {
			firstLoad = eval[[]string](t, ctx, `[location.href].concat(performance.getEntriesByType('resource').map(function(e){return e.name}))`)
		}
	}
	total, totalRaw := 0, 0
	var names []string
	for _, u := range firstLoad {
		p, err := url.Parse(u)
		if err != nil || !strings.HasPrefix(u, srv.URL) {
			continue
		}
		path := strings.TrimPrefix(p.Path, "/")
		if path == "" || strings.HasSuffix(path, "/") {
			path += "index.html"
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(path)))
		if err != nil {
			t.Fatalf("first load fetched %s, not in the build: %v", u, err)
		}
		total += gzipSize(t, b)
		totalRaw += len(b)
		names = append(names, path)
	}
	add("calculator page, first load", fmt.Sprintf("%.0f KB gzip (%.0f KB raw) in %d files: %s", float64(total)/1000, float64(totalRaw)/1000, len(names), strings.Join(names, ", ")), "≤ 800 KB gzip")
	add("navigation to first estimate (cold, median of 3)", fmt.Sprintf("%.0f ms (max %.0f)", median(navMs), maxOf(navMs)), "< 1000 ms")

	ctx := browser(t)
	openCalc(t, ctx, srv.URL+"/index.html")
	// Input change to updated results: the input event, the one call into
	// Go, the DOM and SVG update, and a forced layout.
	inputMs := eval[[]float64](t, ctx, `(function(){var e=document.getElementById('f-count'), out=[];
  for (var i=0;i<60;i++){ var t0=performance.now(); e.value = String([4,8,2,16][i%4]); e.dispatchEvent(new Event('input',{bubbles:true})); document.body.offsetHeight; out.push(performance.now()-t0); }
  return out.slice(10)})()`)
	add("input change to updated results (median, max of 50)", fmt.Sprintf("%.2f ms, %.2f ms", median(inputMs), maxOf(inputMs)), "< 16 ms")
	// One render of a form whose charts sweep the most GPU counts: the
	// estimate, the sweep (every strategy at each count) and the markup.
	sweepMs := eval[[]float64](t, ctx, `(function(){var f=Object.assign({}, window.wattscaleApp.out.show, {count: '2048'}), out=[], pts=0;
  for (var i=0;i<22;i++){ var t0=performance.now(); var r=wattscale.render({form: f}); out.push(performance.now()-t0); pts=(r.html.match(/<path class="line/g)||[]).length; }
  window.__pts=pts; return out.slice(2)})()`)
	pts := eval[int](t, ctx, `window.__pts`)
	add(fmt.Sprintf("render with the widest chart sweep (%d strategy lines), one call (median, max of 20)", pts), fmt.Sprintf("%.1f ms, %.1f ms", median(sweepMs), maxOf(sweepMs)), "< 50 ms")
	// The planner runs in its own page's wasm (planner.wasm; calc.wasm
	// leaves the planner out).
	pctx := browser(t)
	openCalc(t, pctx, srv.URL+"/planner/index.html")
	planMs := eval[[]float64](t, pctx, `(function(){var out=[]; var f=JSON.stringify({form: window.wattscaleApp.state, changed: 'n', value: '2', parts: true});
  for (var i=0;i<30;i++){ var t0=performance.now(); JSON.parse(wattscale.render(f)); out.push(performance.now()-t0); } return out.slice(10)})()`)
	add("planner: one render call, a changed input drawn (median of 20)", fmt.Sprintf("%.2f ms", median(planMs)), "")
	plannerReport(t, dir, add)

	// Refit: loading fit.wasm on demand and fitting.
	file := filepath.Join(t.TempDir(), "runs.csv")
	syntheticMeasurements(t, file)
	do(t, ctx, "upload", chromedp.SetUploadFiles(chromedp.ID("refit-file"), []string{file}))
	waitFor(t, ctx, "the file read", `document.getElementById('refit-text').value.length > 100`)
	t0 := time.Now()
	do(t, ctx, "fit", chromedp.Click(chromedp.ID("refit-go")))
	waitFor(t, ctx, "the fit", `document.querySelector('.refit').dataset.state === 'done'`)
	add("refit: load fit.wasm and fit the law (first time)", fmt.Sprintf("%.0f ms", float64(time.Since(t0).Microseconds())/1000), "")

	// File:// start (the embedded copy decoded with DecompressionStream).
	abs, _ := filepath.Abs(filepath.Join(dir, "index.html"))
	fctx := browser(t)
	openCalc(t, fctx, "file://"+abs)
	add("file:// navigation to first estimate (embedded copy)", fmt.Sprintf("%.0f ms", eval[float64](t, fctx, `window.wattscalePerf.firstEstimateMs`)), "")

	// Issue 17's table: first paint, throttled loads, transfer, offline.
	firstPaintReport(t, dir, add)

	// Site build: the generator with the WebAssembly already cached, as a
	// rebuild after editing a page.
	if os.Getenv("WATTSCALE_E2E_SITE") == "" {
		out := t.TempDir()
		cmd := exec.Command(siteCLI(t), "build", "-o", out)
		cmd.Dir = repoRoot(t)
		start := time.Now()
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("site build: %v\n%s", err, b)
		}
		add("site build (second run, wasm cached)", fmt.Sprintf("%.2f s (first run in this test: %.2f s)", time.Since(start).Seconds(), siteBuildS), "< 3 s")
	}

	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "measure\tvalue\tgoal")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r[0], r[1], r[2])
	}
	tw.Flush()
	fmt.Printf("\nwattscale site: speed and size (headless Chromium %s, localhost)\n%s\n", chromiumVersion(ctx), b.String())
}

func chromiumVersion(ctx context.Context) string {
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`navigator.userAgent.match(/Chrom(e|ium)\/[0-9.]+/)[0]`))
	if err != nil {
		return "?"
	}
	return v
}
