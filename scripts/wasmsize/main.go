// Command wasmsize reports what a Go WebAssembly binary holds, per Go
// package: the bytes of function code each package contributes, read from
// the binary's code section and its name section (which "go build" writes
// unless it is given -ldflags=-s). With a package path it builds that
// package twice for js/wasm: with the name section for the table, and as
// the site ships it (-trimpath -ldflags="-s -w", then its data segments
// packed by site/wasmpack) for the raw, gzip -9 and brotli sizes.
//
// Usage:
//
//	go run ./scripts/wasmsize [-top 40] [-brotli 11] [-gcflags FLAGS] ./wasm/calc
//	go run ./scripts/wasmsize [-top 40] file.wasm      (a binary built without -s)
package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/andybalholm/brotli"

	"github.com/wattscale/wattscale/site/wasmpack"
)

func main() {
	top := flag.Int("top", 40, "packages to list (the rest are summed)")
	quality := flag.Int("brotli", 11, "brotli quality for the shipped size (0-11; 11 takes about a minute for 4 MB)")
	gcflags := flag.String("gcflags", "", "compiler flags for both builds, as go build -gcflags takes them (site build compiles calc.wasm with all=-l, site/gen/wasm.go)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/wasmsize [-top N] [-brotli Q] ./wasm/calc | file.wasm")
		os.Exit(2)
	}
	var extra []string
	if *gcflags != "" {
		extra = []string{"-gcflags=" + *gcflags}
	}
	if err := run(flag.Arg(0), *top, *quality, extra, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "wasmsize:", err)
		os.Exit(1)
	}
}

func run(target string, top, quality int, flags []string, w io.Writer) error {
	var named, shipped []byte
	var err error
	if strings.HasSuffix(target, ".wasm") {
		if named, err = os.ReadFile(target); err != nil {
			return err
		}
	} else {
		if named, err = goBuild(target, flags...); err != nil {
			return err
		}
		if shipped, err = goBuild(target, append([]string{"-ldflags=-s -w"}, flags...)...); err != nil {
			return err
		}
	}
	sizes, err := packageSizes(named)
	if err != nil {
		return err
	}
	if shipped != nil {
		gz, br := compressedSizes(shipped, quality)
		fmt.Fprintf(w, "%s built (-trimpath -ldflags=\"-s -w\"%s): %d bytes raw, %d gzip -9, %d brotli q%d\n", target, strings.Join(append([]string{""}, flags...), " "), len(shipped), gz, br, quality)
		packed, err := wasmpack.Pack(shipped, wasmpack.Gap)
		if err != nil {
			return err
		}
		gz, br = compressedSizes(packed, quality)
		fmt.Fprintf(w, "%s as shipped (data segments packed, site/wasmpack): %d bytes raw, %d gzip -9, %d brotli q%d\n", target, len(packed), gz, br, quality)
	}
	printTable(w, sizes, top)
	return nil
}

// goBuild builds a package for js/wasm and returns the binary.
func goBuild(pkg string, flags ...string) ([]byte, error) {
	dir, err := os.MkdirTemp("", "wasmsize-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "out.wasm")
	args := append(append([]string{"build", "-trimpath"}, flags...), "-o", out, pkg)
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return os.ReadFile(out)
}

func compressedSizes(b []byte, quality int) (gz, br int) {
	var g bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&g, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	var r bytes.Buffer
	bw := brotli.NewWriterOptions(&r, brotli.WriterOptions{Quality: quality, LGWin: 22})
	bw.Write(b)
	bw.Close()
	return g.Len(), r.Len()
}

// Sizes are a binary's bytes by package, and the sections that belong to
// no function.
type Sizes struct {
	Total    int            // the file
	Code     int            // the code section
	Packages map[string]int // function bodies by package
	Sections map[string]int // every section's size by name (code, data, name, …)
}

// packageSizes reads the code and name sections of a wasm binary.
func packageSizes(b []byte) (Sizes, error) {
	s := Sizes{Total: len(b), Packages: map[string]int{}, Sections: map[string]int{}}
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return s, fmt.Errorf("not a WebAssembly binary")
	}
	r := &reader{b: b, off: 8}
	imported := 0
	var bodies []int
	names := map[int]string{}
	for r.off < len(b) {
		id := r.byte()
		size := int(r.uleb())
		start := r.off
		end := start + size
		if r.err != nil || end > len(b) {
			return s, fmt.Errorf("section %d at byte %d: truncated", id, start)
		}
		sec := &reader{b: b[:end], off: start}
		switch id {
		case 0:
			name := sec.name()
			s.Sections["custom "+name] += size
			if name == "name" {
				for sec.off < end && sec.err == nil {
					sub := sec.byte()
					n := int(sec.uleb())
					if sub != 1 {
						sec.off += n
						continue
					}
					count := int(sec.uleb())
					for i := 0; i < count && sec.err == nil; i++ {
						idx := int(sec.uleb())
						names[idx] = sec.name()
					}
				}
			}
		case 2:
			s.Sections["import"] += size
			count := int(sec.uleb())
			for i := 0; i < count && sec.err == nil; i++ {
				sec.name()
				sec.name()
				switch sec.byte() {
				case 0:
					sec.uleb()
					imported++
				case 1:
					sec.byte()
					sec.limits()
				case 2:
					sec.limits()
				case 3:
					sec.byte()
					sec.byte()
				}
			}
		case 10:
			s.Sections["code"] += size
			s.Code = size
			count := int(sec.uleb())
			for i := 0; i < count && sec.err == nil; i++ {
				n := int(sec.uleb())
				bodies = append(bodies, n)
				sec.off += n
			}
		default:
			s.Sections[sectionNames[id]] += size
		}
		if sec.err != nil {
			return s, fmt.Errorf("section %d: %v", id, sec.err)
		}
		r.off = end
	}
	if len(names) == 0 {
		return s, fmt.Errorf("no function names: build without -ldflags=-s")
	}
	for i, n := range bodies {
		s.Packages[packageOf(names[imported+i])] += n
	}
	return s, nil
}

var sectionNames = map[byte]string{1: "type", 3: "function", 4: "table", 5: "memory", 6: "global", 7: "export", 8: "start", 9: "element", 11: "data", 12: "data count"}

// packageOf is the Go package of a symbol in the name section, where the
// linker writes "/", "(" and "*" as "_": "github.com_x_y.__T_.M" →
// "github.com/x/y"; "type:.eq.[2]string" → "type:" (compiler-made).
func packageOf(sym string) string {
	if sym == "" {
		return "(unnamed)"
	}
	if i := strings.IndexByte(sym, '['); i >= 0 {
		sym = sym[:i]
	}
	for _, gen := range []string{"type", "go"} { // compiler-made: type:.eq.T, go:buildid
		if strings.HasPrefix(sym, gen+":") || strings.HasPrefix(sym, gen+"_.") {
			return gen + ":"
		}
	}
	from := 0
	if d, u := strings.IndexByte(sym, '.'), strings.IndexByte(sym, '_'); d >= 0 && u > d+1 && isDomain(sym[d+1:u]) {
		from = u // a module path: its first element is a domain (github.com_…)
	}
	if i := strings.IndexByte(sym[from:], '.'); i >= 0 {
		sym = sym[:from+i]
	}
	return strings.ReplaceAll(sym, "_", "/")
}

// isDomain says whether s can be the rest of a domain name after its
// first dot ("com", "abhg.dev").
func isDomain(s string) bool {
	for _, c := range s {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '-') {
			return false
		}
	}
	return s != ""
}

func printTable(w io.Writer, s Sizes, top int) {
	type row struct {
		pkg string
		n   int
	}
	var rows []row
	for p, n := range s.Packages {
		rows = append(rows, row{p, n})
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].n != rows[j].n {
			return rows[i].n > rows[j].n
		}
		return rows[i].pkg < rows[j].pkg
	})
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "code bytes\tshare\t package\t\n")
	rest, restN := 0, 0
	for i, r := range rows {
		if i >= top {
			rest += r.n
			restN++
			continue
		}
		fmt.Fprintf(tw, "%d\t%.1f %%\t %s\t\n", r.n, 100*float64(r.n)/float64(s.Code), r.pkg)
	}
	if restN > 0 {
		fmt.Fprintf(tw, "%d\t%.1f %%\t (%d more packages)\t\n", rest, 100*float64(rest)/float64(s.Code), restN)
	}
	tw.Flush()
	var secs []string
	for name, n := range s.Sections {
		secs = append(secs, fmt.Sprintf("%s %d", name, n))
	}
	sort.Strings(secs)
	fmt.Fprintf(w, "file %d bytes (with names); sections: %s\n", s.Total, strings.Join(secs, ", "))
}

// reader reads LEB128 numbers and names from a byte slice, keeping the
// first error.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) byte() byte {
	if r.off >= len(r.b) {
		r.err = io.ErrUnexpectedEOF
		return 0
	}
	c := r.b[r.off]
	r.off++
	return c
}

func (r *reader) uleb() uint64 {
	var x uint64
	for shift := 0; shift < 64; shift += 7 {
		c := r.byte()
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return x
		}
	}
	return x
}

func (r *reader) name() string {
	n := int(r.uleb())
	if r.off+n > len(r.b) {
		r.err = io.ErrUnexpectedEOF
		return ""
	}
	s := string(r.b[r.off : r.off+n])
	r.off += n
	return s
}

func (r *reader) limits() {
	if r.byte()&1 != 0 {
		r.uleb()
		r.uleb()
		return
	}
	r.uleb()
}
