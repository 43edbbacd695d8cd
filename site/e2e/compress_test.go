package e2e

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// siteServe runs `go run ./site serve -o DIR` (the built command line) on
// a free loopback port and returns its URL and the folder it built into.
func siteServe(t testing.TB) (string, string) {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(siteCLI(t), "serve", "-addr", "127.0.0.1:0", "-o", dir)
	cmd.Dir = repoRoot(t)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "serving "); ok {
				line <- strings.TrimSuffix(u, "/")
			}
		}
		io.Copy(io.Discard, out)
	}()
	select {
	case u := <-line:
		return u, dir
	case <-time.After(4 * time.Minute):
		t.Fatalf("site serve printed no URL in 4 minutes:\n%s", stderr.String())
	}
	return "", ""
}

// TestCompressedResponses serves the site with `site serve` and checks
// what an HTTP client and Chromium get: for each Accept-Encoding the
// encoding, Content-Encoding, Vary and the file's own media type (the
// wasm as application/wasm, so that Chromium still compiles it while it
// streams in), a year's caching for the content-hashed files, and in the
// browser a calculator whose wasm arrived compressed.
func TestCompressedResponses(t *testing.T) {
	base, dir := siteServe(t)
	wasm := assetPath(t, dir, "assets/calc.wasm")
	for _, c := range []struct{ path, accept, enc, ctype, cache string }{
		{"/", "gzip, deflate, br", "br", "text/html; charset=utf-8", "no-cache"},
		{"/planner/index.html", "gzip", "gzip", "text/html; charset=utf-8", "no-cache"},
		{"/" + wasm, "br", "br", "application/wasm", "public, max-age=31536000, immutable"},
		{"/" + wasm, "gzip", "gzip", "application/wasm", "public, max-age=31536000, immutable"},
		{"/" + wasm, "identity", "", "application/wasm", "public, max-age=31536000, immutable"},
		{"/" + assetPath(t, dir, "assets/calc.js"), "br", "br", "text/javascript; charset=utf-8", "public, max-age=31536000, immutable"},
		{"/assets/embed.js", "br", "br", "text/javascript; charset=utf-8", "no-cache"},
	} {
		req, _ := http.NewRequest("GET", base+c.path, nil)
		req.Header.Set("Accept-Encoding", c.accept)
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		what := c.path + " (Accept-Encoding: " + c.accept + ")"
		h := resp.Header
		if resp.StatusCode != 200 || h.Get("Content-Encoding") != c.enc || h.Get("Content-Type") != c.ctype || h.Get("Cache-Control") != c.cache || h.Get("Vary") != "Accept-Encoding" {
			t.Errorf("%s: status %d, Content-Encoding %q (want %q), Content-Type %q (want %q), Cache-Control %q (want %q), Vary %q",
				what, resp.StatusCode, h.Get("Content-Encoding"), c.enc, h.Get("Content-Type"), c.ctype, h.Get("Cache-Control"), c.cache, h.Get("Vary"))
		}
		if c.enc != "" {
			name := strings.TrimPrefix(c.path, "/")
			if name == "" || strings.HasSuffix(name, "/") {
				name += "index.html"
			}
			fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name)))
			if err == nil && n >= fi.Size() {
				t.Errorf("%s: %d bytes sent, not fewer than the file's %d", what, n, fi.Size())
			}
		}
	}

	ctx := browser(t)
	openCalc(t, ctx, base+"/index.html")
	if how := eval[string](t, ctx, `document.getElementById('calc-root').dataset.wasmSource`); how != "streaming" {
		t.Errorf("the compressed wasm loaded by %q, want streaming compilation", how)
	}
	type entry struct {
		Name string  `json:"name"`
		E    float64 `json:"e"` // bytes transferred
		D    float64 `json:"d"` // bytes decoded
		Enc  string  `json:"enc"`
	}
	e := eval[entry](t, ctx, `(async function(){
  var e = performance.getEntriesByType('resource').filter(function(r){ return /\/calc\.[0-9a-f]{10}\.wasm$/.test(r.name) })[0];
  if (!e) return {name: ''};
  var r = await fetch(e.name, {cache: 'no-store'});
  return {name: e.name, e: e.encodedBodySize, d: e.decodedBodySize, enc: r.headers.get('content-encoding') || ''};
})()`)
	if e.Name == "" {
		t.Fatal("the page fetched no content-hashed calc.wasm")
	}
	t.Logf("Chromium fetched %s: %.0f KB transferred, %.0f KB decoded, Content-Encoding %q", e.Name, e.E/1000, e.D/1000, e.Enc)
	if e.Enc != "br" && e.Enc != "gzip" {
		t.Errorf("Chromium got the wasm with Content-Encoding %q, want br or gzip", e.Enc)
	}
	if e.E <= 0 || e.E > 0.5*e.D {
		t.Errorf("the wasm transferred %.0f bytes for %.0f decoded: not compressed", e.E, e.D)
	}
}
