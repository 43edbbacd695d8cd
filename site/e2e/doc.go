// Package e2e holds the browser tests of the built site: the calculator,
// the planner, the refit, the embedding and the offline copy, driven in
// headless Chromium with chromedp against `go run ./site build -o DIR`
// served on localhost (and opened from file://).
//
// The tests skip with a message when Chromium is missing, and fail instead
// when WATTSCALE_REQUIRE_E2E=1 (CI). Chromium is looked up in
// $WATTSCALE_CHROMIUM, /usr/lib/chromium/chromium, /usr/bin/chromium,
// chromium and google-chrome. WATTSCALE_E2E_SITE=DIR tests an already built
// site instead of building one. WATTSCALE_SHOTS=DIR saves screenshots of
// every page at desktop and phone widths in light and dark schemes.
// WATTSCALE_BENCH=1 builds the site with the best compression, as the
// benchmark reports (BenchmarkPerformanceReport and the others, run by
// `make bench-browser`) measure it.
package e2e
