package gen

import (
	"strings"
	"testing"
)

func TestCheckLinks(t *testing.T) {
	files := map[string][]byte{
		"index.html":      []byte(`<h2 id="top">x</h2><a href="a/index.html#sec">a</a> <a href="https://example.org/x">ext</a> <a href="#top">self</a> <img src="static/logo.svg">`),
		"a/index.html":    []byte(`<h2 id="sec">s</h2><a href="../index.html">home</a> <a href="../files/x.csv?download=1">data</a>`),
		"static/logo.svg": []byte(`<svg/>`),
		"files/x.csv":     []byte("a\n1\n"),
	}
	if err := checkLinks(files); err != nil {
		t.Fatalf("valid links: %v", err)
	}
	cases := []struct {
		name, page, html, want string
	}{
		{"missing file", "index.html", `<a href="nothing.html">x</a>`, "no file nothing.html"},
		{"missing fragment", "index.html", `<a href="a/index.html#nope">x</a>`, `no id "nope"`},
		{"missing self fragment", "index.html", `<a href="#nope">x</a>`, `no id "nope"`},
		{"directory", "index.html", `<a href="a/">x</a>`, "directory link"},
		{"absolute", "index.html", `<a href="/index.html">x</a>`, "absolute path"},
		{"outside", "a/index.html", `<a href="../../x.html">x</a>`, "leaves the site"},
		{"empty", "index.html", `<a href="">x</a>`, "empty"},
		{"escaped", "index.html", `<a href="a/index.html#s&amp;x">x</a>`, `no id "s&x"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := map[string][]byte{}
			for k, v := range files {
				fs[k] = v
			}
			fs[c.page] = append(append([]byte{}, fs[c.page]...), " "+c.html...)
			err := checkLinks(fs)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.page) {
				t.Errorf("checkLinks = %v, want an error naming %s and containing %q", err, c.page, c.want)
			}
		})
	}
}
