package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wattscale/wattscale/site/gen"
)

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

// smallSite is a content tree of two pages with the repository's
// calibrations, data and validation runs.
func smallSite(t *testing.T) fstest.MapFS {
	t.Helper()
	fsys := fstest.MapFS{
		"pages/index.md": {Data: []byte("---\ntitle: Home\nnav: 1\n---\nSee the [notes](notes.md).\n")},
		"pages/notes.md": {Data: []byte("---\ntitle: Notes\nnav: 2\n---\nBack [home](index.md).\n")},
	}
	for _, pattern := range []string{"calibrations/*.json", "data/*.csv", "validation/runs.csv"} {
		names, err := filepath.Glob(filepath.Join("..", "content", filepath.FromSlash(pattern)))
		if err != nil || len(names) == 0 {
			t.Fatalf("content/%s: %v files, error %v", pattern, len(names), err)
		}
		for _, name := range names {
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(filepath.Join("..", "content"), name)
			fsys[filepath.ToSlash(rel)] = &fstest.MapFile{Data: b}
		}
	}
	return fsys
}

// TestServe runs the serve command's body: it builds a content tree (a
// small one: the real tree's full builds are package gen's tests), prints
// the URL and serves the pages until cancelled.
func TestServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	o, dir := buildOptions{site: gen.Options{Content: smallSite(t)}}, t.TempDir()
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
