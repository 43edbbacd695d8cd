package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// repoRoot is the module root, two levels above this package.
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// chromium returns the browser binary, or skips the test (fails it when
// WATTSCALE_REQUIRE_E2E=1) when there is none.
func chromium(t testing.TB) string {
	t.Helper()
	cands := []string{os.Getenv("WATTSCALE_CHROMIUM"), "/usr/lib/chromium/chromium", "/usr/bin/chromium"}
	for _, c := range cands {
		if c == "" {
			continue
		}
		if fi, err := os.Stat(c); err == nil && !fi.IsDir() {
			return c
		}
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	msg := "Chromium not found (install it with `apt-get install -y chromium`, or set WATTSCALE_CHROMIUM)"
	if os.Getenv("WATTSCALE_REQUIRE_E2E") == "1" {
		t.Fatal(msg + "; WATTSCALE_REQUIRE_E2E=1 forbids skipping")
	}
	t.Skip(msg)
	return ""
}

var (
	siteOnce   sync.Once
	siteDir    string
	siteErr    error
	siteBuildS float64

	cliOnce sync.Once
	cliPath string
	cliErr  error
)

// builtSite builds the site once per test binary with `go run ./site build
// -o DIR` (or returns $WATTSCALE_E2E_SITE) and returns the directory.
func builtSite(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("WATTSCALE_E2E_SITE"); d != "" {
		return d
	}
	root := repoRoot(t)
	siteOnce.Do(func() {
		// Compile first so that the timed build below is the generator alone.
		cli := siteCLI(t)
		siteDir, siteErr = os.MkdirTemp("", "wattscale-e2e-site-")
		if siteErr != nil {
			return
		}
		start := time.Now()
		// Brotli at quality 11 takes minutes the first time; the tests
		// need the copies, not their best size (make bench does).
		comp := "fast"
		if os.Getenv("WATTSCALE_BENCH") == "1" {
			comp = "best"
		}
		cmd := exec.Command(cli, "build", "-compress", comp, "-o", siteDir)
		cmd.Dir = root
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			siteErr = fmt.Errorf("go run ./site build -o %s: %v\n%s", siteDir, err, out.String())
		}
		siteBuildS = time.Since(start).Seconds()
	})
	if siteErr != nil {
		t.Fatal(siteErr)
	}
	return siteDir
}

// assetPath is where the built site in dir wrote the asset with the plain
// name (assets/calc.wasm): its scripts and wasm have content-hashed names,
// listed in assets/manifest.json.
func assetPath(t testing.TB, dir, plain string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "assets", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var names map[string]string
	if err := json.Unmarshal(raw, &names); err != nil {
		t.Fatalf("assets/manifest.json: %v", err)
	}
	name, ok := names[strings.TrimPrefix(plain, "assets/")]
	if !ok {
		t.Fatalf("assets/manifest.json lists no %s", plain)
	}
	return "assets/" + name
}

// siteCLI builds the command line (what `go run ./site` runs) once.
func siteCLI(t testing.TB) string {
	t.Helper()
	root := repoRoot(t)
	cliOnce.Do(func() {
		dir, err := os.MkdirTemp("", "wattscale-e2e-cli-")
		if err != nil {
			cliErr = err
			return
		}
		cliPath = filepath.Join(dir, "wattscale")
		cmd := exec.Command("go", "build", "-o", cliPath, "./site")
		cmd.Dir = root
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			cliErr = fmt.Errorf("go build ./site: %v\n%s", err, out.String())
		}
	})
	if cliErr != nil {
		t.Fatal(cliErr)
	}
	return cliPath
}

// runCLI runs `go run ./site ARGS...` (the built binary) with stdin.
func runCLI(t testing.TB, stdin []byte, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(siteCLI(t), args...)
	cmd.Dir = repoRoot(t)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("site %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// serve serves dir over HTTP on localhost for the length of the test. Go's
// file server sends .wasm as application/wasm.
func serve(t testing.TB, dir string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	return srv
}

var (
	chromeOnce sync.Once
	chromeCtx  context.Context
	chromeErr  error
)

// browser returns a fresh tab for the test in a browser context of its own
// (its own cookies, storage, cache and service workers, as a new profile
// has) in the one headless Chromium the test binary starts: starting a
// browser for every test took 2 to 5 s each.
func browser(t testing.TB) context.Context {
	t.Helper()
	exe := chromium(t)
	chromeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "wattscale-e2e-chromium-")
		if err != nil {
			chromeErr = err
			return
		}
		actx, _ := chromedp.NewExecAllocator(context.Background(), chromeOptions(exe, dir)...)
		chromeCtx, _ = chromedp.NewContext(actx)
		chromeErr = chromedp.Do(chromeCtx)
	})
	if chromeErr != nil {
		t.Fatalf("starting %s: %v", exe, chromeErr)
	}
	parent, cancelParent := context.WithTimeout(chromeCtx, 4*time.Minute)
	ctx, cancelCtx := chromedp.NewContext(parent, chromedp.WithNewBrowserContext())
	t.Cleanup(func() { cancelCtx(); cancelParent() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("opening a tab in %s: %v", exe, err)
	}
	return ctx
}

// chromeOptions are the headless Chromium's flags, with the profile in dir.
func chromeOptions(exe, dir string) []chromedp.ExecAllocatorOption {
	return append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox,
		chromedp.Flag("headless", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("allow-file-access-from-files", false),
		chromedp.UserDataDir(dir),
		chromedp.WindowSize(1280, 900),
	)
}

// browserWithJSFlags is a tab in a Chromium of its own, started with V8
// flags (--js-flags), for a diagnosis no page could set; browser's
// Chromium is shared and takes none. It closes when the test ends.
func browserWithJSFlags(t testing.TB, jsFlags string) context.Context {
	t.Helper()
	dir := t.TempDir()
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromeOptions(chromium(t), dir), chromedp.Flag("js-flags", jsFlags))...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting Chromium with --js-flags=%s: %v", jsFlags, err)
	}
	return ctx
}

// do runs actions and fails the test on an error.
func do(t testing.TB, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates a JavaScript expression in the page and decodes its value.
func eval[T any](t testing.TB, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// address is the page's address once it shows the last answer's query
// (calc.js puts it there when the visitor pauses, or as the page is
// left), and search its query part.
func address(t testing.TB, ctx context.Context) string {
	t.Helper()
	waitFor(t, ctx, "the address to follow the last answer", `!window.wattscaleApp || window.wattscaleApp.query == null`)
	return eval[string](t, ctx, `location.href`)
}

func search(t testing.TB, ctx context.Context) string {
	t.Helper()
	address(t, ctx)
	return eval[string](t, ctx, `location.search`)
}

// waitFor polls a JavaScript predicate until it is truthy (30 s at most).
func waitFor(t testing.TB, ctx context.Context, what, expr string) {
	t.Helper()
	// A poll started while a navigation replaces the page's JavaScript
	// context fails with "Cannot find context with specified id" (seen
	// under load): poll again in the new context, within the same time.
	deadline := time.Now().Add(30 * time.Second)
	var err error
	for {
		_, err = chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(time.Until(deadline)), chromedp.WithPollingInterval(20*time.Millisecond)))
		if err == nil || !strings.Contains(err.Error(), "Cannot find context with specified id") || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		diag, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('#calc-root') || document.body).innerText.slice(0, 600)`))
		t.Fatalf("waiting for %s (%s): %v; page says: %q", what, expr, err, diag)
	}
}

// openCalc navigates to url and waits for the calculator's first estimate.
func openCalc(t testing.TB, ctx context.Context, url string) {
	t.Helper()
	do(t, ctx, "navigate to "+url, chromedp.Navigate(url))
	// (settled: the whole page laid out, a frame after the first
	// estimate; before it, parts off screen change height when scrolled
	// to, and a click aimed at a control below them could miss it.)
	waitFor(t, ctx, "the calculator on "+url, `document.querySelector('#calc-root') && document.querySelector('#calc-root').dataset.settled === '1'`)
}

// typeInto replaces a text field's content with keystrokes, as a user
// would: focus, select all, type.
func typeInto(t testing.TB, ctx context.Context, key, value string) {
	t.Helper()
	id := "f-" + key
	eval[bool](t, ctx, fmt.Sprintf(`(function(){var e=document.getElementById(%q); e.focus(); e.select(); return true})()`, id))
	keys := value
	if keys == "" {
		keys = kb.Delete
	}
	do(t, ctx, "typing into "+id, chromedp.KeyEvent(keys))
}

// choose sets a select (or radio group, or checkbox) the way a change by
// the user arrives: the value, then input and change events.
func choose(t testing.TB, ctx context.Context, key, value string) {
	t.Helper()
	js := fmt.Sprintf(`(function(){
  var radios = document.querySelectorAll('input[type=radio][name=%[1]q]');
  if (radios.length) { radios.forEach(function(r){ if (r.value === %[2]q) { r.checked = true; r.dispatchEvent(new Event('input', {bubbles:true})); r.dispatchEvent(new Event('change', {bubbles:true})); } }); return true; }
  var e = document.getElementById('f-' + %[1]q);
  if (!e) return false;
  if (e.type === 'checkbox') e.checked = %[2]q === '1'; else e.value = %[2]q;
  e.dispatchEvent(new Event('input', {bubbles:true})); e.dispatchEvent(new Event('change', {bubbles:true}));
  return e.type === 'checkbox' || e.value === %[2]q;
})()`, key, value)
	if !eval[bool](t, ctx, js) {
		t.Fatalf("could not set %s to %q", key, value)
	}
}

// pageEnergy is the energy the page shows, at full precision (data-kwh).
func pageEnergy(t testing.TB, ctx context.Context) float64 {
	t.Helper()
	return eval[float64](t, ctx, `parseFloat(document.getElementById('energy').dataset.kwh)`)
}

// colorScheme emulates prefers-color-scheme.
func colorScheme(t testing.TB, ctx context.Context, scheme string) {
	t.Helper()
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
		t.Fatalf("emulating %s scheme: %v", scheme, err)
	}
}

// estimateCLI runs `go run ./site estimate` on a request and returns the energy.
func estimateCLI(t testing.TB, request string) float64 {
	t.Helper()
	var resp struct {
		EnergyKWh float64 `json:"energy_kwh"`
	}
	out := runCLI(t, []byte(request), "estimate")
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("site estimate output: %v", err)
	}
	return resp.EnergyKWh
}

func relDiff(a, b float64) float64 {
	d := a - b
	if d < 0 {
		d = -d
	}
	m := b
	if m < 0 {
		m = -m
	}
	if m == 0 {
		return d
	}
	return d / m
}

// layOutAll and layOutAllUndo are JavaScript expressions that lay out
// every part of the page, as it is once a person has scrolled to it (parts
// off the first screen skip layout until then: content-visibility: auto,
// with placeholder heights), and put the page back.
const (
	layOutAll     = `(function(){ var s = document.createElement('style'); s.id = 'lay-out-all'; s.textContent = '* { content-visibility: visible !important; }'; document.head.appendChild(s); return true; })()`
	layOutAllUndo = `(function(){ var s = document.getElementById('lay-out-all'); if (s) s.remove(); return true; })()`
)

// fullShot captures the whole page as PNG with every part laid out
// (layOutAll): a capture taken in one frame would otherwise show the
// placeholders of the parts off the first screen as blanks.
func fullShot(t testing.TB, ctx context.Context) ([]byte, error) {
	t.Helper()
	eval[bool](t, ctx, layOutAll)
	defer eval[bool](t, ctx, layOutAllUndo)
	return chromedp.Run(ctx, chromedp.FullScreenshot(100))
}

// settle waits until the page has stopped scrolling and drawn: the scroll
// position unchanged over three animation frames in a row (a smooth scroll
// or a scroll into view has ended).
func settle(t testing.TB, ctx context.Context) {
	t.Helper()
	eval[bool](t, ctx, `new Promise(function(res){ var last = -1, same = 0;
  (function frame(){ var y = window.scrollY; same = (y === last) ? same + 1 : 0; last = y; if (same >= 3) res(true); else requestAnimationFrame(frame); })(); })`)
}
