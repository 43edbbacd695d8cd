package gen

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEmbedScript(t *testing.T) {
	wasm := bytes.Repeat([]byte("\x00asm\x01\x00\x00\x00 some wasm bytes "), 1000)
	js, err := embedScript("WATTSCALE_CALC_WASM_GZ_B64", wasm)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := embedScript("WATTSCALE_CALC_WASM_GZ_B64", wasm)
	if !bytes.Equal(js, again) {
		t.Errorf("embedScript is not deterministic")
	}
	s := string(js)
	const prefix = `window.WATTSCALE_CALC_WASM_GZ_B64 = "`
	if !strings.HasPrefix(s, prefix) || !strings.HasSuffix(s, "\";\n") {
		t.Fatalf("embedScript = %.60q…, want %s…\";", s, prefix)
	}
	gz, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(s, prefix), "\";\n"))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	if zr.Name != "" || !zr.ModTime.IsZero() {
		t.Errorf("gzip header has name %q and time %v, want neither", zr.Name, zr.ModTime)
	}
	got, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(got, wasm) {
		t.Errorf("the embedded copy does not decode to the wasm (%v)", err)
	}
	if n := embeddedGzipLen(js); n != len(gz) {
		t.Errorf("embeddedGzipLen = %d, want the gzip stream's %d bytes", n, len(gz))
	}
	if n := embeddedGzipLen([]byte("/* not an embed script */")); n != 0 {
		t.Errorf("embeddedGzipLen(not an embed script) = %d, want 0", n)
	}
}

// TestSourceHash: the hash changes with a source file and with the Go
// version, and not with a Markdown page or a test file.
func TestSourceHash(t *testing.T) {
	root := t.TempDir()
	write := func(name, data string) {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module x\n")
	write("model/a.go", "package model\n")
	write("wasm/calc/main.go", "package main\n")
	write("content/calibrations/c.json", "{}")
	write("content/pages/index.md", "# hi\n")
	hash := func(v string) string {
		h, err := sourceHash(root, v)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	base := hash("go1.26.8")
	write("content/pages/index.md", "# changed\n")
	write("model/a_test.go", "package model\n")
	if h := hash("go1.26.8"); h != base {
		t.Errorf("a page or a test file changed the hash")
	}
	if h := hash("go1.27.0"); h == base {
		t.Errorf("the Go version did not change the hash")
	}
	write("content/calibrations/c.json", `{"x": 1}`)
	if h := hash("go1.26.8"); h == base {
		t.Errorf("a calibration change did not change the hash")
	}
}
