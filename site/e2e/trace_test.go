package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"
)

// BenchmarkFirstPaintReport prints only issue 17's first-paint rows of the
// performance report: the same loads and measures as
// BenchmarkPerformanceReport, without the sizes, refit and build rows, for
// measuring one change at a time (go test -run '^$' -bench
// '^BenchmarkFirstPaintReport$' -benchtime 1x ./site/e2e;
// WATTSCALE_E2E_SITE=DIR measures a site already built).
func BenchmarkFirstPaintReport(b *testing.B) {
	var t testing.TB = b
	dir := builtSite(t)
	var rep strings.Builder
	firstPaintReport(t, dir, func(what, value, goal string) { fmt.Fprintf(&rep, "%s\t%s\t%s\n", what, value, goal) })
	fmt.Printf("\nwattscale calculator page, first paint (headless Chromium, median of 5 cold loads)\n%s\n", rep.String())
}

// BenchmarkTraceCalculatorLoad records a Chromium performance trace of a cold
// load of the calculator (on localhost, and over the throttled
// link with an input change at load) and prints the page's main-thread
// tasks over 3 ms, the network requests and the paints, in ms from the
// navigation: the evidence for where the first estimate's time goes.
// It writes the traces into WATTSCALE_TRACE=DIR (open them in Chrome's
// Performance panel; a temporary folder when not set);
// WATTSCALE_TRACE_ONLY=localhost, file or throttled records one: go test
// -run '^$' -bench '^BenchmarkTraceCalculatorLoad$' -benchtime 1x ./site/e2e.
func BenchmarkTraceCalculatorLoad(b *testing.B) {
	out := os.Getenv("WATTSCALE_TRACE")
	if out == "" {
		out = b.TempDir()
	}
	var t testing.TB = b
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := builtSite(t)
	cs := serveCompressed(t, dir)
	abs, _ := filepath.Abs(filepath.Join(dir, "index.html"))
	for _, c := range []struct {
		name, url string
		slow      bool
	}{{"localhost", cs.URL + "/", false}, {"file", "file://" + abs, false}, {"throttled", cs.URL + "/", true}} {
		if only := os.Getenv("WATTSCALE_TRACE_ONLY"); only != "" && only != c.name {
			continue
		}
		b.Run(c.name, func(b *testing.B) {
			var t testing.TB = b
			ctx := coldBrowser(t)
			if c.slow {
				throttle(t, ctx)
			}
			watchEstimate(t, ctx)
			events := traceLoad(t, ctx, c.url, c.slow)
			raw, _ := json.Marshal(map[string]any{"traceEvents": events})
			name := filepath.Join(out, "calculator-"+c.name+".json")
			if err := os.WriteFile(name, raw, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s (%d events)\n%s", name, len(events), summariseTrace(events))
		})
	}
}

// traceLoad navigates with tracing on until the WebAssembly has taken
// over (and, when change is set, recomputed an input changed at load),
// and returns the trace events.
func traceLoad(t testing.TB, ctx context.Context, url string, change bool) []map[string]any {
	var mu sync.Mutex
	var events []map[string]any
	done := make(chan struct{})
	if err := chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *tracing.EventDataCollected:
			mu.Lock()
			for _, v := range e.Value {
				var m map[string]any
				if json.Unmarshal(v, &m) == nil {
					events = append(events, m)
				}
			}
			mu.Unlock()
		case *tracing.EventTracingComplete:
			close(done)
		}
	}); err != nil {
		t.Fatal(err)
	}
	cats := []string{"devtools.timeline", "disabled-by-default-devtools.timeline", "disabled-by-default-devtools.timeline.frame", "blink.user_timing", "loading", "v8.execute", "toplevel", "blink", "netlog", "devtools.timeline.async", "disabled-by-default-v8.compile"}
	if _, err := chromedp.Call(ctx, tracing.Start, tracing.StartParams{TransferMode: tracing.StartTransferModeReportEvents, TraceConfig: &tracing.TraceConfig{IncludedCategories: cats}}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, page.Navigate, page.NavigateParams{URL: url}); err != nil {
		t.Fatal(err)
	}
	if change {
		waitFor(t, ctx, "the GPU count field", `document.getElementById('f-count') !== null`)
		eval[float64](t, ctx, recomputedMs)
	}
	waitFor(t, ctx, "the takeover", `document.getElementById('calc-root').dataset.ready === '1'`)
	settle(t, ctx)
	perf := eval[map[string]any](t, ctx, `window.wattscalePerf`)
	t.Logf("wattscalePerf: %v", perf)
	if _, err := chromedp.Call(ctx, tracing.End, struct{}{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("no tracingComplete within 60 s")
	}
	mu.Lock()
	defer mu.Unlock()
	return events
}

// summariseTrace lists, from the navigation on (the first
// navigationStart), the page's renderer main thread's tasks (3 ms or
// more, with their longest children), the network requests, the worker
// threads' long events and the paints.
func summariseTrace(events []map[string]any) string {
	num := func(m map[string]any, k string) float64 { f, _ := m[k].(float64); return f }
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	args := func(m map[string]any) map[string]any { a, _ := m["args"].(map[string]any); return a }
	threads := map[[2]float64]string{}
	for _, e := range events {
		if str(e, "name") == "thread_name" {
			threads[[2]float64{num(e, "pid"), num(e, "tid")}] = str(args(e), "name")
		}
	}
	var t0 float64
	var mainPid, mainTid float64
	for _, e := range events {
		if str(e, "name") == "navigationStart" && (t0 == 0 || num(e, "ts") < t0) {
			t0, mainPid, mainTid = num(e, "ts"), num(e, "pid"), num(e, "tid")
		}
	}
	if t0 == 0 {
		return "no navigationStart in the trace"
	}
	ms := func(ts float64) float64 { return (ts - t0) / 1000 }
	type line struct {
		at   float64
		text string
	}
	var lines []line
	add := func(at float64, f string, a ...any) { lines = append(lines, line{at, fmt.Sprintf(f, a...)}) }
	detail := func(e map[string]any) string {
		a := args(e)
		d, _ := a["data"].(map[string]any)
		switch {
		case d == nil:
			return ""
		case str(d, "url") != "":
			u := str(d, "url")
			if i := strings.LastIndex(u, "/"); i >= 0 {
				u = u[i+1:]
			}
			return " " + u
		case str(d, "functionName") != "":
			return " " + str(d, "functionName")
		case num(d, "elementCount") > 0:
			return fmt.Sprintf(" %.0f elements", num(d, "elementCount"))
		}
		return ""
	}
	for _, e := range events {
		ph, name, ts, dur := str(e, "ph"), str(e, "name"), num(e, "ts"), num(e, "dur")
		if ts < t0 {
			continue
		}
		pid, tid := num(e, "pid"), num(e, "tid")
		main := pid == mainPid && tid == mainTid
		switch {
		case main && ph == "X" && name == "RunTask" && dur >= 3000:
			// The task's children over 1 ms, on the same thread within it.
			var kids []string
			for _, k := range events {
				if num(k, "pid") == pid && num(k, "tid") == tid && str(k, "ph") == "X" && str(k, "name") != "RunTask" && num(k, "ts") >= ts && num(k, "ts")+num(k, "dur") <= ts+dur && num(k, "dur") >= 1000 {
					kids = append(kids, fmt.Sprintf("%s%s %.1f", str(k, "name"), detail(k), num(k, "dur")/1000))
				}
			}
			if len(kids) > 8 {
				kids = kids[:8]
			}
			add(ms(ts), "main  task %.1f ms: %s", dur/1000, strings.Join(kids, "; "))
		case ph == "X" && !main && dur >= 20000 && strings.Contains(threads[[2]float64{pid, tid}], "Worker"):
			add(ms(ts), "%s  %s%s %.1f ms", threads[[2]float64{pid, tid}], name, detail(e), dur/1000)
		case name == "ResourceSendRequest":
			add(ms(ts), "net   request%s", detail(e))
		case name == "ResourceFinish":
			d, _ := args(e)["data"].(map[string]any)
			add(ms(ts), "net   finished %s (%.0f bytes encoded)", str(d, "requestId"), num(d, "encodedDataLength"))
		case main && (name == "firstContentfulPaint" || name == "firstPaint" || name == "largestContentfulPaint::Candidate" || name == "domContentLoadedEventEnd" || name == "loadEventEnd"):
			add(ms(ts), "mark  %s", name)
		case main && ph == "X" && (name == "Paint" || name == "PrePaint") && dur >= 1000:
			add(ms(ts), "main  %s %.1f ms", name, dur/1000)
		}
	}
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].at < lines[j].at })
	var b strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&b, "%8.1f  %s\n", l.at, l.text)
	}
	return b.String()
}
