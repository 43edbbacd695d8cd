package gen

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/csvx"
	"github.com/wattscale/wattscale/model/fit"
	"github.com/wattscale/wattscale/model/validate"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"go.abhg.dev/goldmark/frontmatter"
)

// Site is the loaded content tree: the first phase's output and the input
// of compute and render. Everything in it comes from the content fs.FS.
type Site struct {
	Pages        []Page              // pages/*.md in path order
	Calibrations []model.Calibration // calibrations/*.json in name order
	CalFiles     []File              // the calibration files as published (copied to data/)
	Runs         []validate.Run      // validation/runs.csv, read by validate.ReadRuns as "site validate" reads it
	RunsRaw      []byte              // validation/runs.csv as published
	Findings     []byte              // validation/findings.md: what the scores show (nil when absent)
	Rules        []byte              // validation/README.md: the table's documentation and scoring rules (nil when absent)
	Scaling      []fit.ScalingPoint  // data/published-scaling.csv
	DataFiles    []File              // data/*.csv and validation/runs.csv as published
	// Read from the other trees of Options:
	Zeus       []model.Measurement // the Zeus trace (Data), nil when it is not available
	ZeusStatus ZeusStatus          // whether it was found, and why not
	Assets     map[string][]byte   // the calculator's static assets (Assets) by site path
}

// File is a content file copied to the output as it is.
type File struct {
	Path string // path in the content tree
	Data []byte
}

// Page is one Markdown page: its front matter, its parsed body and its
// place in the output.
type Page struct {
	Src    string // path in the content tree, e.g. "pages/methodology.md"
	Slug   string // "" for the home page, else the file's base name without .md
	Meta   FrontMatter
	Source []byte   // the Markdown source (front matter included: the AST's segments index it)
	Doc    ast.Node // parsed body
}

// OutPath is where the page is written: index.html for the home page,
// SLUG/index.html for the others (explicit file names, so that links work
// from file:// where a directory does not open its index.html).
func (p *Page) OutPath() string {
	if p.Slug == "" {
		return "index.html"
	}
	return p.Slug + "/index.html"
}

// FrontMatter is the YAML block at the top of a page. Keys outside this set
// are build errors (frontMatterKeys).
type FrontMatter struct {
	Title       string `yaml:"title"`       // required: the page's <h1> and <title>
	Description string `yaml:"description"` // one sentence for <meta name=description> and the lead paragraph
	Nav         int    `yaml:"nav"`         // position in the navigation, 1 first; 0 = not in the navigation
	NavTitle    string `yaml:"nav_title"`   // short label in the navigation (default: Title)
	Template    string `yaml:"template"`    // page (default), calculator, planner, report, hardware or validation
	TOC         bool   `yaml:"toc"`         // show a table of contents of the page's h2 headings
}

// frontMatterKeys are the keys a page may set.
var frontMatterKeys = []string{"title", "description", "nav", "nav_title", "template", "toc"}

// templates are the page templates a page may name.
var templates = []string{"page", "calculator", "planner", "report", "hardware", "validation"}

// load reads the content tree: Markdown pages with front matter,
// calibrations, the validation runs and the data files. Every malformed
// file is an error that names it (and the line, where there is one).
func load(fsys fs.FS, md *markdown) (*Site, error) {
	s := &Site{}
	var errs []error
	pages, err := fs.Glob(fsys, "pages/*.md")
	if err != nil {
		return nil, err
	}
	if len(pages) == 0 {
		return nil, fmt.Errorf("content: no pages/*.md")
	}
	sort.Strings(pages)
	for _, p := range pages {
		pg, err := loadPage(fsys, p, md)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s.Pages = append(s.Pages, pg)
	}
	if s.Calibrations, s.CalFiles, err = loadCalibrations(fsys); err != nil {
		errs = append(errs, err)
	}
	if raw, err := fs.ReadFile(fsys, "validation/runs.csv"); err != nil {
		errs = append(errs, fmt.Errorf("content: %w", err))
	} else if s.Runs, err = loadRuns(raw, model.NewHardware(model.DefaultGPUs())); err != nil {
		errs = append(errs, err)
	} else {
		s.RunsRaw = raw
		s.DataFiles = append(s.DataFiles, File{"validation/runs.csv", raw})
	}
	// The validation page's prose: optional here; the validation template
	// requires them (compute says so).
	for _, f := range []struct {
		name string
		dst  *[]byte
	}{{"validation/findings.md", &s.Findings}, {"validation/README.md", &s.Rules}} {
		raw, err := fs.ReadFile(fsys, f.name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		*f.dst = raw
		s.DataFiles = append(s.DataFiles, File{f.name, raw})
	}
	data, err := fs.Glob(fsys, "data/*.csv")
	if err != nil {
		return nil, err
	}
	sort.Strings(data)
	for _, d := range data {
		raw, err := fs.ReadFile(fsys, d)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := checkCSV(raw); err != nil {
			errs = append(errs, fileError(d, err))
			continue
		}
		if d == "data/published-scaling.csv" {
			if s.Scaling, err = fit.ReadScaling(bytes.NewReader(raw)); err != nil {
				errs = append(errs, fileError(d, err))
				continue
			}
		}
		s.DataFiles = append(s.DataFiles, File{d, raw})
	}
	// The examples the command-line page links to, published as they are.
	if _, err := fs.Stat(fsys, "examples"); err == nil {
		werr := fs.WalkDir(fsys, "examples", func(d string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			raw, err := fs.ReadFile(fsys, d)
			if err != nil {
				return err
			}
			s.DataFiles = append(s.DataFiles, File{d, raw})
			return nil
		})
		if werr != nil {
			errs = append(errs, werr)
		}
	}
	if s.Scaling == nil && len(errs) == 0 {
		errs = append(errs, fmt.Errorf("content: data/published-scaling.csv is missing (the report's speedup charts need it)"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return s, nil
}

// loadPage parses one page and checks its front matter.
func loadPage(fsys fs.FS, name string, md *markdown) (Page, error) {
	src, err := fs.ReadFile(fsys, name)
	if err != nil {
		return Page{}, err
	}
	pc := parser.NewContext()
	doc := md.md.Parser().Parse(text.NewReader(src), parser.WithContext(pc))
	slug := strings.TrimSuffix(path.Base(name), ".md")
	if slug == "index" {
		slug = ""
	}
	pg := Page{Src: name, Slug: slug, Source: src, Doc: doc}
	fm := frontmatter.Get(pc)
	if fm == nil {
		return pg, fmt.Errorf("%s:1: no front matter: a page starts with a --- block that sets at least title", name)
	}
	var raw map[string]any
	if err := fm.Decode(&raw); err != nil {
		return pg, fmt.Errorf("%s: front matter: %w", name, err)
	}
	var unknown []string
	for k := range raw {
		if !slices.Contains(frontMatterKeys, k) {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	if len(unknown) > 0 {
		return pg, fmt.Errorf("%s: front matter: unknown key %q (allowed: %s)", name, unknown[0], strings.Join(frontMatterKeys, ", "))
	}
	if err := fm.Decode(&pg.Meta); err != nil {
		return pg, fmt.Errorf("%s: front matter: %w", name, err)
	}
	m := &pg.Meta
	if strings.TrimSpace(m.Title) == "" {
		return pg, fmt.Errorf("%s: front matter: title is required", name)
	}
	if m.Template == "" {
		m.Template = "page"
	}
	if !slices.Contains(templates, m.Template) {
		return pg, fmt.Errorf("%s: front matter: template %q is not one of %s", name, m.Template, strings.Join(templates, ", "))
	}
	if m.Nav < 0 {
		return pg, fmt.Errorf("%s: front matter: nav %d must be 0 (hidden) or a position from 1", name, m.Nav)
	}
	if m.NavTitle == "" {
		m.NavTitle = m.Title
	}
	return pg, nil
}

// loadCalibrations reads calibrations/*.json with content's strict loader
// (a JSON error names file:line; a calibration is named as its file).
func loadCalibrations(fsys fs.FS) ([]model.Calibration, []File, error) {
	read, err := content.ReadCalibrations(fsys, "calibrations")
	if err != nil {
		return nil, nil, fmt.Errorf("content: %w", err)
	}
	files := make([]File, len(read))
	for i, f := range read {
		files[i] = File{f.Path, f.Raw}
	}
	return content.Values(read), files, nil
}

// fileError writes err as "NAME:LINE: message" when it is a
// *csvx.LineError (anywhere in its chain), else as "NAME: message" with
// the reader's own prefix (runs: , scaling: ) dropped.
func fileError(name string, err error) error {
	var le *csvx.LineError
	if errors.As(err, &le) {
		return fmt.Errorf("%s:%d: %s", name, le.Line, le.Detail())
	}
	msg := err.Error()
	if i := strings.Index(msg, ": "); i > 0 && !strings.Contains(msg[:i], " ") {
		msg = msg[i+2:]
	}
	return fmt.Errorf("%s: %s", name, msg)
}

// checkCSV checks that a CSV file parses, has a header of distinct
// non-empty names and the same number of fields on every line.
func checkCSV(raw []byte) error {
	rd, err := csvx.NewReader(bytes.NewReader(raw), csvx.Header{})
	if err != nil {
		return err
	}
	for {
		if _, err := rd.Next(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// loadRuns reads validation/runs.csv with validate.ReadRuns (the reader of
// "site validate", so that the page scores the same rows) and checks that
// every accelerator is in the hardware table. Errors read
// "validation/runs.csv:LINE: …".
func loadRuns(raw []byte, hw *model.Hardware) ([]validate.Run, error) {
	const name = "validation/runs.csv"
	runs, err := validate.ReadRuns(bytes.NewReader(raw))
	if err != nil {
		return nil, fileError(name, err)
	}
	for _, r := range runs {
		if _, err := hw.Lookup(r.GPU); err != nil {
			return nil, fmt.Errorf("%s:%d: column gpu: %v", name, r.Line, err)
		}
	}
	return runs, nil
}
