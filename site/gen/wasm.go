package gen

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/wattscale/wattscale/site/wasmpack"
)

// WasmOptions say where the WebAssembly sources are and where compiled
// binaries are cached.
type WasmOptions struct {
	Root     string // module root: wasm/calc and wasm/fit are built from here; "" = do not build
	CacheDir string // compiled binaries by source hash; "" = no cache
	Go       string // the go command (default "go")
}

// wasmPackages are the WebAssembly entry points the site ships, and the
// file each becomes: the calculator (calculator page and embed.html), the
// planner (the calculator's functions and the distillation planner's, for
// the planner page; the calculator page need not download the planner)
// and the refit.
// The embedded copy of each, for file://, is a classic script setting a
// global that site/assets/calc.js reads.
//
// gcflags are the package's extra compiler flags. The calculator's wasm is
// compiled without inlining (all=-l): Go's WebAssembly backend makes every
// call site a resumable block, so inlined bodies add more code than they
// save; with the data segments packed (site/wasmpack) calc.wasm is 756 KB
// brotli instead of 847 KB with inlining, which brings the
// calculator page's first load under issue 17's 850 KB. Its calls stay
// far below a frame (the commit that set it gives the node benchmarks).
var wasmPackages = []struct{ pkg, out, embed, global, gcflags string }{
	{"wasm/calc", "assets/calc.wasm", "assets/calc-embed.js", "WATTSCALE_CALC_WASM_GZ_B64", calcGCFlags},
	{"wasm/planner", "assets/planner.wasm", "assets/planner-embed.js", "WATTSCALE_PLANNER_WASM_GZ_B64", ""},
	{"wasm/fit", "assets/fit.wasm", "assets/fit-embed.js", "WATTSCALE_FIT_WASM_GZ_B64", ""},
}

// calcGCFlags are calc.wasm's compiler flags (scripts/wasmsize takes the
// same with -gcflags).
const calcGCFlags = "all=-l"

// BuildWasm compiles the calculator and the refit WebAssembly, copies the
// wasm_exec.js that matches the compiler, and writes assets/calc-embed.js
// and fit-embed.js: each wasm as base64 of its gzip in a classic script,
// which lets the calculator start from file:// (where fetch of a .wasm is
// blocked).
// Compiling takes seconds, so binaries are cached under CacheDir by a hash
// of every source they can depend on (go.mod, go.sum, model/, content/,
// wasm/ and the Go version). A package folder that does not exist yet is
// skipped with a note.
func BuildWasm(o WasmOptions) (map[string][]byte, []string, error) {
	out := map[string][]byte{}
	if o.Root == "" {
		return out, []string{"WebAssembly not built (no module root given)"}, nil
	}
	goCmd := o.Go
	if goCmd == "" {
		goCmd = "go"
	}
	env, err := exec.Command(goCmd, "env", "GOROOT", "GOVERSION").Output()
	if err != nil {
		return nil, nil, fmt.Errorf("wasm: go env: %w", err)
	}
	lines := strings.Fields(string(env))
	if len(lines) != 2 {
		return nil, nil, fmt.Errorf("wasm: go env printed %q", env)
	}
	goroot, goversion := lines[0], lines[1]
	var notes []string
	hash, err := sourceHash(o.Root, goversion)
	if err != nil {
		return nil, nil, err
	}
	for _, w := range wasmPackages {
		if _, err := os.Stat(filepath.Join(o.Root, w.pkg, "main.go")); err != nil {
			notes = append(notes, fmt.Sprintf("%s not found: %s is not built", w.pkg, w.out))
			continue
		}
		bin, err := compileWasm(o, goCmd, w.pkg, w.gcflags, hash)
		if err != nil {
			return nil, nil, err
		}
		out[w.out] = bin
	}
	if len(out) == 0 {
		return out, notes, nil
	}
	execJS, err := os.ReadFile(filepath.Join(goroot, "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		if execJS, err = os.ReadFile(filepath.Join(goroot, "misc", "wasm", "wasm_exec.js")); err != nil {
			return nil, nil, fmt.Errorf("wasm: wasm_exec.js: %w", err)
		}
	}
	out["assets/wasm_exec.js"] = execJS
	for _, w := range wasmPackages {
		bin, ok := out[w.out]
		if !ok {
			continue
		}
		// The global is in the name: the sources' hash does not cover it.
		name := strings.ReplaceAll(w.pkg, "/", "-") + "-embed-" + w.global + "-" + hash + ".js"
		js, err := cached(o.CacheDir, name, func() ([]byte, error) { return embedScript(w.global, bin) })
		if err != nil {
			return nil, nil, err
		}
		out[w.embed] = js
	}
	return out, notes, nil
}

// compileWasm builds one package for js/wasm with the extra compiler
// flags gcflags (none when ""), or takes it from the cache.
func compileWasm(o WasmOptions, goCmd, pkg, gcflags, hash string) ([]byte, error) {
	// "-packed": binaries cached before wasmpack.Pack are not reused.
	name := strings.ReplaceAll(pkg, "/", "-") + "-" + hash + "-packed.wasm"
	if gcflags != "" {
		sum := sha256.Sum256([]byte(gcflags))
		name = strings.ReplaceAll(pkg, "/", "-") + "-" + hash + "-gc" + hex.EncodeToString(sum[:4]) + "-packed.wasm"
	}
	return cached(o.CacheDir, name, func() ([]byte, error) {
		tmp, err := os.CreateTemp("", "wattscale-*.wasm")
		if err != nil {
			return nil, err
		}
		tmp.Close()
		defer os.Remove(tmp.Name())
		args := []string{"build", "-trimpath", "-ldflags=-s -w"}
		if gcflags != "" {
			args = append(args, "-gcflags="+gcflags)
		}
		cmd := exec.Command(goCmd, append(args, "-o", tmp.Name(), "./"+pkg)...)
		cmd.Dir = o.Root
		cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("wasm: building ./%s: %w\n%s", pkg, err, stderr.String())
		}
		bin, err := os.ReadFile(tmp.Name())
		if err != nil {
			return nil, err
		}
		packed, err := wasmpack.Pack(bin, wasmpack.Gap)
		if err != nil {
			// A linker that writes other kinds of segments: ship the
			// binary as built (larger, equally correct) and say so.
			fmt.Fprintf(os.Stderr, "site build: ./%s kept as built: %v\n", pkg, err)
			return bin, nil
		}
		return packed, nil
	})
}

// cached returns the cached file name under dir, or makes it and stores it.
func cached(dir, name string, make func() ([]byte, error)) ([]byte, error) {
	if dir != "" {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			return b, nil
		}
	}
	b, err := make()
	if err != nil || dir == "" {
		return b, err
	}
	if err := os.MkdirAll(dir, 0o755); err == nil {
		tmp := filepath.Join(dir, name+".tmp")
		if os.WriteFile(tmp, b, 0o644) == nil {
			os.Rename(tmp, filepath.Join(dir, name))
		}
	}
	return b, nil
}

// sourceHash hashes every file a WebAssembly binary can depend on: go.mod,
// go.sum and the non-test files under model/, content/ (but its Markdown
// pages) and wasm/, with their paths, and the Go version.
func sourceHash(root, goversion string) (string, error) {
	h := sha256.New()
	io.WriteString(h, goversion+"\x00")
	var paths []string
	for _, top := range []string{"go.mod", "go.sum", "model", "content", "wasm"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) {
					return nil
				}
				return err
			}
			if d.IsDir() && filepath.ToSlash(p) == filepath.ToSlash(filepath.Join(root, "content", "pages")) {
				return filepath.SkipDir // pages are not compiled into any binary
			}
			if d.Name() == "node_modules" || d.Type()&fs.ModeSymlink != 0 {
				// npm's packages (a folder, or a link to one in a git
				// worktree) are no input of any binary.
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() || strings.HasSuffix(p, "_test.go") || strings.Contains(p, string(filepath.Separator)+"testdata"+string(filepath.Separator)) {
				return nil
			}
			paths = append(paths, p)
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:20], nil
}

// embedScript is the classic script that carries a wasm for file://:
// `window.GLOBAL = "…";`, the base64 of a gzip stream with no name and no
// time stamp, so that it is the same bytes for the same wasm.
func embedScript(global string, wasm []byte) ([]byte, error) {
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(wasm); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("window." + global + " = \"")
	b.WriteString(base64.StdEncoding.EncodeToString(gz.Bytes()))
	b.WriteString("\";\n")
	return b.Bytes(), nil
}

// embeddedGzipLen is the length of the gzip stream an embedScript carries
// (the base64 between its quotes), which is the wasm's size at gzip -9;
// 0 when js is not an embedScript.
func embeddedGzipLen(js []byte) int {
	i, j := bytes.IndexByte(js, '"'), bytes.LastIndexByte(js, '"')
	if i < 0 || j <= i {
		return 0
	}
	n, err := base64.StdEncoding.Decode(make([]byte, base64.StdEncoding.DecodedLen(j-i-1)), js[i+1:j])
	if err != nil {
		return 0
	}
	return n
}
