package gen

import (
	"regexp"
	"strings"
	"testing"
)

func swParts(t *testing.T, sw []byte) (version, files string) {
	t.Helper()
	m := regexp.MustCompile(`var VERSION = '([0-9a-f]{16})';\nvar CACHE = 'wattscale-' \+ VERSION;\nvar FILES = (\[.*\]);`).FindSubmatch(sw)
	if m == nil {
		t.Fatalf("sw.js has no VERSION and FILES:\n%s", sw)
	}
	return string(m[1]), string(m[2])
}

// TestServiceWorker: sw.js keeps the calculator and planner pages (by
// their folder address) and their files, not the file:// copies, the
// refit or precompressed siblings; its version follows the kept files
// only.
func TestServiceWorker(t *testing.T) {
	files := map[string][]byte{
		"index.html": []byte("calc"), "planner/index.html": []byte("plan"), "methodology/index.html": []byte("m"),
		"assets/calc.js": []byte("js"), "assets/calc.wasm": []byte("wasm"), "assets/calc-embed.js": []byte("b64"),
		"assets/fit.wasm": []byte("fit"), "assets/fit-embed.js": []byte("b64"), "assets/calc.wasm.br": []byte("br"),
		"static/site.css": []byte("css"), "files/data/x.csv": []byte("csv"),
	}
	pages := []string{"index.html", "planner/index.html"}
	v1, list := swParts(t, serviceWorker(files, pages))
	if want := `["./","planner/","assets/calc.js","assets/calc.wasm","static/site.css"]`; list != want {
		t.Errorf("FILES = %s, want %s", list, want)
	}
	files["methodology/index.html"] = []byte("m2")
	files["assets/fit.wasm"] = []byte("fit2")
	if v, _ := swParts(t, serviceWorker(files, pages)); v != v1 {
		t.Errorf("version changed from %s to %s with files it does not keep", v1, v)
	}
	for _, f := range []string{"index.html", "assets/calc.wasm", "static/site.css"} {
		old := files[f]
		files[f] = append([]byte("x"), old...)
		if v, _ := swParts(t, serviceWorker(files, pages)); v == v1 {
			t.Errorf("version stayed %s when %s changed", v, f)
		}
		files[f] = old
	}
	if strings.Contains(string(serviceWorker(files, pages)), "{{") {
		t.Errorf("sw.js has an unfilled placeholder")
	}
}
