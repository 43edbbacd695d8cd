package gen

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/wasm/calcapi"
	"github.com/wattscale/wattscale/wasm/calcapi/view"
)

// TestBuildRealContent builds the real content/ tree: any broken link,
// unknown front-matter key, malformed data file or TeX that does not
// render fails it. It then checks what every page must have.
func TestBuildRealContent(t *testing.T) {
	files, err := realBuild()
	if err != nil {
		t.Fatal(err)
	}
	pages := []string{"index.html", "planner/index.html", "methodology/index.html", "report/index.html", "validation/index.html",
		"hardware/index.html", "api/index.html", "embedding/index.html", "about/index.html", "embed.html"}
	h1 := regexp.MustCompile(`<h1[ >]`)
	for _, p := range pages {
		b, ok := files[p]
		if !ok {
			t.Errorf("no %s in the output", p)
			continue
		}
		s := string(b)
		if n := len(h1.FindAllString(s, -1)); n != 1 {
			t.Errorf("%s has %d <h1>, want 1", p, n)
		}
		for _, want := range []string{`<html lang="en">`, `<main id="main"`, `name="viewport"`, "</html>"} {
			if !strings.Contains(s, want) {
				t.Errorf("%s lacks %s", p, want)
			}
		}
		for _, bad := range []string{"NaN", "<merror", "$$", "ZgotmplZ", "{{", `href="/`, `src="/`} {
			if strings.Contains(s, bad) {
				t.Errorf("%s contains %q", p, bad)
			}
		}
	}
	for _, mode := range []struct{ page, mode string }{{"index.html", "calculator"}, {"planner/index.html", "planner"}, {"embed.html", "embed"}} {
		s := string(files[mode.page])
		if !regexp.MustCompile(`<div id="calc-root" class="calc-root[^"]*" data-mode="` + mode.mode + `" data-assets="\{`).MatchString(s) {
			t.Errorf("%s has no calc-root mount with data-mode %q", mode.page, mode.mode)
		}
		if !strings.Contains(s, "<noscript>") {
			t.Errorf("%s has no <noscript> message", mode.page)
		}
	}
	if strings.Contains(string(files["embed.html"]), `class="site-header"`) {
		t.Errorf("embed.html carries the site header; it must be the calculator alone")
	}
	meth := string(files["methodology/index.html"])
	if n := strings.Count(meth, "<math "); n < 40 {
		t.Errorf("methodology has %d MathML formulas, want every formula (at least 40)", n)
	}
	// Every calibration has its section in the report, every accelerator
	// and preset its row on the hardware page, every run its row (with its
	// citation) on the validation page.
	report := string(files["report/index.html"])
	site, err := load(realOptions().Content, newMarkdown())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range site.Calibrations {
		if !strings.Contains(report, `<h2 id="`+c.Name+`">`) {
			t.Errorf("report has no section for calibration %s", c.Name)
		}
		// A calibration with held-out statistics says in one plain
		// sentence what they mean for a user's estimate.
		if f := c.Fit; f != nil && f.CVR2 != 0 {
			sec := report[strings.Index(report, `<h2 id="`+c.Name+`">`):]
			if i := strings.Index(sec[1:], "<h2 "); i > 0 {
				sec = sec[:i]
			}
			want := "held-out R² " + fixed(f.CVR2, 2)
			if !strings.Contains(sec, "What this means for your estimate:") || !strings.Contains(sec, want) {
				t.Errorf("report section %s lacks the plain sentence with %q", c.Name, want)
			}
		}
	}
	hw := string(files["hardware/index.html"])
	for _, g := range model.DefaultGPUs() {
		if !strings.Contains(hw, `id="gpu-`+g.ID+`"`) {
			t.Errorf("hardware page has no row for %s", g.ID)
		}
	}
	for _, p := range model.DefaultPresets() {
		if !strings.Contains(hw, "<code>"+p.Name+"</code>") {
			t.Errorf("hardware page has no row for preset %s", p.Name)
		}
	}
	val := string(files["validation/index.html"])
	for _, r := range site.Runs {
		if !strings.Contains(val, `id="run-`+r.ID+`"`) {
			t.Errorf("validation page has no row for run %s", r.ID)
		}
		if r.Citation != "" && !strings.Contains(val, htmlEscape(r.Citation)) {
			t.Errorf("validation page lacks the citation of run %s", r.ID)
		}
	}
	if !strings.Contains(val, `data-slot="validate"`) {
		t.Errorf("validation page has no slot for the scorer's results")
	}
	// The scores fill the slot: the charts, the findings and the scoring
	// rules (TestValidationPageMatchesCommand checks the numbers).
	for _, want := range []string{`id="score-headline"`, `id="score-paired"`, `<figure class="chart" id="val-pred">`, `<figure class="chart" id="val-cdf">`,
		`id="what-it-does-badly"`, `id="how-the-table-is-scored"`, `href="../files/validation/findings.md"`, `href="../files/validation/README.md"`} {
		if !strings.Contains(val, want) {
			t.Errorf("validation page lacks %s", want)
		}
	}
	if strings.Contains(val, "Scores pending") {
		t.Errorf("validation page still says the scores are pending")
	}
	// The Zeus charts are there exactly when the trace is.
	_, statErr := os.Stat(filepath.Join(testDataDir(), "zeus-bert-power.csv"))
	hasCharts := strings.Contains(report, `id="wattscale-roofline-pred"`)
	if (statErr == nil) != hasCharts {
		t.Errorf("Zeus trace available: %v, predicted-against-measured chart present: %v", statErr == nil, hasCharts)
	}
	if statErr != nil && !strings.Contains(report, "need the Zeus trace") {
		t.Errorf("without the Zeus trace the report does not say that the charts need it")
	}
}

func htmlEscape(s string) string {
	var b bytes.Buffer
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&#34;")
		case '\'':
			b.WriteString("&#39;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestBuildDeterministic builds the real tree a second time (after
// realBuild) and requires the same bytes: no time stamps, no map order, no
// random attribute order.
func TestBuildDeterministic(t *testing.T) {
	a, err := realBuild()
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := Build(realOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) {
		t.Fatalf("first build wrote %d files, second %d", len(a), len(b))
	}
	for name, x := range a {
		if !bytes.Equal(x, b[name]) {
			t.Errorf("%s differs between two builds", name)
		}
	}
}

// TestBuildWithoutZeus builds with no data folder: the build succeeds and
// the report says the charts need the dataset.
func TestBuildWithoutZeus(t *testing.T) {
	o := realOptions()
	o.Data = os.DirFS(t.TempDir())
	files, notes, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	report := string(files["report/index.html"])
	if strings.Contains(report, `id="wattscale-roofline-pred"`) {
		t.Errorf("report has Zeus charts without the Zeus trace")
	}
	if !strings.Contains(report, "need the Zeus trace") || !strings.Contains(report, "not available to this build") {
		t.Errorf("report does not say that the Zeus charts need the dataset")
	}
	if len(notes) == 0 || !strings.Contains(strings.Join(notes, "\n"), "Zeus") {
		t.Errorf("build notes %q do not mention the missing Zeus trace", notes)
	}
}

// txtar parses a txtar-like archive ("-- name --" lines start files) into
// a MapFS, on top of base.
func txtar(base fstest.MapFS, archive string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for k, v := range base {
		fsys[k] = v
	}
	var name string
	var body strings.Builder
	flush := func() {
		if name != "" {
			fsys[name] = &fstest.MapFile{Data: []byte(body.String())}
		}
		body.Reset()
	}
	for _, line := range strings.SplitAfter(archive, "\n") {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "-- ") && strings.HasSuffix(t, " --") {
			flush()
			name = strings.TrimSuffix(strings.TrimPrefix(t, "-- "), " --")
			continue
		}
		if name != "" {
			body.WriteString(line)
		}
	}
	flush()
	return fsys
}

// minimalSite is a small valid content tree: two pages, the real
// calibrations and scaling table, one validation run.
func minimalSite(t *testing.T) fstest.MapFS {
	t.Helper()
	base := fstest.MapFS{}
	for _, dir := range []string{"calibrations", "data"} {
		entries, err := os.ReadDir(filepath.Join("..", "..", "content", dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".json") || strings.HasSuffix(e.Name(), ".csv") {
				b, err := os.ReadFile(filepath.Join("..", "..", "content", dir, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				base[dir+"/"+e.Name()] = &fstest.MapFile{Data: b}
			}
		}
	}
	return txtar(base, `
-- pages/index.md --
---
title: Home
nav: 1
template: calculator
---
See the [notes](notes.md#second-part).
-- pages/notes.md --
---
title: Notes
nav: 2
toc: true
---
## First part

Inline $E = \kappa C^{\alpha_C}$ and display:

$$\eta = \frac{S(N)}{N}$$

## Second part

Back [home](index.md), the [runs](files/validation/runs.csv) and [here](#first-part).
-- validation/runs.csv --
`+runsHeader+`
r1,finetune,full,reference,bert-base,1.1e8,,,,,,,,,,128,32,2e8,fp16,a100,4,fsdp,,1.5,gpu,no,1,,600,nvml,train,,,Some paper,A citation,
`)
}

const runsHeader = "id,phase,method,stack,model,params,layers,hidden,heads,kv_heads,ffn,glu,encdec,moe_top_k,vocab,seq_len,batch_per_gpu,tokens,precision,gpu,count,strategy,tensor,energy_kwh,energy_scope,host,pue,power_w,time_s,source_kind,stage,duplicate_of,exclude,source,citation,notes"

func TestBuildMinimalSite(t *testing.T) {
	files, _, err := Build(Options{Content: minimalSite(t)})
	if err != nil {
		t.Fatal(err)
	}
	notes := string(files["notes/index.html"])
	for _, want := range []string{
		`<a href="../index.html">home</a>`,                                                       // a page link made relative
		`<a href="../files/validation/runs.csv">runs</a>`,                                        // a file link made relative
		`<h2 id="second-part">Second part<a class="anchor" href="#second-part">`,                 // heading anchor
		`<math class="math-textstyle" display="inline"`,                                          // inline maths
		`<div class="math-display" tabindex="0"><math class="math-displaystyle" display="block"`, // display maths
		`<li><a href="#first-part">First part</a></li>`,                                          // table of contents
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes/index.html lacks %s", want)
		}
	}
	if !strings.Contains(string(files["index.html"]), `href="notes/index.html#second-part"`) {
		t.Errorf("index.html: the link to notes.md#second-part is not notes/index.html#second-part")
	}
}

// TestBuildErrors breaks a valid site in one place at a time and requires
// a build error that names the file (and line, where there is one).
func TestBuildErrors(t *testing.T) {
	cases := []struct {
		name, archive string
		want          []string
	}{
		{"broken page link", `
-- pages/notes.md --
---
title: Notes
---
A [link](missing.md).
`, []string{"pages/notes.md", `broken link "missing.md"`}},
		{"broken fragment", `
-- pages/notes.md --
---
title: Notes
---
A [link](index.md#nowhere).
`, []string{"notes/index.html", `no id "nowhere"`}},
		{"missing output file", `
-- pages/notes.md --
---
title: Notes
---
A [file](files/nothing.csv).
`, []string{"notes/index.html", "no file files/nothing.csv"}},
		{"directory link", `
-- pages/notes.md --
---
title: Notes
---
A [file](files/).
`, []string{"notes/index.html", "directory link"}},
		{"absolute link", `
-- pages/notes.md --
---
title: Notes
---
A [link](/index.html).
`, []string{"pages/notes.md", "without a leading /"}},
		{"unknown front matter key", `
-- pages/notes.md --
---
title: Notes
author: someone
---
Text.
`, []string{"pages/notes.md", `unknown key "author"`}},
		{"no title", `
-- pages/notes.md --
---
nav: 3
---
Text.
`, []string{"pages/notes.md", "title is required"}},
		{"no front matter", `
-- pages/notes.md --
# Notes
`, []string{"pages/notes.md:1", "no front matter"}},
		{"unknown template", `
-- pages/notes.md --
---
title: Notes
template: gallery
---
`, []string{"pages/notes.md", `template "gallery"`}},
		{"wrong type", `
-- pages/notes.md --
---
title: Notes
nav: first
---
`, []string{"pages/notes.md", "front matter"}},
		{"TeX treeblood cannot render", `
-- pages/notes.md --
---
title: Notes
---
Bad $\operatorname{ln} x$.
`, []string{"pages/notes.md", `maths "\\operatorname{ln} x"`}},
		{"runs.csv bad number", `
-- validation/runs.csv --
` + runsHeader + `
r1,finetune,full,reference,bert-base,1.1e8,,,,,,,,,,128,32,2e8,fp16,a100,4,fsdp,,1.5,gpu,no,1,,600,nvml,train,,,Some paper,A citation,
r2,finetune,full,reference,bert-base,1.1e8,,,,,,,,,,128,32,lots,fp16,a100,4,fsdp,,1.5,gpu,no,1,,600,nvml,train,,,Some paper,A citation,
`, []string{"validation/runs.csv:3", "column tokens", `"lots"`}},
		{"runs.csv unknown scope", `
-- validation/runs.csv --
` + runsHeader + `
r1,finetune,full,reference,bert-base,1.1e8,,,,,,,,,,128,32,2e8,fp16,a100,4,fsdp,,1.5,rack,no,1,,600,nvml,train,,,Some paper,A citation,
`, []string{"validation/runs.csv:2", "energy_scope", `"rack"`}},
		{"runs.csv unknown GPU", `
-- validation/runs.csv --
` + runsHeader + `
r1,finetune,full,reference,bert-base,1.1e8,,,,,,,,,,128,32,2e8,fp16,z9000,4,fsdp,,1.5,gpu,no,1,,600,nvml,train,,,Some paper,A citation,
`, []string{"validation/runs.csv:2", "column gpu"}},
		{"runs.csv repeated id", `
-- validation/runs.csv --
` + runsHeader + `
r1,finetune,full,reference,bert-base,1.1e8,,,,,,,,,,128,32,2e8,fp16,a100,4,fsdp,,1.5,gpu,no,1,,600,nvml,train,,,Some paper,A citation,
r1,finetune,full,reference,bert-base,1.1e8,,,,,,,,,,128,32,2e8,fp16,a100,4,fsdp,,1.5,gpu,no,1,,600,nvml,train,,,Some paper,A citation,
`, []string{"validation/runs.csv:3", `"r1" already used on line 2`}},
		{"runs.csv unknown column", `
-- validation/runs.csv --
` + runsHeader + `,colour
r1,finetune,full,reference,bert-base,1.1e8,,,,,,,,,,128,32,2e8,fp16,a100,4,fsdp,,1.5,gpu,no,1,,600,nvml,train,,,Some paper,A citation,,red
`, []string{"validation/runs.csv:1", `unknown column "colour"`}},
		{"validation page without its findings", `
-- pages/validation.md --
---
title: Validation
template: validation
---
Text.
`, []string{"validation page needs validation/findings.md"}},
		{"validation README without its scoring section", `
-- pages/validation.md --
---
title: Validation
template: validation
---
Text.
-- validation/findings.md --
# Findings

## What it does badly

Much.
-- validation/README.md --
# Runs

## Columns

None.
-- validation/runs.csv --
` + mustRead(t, "../../content/validation/runs.csv") + `
`, []string{"validation/README.md", "none of its sections"}},
		{"data csv ragged", `
-- data/extra.csv --
a,b,c
1,2,3
4,5
`, []string{"data/extra.csv:3", "wrong number of fields"}},
		{"data csv repeated header", `
-- data/extra.csv --
a,b,a
1,2,3
`, []string{"data/extra.csv:1", `column "a" appears twice`}},
		{"scaling table bad value", `
-- data/published-scaling.csv --
gpu,interconnect,workload,strategy,n,speedup,speedup_ci_low,speedup_ci_high,energy_per_token_ratio,pairs,source
rtx-2080-ti,pcie,bert-sst2,fsdp,2,fast,,,2.09,12,x
`, []string{"data/published-scaling.csv:2", "column speedup", `"fast"`}},
		{"calibration JSON syntax", `
-- calibrations/broken.json --
{"name": "broken",
 "version": "1",
 "kind": "roofline",,
}
`, []string{"calibrations/broken.json:3"}},
		{"calibration unknown field", `
-- calibrations/broken.json --
{"name": "broken", "version": "1", "kind": "roofline", "colour": "red"}
`, []string{"calibrations/broken.json", `colour: is not a known field`}},
		{"calibration named unlike its file", `
-- calibrations/other-name.json --
` + mustRead(t, "../../content/calibrations/zoubeirou2026-bert-2080ti.json") + `
`, []string{"calibrations/other-name.json:1", "does not match the file name"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fsys := txtar(minimalSite(t), c.archive)
			_, _, err := Build(Options{Content: fsys})
			if err == nil {
				t.Fatalf("build succeeded, want an error containing %q", c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func mustRead(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// BenchmarkBuild times a build of the real content tree without the
// WebAssembly compile (cached in a real build): load, compute (including the
// Zeus refits), render and link check.
func BenchmarkBuild(b *testing.B) {
	o := realOptions()
	for b.Loop() {
		if _, _, err := Build(o); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBuildInMemory builds a site entirely from in-memory trees, with the
// WebAssembly handed in already compiled (fake bytes: the build only
// renames, references and publishes them): the calculator page loads the
// content-hashed files, and a content tree whose calibrations are not the
// ones compiled into the calculator gets a note saying so.
func TestBuildInMemory(t *testing.T) {
	fsys := minimalSite(t)
	wasm := map[string][]byte{"assets/calc.wasm": []byte("\x00asm fake calculator"), "assets/wasm_exec.js": []byte("/* go */\n"),
		"assets/calc-embed.js": []byte("window.WATTSCALE_CALC_WASM_GZ_B64 = \"\";\n"), "assets/fit.wasm": bytes.Repeat([]byte("\x00asm fake refit "), 1000)}
	fitEmbed, err := embedScript("WATTSCALE_FIT_WASM_GZ_B64", wasm["assets/fit.wasm"])
	if err != nil {
		t.Fatal(err)
	}
	wasm["assets/fit-embed.js"] = fitEmbed
	o := Options{Content: fsys, Assets: fstest.MapFS{"calc.js": {Data: []byte("/* calc */\n")}}, Wasm: wasm, Notes: []string{"from before"}}
	files, notes, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	page := string(files["index.html"])
	wantWasm := hashedName("assets/calc.wasm", wasm["assets/calc.wasm"])
	if _, ok := files[wantWasm]; !ok {
		t.Errorf("no %s in the output", wantWasm)
	}
	for _, want := range []string{`src="` + hashedName("assets/wasm_exec.js", wasm["assets/wasm_exec.js"]) + `"`, strings.TrimPrefix(wantWasm, "assets/")} {
		if !strings.Contains(page, want) {
			t.Errorf("index.html lacks %s", want)
		}
	}
	// The refit panel states fit.wasm's size from the built file: raw and
	// gzip -9 bytes (the embedded copy's stream).
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(wasm["assets/fit.wasm"])
	zw.Close()
	if want := view.RefitBox(len(wasm["assets/fit.wasm"]), gz.Len(), false); !strings.Contains(page, want) {
		t.Errorf("index.html lacks the refit box for fit.wasm's %d and %d bytes: %s", len(wasm["assets/fit.wasm"]), gz.Len(), want)
	}
	joined := strings.Join(notes, "\n")
	if !strings.HasPrefix(joined, "from before") || !strings.Contains(joined, "Zeus charts left out: DATA_DIR is not set") || strings.Contains(joined, "calculator: the module's content/calibrations") {
		t.Errorf("notes with the module's own calibrations:\n%s", joined)
	}
	// Another calibration set: the note names the first file that differs.
	raw := fsys["calibrations/wattscale-roofline.json"].Data
	fsys["calibrations/wattscale-roofline.json"] = &fstest.MapFile{Data: bytes.Replace(raw, []byte(`"version": "`), []byte(`"version": "local-`), 1)}
	if _, notes, err = Build(o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "differ from this content tree's (calibrations/wattscale-roofline.json)") {
		t.Errorf("no note that the calculator's calibrations differ from the tree's:\n%s", strings.Join(notes, "\n"))
	}
}

// TestContentCalibrationsReachTheCalculator: a content tree whose default
// calibration differs from the module's (E₀'s overhead ten times longer)
// changes the calculator's estimate, both the default the build
// prerenders and what the WebAssembly computes: the pages hand it the
// tree's calibrations (data-calibrations), and the catalog the wasm builds
// from them (content.ShippedCatalog, what wasm/calc calls) gives the
// prerendered number. A tree with the module's calibrations hands over
// nothing.
func TestContentCalibrationsReachTheCalculator(t *testing.T) {
	wasm := map[string][]byte{"assets/calc.wasm": []byte("\x00asm fake calculator"), "assets/wasm_exec.js": []byte("/* go */\n")}
	assets := fstest.MapFS{"calc.js": {Data: []byte("/* calc */\n")}}
	energy := regexp.MustCompile(`<output id="energy" data-kwh="([^"]+)"`)
	shipped := regexp.MustCompile(`data-calibrations="([^"]+)"`)
	pageOf := func(fsys fstest.MapFS) (kwh float64, cals string) {
		t.Helper()
		files, _, err := Build(Options{Content: fsys, Assets: assets, Wasm: wasm})
		if err != nil {
			t.Fatal(err)
		}
		page := string(files["index.html"])
		m := energy.FindStringSubmatch(page)
		if m == nil {
			t.Fatal("index.html has no prerendered energy")
		}
		if kwh, err = strconv.ParseFloat(m[1], 64); err != nil {
			t.Fatal(err)
		}
		if m := shipped.FindStringSubmatch(page); m != nil {
			cals = html.UnescapeString(m[1])
		}
		return kwh, cals
	}

	fsys := minimalSite(t)
	base, cals := pageOf(fsys)
	if cals != "" {
		t.Errorf("a tree with the module's calibrations hands the calculator %d bytes of calibrations, want none", len(cals))
	}

	const name = "calibrations/wattscale-roofline.json"
	raw := fsys[name].Data
	changed := bytes.Replace(raw, []byte(`"overhead_s": {
      "value": 104
    }`), []byte(`"overhead_s": {
      "value": 1200
    }`), 1)
	if bytes.Equal(changed, raw) {
		t.Fatalf("%s: no overhead_s of 104 s to change", name)
	}
	fsys[name] = &fstest.MapFile{Data: changed}
	got, cals := pageOf(fsys)
	if !(got > base*1.01) {
		t.Errorf("prerendered energy %.6g kWh with overhead_s 1200 s, %.6g kWh with the module's 104 s: want it higher", got, base)
	}
	if cals == "" {
		t.Fatal("the calculator page does not hand the WebAssembly the tree's calibrations (no data-calibrations)")
	}
	cat, err := content.ShippedCatalog([]byte(cals))
	if err != nil {
		t.Fatalf("content.ShippedCatalog(data-calibrations): %v", err)
	}
	cal, err := cat.Calibration("")
	if err != nil {
		t.Fatal(err)
	}
	if cal.Roofline.OverheadS.Value != 1200 {
		t.Errorf("the shipped default calibration has overhead_s %g, want the tree's 1200", cal.Roofline.OverheadS.Value)
	}
	// What the wasm computes for the default form with the shipped catalog.
	in, _ := json.Marshal(calcapi.EstimateInput{Form: calcapi.DefaultForm()})
	var out calcapi.EstimateOutput
	if err := json.Unmarshal(calcapi.New(cat).Estimate(in), &out); err != nil || out.Response == nil {
		t.Fatalf("estimate with the shipped catalog: %v %+v", err, out.Error)
	}
	if d := math.Abs(out.Response.EnergyKWh-got) / got; d > 1e-12 {
		t.Errorf("the shipped catalog estimates %.17g kWh, the page prerendered %.17g kWh", out.Response.EnergyKWh, got)
	}
}

// TestStripCSSComments: comments go, with the lines they leave empty;
// quoted strings that look like comments stay.
func TestStripCSSComments(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"block", "/* head\n * more */\na { color: red; }\n", "a { color: red; }"},
		{"inline", "a { color: red; /* why */ }", "a { color: red;  }"},
		{"quoted", `a::after { content: "/* not a comment */"; } /* one */`, `a::after { content: "/* not a comment */"; } `},
		{"single quoted with escape", `a::after { content: '\'/*'; }`, `a::after { content: '\'/*'; }`},
		{"unclosed", "a { color: red; } /* to the end", "a { color: red; } "},
		{"empty", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := stripCSSComments(c.in); got != c.want {
				t.Errorf("stripCSSComments(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// TestPagesCarryTheirCatalog: the prerendered calculator is drawn with
// the catalog calc.wasm then uses, the module's or, for a tree with other
// calibrations, the ones the page hands it (data-calibrations); no page
// carries a form catalogue for calc.js (#calc-meta: Go draws the form,
// the script needs none).
func TestPagesCarryTheirCatalog(t *testing.T) {
	wasm := map[string][]byte{"assets/calc.wasm": []byte("\x00asm fake calculator"), "assets/wasm_exec.js": []byte("/* go */\n")}
	assets := fstest.MapFS{"calc.js": {Data: []byte("/* calc */\n")}}
	check := func(fsys fstest.MapFS, what, version string) {
		t.Helper()
		files, _, err := Build(Options{Content: fsys, Assets: assets, Wasm: wasm})
		if err != nil {
			t.Fatal(err)
		}
		for name, b := range files {
			if strings.HasSuffix(name, ".html") && strings.Contains(string(b), `id="calc-meta"`) {
				t.Errorf("%s, %s: carries #calc-meta", what, name)
			}
		}
		if !strings.Contains(string(files["index.html"]), version) {
			t.Errorf("%s: the prerendered calculator does not show calibration version %s", what, version)
		}
	}
	fsys := minimalSite(t)
	check(fsys, "the module's calibrations", "1.0.0")
	const name = "calibrations/wattscale-roofline.json"
	changed := bytes.Replace(fsys[name].Data, []byte(`"version": "1.0.0"`), []byte(`"version": "1.0.1-tree"`), 1)
	if bytes.Equal(changed, fsys[name].Data) {
		t.Fatalf("%s: no version 1.0.0 to change", name)
	}
	fsys[name] = &fstest.MapFile{Data: changed}
	check(fsys, "the tree's own calibrations", "1.0.1-tree")
}

// TestNoRepositoryPathsInPages: no page of the real site shows a path of
// the source repository (content/..., ../shared/...) in its text or
// attributes: users of the site have neither; pages link to the public
// source or to the files the site publishes (issue 30).
func TestNoRepositoryPathsInPages(t *testing.T) {
	files, err := realBuild()
	if err != nil {
		t.Fatal(err)
	}
	bad := regexp.MustCompile(`(^|[^/A-Za-z0-9._-])(content/(data|validation|examples|calibrations|pages)|\.\./shared/|shared/(data|reference))`)
	for name, b := range files {
		if !strings.HasSuffix(name, ".html") {
			continue
		}
		if loc := bad.FindIndex(b); loc != nil {
			lo, hi := max(0, loc[0]-60), min(len(b), loc[1]+40)
			t.Errorf("%s shows a repository path: …%s…", name, b[lo:hi])
		}
	}
}

// TestNoControlCharactersInPages: the Markdown pages hold no control
// character but newline. A TeX command written through a string escape
// (\t in \tfrac and \text, \b in \bigl) turns into a tab or a backspace
// and the formula renders as text.
func TestNoControlCharactersInPages(t *testing.T) {
	dir := filepath.Join("..", "..", "content", "pages")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		line := 1
		for i, c := range b {
			if c == '\n' {
				line++
				continue
			}
			if c < 0x20 || c == 0x7f {
				lo, hi := max(0, i-30), min(len(b), i+30)
				t.Errorf("%s:%d: control character %#02x in …%q…", e.Name(), line, c, b[lo:hi])
			}
		}
	}
}

// TestHeadScript: a page with a prerendered calculator or plan carries
// site/assets/head.js inline in its head, on a script element naming the
// page's WebAssembly under its written name, with the file's comments
// left out; other pages carry none, and head.js is not written as a file
// of its own.
func TestHeadScript(t *testing.T) {
	wasm := map[string][]byte{"assets/calc.wasm": []byte("\x00asm fake calculator"), "assets/planner.wasm": []byte("\x00asm fake planner"), "assets/wasm_exec.js": []byte("/* go */\n")}
	head := "/* what it does\n * and why */\n(function () {\n  // a note\n  var a = 1;\n\n  window.x = a; // kept: code before it\n})();\n"
	assets := fstest.MapFS{"calc.js": {Data: []byte("/* calc */\n")}, "calc.css": {Data: []byte(".c{}\n")}, "head.js": {Data: []byte(head)}}
	files, _, err := Build(Options{Content: minimalSite(t), Assets: assets, Wasm: wasm})
	if err != nil {
		t.Fatal(err)
	}
	const inline = "(function () {\nvar a = 1;\nwindow.x = a; // kept: code before it\n})();"
	var calcPages int
	for name, b := range files {
		s := string(b)
		if strings.HasPrefix(name, "assets/head") {
			t.Errorf("head.js written as %s", name)
		}
		if !strings.HasSuffix(name, ".html") {
			continue
		}
		m := regexp.MustCompile(`<script data-wasm="([^"]*)" data-name="([^"]*)">([^<]*)</script>`).FindStringSubmatch(s)
		if !strings.Contains(s, `id="calc-root"`) {
			if m != nil {
				t.Errorf("%s has no calculator but carries the head script", name)
			}
			continue
		}
		calcPages++
		want := "calc.wasm"
		if strings.Contains(s, `data-mode="planner"`) {
			want = "planner.wasm"
		}
		switch {
		case m == nil:
			t.Errorf("%s: no head script", name)
		case m[2] != want || !regexp.MustCompile(`^(\.\./)*assets/`+strings.TrimSuffix(want, ".wasm")+`\.[0-9a-f]{10}\.wasm$`).MatchString(m[1]) || files[strings.TrimLeft(m[1], "./")] == nil:
			t.Errorf("%s: head script for %q at %q, want %s under its written name", name, m[2], m[1], want)
		case m[3] != inline:
			t.Errorf("%s: head script\n%s\nwant\n%s", name, m[3], inline)
		}
	}
	if calcPages < 2 {
		t.Errorf("%d pages with a calculator, want the calculator and embed.html at least", calcPages)
	}
}
