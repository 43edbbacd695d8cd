package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/wattscale/wattscale/site/gen"
)

// moduleRoot finds the directory holding go.mod, from dir upwards.
func moduleRoot(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no go.mod above %s: run from the wattscale repository", dir)
		}
		d = parent
	}
}

// defaultCacheDir is where compiled WebAssembly is cached.
func defaultCacheDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "wattscale-site")
	}
	return ""
}

// buildOptions are what build and serve run: the generator's inputs, and
// the compressed copies written beside its output.
type buildOptions struct {
	site     gen.Options
	compress gen.Compression // the .br and .gz copies written beside the files (the zero value: none)
	cacheDir string          // cache of compressed copies (and compiled wasm); "" = none
}

// siteFlags are the flags build and serve share.
type siteFlags struct {
	content, data, cache, compress string
	noWasm                         bool
}

// register adds the flags; compress is the -compress default.
func (f *siteFlags) register(fs *flag.FlagSet, compress string) {
	fs.StringVar(&f.compress, "compress", compress, "the .br and .gz copies written beside every text and wasm file: best (brotli 11, gzip -9; slow the first time, then cached), fast or none")
	fs.StringVar(&f.content, "content", "", "content tree (default: content/ of the module)")
	fs.StringVar(&f.data, "data", dataDir(), "folder with third-party data (the Zeus trace), default $DATA_DIR or ../shared/data")
	fs.StringVar(&f.cache, "cache", defaultCacheDir(), "cache for compiled WebAssembly; empty = no cache")
	fs.BoolVar(&f.noWasm, "nowasm", false, "do not build the WebAssembly (pages only)")
}

// options resolves the flags against the module root.
func (f *siteFlags) options() (buildOptions, error) {
	root, err := moduleRoot(".")
	if err != nil {
		return buildOptions{}, err
	}
	content := f.content
	if content == "" {
		content = filepath.Join(root, "content")
	}
	comp, err := gen.ParseCompression(f.compress)
	if err != nil {
		return buildOptions{}, err
	}
	o := buildOptions{site: gen.Options{Content: os.DirFS(content), DataName: "DATA_DIR", Assets: calcAssets()}, compress: comp, cacheDir: f.cache}
	if f.data != "" {
		o.site.Data = os.DirFS(f.data)
	}
	w := gen.WasmOptions{Root: root, CacheDir: f.cache}
	if f.noWasm {
		w.Root = ""
	}
	// The toolchain runs here, before the build, which only takes its output.
	if o.site.Wasm, o.site.Notes, err = gen.BuildWasm(w); err != nil {
		return buildOptions{}, err
	}
	return o, nil
}

func runBuild(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("build", flag.ContinueOnError)
	fl.SetOutput(stderr)
	out := fl.String("o", "public", "output folder")
	var sf siteFlags
	o, err := sf.parse(fl, args, gen.CompressBest.Name)
	if err != nil {
		return err
	}
	return buildInto(o, *out, stderr)
}

// parse registers the shared flags on fl (compress: the -compress
// default), parses args and resolves the build's options: the first steps
// of build and serve.
func (f *siteFlags) parse(fl *flag.FlagSet, args []string, compress string) (buildOptions, error) {
	f.register(fl, compress)
	if err := parseFlags(fl, args); err != nil {
		return buildOptions{}, err
	}
	return f.options()
}

// buildInto builds the site into dir and reports the notes, the file count
// and the time on stderr: what build and serve both do first.
func buildInto(o buildOptions, dir string, stderr io.Writer) error {
	start := time.Now()
	files, notes, err := gen.Build(o.site)
	if err != nil {
		return err
	}
	if err := gen.Compress(files, o.compress, gen.DirCache(o.cacheDir)); err != nil {
		return err
	}
	if err := gen.Write(dir, files); err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintf(stderr, "note: %s\n", n)
	}
	fmt.Fprintf(stderr, "built %d files into %s in %.2f s\n", len(files), dir, time.Since(start).Seconds())
	return nil
}
