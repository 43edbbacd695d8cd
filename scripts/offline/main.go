// Command offline writes the calculator as one self-contained HTML file:
// its stylesheet, wasm_exec.js, the WebAssembly (base64 of its gzip) and
// calc.js inlined, so that the file works opened from disk (file://), sent
// by e-mail or kept on a laptop with no network. It reads a site built by
// `go run ./site build`.
//
// Usage:
//
//	go run ./scripts/offline [-site public] [-o public/wattscale-offline.html]
//
// `make offline` builds the site and runs it.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"

	"github.com/wattscale/wattscale/wasm/calcapi/view"
)

func main() {
	site := flag.String("site", "public", "a site built by `go run ./site build -o DIR`")
	out := flag.String("o", "", "the HTML file to write (default DIR/wattscale-offline.html)")
	flag.Parse()
	if *out == "" {
		*out = filepath.Join(*site, "wattscale-offline.html")
	}
	page, err := build(*site)
	if err != nil {
		fmt.Fprintln(os.Stderr, "offline:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, page, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "offline:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %s (%d bytes): open it from disk, no server needed\n", *out, len(page))
}

// parts are the site's files the page inlines, in order, by their plain
// names.
var parts = []string{"assets/calc.css", "assets/wasm_exec.js", "assets/calc-embed.js", "assets/calc.js"}

var page = template.Must(template.New("offline").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>wattscale energy calculator (offline copy)</title>
<style>
body { margin: 0; background: #fff; color: #16191f; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; }
@media (prefers-color-scheme: dark) { body { background: #14171c; color: #e8eaed; } a { color: #3cc4a6; } }
header, main { max-width: 1280px; margin: 0 auto; padding: 0.8rem 1.5rem; }
header h1 { margin: 0.4rem 0 0.2rem; font-size: 1.7rem; }
header p { margin: 0; opacity: 0.85; }
</style>
<style>{{.CSS}}</style>
</head>
<body>
<header><h1>wattscale energy calculator</h1>
<p>A self-contained offline copy: the model runs in this page as WebAssembly and nothing leaves your computer. The full site has the planner, the refit, the methodology and the coefficient report.</p></header>
<main><div id="calc-root" data-mode="calculator" data-fail="The calculator could not start"><p class="calc-loading" role="status">Loading the calculator…</p>{{.Boxes}}</div></main>
<script>{{.WasmExec}}</script>
<script>{{.Embed}}</script>
<script>{{.Calc}}</script>
</body>
</html>
`))

// build reads the built site's assets and renders the single file. The
// site writes its scripts and wasm under content-hashed names
// (assets/calc.0123456789.js); assets/manifest.json maps each plain name
// to the name it was written under.
func build(site string) ([]byte, error) {
	raw, err := os.ReadFile(filepath.Join(site, "assets", "manifest.json"))
	if err != nil {
		return nil, fmt.Errorf("%w (build the site first: go run ./site build -o %s)", err, site)
	}
	var names map[string]string
	if err := json.Unmarshal(raw, &names); err != nil {
		return nil, fmt.Errorf("assets/manifest.json: %w", err)
	}
	files := map[string]string{}
	for _, p := range parts {
		name, ok := names[strings.TrimPrefix(p, "assets/")]
		if !ok {
			return nil, fmt.Errorf("assets/manifest.json lists no %s (was the site built with -nowasm?)", p)
		}
		b, err := os.ReadFile(filepath.Join(site, "assets", name))
		if err != nil {
			return nil, fmt.Errorf("%w (build the site first: go run ./site build -o %s)", err, site)
		}
		files[p] = string(b)
	}
	js := func(s string) template.JS {
		// A script element ends at the first "</script"; none of the
		// inlined files may close it early.
		return template.JS(strings.ReplaceAll(s, "</script", `<\/script`))
	}
	var b bytes.Buffer
	err = page.Execute(&b, struct {
		CSS                   template.CSS
		WasmExec, Embed, Calc template.JS
		Boxes                 template.HTML // what the site's boxes below the calculator say here
	}{template.CSS(files["assets/calc.css"]), js(files["assets/wasm_exec.js"]), js(files["assets/calc-embed.js"]), js(files["assets/calc.js"]),
		template.HTML(view.HFBox("", false, true) + view.RefitBox(0, 0, true))})
	return b.Bytes(), err
}
