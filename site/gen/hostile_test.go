package gen

import (
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

// pageElements and pageAttrs are what the Markdown renderer may write
// outside maths (goldmark in its safe default plus our extensions);
// mathElements and mathAttrs list what it may write inside.
var (
	pageElements = map[string]bool{
		"p": true, "a": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
		"ul": true, "ol": true, "li": true, "table": true, "thead": true, "tbody": true, "tr": true, "th": true,
		"td": true, "pre": true, "code": true, "span": true, "em": true, "strong": true, "del": true, "sup": true,
		"blockquote": true, "br": true, "hr": true, "img": true, "input": true, "div": true,
	}
	pageAttrs = map[string]bool{
		"id": true, "class": true, "href": true, "src": true, "alt": true, "title": true, "style": true,
		"tabindex": true, "aria-hidden": true, "role": true, "type": true, "checked": true, "disabled": true,
		"start": true,
	}
	commentRE = regexp.MustCompile(`(?s)<!--.*?-->`)
	anyTagRE  = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9-]*)([^>]*)>`)
	// htmlAttrRE reads an attribute the way a browser would: a name, then
	// a quoted, unquoted or missing value.
	htmlAttrRE = regexp.MustCompile(`([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?`)
)

// checkAllowed reports every element and attribute of out that is not in
// the allow-lists, every URL with a scheme other than http(s) or mailto,
// and every "<" that does not start a tag a browser would read as one.
func checkAllowed(out string) []string {
	var bad []string
	out = commentRE.ReplaceAllString(out, "") // goldmark's "raw HTML omitted"
	inMath := 0
	for _, m := range anyTagRE.FindAllStringSubmatchIndex(out, -1) {
		closing, name, attrs := out[m[2]:m[3]] == "/", strings.ToLower(out[m[4]:m[5]]), out[m[6]:m[7]]
		if name == "math" {
			if closing {
				inMath--
			} else {
				inMath++
			}
		}
		_, isMath := mathElements[name]
		if !pageElements[name] && !isMath {
			bad = append(bad, "element <"+name+">")
		}
		if isMath && !pageElements[name] && inMath == 0 && name != "math" {
			bad = append(bad, "maths element <"+name+"> outside <math>")
		}
		for _, a := range htmlAttrRE.FindAllStringSubmatch(attrs, -1) {
			an := strings.ToLower(a[1])
			v := a[2] + a[3] + a[4]
			if !pageAttrs[an] && !mathAttrs[an] {
				bad = append(bad, fmt.Sprintf("attribute %s on <%s>", an, name))
			}
			if an == "href" || an == "src" {
				u := strings.ToLower(strings.TrimSpace(v))
				if i := strings.IndexAny(u, ":/?#"); i >= 0 && u[i] == ':' && !strings.HasPrefix(u, "http:") && !strings.HasPrefix(u, "https:") && !strings.HasPrefix(u, "mailto:") {
					bad = append(bad, fmt.Sprintf("%s=%q on <%s>", an, v, name))
				}
			}
		}
	}
	// Outside tags, a "<" must be escaped.
	rest := anyTagRE.ReplaceAllString(out, "")
	if i := strings.IndexByte(rest, '<'); i >= 0 {
		bad = append(bad, fmt.Sprintf("raw < in text: %.40q", rest[i:]))
	}
	return bad
}

// hostile are snippets that try to get markup through.
var hostile = []string{
	`<img/src="x"/onerror="document.title='XSS'">`,
	`<script>alert(1)</script>`,
	`<svg onload=alert(1)>`,
	`"><img src=x onerror=alert(1)>`,
	`' onmouseover='alert(1)`,
	`javascript:alert(1)`,
	`<!-- x --><a href="javascript:alert(1)">x</a>`,
	`&lt;script&gt;`,
	`</math><script>alert(1)</script>`,
	`</mtext><mi onclick="x">`,
}

// TestMathHostile renders TeX that carries raw HTML, in the places where
// treeblood copies its input: the result is text (or an error), never
// markup.
func TestMathHostile(t *testing.T) {
	for _, h := range hostile {
		for _, tex := range []string{
			`\text{` + h + `}`, `\mathrm{` + h + `}`, `\color{` + h + `}{x}`, `\class{` + h + `}{x}`,
			`x_{\text{` + h + `}}`, `\begin{array}{c}\text{` + h + `}\end{array}`, h,
		} {
			for _, display := range []bool{false, true} {
				out, err := texToMathML(tex, display)
				if err != nil {
					continue
				}
				if bad := checkAllowed(out); len(bad) > 0 {
					t.Errorf("texToMathML(%q) = %s\nhas %s", tex, out, strings.Join(bad, "; "))
				}
				if err := wellFormed(out); err != nil {
					t.Errorf("texToMathML(%q) = %s\nis not well-formed: %v", tex, out, err)
				}
			}
		}
	}
	// The example: the text shows, escaped.
	out, err := texToMathML(`\text{<img/src="x"/onerror="document.title='XSS'">}`, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := `<mtext>&lt;img/src="x"/onerror="document.title='XSS'"&gt;</mtext>`; !strings.Contains(out, want) {
		t.Errorf("got %s\nwant it to contain %s", out, want)
	}
	// Attributes smuggled in through \color are refused.
	if out, err := texToMathML(`\color{red"onclick="alert(1)}{a}`, false); err == nil {
		t.Errorf(`\color with a quote: %s, want an error`, out)
	}
}

// wellFormed checks that s parses as XML (with HTML's named entities).
func wellFormed(s string) error {
	d := xml.NewDecoder(strings.NewReader("<root>" + s + "</root>"))
	d.Entity = xml.HTMLEntity
	for {
		_, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// TestRendererHostile puts hostile text into every construct the renderer
// handles (each extension: tables, footnotes, strikethrough, autolinks,
// task lists, front matter, highlighted code, heading anchors, inline and
// display maths, links, images) and checks that the page has no element or
// attribute outside the allow-lists and no script URL.
func TestRendererHostile(t *testing.T) {
	for _, h := range hostile {
		page := "---\ntitle: \"T\"\n---\n" +
			"# " + h + "\n\n## Sec " + h + "\n\n" +
			h + "\n\n" +
			"| " + h + " | b |\n|---|---|\n| " + h + " | 2 |\n\n" +
			"Note.[^n] ~~" + h + "~~ https://example.org/" + h + "\n\n" +
			"- [ ] " + h + "\n- [x] done\n\n" +
			"[link](" + h + ") ![img](" + h + ") [ok](https://example.org \"" + h + "\")\n\n" +
			"`" + h + "`\n\n" +
			"```go\n" + h + "\n```\n\n" +
			"```" + h + "\nx\n```\n\n" +
			"> " + h + "\n\n" +
			`Inline $\text{` + h + `}$ maths.` + "\n\n" +
			`$$\text{` + h + `}$$` + "\n\n" +
			"[^n]: " + h + "\n"
		out, err := renderHostile(page)
		if err != nil {
			continue // a page the build refuses is safe
		}
		if bad := checkAllowed(out); len(bad) > 0 {
			t.Errorf("hostile %q:\n%s\nhas %s", h, out, strings.Join(bad, "; "))
		}
	}
}

// FuzzMathML feeds the maths renderer hostile TeX: whatever it accepts
// must come out as well-formed MathML with allowed elements and attributes
// only.
func FuzzMathML(f *testing.F) {
	for _, h := range hostile {
		f.Add(`\text{` + h + `}`)
		f.Add(`\color{` + h + `}{x}`)
		f.Add(`\class{` + h + `}{x}`)
	}
	f.Add(`E = \varepsilon_{\text{comp}} C + \frac{a}{b} \le \sqrt[3]{x}`)
	f.Add(`\begin{pmatrix} a & b \\ c & d \end{pmatrix}`)
	f.Add(`\mathrm{<b>x</b>} \operatorname{a} \bar E \hat{x} \overline{AB}`)
	f.Fuzz(func(t *testing.T, tex string) {
		for _, display := range []bool{false, true} {
			out, err := texToMathML(tex, display)
			if err != nil {
				continue
			}
			if bad := checkAllowed(out); len(bad) > 0 {
				t.Fatalf("texToMathML(%q) = %s\nhas %s", tex, out, strings.Join(bad, "; "))
			}
			if err := wellFormed(out); err != nil {
				t.Fatalf("texToMathML(%q) = %s\nis not well-formed: %v", tex, out, err)
			}
		}
	})
}

// renderHostile loads and renders one Markdown page, returning the error
// of a page the build refuses.
func renderHostile(src string) (string, error) {
	md := newMarkdown()
	fsys := fstest.MapFS{"pages/p.md": {Data: []byte(src)}}
	p, err := loadPage(fsys, "pages/p.md", md)
	if err != nil {
		return "", err
	}
	out, err := md.render(&p, map[string]*Page{"p.md": &p})
	return string(out), err
}
