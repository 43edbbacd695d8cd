package e2e

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// startupSteps are the throttled load's steps BenchmarkStartupCompare prints,
// in ms from the navigation: calc.js's wattscalePerf marks and calc.wasm's
// resource timing (requested, last byte), then the first estimate call's
// duration.
var startupSteps = []struct{ name, expr string }{
	{"first estimate visible (prerendered)", ""},
	{"recomputed after an input change at load", ""},
	{"calc.js started the calculator", "p.startMs"},
	{"calc.wasm requested", "w ? w.startTime : -1"},
	{"calc.wasm last byte", "w ? w.responseEnd : -1"},
	{"calc.js calculator made (Go ready)", "p.calculatorMs"},
	{"calc.wasm instantiated", "p.wasmInstantiatedMs"},
	{"Go main began", "p.goMainMs"},
	{"Go program started", "p.goReadyMs"},
	{"first estimate call (duration)", "p.firstEstimateCallMs"},
	{"first estimate drawn", "p.firstEstimateMs"},
}

// ownInputConditions are the user's-own-input rows BenchmarkStartupCompare
// adds after the steps (userInputTimes: the GPU count changed at
// DOMContentLoaded, to the recomputed estimate shown), in issue 31's three
// conditions.
var ownInputConditions = []struct {
	name        string
	plain, slow bool
}{
	{"own input at DOMContentLoaded → recomputed: loopback, host sends files as they are", true, false},
	{"own input: 10 Mbit/s + 40 ms, host compresses", false, true},
	{"own input: 10 Mbit/s + 40 ms, host sends files as they are", true, true},
}

// BenchmarkStartupCompare loads the calculator of several built sites in turn,
// cold, over the throttled link (10 Mbit/s, 40 ms) with an input
// change at load, and on localhost, and prints the medians of each step
// side by side, then the user's own input in the three conditions of issue
// 31 (ownInputConditions): a before/after comparison whose loads are
// interleaved, so that a busy machine slows both columns alike.
// WATTSCALE_COMPARE=DIR1,DIR2 (sites built with go run ./site build -o
// DIR) names the sites; WATTSCALE_COMPARE_RUNS sets the loads per site
// (7): go test -run '^$' -bench '^BenchmarkStartupCompare$' -benchtime 1x
// ./site/e2e.
func BenchmarkStartupCompare(bm *testing.B) {
	env := os.Getenv("WATTSCALE_COMPARE")
	if env == "" {
		bm.Fatal("set WATTSCALE_COMPARE=DIR1,DIR2: the built sites to compare")
	}
	var t testing.TB = bm
	dirs := strings.Split(env, ",")
	runs := 7
	if n, err := strconv.Atoi(os.Getenv("WATTSCALE_COMPARE_RUNS")); err == nil && n > 0 {
		runs = n
	}
	urls, plainURLs := make([]string, len(dirs)), make([]string, len(dirs))
	for i, d := range dirs {
		urls[i] = serveCompressed(t, d).URL + "/"
		plainURLs[i] = serve(t, d).URL + "/"
	}
	// got[site][row] are the samples; the localhost rows follow the steps,
	// and the own-input rows follow them.
	steps := len(startupSteps) + 2
	rows := steps + len(ownInputConditions)
	got := make([][][]float64, len(dirs))
	for i := range got {
		got[i] = make([][]float64, rows)
	}
	var js strings.Builder
	js.WriteString("(function(){ var p = window.wattscalePerf || {}, w = performance.getEntriesByType('resource').filter(function(e){ return /\\.wasm$/.test(e.name); })[0]; return [")
	for i, s := range startupSteps[2:] {
		if i > 0 {
			js.WriteString(", ")
		}
		fmt.Fprintf(&js, "(%s) || -1", s.expr)
	}
	js.WriteString("]; })()")
	for r := 0; r < runs; r++ {
		for k := range dirs {
			i := (k + r) % len(dirs) // each site goes first in turn
			ctx := coldBrowser(t)
			throttle(t, ctx)
			watchEstimate(t, ctx)
			do(t, ctx, "open throttled", chromedp.Navigate(urls[i]))
			got[i][1] = append(got[i][1], eval[float64](t, ctx, recomputedMs))
			got[i][0] = append(got[i][0], eval[float64](t, ctx, estimateVisibleMs))
			for j, v := range eval[[]float64](t, ctx, js.String()) {
				got[i][2+j] = append(got[i][2+j], v)
			}

			lctx := coldBrowser(t)
			watchEstimate(t, lctx)
			do(t, lctx, "open", chromedp.Navigate(urls[i]))
			got[i][steps-2] = append(got[i][steps-2], eval[float64](t, lctx, estimateVisibleMs))
			waitFor(t, lctx, "the takeover", `document.getElementById('calc-root').dataset.ready === '1'`)
			got[i][steps-1] = append(got[i][steps-1], eval[float64](t, lctx, `window.wattscalePerf.firstEstimateMs`))

			for c, cond := range ownInputConditions {
				u := urls[i]
				if cond.plain {
					u = plainURLs[i]
				}
				ms, _, _ := userInputTimes(t, u, cond.slow, false)
				got[i][steps+c] = append(got[i][steps+c], ms)
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nstart-up, median (min–max) of %d cold loads per site, interleaved, ms from the navigation\n", runs)
	for i, d := range dirs {
		fmt.Fprintf(&b, "site %d: %s\n", i+1, d)
	}
	for row := 0; row < rows; row++ {
		name := "localhost: first estimate visible (prerendered)"
		switch {
		case row >= steps:
			name = ownInputConditions[row-steps].name
		case row == steps-1:
			name = "localhost: first estimate computed by the WebAssembly"
		case row < len(startupSteps):
			name = "10 Mbit/s + 40 ms: " + startupSteps[row].name
		}
		fmt.Fprintf(&b, "%s", name)
		for i := range dirs {
			xs := got[i][row]
			fmt.Fprintf(&b, "\t%.0f (%.0f–%.0f)", median(xs), minOfF(xs), maxOf(xs))
		}
		b.WriteString("\n")
	}
	fmt.Print(b.String())
}
