package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/wattscale/wattscale/model"
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
			errs = append(errs, fmt.Errorf("%s:%w", d, err))
			continue
		}
		if d == "data/published-scaling.csv" {
			if s.Scaling, err = fit.ReadScaling(bytes.NewReader(raw)); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", d, err))
				continue
			}
		}
		s.DataFiles = append(s.DataFiles, File{d, raw})
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

// loadCalibrations parses calibrations/*.json; a JSON syntax or type error
// names the line.
func loadCalibrations(fsys fs.FS) ([]model.Calibration, []File, error) {
	names, err := fs.Glob(fsys, "calibrations/*.json")
	if err != nil {
		return nil, nil, err
	}
	if len(names) == 0 {
		return nil, nil, fmt.Errorf("content: no calibrations/*.json")
	}
	sort.Strings(names)
	var cals []model.Calibration
	var files []File
	var errs []error
	for _, n := range names {
		raw, err := fs.ReadFile(fsys, n)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		c, err := model.ParseCalibration(raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", n, jsonErrorLine(raw, err), err))
			continue
		}
		if want := strings.TrimSuffix(path.Base(n), ".json"); c.Name != want {
			errs = append(errs, fmt.Errorf("%s:1: calibration name %q does not match the file name (want %q)", n, c.Name, want))
			continue
		}
		cals = append(cals, c)
		files = append(files, File{n, raw})
	}
	return cals, files, errors.Join(errs...)
}

// jsonErrorLine is the line of a JSON syntax or type error, or 1 when the
// error has no position (a value out of range).
func jsonErrorLine(raw []byte, err error) int {
	var off int64
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	default:
		return 1
	}
	if off > int64(len(raw)) {
		off = int64(len(raw))
	}
	return 1 + bytes.Count(raw[:off], []byte("\n"))
}

// checkCSV checks that a CSV file parses, has a header of distinct
// non-empty names and the same number of fields on every line. The error
// starts with the line number (the caller prefixes the file name).
func checkCSV(raw []byte) error {
	cr := csv.NewReader(bytes.NewReader(raw))
	head, err := cr.Read()
	if err != nil {
		return csvErr(err, 1)
	}
	seen := map[string]bool{}
	for _, h := range head {
		h = strings.TrimSpace(h)
		if h == "" || seen[h] {
			return fmt.Errorf("1: header: empty or repeated column name %q", h)
		}
		seen[h] = true
	}
	for {
		_, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			line, _ := cr.FieldPos(0)
			return csvErr(err, line)
		}
	}
}

// csvErr formats a csv error as "LINE: message".
func csvErr(err error, line int) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%d: %v", pe.Line, pe.Err)
	}
	return fmt.Errorf("%d: %w", line, err)
}

// runsLine matches validate.ReadRuns's "runs: line N: " prefix.
var runsLine = regexp.MustCompile(`^runs: line (\d+): `)

// loadRuns reads validation/runs.csv with validate.ReadRuns (the reader of
// "site validate", so that the page scores the same rows) and checks that
// every accelerator is in the hardware table. Errors read
// "validation/runs.csv:LINE: …".
func loadRuns(raw []byte, hw *model.Hardware) ([]validate.Run, error) {
	const name = "validation/runs.csv"
	runs, err := validate.ReadRuns(bytes.NewReader(raw))
	if err != nil {
		msg := err.Error()
		if m := runsLine.FindStringSubmatch(msg); m != nil {
			return nil, fmt.Errorf("%s:%s: %s", name, m[1], msg[len(m[0]):])
		}
		return nil, fmt.Errorf("%s: %s", name, strings.TrimPrefix(msg, "runs: "))
	}
	for _, r := range runs {
		if _, err := hw.Lookup(r.GPU); err != nil {
			return nil, fmt.Errorf("%s:%d: column gpu: %v", name, r.Line, err)
		}
	}
	return runs, nil
}
