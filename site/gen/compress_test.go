package gen

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/andybalholm/brotli"
)

// decode undoes a .br or .gz copy.
func decode(t *testing.T, enc string, b []byte) []byte {
	t.Helper()
	var r io.Reader
	switch enc {
	case "br":
		r = brotli.NewReader(bytes.NewReader(b))
	case "gz", "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	default:
		return b
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("decoding %s: %v", enc, err)
	}
	return out
}

// TestCompressed: every compressible file gets a .br and a .gz that decode
// to it; a file Compression does not shrink, an image format and the
// "none" level get none; the copies are the same bytes on a second run.
func TestCompressed(t *testing.T) {
	text := []byte(strings.Repeat("<p>energy of fine-tuning, before the run</p>\n", 200))
	wasm := append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte{1, 2, 3, 4, 0, 0, 0, 0}, 4000)...)
	files := map[string][]byte{"index.html": text, "assets/calc.0123456789.wasm": wasm, "static/logo.png": text,
		"tiny.js": []byte("x"), "files/data/a.csv": []byte(strings.Repeat("a,b,c\n1,2,3\n", 50))}
	if err := Compress(files, CompressFast, nil); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"index.html", "assets/calc.0123456789.wasm", "files/data/a.csv"} {
		for _, enc := range []string{"br", "gz"} {
			b, ok := files[name+"."+enc]
			if !ok {
				t.Errorf("no %s.%s", name, enc)
				continue
			}
			if len(b) >= len(files[name]) {
				t.Errorf("%s.%s is %d bytes, not smaller than %d", name, enc, len(b), len(files[name]))
			}
			if !bytes.Equal(decode(t, enc, b), files[name]) {
				t.Errorf("%s.%s does not decode to the file", name, enc)
			}
		}
	}
	for _, name := range []string{"static/logo.png.br", "static/logo.png.gz", "tiny.js.br", "tiny.js.gz"} {
		if _, ok := files[name]; ok {
			t.Errorf("%s written, want none", name)
		}
	}
	again := map[string][]byte{"index.html": text}
	if err := Compress(again, CompressFast, nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again["index.html.gz"], files["index.html.gz"]) || !bytes.Equal(again["index.html.br"], files["index.html.br"]) {
		t.Error("two compressions of the same file differ")
	}
	none := map[string][]byte{"index.html": text}
	if err := Compress(none, CompressNone, nil); err != nil || len(none) != 1 {
		t.Errorf("compress none: %v, %d files", err, len(none))
	}
	if _, err := ParseCompression("fastest"); err == nil || !strings.Contains(err.Error(), "best, fast or none") {
		t.Errorf("ParseCompression(fastest) = %v", err)
	}
}

// TestCompressedCache: a large file's copies come from the cache on the
// second build.
func TestCompressedCache(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef wattscale\n"), cacheAbove/16)
	calls := 0
	dir := t.TempDir()
	cache := func(name string, mk func() ([]byte, error)) ([]byte, error) {
		calls++
		return cached(dir, name, mk)
	}
	for i := 0; i < 2; i++ {
		files := map[string][]byte{"assets/big.js": big}
		if err := Compress(files, CompressFast, cache); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(decode(t, "br", files["assets/big.js.br"]), big) {
			t.Fatal("cached .br does not decode to the file")
		}
	}
	entries, _ := os.ReadDir(dir)
	if calls != 4 || len(entries) != 2 {
		t.Errorf("cache asked %d times (want 4), holds %d files (want 2: .br and .gz)", calls, len(entries))
	}
}

// TestAcceptedEncodings reads Accept-Encoding as RFC 9110 says: q=0
// refuses a coding, * stands for the ones not named, brotli is preferred.
func TestAcceptedEncodings(t *testing.T) {
	for _, c := range []struct {
		header string
		want   []string
	}{
		{"", nil},
		{"identity", nil},
		{"gzip, deflate, br, zstd", []string{"br", "gzip"}},
		{"gzip", []string{"gzip"}},
		{"br;q=0, gzip;q=0.5", []string{"gzip"}},
		{"BR;Q=1", []string{"br"}},
		{"*", []string{"br", "gzip"}},
		{"*;q=0, gzip", []string{"gzip"}},
		{"br;q=bogus, gzip", []string{"gzip"}},
	} {
		if got := acceptedEncodings(c.header); !slices.Equal(got, c.want) {
			t.Errorf("acceptedEncodings(%q) = %q, want %q", c.header, got, c.want)
		}
	}
}

// TestFileServerEncodings serves a built tree with its .br and .gz copies
// and checks, for every Accept-Encoding, the coding chosen, the headers
// (Content-Encoding, Vary, the file's own Content-Type, caching) and that
// the body decodes to the file.
func TestFileServerEncodings(t *testing.T) {
	dir := t.TempDir()
	page := []byte(strings.Repeat("<p>wattscale</p>\n", 300))
	wasm := append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte{7, 0, 0, 0}, 5000)...)
	files := map[string][]byte{"index.html": page, "planner/index.html": page, "assets/calc.0123456789.wasm": wasm,
		"assets/embed.js": []byte(strings.Repeat("var a = 1;\n", 100)), "static/logo.svg": []byte("<svg/>")}
	if err := Compress(files, CompressFast, nil); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(FileServer(dir))
	defer srv.Close()
	for _, c := range []struct {
		path, accept, enc, ctype, cache string
		body                            []byte
	}{
		{"/", "gzip, deflate, br", "br", "text/html; charset=utf-8", "no-cache", page},
		{"/index.html", "gzip", "gzip", "text/html; charset=utf-8", "no-cache", page},
		{"/planner/", "", "", "text/html; charset=utf-8", "no-cache", page},
		{"/assets/calc.0123456789.wasm", "br", "br", "application/wasm", "public, max-age=31536000, immutable", wasm},
		{"/assets/calc.0123456789.wasm", "gzip;q=1, br;q=0", "gzip", "application/wasm", "public, max-age=31536000, immutable", wasm},
		{"/assets/calc.0123456789.wasm", "identity", "", "application/wasm", "public, max-age=31536000, immutable", wasm},
		{"/assets/embed.js", "br", "br", "text/javascript; charset=utf-8", "no-cache", files["assets/embed.js"]},
		{"/static/logo.svg", "br", "", "image/svg+xml", "no-cache", []byte("<svg/>")}, // too small to have copies
	} {
		req, _ := http.NewRequest("GET", srv.URL+c.path, nil)
		req.Header.Set("Accept-Encoding", c.accept) // set even when empty: no transparent gzip by the client
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		what := c.path + " (Accept-Encoding: " + c.accept + ")"
		if resp.StatusCode != 200 {
			t.Errorf("%s: status %d", what, resp.StatusCode)
			continue
		}
		h := resp.Header
		if got := h.Get("Content-Encoding"); got != c.enc {
			t.Errorf("%s: Content-Encoding %q, want %q", what, got, c.enc)
		}
		if got := h.Get("Content-Type"); got != c.ctype {
			t.Errorf("%s: Content-Type %q, want %q", what, got, c.ctype)
		}
		if got := h.Get("Cache-Control"); got != c.cache {
			t.Errorf("%s: Cache-Control %q, want %q", what, got, c.cache)
		}
		if c.path != "/static/logo.svg" && h.Get("Vary") != "Accept-Encoding" {
			t.Errorf("%s: Vary %q, want Accept-Encoding", what, h.Get("Vary"))
		}
		if !bytes.Equal(decode(t, map[string]string{"br": "br", "gzip": "gz"}[c.enc], body), c.body) {
			t.Errorf("%s: body does not decode to the file", what)
		}
	}
	// A HEAD and a conditional request still work on an encoded copy.
	req, _ := http.NewRequest("GET", srv.URL+"/assets/calc.0123456789.wasm", nil)
	req.Header.Set("Accept-Encoding", "br")
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	req.Header.Set("If-Modified-Since", resp.Header.Get("Last-Modified"))
	resp, err = http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("conditional GET of an encoded copy: status %d, want 304", resp.StatusCode)
	}
}

// TestFingerprintedAssets builds a site with assets and checks that the
// scripts and stylesheet are written only under content-hashed names,
// that every page, the mount element's data-assets, assets/manifest.json
// and _headers use those names, that embed.js keeps its name, and that a
// change to a script changes its name.
func TestFingerprintedAssets(t *testing.T) {
	assets := fstest.MapFS{
		"calc.js":  {Data: []byte("/* calc */ var x = 1;\n")},
		"calc.css": {Data: []byte(".calc-root { color: red }\n")},
		"embed.js": {Data: []byte("/* embed */\n")},
	}
	o := Options{Content: minimalSite(t), Assets: assets}
	files, _, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	var names []string // calc.HASH.css, calc.HASH.js, embed.js, manifest.json
	for _, re := range []string{`^assets/calc\.[0-9a-f]{10}\.css$`, `^assets/calc\.[0-9a-f]{10}\.js$`, `^assets/embed\.js$`, `^assets/manifest\.json$`} {
		for name := range files {
			if regexp.MustCompile(re).MatchString(name) {
				names = append(names, name)
			}
		}
	}
	var all []string
	for name := range files {
		if strings.HasPrefix(name, "assets/") {
			all = append(all, name)
		}
	}
	if len(names) != 4 || len(all) != 4 {
		t.Fatalf("assets written: %q, want calc.HASH.css, calc.HASH.js, embed.js, manifest.json", all)
	}
	var manifest map[string]string
	if err := json.Unmarshal(files[assetManifestName], &manifest); err != nil {
		t.Fatal(err)
	}
	if "assets/"+manifest["calc.js"] != names[1] || "assets/"+manifest["calc.css"] != names[0] || manifest["embed.js"] != "embed.js" {
		t.Errorf("manifest %v does not match the files %q", manifest, names)
	}
	calc := string(files["index.html"])
	for _, want := range []string{`src="` + names[1] + `"`, `data-assets="{&#34;calc.css&#34;:&#34;` + manifest["calc.css"]} {
		if !strings.Contains(calc, want) {
			t.Errorf("index.html lacks %s", want)
		}
	}
	// The calculator page carries calc.css in its head (inlineCSS); a
	// calculator shell without a prerendered estimate links it.
	if !strings.Contains(calc, ".calc-root { color: red }") || strings.Contains(calc, `href="`+names[0]+`"`) {
		t.Errorf("index.html does not carry calc.css inline, or still links %s", names[0])
	}
	if embed := string(files["embed.html"]); !strings.Contains(embed, `src="`+names[1]+`"`) {
		t.Errorf("embed.html does not load %s", names[1])
	}
	for _, name := range sortedKeys(files) {
		if strings.HasSuffix(name, ".html") && (strings.Contains(string(files[name]), "assets/calc.js\"") || strings.Contains(string(files[name]), "assets/calc.css\"")) {
			t.Errorf("%s links a plain asset name", name)
		}
	}
	if h := string(files[hostHeadersName]); !strings.Contains(h, "/"+names[1]+"\n  Cache-Control: public, max-age=31536000, immutable") || strings.Contains(h, "embed.js") {
		t.Errorf("_headers:\n%s", h)
	}
	assets["calc.js"] = &fstest.MapFile{Data: []byte("/* calc */ var x = 2;\n")}
	files2, _, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := files2[names[1]]; ok {
		t.Errorf("a changed calc.js is still written as %s", names[1])
	}
	if _, ok := files2[names[0]]; !ok {
		t.Errorf("an unchanged calc.css changed its name from %s", names[0])
	}
}

func TestIsHashed(t *testing.T) {
	for name, want := range map[string]bool{
		"/assets/calc.0123456789.wasm": true, "/assets/calc-embed.abcdef0123.js": true,
		"/assets/calc.wasm": false, "/assets/embed.js": false, "/assets/calc.0123456789a.js": false,
		"/assets/calc.012345678g.js": false, "/index.html": false,
	} {
		if got := isHashed(name); got != want {
			t.Errorf("isHashed(%q) = %v, want %v", name, got, want)
		}
	}
}
