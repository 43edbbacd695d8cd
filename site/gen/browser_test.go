package gen

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// chromium finds a Chromium binary, or skips the test (fails it when
// WATTSCALE_REQUIRE_E2E=1, as in CI).
func chromium(t *testing.T) string {
	t.Helper()
	for _, p := range []string{os.Getenv("WATTSCALE_CHROMIUM"), "/usr/lib/chromium/chromium", "/usr/bin/chromium"} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	for _, n := range []string{"chromium", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	msg := "Chromium not found (apt-get install -y chromium, or set WATTSCALE_CHROMIUM)"
	if os.Getenv("WATTSCALE_REQUIRE_E2E") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// TestPagesInBrowser opens every page the generator writes (the calculator
// and planner widgets have their own tests in site/e2e) in headless
// Chromium at desktop and phone widths, light and dark: it runs axe-core
// (its colour rules alone again in the dark scheme) and fails on a serious
// or critical violation, checks that the first Tab lands on a visible skip
// link, and that no page scrolls sideways.
// WATTSCALE_SHOTS=DIR also saves each page's screenshots there.
func TestPagesInBrowser(t *testing.T) {
	bin := chromium(t)
	axe, err := os.ReadFile(filepath.Join("..", "e2e", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		msg := "axe-core not installed (npm ci --prefix site/e2e): " + err.Error()
		if os.Getenv("WATTSCALE_REQUIRE_E2E") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	files, err := realBuild()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(FileServer(dir))
	defer srv.Close()

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-background-networking", true),
		chromedp.UserDataDir(t.TempDir()))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	// A bound for the whole test and one for each page view, so that one
	// slow page (axe-core on a long page, a loaded machine) fails on its
	// own instead of taking every later view with it.
	if err := chromedp.Do(ctx); err != nil { // start the browser on the unbounded context
		t.Fatal(err)
	}
	bctx, cancel := context.WithTimeout(ctx, 7*time.Minute)
	defer cancel()

	// WATTSCALE_SHOTS=DIR saves a full-page screenshot of every page at
	// each width and scheme, for people to look at.
	shots := os.Getenv("WATTSCALE_SHOTS")
	if shots != "" {
		if err := os.MkdirAll(shots, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pages := []string{"methodology/index.html", "report/index.html", "validation/index.html", "hardware/index.html",
		"api/index.html", "embedding/index.html", "about/index.html"}
	// axe runs every rule once per page and width, in the light scheme; in
	// the dark one only its colour rules, the only ones the scheme can
	// change (the page, its layout and focus order are the same).
	const allRules, colourRules = `{resultTypes: ['violations']}`, `{runOnly: ['color-contrast', 'link-in-text-block'], resultTypes: ['violations']}`
	for _, p := range pages {
		for _, width := range []int64{1280, 390} {
			t.Run(fmt.Sprintf("%s/%d", p, width), func(t *testing.T) {
				ctx, cancel := context.WithTimeout(bctx, 2*time.Minute) // a minute a scheme, as when each was a view of its own
				defer cancel()
				if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: width, Height: 900, DeviceScaleFactor: 1, Mobile: width < 600}); err != nil {
					t.Fatal(err)
				}
				scheme(t, ctx, "light")
				if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"+p), chromedp.WaitReady(chromedp.CSS("footer"))); err != nil {
					t.Fatal(err)
				}
				shot(t, ctx, shots, p, width, "light")
				// No sideways scrolling of the page itself (wide tables scroll
				// inside their own region).
				over, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth - document.documentElement.clientWidth`))
				if err != nil {
					t.Fatal(err)
				}
				if over > 0 {
					t.Errorf("the page is %g px wider than the viewport", over)
				}
				// Keyboard: the first Tab reaches the skip link, shown on focus.
				if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
					t.Fatal(err)
				}
				skip, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(function(){ var a = document.activeElement, r = a.getBoundingClientRect();
  return a.classList.contains('skip-link') && r.top >= 0 && r.bottom <= innerHeight && r.width > 0 })()`))
				if err != nil {
					t.Fatal(err)
				}
				if !skip {
					t.Errorf("the first Tab does not land on a visible skip link")
				}
				if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('details').forEach(function(d){ d.open = true })`),
					chromedp.Evaluate[chromedp.Void](string(axe))); err != nil {
					t.Fatal(err)
				}
				runAxe(t, ctx, "light", allRules)
				scheme(t, ctx, "dark")
				shot(t, ctx, shots, p, width, "dark")
				runAxe(t, ctx, "dark", colourRules)
			})
		}
	}
}

// scheme emulates prefers-color-scheme.
func scheme(t *testing.T, ctx context.Context, s string) {
	t.Helper()
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: s}}}); err != nil {
		t.Fatal(err)
	}
}

// shot saves a full-page screenshot of page p into dir ("" = none).
func shot(t *testing.T, ctx context.Context, dir, p string, width int64, scheme string) {
	t.Helper()
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, fmt.Sprintf("%s-%d-%s.png", strings.TrimSuffix(strings.ReplaceAll(p, "/", "-"), "-index.html"), width, scheme))
	if err := os.WriteFile(name, png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// runAxe runs axe-core (already in the page) with options and fails on a
// serious or critical violation, or a skipped heading level.
func runAxe(t *testing.T, ctx context.Context, scheme, options string) {
	t.Helper()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](`axe.run(document, `+options+`).then(function(r){ return JSON.stringify(r.violations.map(function(v){
  return {id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 4).map(function(n){ return n.target.join(' ') + ': ' + (n.failureSummary || '').split('\n').slice(0, 2).join(' ') })} })) })`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	var vs []struct {
		ID, Impact, Help string
		Nodes            []string
	}
	if err := json.Unmarshal([]byte(raw), &vs); err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		line := fmt.Sprintf("%s, %s (%s): %s\n    %s", scheme, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "\n    "))
		if v.Impact == "serious" || v.Impact == "critical" || v.ID == "heading-order" {
			t.Errorf("axe: %s", line)
		} else {
			t.Logf("axe (not failing): %s", line)
		}
	}
}
