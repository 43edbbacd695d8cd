package gen

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

func TestFileServerTypes(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"index.html": "text/html; charset=utf-8", "assets/calc.wasm": "application/wasm",
		"assets/calc.js": "text/javascript; charset=utf-8", "static/site.css": "text/css; charset=utf-8",
		"static/logo.svg": "image/svg+xml", "files/runs.csv": "text/csv; charset=utf-8"}
	for name := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(FileServer(dir))
	defer srv.Close()
	for name, want := range files {
		resp, err := http.Get(srv.URL + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET %s: status %d", name, resp.StatusCode)
		}
		if got := resp.Header.Get("Content-Type"); got != want {
			t.Errorf("GET %s: Content-Type %q, want %q", name, got, want)
		}
	}
}
