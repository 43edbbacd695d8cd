package main

// The static site.
//
// "go run ./site build -o public" turns the content tree into a static
// site in four phases, each a function taking and returning plain data:
//
//	load     content fs.FS → *Site        pages (Markdown with YAML front
//	                                      matter), calibrations, validation
//	                                      runs, data files; every malformed
//	                                      file is an error naming file:line
//	compute  *Site → *Computed            coefficient report (with fits of
//	                                      the Zeus trace from DATA_DIR when
//	                                      present), hardware and preset
//	                                      tables, validation table with its
//	                                      scores (in-sample and held-out, by
//	                                      the functions "site validate"
//	                                      calls), the calculator's
//	                                      WebAssembly and assets
//	render   → map[path][]byte            templates embedded in the binary,
//	                                      deterministic SVG charts, maths as
//	                                      MathML; then every link is checked
//	write    → DIR                        only changed files are rewritten
//
// The content tree (content/ in the repository):
//
//	pages/NAME.md          one page each, written to NAME/index.html;
//	                       pages/index.md is the home page (index.html).
//	                       Front matter keys: title (required), description,
//	                       nav (position in the navigation, 0 = hidden),
//	                       nav_title, template (page, calculator, planner,
//	                       report, hardware, validation), toc. Any other key
//	                       is an error.
//	calibrations/*.json    model.Calibration, one per file, named as the file
//	validation/runs.csv    published runs for the validation page, read
//	                       by validate.ReadRuns
//	validation/findings.md what the scores show, rendered on the validation
//	                       page (its h1 and its "Headline" section, which
//	                       the page computes, left out)
//	validation/README.md   the table's documentation; its "How the table
//	                       is scored" section is rendered on the page. The
//	                       three files are also published under files/.
//	data/*.csv             the project's data; published-scaling.csv feeds
//	                       the speedup charts
//
// Links in pages: another page by its file name ("methodology.md#the-law"),
// other output files from the site root ("files/data/published-scaling.csv").
// The generator makes every link relative, so the site works under any
// sub-path and from file://, and a link to a missing page, file or
// fragment is a build error. Two builds of the same tree are byte-identical.

import (
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/fit"
	"github.com/wattscale/wattscale/model/validate"
)

// buildOptions configure a build.
type buildOptions struct {
	Content fs.FS       // the content tree
	DataDir string      // third-party data (the Zeus trace); "" or a missing file: charts left out with a note
	Assets  fs.FS       // the calculator's static assets (site/assets), copied to assets/; nil = none
	Wasm    wasmOptions // how to build the WebAssembly
}

// build runs load, compute and render and checks the links: the files of
// the site by output path, and notes on what was left out.
func build(o buildOptions) (map[string][]byte, []string, error) {
	md := newMarkdown()
	s, err := load(o.Content, md)
	if err != nil {
		return nil, nil, err
	}
	c, err := compute(s, o)
	if err != nil {
		return nil, nil, err
	}
	files, err := render(s, c, md)
	if err != nil {
		return nil, nil, err
	}
	if _, ok := files["assets/calc.js"]; ok {
		files["sw.js"] = serviceWorker(files, calcPages(s.Pages))
	}
	if err := checkLinks(files); err != nil {
		return nil, nil, fmt.Errorf("broken links:\n%w", err)
	}
	return files, c.Notes, nil
}

// compute derives everything the pages show beyond their Markdown.
func compute(s *Site, o buildOptions) (*Computed, error) {
	c := &Computed{Assets: map[string][]byte{}}
	// The validation page's scores (the held-out refits take about 1.5 s)
	// run beside the report's Zeus refits and the WebAssembly build; only
	// a site with a validation page computes them.
	type scored struct {
		in, held validate.Report
		err      error
	}
	var scores chan scored
	if slices.ContainsFunc(s.Pages, func(p Page) bool { return p.Meta.Template == "validation" }) {
		if s.Findings == nil || s.Rules == nil {
			return nil, fmt.Errorf("content: the validation page needs validation/findings.md (what the scores show) and validation/README.md (the scoring rules)")
		}
		scores = make(chan scored, 1)
		go func() {
			var r scored
			r.in, r.held, r.err = scoreValidation(s.Runs, s.Calibrations, s.Scaling)
			scores <- r
		}()
	}
	in := reportInputs{cals: s.Calibrations, scaling: s.Scaling, runs: s.RunsRaw}
	for _, f := range s.DataFiles {
		if f.Path == "data/published-scaling.csv" {
			ci, err := scalingIntervals(f.Data)
			if err != nil {
				return nil, fmt.Errorf("data/%w", err)
			}
			in.ci = ci
		}
	}
	zeus, st, err := loadZeus(o.DataDir)
	if err != nil {
		return nil, err
	}
	in.zeus, in.zeusSt = zeus, st
	if !st.Available {
		c.Notes = append(c.Notes, "report: Zeus charts left out: "+st.Note)
	}
	if c.Report, err = computeReport(in); err != nil {
		return nil, err
	}
	c.Hardware = hardwareTable(model.DefaultGPUs(), model.DefaultPresets())
	if c.Prerender, err = prerenderCalculator(); err != nil {
		return nil, err
	}

	if o.Assets != nil {
		err := fs.WalkDir(o.Assets, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := fs.ReadFile(o.Assets, p)
			if err != nil {
				return err
			}
			c.Assets["assets/"+p] = b
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("site/assets: %w", err)
		}
	}
	wasm, notes, err := buildWasm(o.Wasm)
	if err != nil {
		return nil, err
	}
	for name, b := range wasm {
		c.Assets[name] = b
	}
	c.Notes = append(c.Notes, notes...)
	var vs *ValidationScores
	if scores != nil {
		r := <-scores
		if r.err != nil {
			return nil, r.err
		}
		base, err := defaultCalibration(s.Calibrations)
		if err != nil {
			return nil, err
		}
		vs = validationScores(s.Runs, base, r.in, r.held)
	}
	c.Validation = validationTable(s.Runs, vs)
	return c, nil
}

// loadZeus reads the Zeus trace from dir. A missing file is not an error
// (the report says the charts need it); a malformed one is.
func loadZeus(dir string) ([]model.Measurement, ZeusStatus, error) {
	st := ZeusStatus{Path: filepath.Join(dir, "zeus-bert-power.csv")}
	if dir == "" {
		st.Path, st.Note = "DATA_DIR/zeus-bert-power.csv", "DATA_DIR is not set"
		return nil, st, nil
	}
	f, err := os.Open(st.Path)
	if err != nil {
		st.Note = "cannot open it: " + err.Error()
		return nil, st, nil
	}
	defer f.Close()
	rows, err := fit.ReadMeasurements(f, model.DefaultPresets())
	if err != nil {
		return nil, st, fmt.Errorf("%s: %w", st.Path, err)
	}
	st.Available, st.Rows = true, len(rows)
	st.Path = "DATA_DIR/zeus-bert-power.csv"
	return rows, st, nil
}

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

// siteFlags are the flags build and serve share.
type siteFlags struct {
	content, data, cache string
	noWasm               bool
}

func (f *siteFlags) register(fs *flag.FlagSet) {
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
	o := buildOptions{Content: os.DirFS(content), DataDir: f.data, Assets: calcAssets(),
		Wasm: wasmOptions{Root: root, CacheDir: f.cache}}
	if f.noWasm {
		o.Wasm.Root = ""
	}
	return o, nil
}

func runBuild(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("build", flag.ContinueOnError)
	fl.SetOutput(stderr)
	out := fl.String("o", "public", "output folder")
	var sf siteFlags
	sf.register(fl)
	if err := fl.Parse(args); err != nil {
		return errUsage
	}
	if err := noArgs(fl); err != nil {
		return err
	}
	o, err := sf.options()
	if err != nil {
		return err
	}
	return buildInto(o, *out, stderr)
}

// buildInto builds the site into dir and reports the notes, the file count
// and the time on stderr: what build and serve both do first.
func buildInto(o buildOptions, dir string, stderr io.Writer) error {
	start := time.Now()
	files, notes, err := build(o)
	if err != nil {
		return err
	}
	if err := write(dir, files); err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintf(stderr, "note: %s\n", n)
	}
	fmt.Fprintf(stderr, "built %d files into %s in %.2f s\n", len(files), dir, time.Since(start).Seconds())
	return nil
}
