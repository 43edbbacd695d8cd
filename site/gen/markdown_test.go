package gen

import (
	"strings"
	"testing"
	"testing/fstest"
)

// renderPage loads and renders one Markdown page on its own.
func renderPage(t *testing.T, src string) string {
	t.Helper()
	md := newMarkdown()
	fsys := fstest.MapFS{"pages/p.md": {Data: []byte(src)}}
	p, err := loadPage(fsys, "pages/p.md", md)
	if err != nil {
		t.Fatal(err)
	}
	out, err := md.render(&p, map[string]*Page{"p.md": &p})
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestMarkdownFeatures(t *testing.T) {
	out := renderPage(t, "---\ntitle: T\n---\n"+`
## A heading

| a | b |
|---|--:|
| 1 | 2 |

Text with a footnote.[^1]

~~gone~~ and https://example.org

`+"```go\nfunc main() {}\n```"+`

[^1]: The note.
`)
	for _, want := range []string{
		`<h2 id="a-heading">A heading<a class="anchor" href="#a-heading">`,
		`<table tabindex="0">`, `<th style="text-align:right">b</th>`,
		`<sup id="fnref:1"><a href="#fn:1"`, `<li id="fn:1">`,
		`<del>gone</del>`, `<a href="https://example.org">`,
		`<pre tabindex="0" class="chroma"><code><span class="line"><span class="cl"><span class="kd">func</span>`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s\n%s", want, out)
		}
	}
	// Highlighting uses classes, never inline colours.
	if i := strings.Index(out, `<pre tabindex="0" class="chroma"`); i >= 0 && strings.Contains(out[i:], "color:") {
		t.Errorf("code block has inline colours: %s", out[i:])
	}
}

// TestMarkdownSafe checks that raw HTML in a page is not passed through.
func TestMarkdownSafe(t *testing.T) {
	out := renderPage(t, "---\ntitle: T\n---\n<script>alert(1)</script>\n\nA <img src=x onerror=alert(1)> and [x](javascript:alert(1)).\n")
	for _, bad := range []string{"<script", "<img", "onerror", "javascript:"} {
		if strings.Contains(out, bad) {
			t.Errorf("output passes raw HTML through (%s):\n%s", bad, out)
		}
	}
}

func TestMathML(t *testing.T) {
	cases := []struct {
		tex     string
		display bool
		want    []string
	}{
		{`E = \varepsilon_{\text{comp}} C`, false, []string{`<math class="math-textstyle" display="inline" xmlns="http://www.w3.org/1998/Math/MathML">`, `<mtext>comp</mtext>`, `<annotation encoding="application/x-tex">`}},
		{`\frac{N}{N(1-p) + p}`, true, []string{`<math class="math-displaystyle" display="block" displaystyle="true" xmlns=`, `<mfrac>`}},
		{`\bar E`, false, []string{`<mover><mi`, `<mo stretchy="false">¯</mo></mover>`}},
		{`\ln E + \ln(x)`, false, []string{`>ln</mi><mspace width="0.17em"></mspace><mi>E</mi>`, `>ln</mi><mo`}},
	}
	for _, c := range cases {
		got, err := texToMathML(c.tex, c.display)
		if err != nil {
			t.Fatalf("texToMathML(%q): %v", c.tex, err)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("texToMathML(%q) = %s, want it to contain %s", c.tex, got, w)
			}
		}
		if strings.Contains(got, "\n") {
			t.Errorf("texToMathML(%q) spans several lines", c.tex)
		}
		// The same input gives the same bytes, whatever order treeblood's
		// attribute maps come out in.
		for i := 0; i < 20; i++ {
			again, _ := texToMathML(c.tex, c.display)
			if again != got {
				t.Fatalf("texToMathML(%q) is not deterministic:\n%s\n%s", c.tex, got, again)
			}
		}
	}
	for _, bad := range []string{`\operatorname{ln} x`, ``, `\bogus{x}`} {
		if out, err := texToMathML(bad, false); err == nil {
			t.Errorf("texToMathML(%q) = %s, want an error", bad, out)
		}
	}
}

func TestCanonicalAttrs(t *testing.T) {
	cases := []struct{ in, want string }{
		{`<mo stretchy="false" form="prefix">(</mo>`, `<mo form="prefix" stretchy="false">(</mo>`},
		{`<math z="1" a="2"><mi b="1" a="2">x</mi></math>`, `<math a="2" z="1"><mi a="2" b="1">x</mi></math>`},
		{`<mspace width="1em" depth="0"/>`, `<mspace depth="0" width="1em"/>`},
		{`<mi style="b:2;a:1;">x</mi>`, `<mi style="a:1;b:2;">x</mi>`},
		{`<mi>x</mi>`, `<mi>x</mi>`},
	}
	for _, c := range cases {
		if got := canonicalAttrs(c.in); got != c.want {
			t.Errorf("canonicalAttrs(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestRootOf(t *testing.T) {
	for _, c := range []struct{ in, want string }{{"index.html", ""}, {"planner/index.html", "../"}, {"a/b/c.html", "../../"}} {
		if got := rootOf(c.in); got != c.want {
			t.Errorf("rootOf(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestFragment renders part of a Markdown file into a page: the h1 goes,
// the kept sections stay with their headings one level down, links resolve
// from the page, and a fragment that keeps nothing is an error.
func TestFragment(t *testing.T) {
	md := newMarkdown()
	page := &Page{Src: "pages/validation.md", Slug: "validation"}
	pages := map[string]*Page{"validation.md": page, "about.md": {Src: "pages/about.md", Slug: "about"}}
	src := []byte(`# Title

Intro with a [page link](about.md) and a [file](files/x.csv).

## Keep me

Kept text.

### Detail

More.

## Drop me

Dropped text.
`)
	out, err := md.fragment("f.md", src, page, pages, fragmentOptions{Shift: 1, Keep: func(s string) bool { return s != "Drop me" }})
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, want := range []string{`<h3 id="keep-me">Keep me`, `<h4 id="detail">Detail`, "Kept text.", "Intro with",
		`<a href="../about/index.html">page link</a>`, `<a href="../files/x.csv">file</a>`} {
		if !strings.Contains(got, want) {
			t.Errorf("fragment lacks %s:\n%s", want, got)
		}
	}
	for _, bad := range []string{"<h1", "Title", "Drop me", "Dropped text", "<h2"} {
		if strings.Contains(got, bad) {
			t.Errorf("fragment contains %q:\n%s", bad, got)
		}
	}
	if _, err := md.fragment("f.md", src, page, pages, fragmentOptions{Keep: func(s string) bool { return s == "Renamed" }}); err == nil || !strings.Contains(err.Error(), "f.md") {
		t.Errorf("fragment keeping no section: error %v, want one naming f.md", err)
	}
}
