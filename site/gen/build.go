package gen

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"slices"
	"strings"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/fit"
	"github.com/wattscale/wattscale/model/validate"
)

// Options are a build's inputs. The content, the data and the assets come
// in as file trees (an fs.FS: the repository's folders through os.DirFS,
// or a fstest.MapFS in the tests), and the WebAssembly comes in already
// compiled (BuildWasm, which the command line runs before the build);
// Build reads nothing else and runs no tool.
type Options struct {
	Content fs.FS // the content tree
	// Data holds the third-party data (zeus-bert-power.csv at its root);
	// nil, or a tree without the file: the Zeus charts are left out with a
	// note. DataName is how the pages and notes name it (DATA_DIR).
	Data     fs.FS
	DataName string
	Assets   fs.FS             // the calculator's static assets (site/assets), copied to assets/; nil = none
	Wasm     map[string][]byte // BuildWasm's output by site path (assets/calc.wasm, …); nil = no calculator wasm
	Notes    []string          // what the steps before the build left out (BuildWasm's notes)
}

// Build runs load, compute and render and checks the links. It returns the
// files of the site by output path (slash-separated, relative to the
// site's root) and notes on what was left out (a missing Zeus trace, the
// notes of Options.Notes); an error names the file, and the line where
// there is one.
func Build(o Options) (map[string][]byte, []string, error) {
	md := newMarkdown()
	s, err := load(o.Content, md)
	if err != nil {
		return nil, nil, err
	}
	if s.Zeus, s.ZeusStatus, err = loadZeus(o.Data, o.DataName); err != nil {
		return nil, nil, err
	}
	if s.Assets, err = readAssets(o.Assets); err != nil {
		return nil, nil, err
	}
	c, err := compute(s, o.Wasm)
	if err != nil {
		return nil, nil, err
	}
	files, err := render(s, c, md)
	if err != nil {
		return nil, nil, err
	}
	if _, ok := c.AssetNames["assets/calc.js"]; ok {
		files["sw.js"] = serviceWorker(files, calcPages(s.Pages))
	}
	if err := checkLinks(files); err != nil {
		return nil, nil, fmt.Errorf("broken links:\n%w", err)
	}
	return files, append(append([]string{}, o.Notes...), c.Notes...), nil
}

// readAssets reads the calculator's static assets by site path (assets/…).
func readAssets(fsys fs.FS) (map[string][]byte, error) {
	out := map[string][]byte{}
	if fsys == nil {
		return out, nil
	}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		out["assets/"+p] = b
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("site/assets: %w", err)
	}
	return out, nil
}

// headScriptAsset is the script the pages with a prerendered calculator or
// plan carry inline in their head (site/assets/head.js states what it
// does); it is not written as a file of its own.
const headScriptAsset = "assets/head.js"

// headScript is a script as the pages carry it inline: without its
// leading /* ... */ comment, the lines that hold only a // comment, empty
// lines and each line's indentation. The comments are for the file's
// readers; the inline copy is in every calculator page. (A rule for
// site/assets/head.js, which has no string or regular expression that a
// line could begin inside.)
func headScript(b []byte) template.JS {
	s := strings.TrimSpace(string(b))
	if strings.HasPrefix(s, "/*") {
		if i := strings.Index(s, "*/"); i >= 0 {
			s = s[i+2:]
		}
	}
	var out []string
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "//") {
			out = append(out, line)
		}
	}
	return template.JS(strings.Join(out, "\n"))
}

// compute derives everything the pages show beyond their Markdown.
func compute(s *Site, wasm map[string][]byte) (*Computed, error) {
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
	// The calculator's defaults and calibrations are the loaded content's.
	cat, err := content.NewCatalog(s.Calibrations)
	if err != nil {
		return nil, fmt.Errorf("content: calibrations: %w", err)
	}
	in := reportInputs{cals: s.Calibrations, cat: cat, scaling: s.Scaling, runs: s.RunsRaw, ci: scalingIntervals(s.Scaling)}
	in.zeus, in.zeusSt = s.Zeus, s.ZeusStatus
	if !s.ZeusStatus.Available {
		c.Notes = append(c.Notes, "report: Zeus charts left out: "+s.ZeusStatus.Note)
	}
	if c.Report, err = computeReport(in); err != nil {
		return nil, err
	}
	c.Hardware = hardwareTable(model.DefaultGPUs(), model.DefaultPresets())
	if c.Prerender, err = prerenderCalculator(cat); err != nil {
		return nil, err
	}
	if c.Prerender.Planner, err = prerenderPlanner(cat); err != nil {
		return nil, err
	}

	for name, b := range s.Assets {
		if name == headScriptAsset {
			c.HeadJS = headScript(b)
			continue
		}
		c.Assets[name] = b
	}
	for name, b := range wasm {
		c.Assets[name] = b
	}
	if _, ok := wasm["assets/calc.wasm"]; ok {
		if d := embeddedDiffer(s.CalFiles); d != "" {
			files := make([]content.CalibrationFile, len(s.CalFiles))
			for i, f := range s.CalFiles {
				files[i] = content.CalibrationFile{Path: f.Path, Raw: f.Data}
			}
			b, err := content.EncodeCalibrations(files)
			if err != nil {
				return nil, err
			}
			c.Calibrations = string(b)
			c.Notes = append(c.Notes, "calculator: the module's content/calibrations compiled into its WebAssembly differ from this content tree's ("+d+"): the calculator, planner and embed pages hand it this tree's calibrations")
		}
	}
	if bin, ok := wasm["assets/fit.wasm"]; ok {
		c.FitBytes = [2]int{len(bin), embeddedGzipLen(wasm["assets/fit-embed.js"])}
	}
	c.AssetNames = fingerprint(c.Assets)
	if len(c.Assets) > 0 {
		c.Assets[assetManifestName] = assetManifest(c.AssetNames)
		c.Assets[hostHeadersName] = hostHeaders(c.AssetNames)
	}
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

// embeddedDiffer names the first calibration file that differs between
// the content tree's and those compiled into the calculator (content's
// embedded copy); "" when they are the same.
func embeddedDiffer(files []File) string {
	emb, err := content.ReadCalibrations(content.Calibrations, "calibrations")
	if err != nil {
		return "the embedded calibrations do not load: " + err.Error()
	}
	if len(emb) != len(files) {
		return fmt.Sprintf("%d files against %d", len(files), len(emb))
	}
	for i, f := range files {
		if f.Path != emb[i].Path || !bytes.Equal(f.Data, emb[i].Raw) {
			return f.Path
		}
	}
	return ""
}

// zeusFile is the Zeus trace's name in the data tree.
const zeusFile = "zeus-bert-power.csv"

// loadZeus reads the Zeus trace from the data tree, named name in notes. A
// missing tree or file is not an error (the report says the charts need
// it); a malformed file is.
func loadZeus(data fs.FS, name string) ([]model.Measurement, ZeusStatus, error) {
	if name == "" {
		name = "DATA_DIR"
	}
	st := ZeusStatus{Path: name + "/" + zeusFile}
	if data == nil {
		st.Note = name + " is not set"
		return nil, st, nil
	}
	raw, err := fs.ReadFile(data, zeusFile)
	if err != nil {
		st.Note = "cannot open it: " + err.Error()
		return nil, st, nil
	}
	rows, err := fit.ReadMeasurements(bytes.NewReader(raw), model.DefaultPresets())
	if err != nil {
		return nil, st, fmt.Errorf("%s: %w", st.Path, err)
	}
	st.Available, st.Rows = true, len(rows)
	return rows, st, nil
}
