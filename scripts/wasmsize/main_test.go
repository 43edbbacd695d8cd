package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestPackageOf(t *testing.T) {
	for sym, want := range map[string]string{
		"runtime.mallocgc": "runtime",
		"github.com_wattscale_wattscale_model.Arch.Validate":     "github.com/wattscale/wattscale/model",
		"github.com_wattscale_wattscale_model_distill.__Plan_.X": "github.com/wattscale/wattscale/model/distill",
		"encoding_json.__UnmarshalTypeError_.Error":              "encoding/json",
		"slices.SortFunc[go.shape.string]":                       "slices",
		"type:.eq.[2]interface {}":                               "type:",
		"internal_runtime_maps.newarray":                         "internal/runtime/maps",
		"":                                                       "(unnamed)",
	} {
		if got := packageOf(sym); got != want {
			t.Errorf("packageOf(%q) = %q, want %q", sym, got, want)
		}
	}
}

// TestPackageSizes builds a small program for js/wasm and checks that its
// code is attributed to the packages it uses and adds up to the code
// section.
func TestPackageSizes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a wasm binary")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	os.WriteFile(src, []byte("package main\n\nimport \"strconv\"\n\nfunc main() { println(strconv.Quote(\"x\")) }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/tiny\n\ngo 1.26\n"), 0o644)
	out := filepath.Join(dir, "tiny.wasm")
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "GOFLAGS=")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	s, err := packageSizes(b)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, n := range s.Packages {
		sum += n
	}
	if s.Packages["runtime"] == 0 || s.Packages["strconv"] == 0 || s.Packages["main"] == 0 {
		t.Errorf("packages %v lack runtime, strconv or main", s.Packages)
	}
	if sum <= 0 || sum > s.Code || sum < s.Code*9/10 {
		t.Errorf("function bodies add up to %d bytes of a %d-byte code section", sum, s.Code)
	}
	if _, err := packageSizes([]byte("not wasm")); err == nil {
		t.Error("packageSizes accepted a file that is not WebAssembly")
	}
}
