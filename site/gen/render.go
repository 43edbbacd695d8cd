package gen

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/styles"

	"github.com/wattscale/wattscale/wasm/calcapi/view"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Computed is the compute phase's output: everything the templates show
// that is not in the pages' Markdown.
type Computed struct {
	Report     Report
	Hardware   HardwareTable
	Validation ValidationTable
	Assets     map[string][]byte // assets/…: the calculator's files and WebAssembly, under their written names
	AssetNames map[string]string // plain asset name (assets/calc.js) → the name it is written under (fingerprint)
	Prerender  *prerendered      // the calculator's default estimate as markup (wasm/calcapi/view)
	// Calibrations is the content tree's calibrations for the calculator's
	// WebAssembly (content.EncodeCalibrations), when they are not the ones
	// compiled into it; "" otherwise. The calculator, planner and embed
	// pages carry it (data-calibrations).
	Calibrations string
	// FitBytes is fit.wasm's size as built, raw and gzip -9 bytes, which
	// the refit box states (view.RefitBox); zero = no fit.wasm.
	FitBytes [2]int
	// HeadJS is site/assets/head.js without its comments (headScript):
	// what the pages with a prerendered calculator or plan carry inline in
	// their head; "" when the assets have none.
	HeadJS template.JS
	Notes  []string // what the build left out and why
}

// pageData is what a page template sees.
type pageData struct {
	Title       string
	Description string
	Root        string // relative path to the site root: "" or "../"
	Path        string // the page's output path
	Nav         []navItem
	Body        template.HTML
	TOC         []TOCEntry
	Template    string
	Calc        calcShell
	Report      *Report
	Hardware    *HardwareTable
	Validation  *ValidationTable
	Findings    template.HTML // validation/findings.md, for the validation page
	Rules       template.HTML // the scoring rules of validation/README.md, for the validation page
	Files       []fileLink
	hrefs       map[string]string // page slug → relative link, for Link
}

// pageLink is a link to another page, or its text alone when the site has
// no such page.
type pageLink struct {
	Href, Text string
}

// Link links to the page with the given slug ("" for the home page) from
// this page; its Href is empty when there is no such page.
func (d pageData) Link(slug, text string) pageLink {
	return pageLink{Href: d.hrefs[slug], Text: text}
}

// navItem is one entry of the navigation.
type navItem struct {
	Title, Href string
	Current     bool
}

// calcShell is what the calculator, planner and embed shells include: the
// mount element's mode and the calculator's files that this build has,
// under their content-hashed names. calc.js finds calc.wasm, calc-embed.js,
// fit.wasm and fit-embed.js next to itself, under the names the mount
// element's data-assets maps them to (site/assets/calc.js states the
// contract).
type calcShell struct {
	Mode    string // calculator, planner or embed
	CSS     string // the stylesheet's path (assets/calc.HASH.css); "" when the build has none
	Scripts []string
	Assets  string // JSON object: file name in assets/ → the name it is written under
	// WasmName is the page's WebAssembly (calc.wasm, planner.wasm) and
	// Wasm the name it is written under; "" = none in this build.
	WasmName, Wasm string
	Prerendered    template.HTML // the calculator with its default estimate; "" = none (the planner)
	FormKeys       []string      // URL keys of the calculator's state
	Parts          string        // the prerendered parts' hashes (view.PartHashes; the mount's data-parts)
	// Calibrations is Computed.Calibrations: JSON that calc.js hands to the
	// WebAssembly before it starts; "" = the calibrations compiled in.
	Calibrations string
	// Boxes is the boxes below the calculator or the planner that run
	// through fit.wasm (view.HFBox, view.RefitBox), hidden until calc.js
	// starts them; "" = none (the embedded calculator).
	Boxes template.HTML
	// InlineCSS is the site's and the calculator's stylesheets, which a
	// page with a prerendered calculator carries in its head instead of
	// linking them (see inlineCSS); "" = linked.
	InlineCSS template.CSS
	// HeadJS is Computed.HeadJS on a page with a prerendered calculator
	// or plan and its WebAssembly; "" otherwise.
	HeadJS template.JS
}

// fileLink is a published data file.
type fileLink struct {
	Href, Name, Size string
}

// render turns the loaded and computed site into output files: one HTML
// file per page, embed.html, the stylesheet, the logo, the published data
// files and the calculator's assets.
func render(s *Site, c *Computed, md *markdown) (map[string][]byte, error) {
	out := map[string][]byte{}
	for name, data := range c.Assets {
		out[name] = data
	}
	css, err := siteCSS()
	if err != nil {
		return nil, err
	}
	out["static/site.css"] = css
	// What a page with a prerendered calculator carries inline, stripped once.
	inline := template.CSS(stripCSSComments(string(css) + "\n" + string(c.Assets[c.AssetNames["assets/calc.css"]])))
	logo, err := fs.ReadFile(staticFS, "static/logo.svg")
	if err != nil {
		return nil, err
	}
	out["static/logo.svg"] = logo
	var files []fileLink
	for _, f := range append(append([]File{}, s.CalFiles...), s.DataFiles...) {
		name := "files/" + f.Path
		out[name] = f.Data
		files = append(files, fileLink{Href: name, Name: f.Path, Size: fmtBytes(len(f.Data))})
	}

	pages := map[string]*Page{}
	for i := range s.Pages {
		pages[path.Base(s.Pages[i].Src)] = &s.Pages[i]
	}
	tmpls := map[string]*template.Template{}
	for _, name := range append(append([]string{}, templates...), "embed") {
		if name == "planner" {
			continue // the calculator's page around the shell (below); the shell's mode differs
		}
		t, err := template.New("layout.html").Funcs(template.FuncMap{"join": strings.Join}).ParseFS(templateFS, "templates/layout.html", "templates/partials.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("template %s: %w", name, err)
		}
		tmpls[name] = t
	}
	tmpls["planner"] = tmpls["calculator"]
	nav := navOrder(s.Pages)
	for i := range s.Pages {
		p := &s.Pages[i]
		body, err := md.render(p, pages)
		if err != nil {
			return nil, err
		}
		d := pageData{Title: p.Meta.Title, Description: p.Meta.Description, Root: rootOf(p.OutPath()), Path: p.OutPath(),
			Body: template.HTML(body), Template: p.Meta.Template, hrefs: hrefs(s.Pages, rootOf(p.OutPath()))}
		for _, q := range nav {
			d.Nav = append(d.Nav, navItem{Title: q.Meta.NavTitle, Href: d.Root + q.OutPath(), Current: q == p})
		}
		if p.Meta.TOC {
			d.TOC = toc(p)
		}
		switch p.Meta.Template {
		case "calculator", "planner":
			d.Calc = shell(p.Meta.Template, c.AssetNames).with(c.Prerender).carrying(c).inlineCSS(inline, c)
		case "report":
			d.Report, d.Files = &c.Report, files
		case "hardware":
			d.Hardware = &c.Hardware
		case "validation":
			d.Validation = &c.Validation
			// The findings without their own headline table (the page
			// computes it), and the README's scoring rules alone.
			if d.Findings, err = md.fragment("validation/findings.md", s.Findings, p, pages, fragmentOptions{Shift: 1,
				Keep: func(sec string) bool { return sec != "Headline" }}); err != nil {
				return nil, err
			}
			if d.Rules, err = md.fragment("validation/README.md", s.Rules, p, pages, fragmentOptions{Shift: 1,
				Keep: func(sec string) bool { return sec == "How the table is scored" }}); err != nil {
				return nil, err
			}
		}
		var buf bytes.Buffer
		if err := tmpls[p.Meta.Template].Execute(&buf, d); err != nil {
			return nil, fmt.Errorf("%s: template %s: %w", p.Src, p.Meta.Template, err)
		}
		out[p.OutPath()] = buf.Bytes()
	}
	// embed.html: the calculator alone, for an iframe in another site.
	var buf bytes.Buffer
	d := pageData{Title: "Energy calculator", Description: "wattscale's energy calculator for transformer fine-tuning, for embedding.",
		Path: "embed.html", Template: "embed", Calc: shell("embed", c.AssetNames).with(c.Prerender).carrying(c).inlineCSS(inline, c), hrefs: hrefs(s.Pages, "")}
	for _, q := range nav {
		if q.Slug == "" {
			d.Nav = []navItem{{Title: q.Meta.NavTitle, Href: q.OutPath()}}
		}
	}
	if err := tmpls["embed"].Execute(&buf, d); err != nil {
		return nil, fmt.Errorf("embed.html: %w", err)
	}
	out["embed.html"] = buf.Bytes()
	return out, nil
}

// hrefs maps every page's slug to its link from a page at root.
func hrefs(ps []Page, root string) map[string]string {
	m := map[string]string{}
	for i := range ps {
		m[ps[i].Slug] = root + ps[i].OutPath()
	}
	return m
}

// focusableScrollers makes code blocks and tables (which scroll sideways
// inside prose) focusable, so that a keyboard user can scroll one that is
// wider than the page.
func focusableScrollers(html []byte) []byte {
	html = bytes.ReplaceAll(html, []byte("<pre"), []byte(`<pre tabindex="0"`))
	return bytes.ReplaceAll(html, []byte("<table>"), []byte(`<table tabindex="0">`))
}

// navOrder lists the pages in the navigation, by nav position then title.
func navOrder(ps []Page) []*Page {
	var out []*Page
	for i := range ps {
		if ps[i].Meta.Nav > 0 {
			out = append(out, &ps[i])
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Meta.Nav != out[j].Meta.Nav {
			return out[i].Meta.Nav < out[j].Meta.Nav
		}
		return out[i].Meta.Title < out[j].Meta.Title
	})
	return out
}

// calcScripts are the calculator's scripts, in load order.
var calcScripts = []string{"assets/wasm_exec.js", "assets/calc.js"}

// shell lists the calculator assets this build has, by the names they
// are written under.
func shell(mode string, names map[string]string) calcShell {
	s := calcShell{Mode: mode, CSS: names["assets/calc.css"]}
	s.WasmName = "calc.wasm"
	if mode == "planner" {
		s.WasmName = "planner.wasm"
	}
	s.Wasm = names["assets/"+s.WasmName]
	for _, f := range calcScripts {
		if n, ok := names[f]; ok {
			s.Scripts = append(s.Scripts, n)
		}
	}
	if len(s.Scripts) > 0 {
		b, _ := json.Marshal(assetMap(names)) // a map of strings always marshals
		s.Assets = string(b)
	}
	return s
}

// carrying sets what the page hands to the calculator from the computed
// site: the calibrations, and the boxes below it (stating fit.wasm's size).
func (s calcShell) carrying(c *Computed) calcShell {
	s.Calibrations = c.Calibrations
	switch s.Mode {
	case "calculator":
		s.Boxes = template.HTML(view.HFBox("the form above", false, false) + view.RefitBox(c.FitBytes[0], c.FitBytes[1], false))
	case "planner":
		s.Boxes = template.HTML(view.HFBox("the chosen option's estimated student stage", true, false))
	}
	return s
}

// inlineCSS puts styles, the site's stylesheet (siteCSS's output) and the
// calculator's, into the head of a page with a prerendered calculator or
// plan, instead of two links: the first paint of such a page is its
// prerendered estimate, and a linked stylesheet is a request (a round trip
// on a slow link) that holds up the page's first paint and its inline
// scripts. The two weigh about 10 KB with brotli, what the page's HTML
// had before; other pages link site.css, which a visitor's cache keeps.
func (s calcShell) inlineCSS(styles template.CSS, c *Computed) calcShell {
	if _, ok := c.Assets[s.CSS]; s.Prerendered == "" || !ok {
		return s
	}
	s.InlineCSS = styles
	if s.Wasm != "" {
		s.HeadJS = c.HeadJS
	}
	return s
}

// stripCSSComments removes a style sheet's comments (outside its quoted
// strings) and the lines they leave empty: about 5 KB of the inlined 45.
func stripCSSComments(css string) string {
	var b strings.Builder
	for i := 0; i < len(css); i++ {
		switch c := css[i]; {
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(css) && css[j] != c && css[j] != '\n' {
				if css[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j, len(css)-1)
			b.WriteString(css[i : j+1])
			i = j
		case c == '/' && i+1 < len(css) && css[i+1] == '*':
			end := strings.Index(css[i+2:], "*/")
			if end < 0 {
				return b.String()
			}
			i += end + 3
		default:
			b.WriteByte(c)
		}
	}
	lines := strings.Split(b.String(), "\n")
	out := lines[:0]
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// siteCSS is static/site.css followed by the syntax-highlighting classes
// for the light and dark colour schemes (generated from chroma's styles).
func siteCSS() ([]byte, error) {
	base, err := fs.ReadFile(staticFS, "static/site.css")
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Write(base)
	f := chromahtml.New(chromahtml.WithClasses(true))
	// Each style in its own scheme, so that a token the dark style leaves
	// out does not keep the light style's colour.
	b.WriteString("\n/* Syntax highlighting (generated from chroma's github and github-dark styles). */\n")
	b.WriteString("@media not (prefers-color-scheme: dark) {\n")
	if err := writeChromaCSS(&b, f, styles.Get("github")); err != nil {
		return nil, err
	}
	b.WriteString("}\n@media (prefers-color-scheme: dark) {\n")
	if err := writeChromaCSS(&b, f, styles.Get("github-dark")); err != nil {
		return nil, err
	}
	b.WriteString("}\n")
	return b.Bytes(), nil
}

// writeChromaCSS writes a style's classes without its background (the
// site's code blocks have their own).
func writeChromaCSS(b *bytes.Buffer, f *chromahtml.Formatter, st *chroma.Style) error {
	var tmp bytes.Buffer
	if err := f.WriteCSS(&tmp, st); err != nil {
		return err
	}
	for _, line := range strings.Split(tmp.String(), "\n") {
		if strings.Contains(line, "/* Background */") || strings.Contains(line, "/* PreWrapper */") {
			continue
		}
		b.WriteString(line + "\n")
	}
	return nil
}

func fmtBytes(n int) string {
	switch {
	case n >= 1<<20:
		return trimZeros(sig(float64(n)/(1<<20), 3)) + " MB"
	case n >= 1<<10:
		return trimZeros(sig(float64(n)/(1<<10), 3)) + " KB"
	}
	return fmt.Sprintf("%d bytes", n)
}
