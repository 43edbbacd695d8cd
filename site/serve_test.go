package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
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
	srv := httptest.NewServer(fileServer(dir))
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

// TestListenFallsBack: a busy port gives a free one on the same host.
func TestListenFallsBack(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	ln, err := listen(busy.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if ln.Addr().String() == busy.Addr().String() {
		t.Errorf("listen returned the busy address")
	}
	if host, _, _ := net.SplitHostPort(ln.Addr().String()); host != "127.0.0.1" {
		t.Errorf("listen moved to host %s, want 127.0.0.1", host)
	}
}

// TestServe runs the serve command's body: it builds a content tree (the
// small one: the real tree's full builds are TestBuildRealContent's and
// TestBuildDeterministic's), prints the URL and serves the pages until
// cancelled.
func TestServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	o, dir := buildOptions{Content: minimalSite(t)}, t.TempDir()
	go func() {
		done <- serve(ctx, o, dir, "127.0.0.1:0", pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the URL: %v (serve: %v)", err, <-done)
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "serving ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/") {
		t.Fatalf("serve printed %q, want \"serving http://127.0.0.1:PORT/\"", line)
	}
	go io.Copy(io.Discard, pr)
	for _, p := range []string{"", "index.html", "notes/index.html", "static/site.css"} {
		resp, err := http.Get(url + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET /%s: status %d", p, resp.StatusCode)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve returned %v after cancel", err)
	}
}
