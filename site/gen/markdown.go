package gen

import (
	"bytes"
	"fmt"
	"html/template"
	"regexp"
	"sort"
	"strings"

	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/gohugoio/hugo-goldmark-extensions/passthrough"
	"github.com/wyatt915/treeblood"
	"github.com/yuin/goldmark"
	highlighting "github.com/yuin/goldmark-highlighting/v2"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"go.abhg.dev/goldmark/frontmatter"
)

// markdown is the site's one goldmark configuration: GitHub-flavoured
// Markdown (tables, strikethrough, autolinks, task lists), footnotes, YAML
// front matter, syntax highlighting with CSS classes, heading IDs with
// anchor links, and TeX maths between $…$ (inline) and $$…$$ (display)
// rendered to MathML at build time. Raw HTML in a page is not passed
// through (goldmark's safe default): pages are Markdown only.
type markdown struct {
	md goldmark.Markdown
}

func newMarkdown() *markdown {
	md := goldmark.New(
		goldmark.WithExtensions(
			extension.GFM,
			extension.Footnote,
			&frontmatter.Extender{Formats: []frontmatter.Format{frontmatter.YAML}},
			highlighting.NewHighlighting(
				highlighting.WithFormatOptions(chromahtml.WithClasses(true)),
				highlighting.WithGuessLanguage(false),
			),
			passthrough.New(passthrough.Config{
				InlineDelimiters: []passthrough.Delimiters{{Open: "$", Close: "$"}},
				BlockDelimiters:  []passthrough.Delimiters{{Open: "$$", Close: "$$"}},
			}),
			mathExtension{},
			headingExtension{},
		),
		goldmark.WithParserOptions(parser.WithAutoHeadingID()),
	)
	return &markdown{md: md}
}

// render writes a page's body as HTML, after rewriting its links for the
// page's place in the output (rewriteLinks).
func (m *markdown) render(p *Page, pages map[string]*Page) ([]byte, error) {
	if err := rewriteLinks(p, pages); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := m.md.Renderer().Render(&buf, p.Source, p.Doc); err != nil {
		return nil, fmt.Errorf("%s: %w", p.Src, err)
	}
	return focusableScrollers(buf.Bytes()), nil
}

// rewriteLinks resolves a page's relative links. Authors link to pages by
// their source name ("methodology.md#speedup-laws") and to other files by
// their path in the output from the site root ("data/runs.csv"); both
// become relative to the page, so that the site works under any sub-path
// and from file://. A link to a page that does not exist is an error here;
// links to files and fragments are checked on the finished output
// (checkLinks).
func rewriteLinks(p *Page, pages map[string]*Page) error {
	root := rootOf(p.OutPath())
	var err error
	ast.Walk(p.Doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || err != nil {
			return ast.WalkContinue, nil
		}
		var dst *[]byte
		switch l := n.(type) {
		case *ast.Link:
			dst = &l.Destination
		case *ast.Image:
			dst = &l.Destination
		default:
			return ast.WalkContinue, nil
		}
		u := string(*dst)
		if isExternal(u) || strings.HasPrefix(u, "#") || strings.HasPrefix(u, root) && root != "" {
			return ast.WalkContinue, nil
		}
		target, frag, _ := strings.Cut(u, "#")
		if frag != "" {
			frag = "#" + frag
		}
		if strings.HasSuffix(target, ".md") {
			q, ok := pages[target]
			if !ok {
				err = fmt.Errorf("%s: broken link %q: no page pages/%s", p.Src, u, target)
				return ast.WalkStop, nil
			}
			*dst = []byte(root + q.OutPath() + frag)
			return ast.WalkContinue, nil
		}
		if strings.HasPrefix(target, "/") || strings.HasPrefix(target, "../") {
			err = fmt.Errorf("%s: link %q: write links from the site root without a leading / or ../ (they are made relative at build time)", p.Src, u)
			return ast.WalkStop, nil
		}
		*dst = []byte(root + u)
		return ast.WalkContinue, nil
	})
	return err
}

// isExternal reports whether u has a scheme (http:, https:, mailto:, …).
func isExternal(u string) bool {
	i := strings.IndexAny(u, ":/?#")
	return i > 0 && u[i] == ':'
}

// rootOf is the relative path from an output file to the site root: "" for
// index.html, "../" for planner/index.html.
func rootOf(out string) string {
	return strings.Repeat("../", strings.Count(out, "/"))
}

// TOCEntry is one h2 of a page, for its table of contents.
type TOCEntry struct {
	ID, Title string
}

// toc lists a page's h2 headings.
func toc(p *Page) []TOCEntry {
	var out []TOCEntry
	ast.Walk(p.Doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !entering || !ok || h.Level != 2 {
			return ast.WalkContinue, nil
		}
		id, _ := h.AttributeString("id")
		idb, _ := id.([]byte)
		out = append(out, TOCEntry{ID: string(idb), Title: plainText(h, p.Source)})
		return ast.WalkSkipChildren, nil
	})
	return out
}

// plainText is the text of an inline tree (maths as its TeX source).
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
			if t.SoftLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.CodeSpan:
			for ch := t.FirstChild(); ch != nil; ch = ch.NextSibling() {
				if tx, ok := ch.(*ast.Text); ok {
					b.Write(tx.Segment.Value(src))
				}
			}
			return ast.WalkSkipChildren, nil
		case *passthrough.PassthroughInline:
			b.Write(t.Segment.Value(src))
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// headingExtension renders headings with an anchor link after the text.
type headingExtension struct{}

func (headingExtension) Extend(m goldmark.Markdown) {
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(headingRenderer{}, 50)))
}

type headingRenderer struct{}

func (headingRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindHeading, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		h := n.(*ast.Heading)
		id, _ := h.AttributeString("id")
		idb, _ := id.([]byte)
		if entering {
			fmt.Fprintf(w, `<h%d id="%s">`, h.Level, util.EscapeHTML(idb))
			return ast.WalkContinue, nil
		}
		if h.Level > 1 {
			fmt.Fprintf(w, `<a class="anchor" href="#%s"><span class="visually-hidden">Link to this section</span><span aria-hidden="true">#</span></a>`, util.EscapeHTML(idb))
		}
		fmt.Fprintf(w, "</h%d>\n", h.Level)
		return ast.WalkContinue, nil
	})
}

// mathExtension renders the passthrough nodes' TeX as MathML with
// treeblood. TeX that treeblood cannot parse is an error, not a red box.
type mathExtension struct{}

func (mathExtension) Extend(m goldmark.Markdown) {
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(&mathRenderer{}, 50)))
}

type mathRenderer struct{}

func (r *mathRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(passthrough.KindPassthroughInline, r.inline)
	reg.Register(passthrough.KindPassthroughBlock, r.block)
}

func (r *mathRenderer) inline(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	p := n.(*passthrough.PassthroughInline)
	return ast.WalkSkipChildren, writeMath(w, string(p.Segment.Value(src)), p.Delimiters)
}

// block renders display maths: the extension moves $$…$$ out of its
// paragraph into a block whose one line is the TeX with its delimiters.
func (r *mathRenderer) block(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	p := n.(*passthrough.PassthroughBlock)
	var raw strings.Builder
	for i := 0; i < p.Lines().Len(); i++ {
		seg := p.Lines().At(i)
		raw.Write(seg.Value(src))
	}
	return ast.WalkSkipChildren, writeMath(w, raw.String(), p.Delimiters)
}

func writeMath(w util.BufWriter, raw string, d *passthrough.Delimiters) error {
	tex := strings.TrimSuffix(strings.TrimPrefix(raw, d.Open), d.Close)
	display := d.Open == "$$"
	mml, err := texToMathML(tex, display)
	if err != nil {
		return err
	}
	if display {
		// Focusable: a formula wider than a phone scrolls sideways.
		w.WriteString(`<div class="math-display" tabindex="0">` + mml + "</div>\n")
	} else {
		w.WriteString(mml)
	}
	return nil
}

// texToMathML converts TeX to one line of MathML with its attributes in a
// fixed order: treeblood writes attributes from a map, in random order,
// which would make two builds differ.
func texToMathML(tex string, display bool) (string, error) {
	tex = strings.TrimSpace(tex)
	if tex == "" {
		return "", fmt.Errorf("empty maths")
	}
	doc := treeblood.NewDocument(nil, false)
	doc.PrintOneLine = true
	var out string
	var err error
	if display {
		out, err = doc.DisplayStyle(tex)
	} else {
		out, err = doc.TextStyle(tex)
	}
	if err != nil {
		return "", fmt.Errorf("maths %q: %w", tex, err)
	}
	if i := strings.Index(out, "<merror"); i >= 0 {
		j := strings.Index(out[i:], "</merror>")
		bad := out[i:]
		if j > 0 {
			bad = out[i : i+j]
		}
		return "", fmt.Errorf("maths %q: treeblood cannot render part of it (%s)", tex, stripTags(bad))
	}
	out = strings.TrimSpace(out)
	out = strings.Replace(out, ` style="font-feature-settings: 'dtls' off;"`, "", 1)
	out, err = sanitizeMathML(out)
	if err != nil {
		return "", fmt.Errorf("maths %q: %w", tex, err)
	}
	// Chromium without a maths font draws nothing for an accent (\bar,
	// \hat) or a stretchy macron; as a plain over-script it shows.
	out = strings.ReplaceAll(out, `<mover accent="true">`, `<mover>`)
	out = strings.ReplaceAll(out, `<mo stretchy="true">¯</mo>`, `<mo stretchy="false">¯</mo>`)
	// Browsers ignore lspace on <mi>, so "\ln E" would read "lnE": put a
	// thin space between a function name and an argument without brackets.
	return funcArgRE.ReplaceAllString(out, `$1<mspace width="0.17em"></mspace>$2`), nil
}

// funcArgRE matches a function name as treeblood writes it (an <mi> with
// lspace) followed directly by a bare argument.
var funcArgRE = regexp.MustCompile(`(<mi lspace="[^"]*"[^>]*>[A-Za-z]+</mi>)(<(?:mi|mn|msub|msup|msubsup)[ >])`)

var (
	tagRE  = regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9]*)((?:\s+[^\s=>"]+="[^"]*")*)\s*(/?)>`)
	attrRE = regexp.MustCompile(`([^\s=>"]+)="([^"]*)"`)
	anyTag = regexp.MustCompile(`<[^>]*>`)
)

// canonicalAttrs sorts the attributes of every start tag by name, and the
// declarations inside style attributes.
func canonicalAttrs(s string) string {
	return tagRE.ReplaceAllStringFunc(s, func(tag string) string {
		m := tagRE.FindStringSubmatch(tag)
		attrs := attrRE.FindAllStringSubmatch(m[2], -1)
		if len(attrs) < 2 && !strings.Contains(m[2], "style=") {
			return tag
		}
		sort.Slice(attrs, func(i, j int) bool { return attrs[i][1] < attrs[j][1] })
		var b strings.Builder
		b.WriteString("<" + m[1])
		for _, a := range attrs {
			v := a[2]
			if a[1] == "style" {
				decls := strings.Split(strings.TrimSuffix(v, ";"), ";")
				sort.Strings(decls)
				v = strings.Join(decls, ";") + ";"
			}
			b.WriteString(" " + a[1] + `="` + v + `"`)
		}
		b.WriteString(m[3] + ">")
		return b.String()
	})
}

// MathML the maths renderer may write: treeblood copies some of its input
// verbatim (the argument of \text, of \color, of \class), so its output is
// rebuilt from these lists before it reaches a page.
var (
	// mathElements are the elements allowed; true marks the token elements,
	// which hold text only.
	mathElements = map[string]bool{
		"math": false, "semantics": false, "annotation": true, "mrow": false, "mi": true, "mn": true, "mo": true,
		"ms": true, "mtext": true, "mspace": false, "mfrac": false, "msqrt": false, "mroot": false, "mstyle": false,
		"merror": false, "mpadded": false, "mphantom": false, "menclose": false, "msub": false, "msup": false,
		"msubsup": false, "munder": false, "mover": false, "munderover": false, "mmultiscripts": false,
		"mprescripts": false, "none": false, "mtable": false, "mtr": false, "mtd": false, "mlabeledtr": false,
	}
	// mathAttrs are the attributes allowed, on any of them (style only with
	// plain declarations: see mathStyleRE).
	mathAttrs = map[string]bool{
		"xmlns": true, "class": true, "display": true, "displaystyle": true, "mathvariant": true, "lspace": true,
		"rspace": true, "stretchy": true, "symmetric": true, "largeop": true, "movablelimits": true, "accent": true,
		"accentunder": true, "fence": true, "separator": true, "form": true, "minsize": true, "maxsize": true,
		"width": true, "height": true, "depth": true, "voffset": true, "mathcolor": true, "mathbackground": true,
		"mathsize": true, "scriptlevel": true, "linethickness": true, "numalign": true, "denomalign": true,
		"bevelled": true, "notation": true, "columnalign": true, "rowalign": true, "columnspacing": true,
		"rowspacing": true, "columnlines": true, "rowlines": true, "frame": true, "framespacing": true,
		"equalrows": true, "equalcolumns": true, "columnspan": true, "rowspan": true, "encoding": true,
		"style": true, "dir": true,
	}
	mathTagRE    = regexp.MustCompile(`^<(/?)([a-z]+)((?:\s+[a-z][a-z-]*="[^"<>]*")*)\s*(/?)>`)
	mathEntityRE = regexp.MustCompile(`^&(?:#[0-9]{1,7}|#x[0-9a-fA-F]{1,6}|[a-zA-Z][a-zA-Z0-9]{1,31});`)
	mathStyleRE  = regexp.MustCompile(`^[a-zA-Z0-9 .:;%#',-]*$`)
)

// sanitizeMathML rebuilds treeblood's MathML: every tag must be an allowed
// element with allowed attributes (written in a fixed order), closing tags
// must match, and inside token elements (mtext, mi, ...) anything that
// looks like markup is text and escaped. Markup outside token elements that
// is not allowed (say an attribute smuggled in through \color) is an error.
func sanitizeMathML(s string) (string, error) {
	var b strings.Builder
	var open []string // the elements open, innermost last
	inToken := func() bool { return len(open) > 0 && mathElements[open[len(open)-1]] }
	for i := 0; i < len(s); {
		c := s[i]
		switch c {
		case '<':
			m := mathTagRE.FindStringSubmatch(s[i:])
			if m != nil && inToken() && !(m[1] == "/" && m[2] == open[len(open)-1]) {
				m = nil // markup inside text is text
			}
			if m == nil {
				if inToken() {
					b.WriteString("&lt;")
					i++
					continue
				}
				return "", fmt.Errorf("treeblood wrote markup that is not MathML: %.40q", s[i:])
			}
			closing, name, selfClosing := m[1] == "/", m[2], m[4] == "/"
			if _, ok := mathElements[name]; !ok {
				return "", fmt.Errorf("treeblood wrote a <%s> element, which is not in the allow-list", name)
			}
			if closing {
				if len(open) == 0 || open[len(open)-1] != name || m[3] != "" || selfClosing {
					return "", fmt.Errorf("treeblood wrote an unmatched </%s>", name)
				}
				open = open[:len(open)-1]
				b.WriteString(m[0])
				i += len(m[0])
				continue
			}
			for _, a := range attrRE.FindAllStringSubmatch(m[3], -1) {
				name, value := a[1], a[2]
				switch {
				case !mathAttrs[name]:
					return "", fmt.Errorf("treeblood wrote a %s attribute, which is not in the allow-list", name)
				case name == "style" && !mathStyleRE.MatchString(value):
					return "", fmt.Errorf("treeblood wrote a style attribute that is not plain declarations: %q", value)
				case name == "xmlns" && value != "http://www.w3.org/1998/Math/MathML":
					return "", fmt.Errorf("treeblood wrote a foreign namespace %q", value)
				}
			}
			b.WriteString(canonicalAttrs(m[0]))
			if !selfClosing {
				open = append(open, name)
			}
			i += len(m[0])
		case '&':
			if e := mathEntityRE.FindString(s[i:]); e != "" {
				b.WriteString(e)
				i += len(e)
				continue
			}
			b.WriteString("&amp;")
			i++
		case '>':
			b.WriteString("&gt;")
			i++
		default:
			if !inToken() && len(open) == 0 {
				return "", fmt.Errorf("treeblood wrote text outside <math>: %.40q", s[i:])
			}
			b.WriteByte(c)
			i++
		}
	}
	if len(open) > 0 {
		return "", fmt.Errorf("treeblood left <%s> open", open[len(open)-1])
	}
	return b.String(), nil
}

func stripTags(s string) string {
	return strings.TrimSpace(anyTag.ReplaceAllString(s, " "))
}

// fragmentOptions say which part of a Markdown file a fragment shows.
type fragmentOptions struct {
	// Keep reports whether an h2 section (by its heading text; "" for what
	// precedes the first h2) is shown; nil shows every section.
	Keep func(section string) bool
	// Shift moves every heading down this many levels (at most to h6), so
	// that the file's sections sit under the page's own heading.
	Shift int
}

// fragment renders a Markdown file that is not a page (the validation
// table's findings and scoring rules) into page p: its h1 is dropped, the
// sections o keeps are shown with their headings shifted, and its links
// resolve as p's own do.
func (m *markdown) fragment(name string, src []byte, p *Page, pages map[string]*Page, o fragmentOptions) (template.HTML, error) {
	doc := m.md.Parser().Parse(text.NewReader(src))
	var drop []ast.Node
	section, kept := "", 0
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			switch h.Level {
			case 1:
				drop = append(drop, n)
				continue
			case 2:
				section = plainText(h, src)
				if o.Keep == nil || o.Keep(section) {
					kept++
				}
			}
		}
		if o.Keep != nil && !o.Keep(section) {
			drop = append(drop, n)
		}
	}
	if kept == 0 {
		return "", fmt.Errorf("%s: none of its sections is shown on %s (a heading was renamed?)", name, p.Src)
	}
	for _, n := range drop {
		doc.RemoveChild(doc, n)
	}
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering {
			h.Level = min(6, h.Level+o.Shift)
		}
		return ast.WalkContinue, nil
	})
	frag := Page{Src: name, Slug: p.Slug, Source: src, Doc: doc}
	body, err := m.render(&frag, pages)
	return template.HTML(body), err
}
