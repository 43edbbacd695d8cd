package view

import (
	"flag"
	"html"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/wasm/calcapi"
)

var update = flag.Bool("update", false, "rewrite the golden HTML files in testdata")

func newCalc(t testing.TB) (*Calc, *calcapi.API) {
	t.Helper()
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	api := calcapi.New(cat)
	return NewCalc(api), api
}

// with is the default form with the given keys changed.
func with(kv ...string) calcapi.Form {
	f := calcapi.DefaultForm()
	for i := 0; i+1 < len(kv); i += 2 {
		f[kv[i]] = kv[i+1]
	}
	return f
}

// golden compares html with testdata/NAME.html (rewritten with -update).
func golden(t *testing.T, name, html string) {
	t.Helper()
	path := filepath.Join("testdata", name+".html")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(html), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./wasm/calcapi/view -update)", err)
	}
	if string(want) != html {
		t.Errorf("%s differs from %s (go test -update rewrites it; inspect the diff)", name, path)
	}
}

// TestRenderDefaultIsThePrerender holds the run-time view of the default
// form equal to the markup the generator writes into the page, so the
// takeover of the prerendered calculator changes nothing.
func TestRenderDefaultIsThePrerender(t *testing.T) {
	c, api := newCalc(t)
	m := api.MetaOf()
	form := calcapi.DefaultForm()
	out := api.EstimateOf(calcapi.EstimateInput{Form: form, Sweep: &calcapi.SweepSpec{Counts: SweepCounts(4), Strategies: SweepStrategies}})
	pre, _, err := Calculator(&m, form, &out, false, "")
	if err != nil {
		t.Fatal(err)
	}
	got := c.RenderOf(RenderInput{Form: form})
	if got.State != "ok" || got.HTML != pre {
		t.Errorf("state %q; run-time markup equals the prerender: %v", got.State, got.HTML == pre)
	}
	// The prerendered page's panel is what advise draws at run time (at
	// the same width), in the element the page puts it in.
	adv := Advice(api, &m, form, 0)
	withAdv, _, err := Calculator(&m, form, &out, false, adv)
	if err != nil {
		t.Fatal(err)
	}
	if run := c.Advise(form.Query(), 0); run != adv || !strings.Contains(withAdv, `<div class="cheaper-out" data-js="" data-part="adv" data-fail="`+AdviceFailed+`">`+run+`</div>`) {
		t.Errorf("the prerendered panel is not advise's (equal: %v)", run == adv)
	}
	if got.Post == nil || got.Post.EnergyKWh != out.Response.EnergyKWh {
		t.Errorf("post = %+v, want the estimate's %v kWh", got.Post, out.Response.EnergyKWh)
	}
	golden(t, "default", got.HTML)
}

// TestRenderStates renders the states a user meets and checks what each
// must show, and holds each one's markup as a golden file.
func TestRenderStates(t *testing.T) {
	c, _ := newCalc(t)
	w := Widths{E: 520, T: 520}

	lora := c.RenderOf(RenderInput{Form: with("method", "lora", "rank", "16", "compare", "1"), Changed: "method", Widths: w})
	for _, s := range []string{`data-card="method"`, `<span class="v">LoRA</span>`, `data-card="full"`, `rank 16 on`, `(Hu et al. 2021)`} {
		if !strings.Contains(lora.HTML, s) {
			t.Errorf("lora: no %q", s)
		}
	}
	if strings.Contains(lora.HTML, `style="height:302px"`) || !strings.Contains(lora.HTML, `viewBox="0 0 520 `) {
		t.Error("lora: the charts are not drawn at their boxes' width")
	}
	golden(t, "lora", lora.HTML)

	// A wrong GPU count after a good estimate: the figures stay, dimmed,
	// under a banner naming the field; the field says what was typed.
	bad := c.RenderOf(RenderInput{Form: with("method", "lora", "rank", "16", "compare", "1", "count", "0"), Changed: "count", Widths: w})
	if bad.State != "error" || bad.Post != nil {
		t.Errorf("bad count: state %q, post %v; want error and none", bad.State, bad.Post)
	}
	for _, s := range []string{`class="results stale"`, `role="alert"`, `data-kind="error"`, `Fix “GPUs” to update the estimate.`, `class="field invalid" data-key="count"`, `aria-invalid="true"`, `(you entered “0”)`, `<span class="v">LoRA</span>`} {
		if !strings.Contains(bad.HTML, s) {
			t.Errorf("bad count: no %q", s)
		}
	}
	golden(t, "stale", bad.HTML)

	// An error before any estimate: nothing to dim, the figures hidden.
	fresh, _ := newCalc(t)
	empty := fresh.RenderOf(RenderInput{Form: with("count", "0")})
	for _, s := range []string{`class="results stale empty"`, `<output id="energy" data-kwh="" elementtiming="estimate"></output>`, `<output id="sum-energy" data-kwh=""></output>`, `Check “GPUs”: `} {
		if !strings.Contains(empty.HTML, s) {
			t.Errorf("empty: no %q", s)
		}
	}
	golden(t, "empty", empty.HTML)

	// Clearing the model to browse the presets keeps the estimate.
	cleared := c.RenderOf(RenderInput{Form: with("model", ""), Changed: "model"})
	if cleared.State != "ok" || strings.Contains(cleared.HTML, "stale") || !strings.Contains(cleared.HTML, "Pick a model from the list, or type custom to give its shape.") {
		t.Errorf("cleared model: state %q, stale %v, hint %v", cleared.State, strings.Contains(cleared.HTML, "stale"),
			strings.Contains(cleared.HTML, "Pick a model from the list"))
	}
}

// TestRenderFollowsTheForm checks the view's rules on the form: a region
// fills its intensity, another intensity makes the region custom, and a
// custom shape starts from the preset the user had.
func TestRenderFollowsTheForm(t *testing.T) {
	c, _ := newCalc(t)
	fr := c.RenderOf(RenderInput{Form: with("region", "fr"), Changed: "region"})
	if fr.Form["carbon"] != "56" || !strings.Contains(fr.Query, "carbon=56") {
		t.Errorf("region fr: carbon %q, query %q; want 56", fr.Form["carbon"], fr.Query)
	}
	own := c.RenderOf(RenderInput{Form: with("region", "fr", "carbon", "99"), Changed: "carbon"})
	if own.Form["region"] != "custom" {
		t.Errorf("carbon 99 in France: region %q, want custom", own.Form["region"])
	}
	base := calcapi.DefaultForm()
	custom := c.RenderOf(RenderInput{Form: with("model", "custom"), Changed: "model"})
	if custom.State != "ok" || custom.Form["layers"] == "" || custom.Form["hidden"] == "" {
		t.Fatalf("custom after %s: state %q, layers %q, hidden %q", base["model"], custom.State, custom.Form["layers"], custom.Form["hidden"])
	}
	if !strings.Contains(custom.HTML, `value="`+custom.Form["layers"]+`"`) {
		t.Error("custom: the layers field does not show the preset's layers")
	}
}

// TestRenderCall checks the page's call: what the visitor did in (an
// object, as jsexport hands it over), the answer as the page reads it
// out; a malformed link is answered with the default form, never a panic;
// the address follows a change, not the opening of a link.
func TestRenderCall(t *testing.T) {
	c, _ := newCalc(t)
	form := map[string]any{}
	for k, v := range calcapi.DefaultForm() {
		form[k] = v
	}
	two := CalcFuncs(c.api)["render"]([]any{map[string]any{"form": form, "changed": "count", "value": "2", "widths": []any{500.0, 400.0}}}).(map[string]any)
	if two["state"] != "ok" || two["show"].(map[string]any)["count"] != "2" || !strings.Contains(two["html"].(string), `viewBox="0 0 500 `) || two["address"] != true {
		t.Errorf("render(count=2) = state %v, count %v, address %v", two["state"], two["show"].(map[string]any)["count"], two["address"])
	}
	// The answer's form, handed back as the page does, is the state it
	// shows: the next call changes only what it names.
	three := CalcFuncs(c.api)["render"]([]any{map[string]any{"form": two["form"], "changed": "tokens", "value": "2e6", "parts": true}}).(map[string]any)
	for k, v := range two["show"].(map[string]any) {
		want := v
		if k == "tokens" {
			want = "2e6"
		}
		if got := three["show"].(map[string]any)[k]; got != want {
			t.Errorf("the form handed back, then tokens changed: %s = %q, want %q", k, got, want)
		}
	}
	if p := two["post"].(map[string]any); p["count"] != 2 || p["energy_kwh"].(float64) <= 0 {
		t.Errorf("render(count=2) post = %v", p)
	}
	for _, q := range []string{``, `count=%zz`, `&&`, `?`} {
		out := c.Call(CalcCall{Link: q})
		if out.State != "ok" || out.Form["count"] != calcapi.DefaultForm()["count"] || out.Address {
			t.Errorf("Call(link %q) = state %q, count %q, address %v; want the default form's estimate, the address left", q, out.State, out.Form["count"], out.Address)
		}
	}
	for _, odd := range [][]any{nil, {"not an object"}, {map[string]any{"typed": []any{[]any{"count"}, "x", []any{"count", 5.0}}, "widths": []any{"a", nil}, "form": "count=%zz", "value": 3.0}}, {map[string]any{"form": 7.0}}} {
		if out := c.Call(CalcCallOf(odd)); out.State != "ok" || out.Form["count"] != calcapi.DefaultForm()["count"] {
			t.Errorf("call %v = state %q, count %q; want the default form", odd, out.State, out.Form["count"])
		}
	}
	pt := c.Call(CalcCall{Form: calcapi.DefaultForm(), Action: "load", Changed: "gpu", Values: map[string]string{"gpu": "h100-sxm", "count": "8"}})
	if pt.Form["gpu"] != "h100-sxm" || pt.Form["count"] != "8" || !pt.Address {
		t.Errorf("loading a point: gpu %q, count %q, address %v", pt.Form["gpu"], pt.Form["count"], pt.Address)
	}
}

// TestRenderOpensALink checks the page's first call on a link: the
// default form with the link's form keys over it and its other keys
// ignored, a named grid region without an intensity giving the region's
// figure, an intensity given keeping its own, an empty link the default
// form, and what the visitor typed before Go answered over the link, in
// order, with the address following it.
func TestRenderOpensALink(t *testing.T) {
	c, _ := newCalc(t)
	def := calcapi.DefaultForm()
	r := calcapi.DefaultRegions()[1]
	out := c.Call(CalcCall{Link: "?model=roberta-large&count=2&utm_source=x&region=" + r.ID})
	want := with("model", "roberta-large", "count", "2", "region", r.ID, "carbon", strconv.FormatFloat(r.CarbonGPerKWh, 'f', -1, 64))
	if out.State != "ok" || len(out.Form) != len(def) || out.Address {
		t.Fatalf("state %q, %d keys (the default form has %d), address %v", out.State, len(out.Form), len(def), out.Address)
	}
	for k, v := range want {
		if out.Form[k] != v {
			t.Errorf("form[%s] = %q, want %q", k, out.Form[k], v)
		}
	}
	if own := c.Call(CalcCall{Link: "region=" + r.ID + "&carbon=123"}); own.Form["carbon"] != "123" {
		t.Errorf("a link's own intensity became %q", own.Form["carbon"])
	}
	if empty := c.Call(CalcCall{}); empty.State != "ok" || empty.Query != c.Call(CalcCall{Form: def}).Query {
		t.Errorf("an empty link opens %q, not the default form", empty.Query)
	}
	typed := c.Call(CalcCall{Link: "count=2&model=roberta-large", Typed: [][2]string{{"count", "16"}, {"count", "32"}}})
	if typed.Form["count"] != "32" || typed.Form["model"] != "roberta-large" || !typed.Address {
		t.Errorf("typed over a link: count %q, model %q, address %v; want 32, roberta-large, true", typed.Form["count"], typed.Form["model"], typed.Address)
	}
}

// TestAdvice: the recommender's panel names the best configuration, and
// loading a point of its front (data-load, as calc.js does) gives a form
// whose estimate is that point's energy.
func TestAdvice(t *testing.T) {
	c, api := newCalc(t)
	m := api.MetaOf()
	form := calcapi.DefaultForm()
	adv := c.Advise(form.Query(), 600)
	for _, s := range []string{`<p class="cheaper-best"><strong>Least energy:</strong> `, `id="chart-pareto"`, `class="chart pareto"`, `role="group"`, `class="pt best"`, `data-loaded="Loaded `, `Searched every GPU type of the table.`} {
		if !strings.Contains(adv, s) {
			t.Errorf("advice: no %q", s)
		}
	}
	golden(t, "advice", adv)
	res := api.RecommendOf(form).Result
	best := res.Best
	i := strings.Index(adv, `class="pt best"`)
	load := adv[i:]
	load = load[strings.Index(load, `data-load="`)+len(`data-load="`):]
	load = html.UnescapeString(load[:strings.IndexByte(load, '"')])
	q, err := url.ParseQuery(load)
	if err != nil {
		t.Fatal(err)
	}
	loaded := calcapi.DefaultForm()
	for k := range q {
		loaded[k] = q.Get(k)
	}
	out := api.EstimateOf(calcapi.EstimateInput{Form: loaded})
	if out.Error != nil || math.Abs(out.Response.EnergyKWh/best.EnergyKWh-1) > 1e-9 {
		t.Errorf("the best point loaded (%s): %v, energy %v kWh; want the point's %v kWh", load, out.Error, out.Response, best.EnergyKWh)
	}
	if got := Advice(api, &m, with("deadline", "-3"), 0); !strings.Contains(got, `data-input="deadline"`) || !strings.Contains(got, `data-msg="`) {
		t.Errorf("a negative deadline: the panel does not name the input: %.200s", got)
	}
}

// TestRenderParts: with parts asked for, the answer is the markup's parts,
// each one element marked with its key and each a piece of the whole
// markup, so that morphing the changed parts gives the whole.
func TestRenderParts(t *testing.T) {
	c, _ := newCalc(t)
	whole := c.RenderOf(RenderInput{Form: with("count", "8")})
	parts := c.RenderOf(RenderInput{Form: with("count", "8"), Parts: true})
	if parts.HTML != "" || len(parts.Parts) < 4 {
		t.Fatalf("parts: html %d bytes, %d parts; want none and the parts", len(parts.HTML), len(parts.Parts))
	}
	keys := map[string]bool{}
	for _, p := range parts.Parts {
		if keys[p.Key] {
			t.Errorf("part %q twice", p.Key)
		}
		keys[p.Key] = true
		if !strings.Contains(p.HTML[:strings.IndexByte(p.HTML, '>')], `data-part="`+p.Key+`"`) || !strings.Contains(whole.HTML, p.HTML) {
			t.Errorf("part %q: not one element marked with its key, or not in the whole markup", p.Key)
		}
	}
	for _, k := range []string{"sum", "res", "fs0", "err"} {
		if !keys[k] {
			t.Errorf("no part %q", k)
		}
	}
	// The next answer carries only what changed: the GPU count's fieldset,
	// the figures and the summary, not every fieldset again.
	next := c.RenderOf(RenderInput{Form: with("count", "4"), Parts: true})
	if len(next.Parts) == 0 || len(next.Parts) >= len(parts.Parts) {
		t.Errorf("after changing the count: %d parts of %d", len(next.Parts), len(parts.Parts))
	}
	same := c.RenderOf(RenderInput{Form: with("count", "4"), Parts: true})
	if len(same.Parts) != 0 {
		t.Errorf("the same state again: %d parts, want none", len(same.Parts))
	}
}

// TestBoxes holds the boxes below the calculator and the planner as golden
// HTML: the Hugging Face box of each page, the refit box stating
// fit.wasm's size, the single-file copy's two, and the list of what the
// Hugging Face files gave. Every box starts hidden (calc.js shows it).
func TestBoxes(t *testing.T) {
	took := []model.Imported{{File: "model.hf_config", Key: "hidden_size", Value: "4096", Field: "hidden", Use: "used"},
		{File: "training.hf_args", Key: "report_to", Value: `["<none>"]`, Use: "ignored", Note: "not about the run's cost"}}
	boxes := map[string]string{
		"calculator": HFBox("the form above", false, false) + RefitBox(3_456_789, 1_049_999, false),
		"planner":    HFBox("the chosen option's estimated student stage", true, false),
		"offline":    HFBox("", false, true) + RefitBox(0, 0, true),
	}
	for name, html := range boxes {
		if n, hidden := strings.Count(html, "<section"), len(regexp.MustCompile(`<section[^>]* hidden>`).FindAllString(html, -1)); n == 0 || n != hidden {
			t.Errorf("%s: %d boxes, %d hidden", name, n, hidden)
		}
	}
	if s := boxes["calculator"]; !strings.Contains(s, `data-raw-mb="3.5" data-gzip-mb="1.0">fit.wasm: 3.5 MB, 1.0 MB compressed<`) {
		t.Errorf("the refit box does not state fit.wasm's size:\n%s", s)
	}
	if s := RefitBox(0, 0, false); strings.Contains(s, "fit-size") {
		t.Errorf("without fit.wasm the refit box states a size:\n%s", s)
	}
	if s := HFTook(took, []string{"a note"}); !strings.Contains(s, `<code>[&#34;&lt;none&gt;&#34;]</code>`) || strings.Count(s, "<tr><td>") != 2 {
		t.Errorf("HFTook does not list each key, escaped:\n%s", s)
	}
	golden(t, "boxes", "<!-- calculator -->\n"+boxes["calculator"]+"\n<!-- planner -->\n"+boxes["planner"]+"\n<!-- offline -->\n"+boxes["offline"]+
		"\n<!-- took -->\n"+HFTook(took, []string{"a note"})+"\n")
}

// TestBoxStatus holds the boxes' status lines: their kinds (how the page
// styles and announces them) and the numbers and names they speak of.
func TestBoxStatus(t *testing.T) {
	for _, c := range []struct {
		got  Status
		want Status
	}{
		{HFFilled(12, 30, nil), Status{"success", "Filled 12 fields from 30 keys."}},
		{HFFilled(10, 30, []string{"lr", "seq"}), Status{"warning", "Filled 10 fields from 30 keys. Not taken here: lr, seq."}},
		{HFReading(), Status{"info", "Reading the files…"}},
		{RefitStep(RefitFitting(126, "roofline")), Status{"info", "Fitting 126 rows (roofline model, a few seconds)…"}},
		{RefitStep(RefitFitting(40, "paper")), Status{"info", "Fitting 40 rows (log-linear law)…"}},
		{RefitStep(RefitLoading), Status{"info", "Loading the fitting module…"}},
		{RefitDone("Fitted user-law on 40 rows in 1.3 s.", false), Status{"success", "Fitted user-law on 40 rows in 1.3 s."}},
		{RefitDone("Fitted user-law on 40 rows in 1.3 s; it failed its checks (below).", true), Status{"warning", "Fitted user-law on 40 rows in 1.3 s; it failed its checks (below)."}},
		{RefitFailed("rank deficient"), Status{"error", "The fit failed: rank deficient"}},
		{RefitBroken("HTTP 404"), Status{"error", "The fitting module could not run: HTTP 404"}},
		{RefitNotJSON("unexpected end of JSON input"), Status{"error", "The CodeCarbon requests are not JSON: unexpected end of JSON input"}},
		{RefitNoCSV(), Status{"warning", "Choose a CSV file or paste one first."}},
		{RefitCancelled(), Status{"info", "Cancelled: the form is as it was."}},
	} {
		if c.got != c.want {
			t.Errorf("got %+v, want %+v", c.got, c.want)
		}
	}
	for _, c := range []struct {
		got, want string
	}{
		{RefitElapsed(RefitLoading, 2.49), "Loading the fitting module: 2 s (the form stays usable)"},
		{RefitElapsed("Fitting 3 rows (log-linear law)", 2.5), "Fitting 3 rows (log-linear law): 3 s (the form stays usable)"},
		{RefitUsed("user-law", false), "The calculator above now uses user-law (yours, kept in this browser; choose it again under Calibration any time)."},
		{RefitUsed("user-roofline-yours", true), "The calculator above now uses user-roofline-yours (yours, kept in this browser, marked as failing its checks; choose it again under Calibration any time)."},
		{RefitNotUsed("the calibration is not valid JSON"), "Could not use it: the calibration is not valid JSON"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestRenderKeepsEachAnswer: an answer's markup stays what it was when the
// next answer is written (Calc reuses its buffer), whole or in parts.
func TestRenderKeepsEachAnswer(t *testing.T) {
	c, _ := newCalc(t)
	first := c.RenderOf(RenderInput{Form: with("count", "8")})
	parts := c.RenderOf(RenderInput{Form: with("count", "2"), Parts: true})
	kept := make([]string, len(parts.Parts))
	for i, p := range parts.Parts {
		kept[i] = p.HTML
	}
	c.RenderOf(RenderInput{Form: with("count", "16")})
	fresh, _ := newCalc(t)
	if again := fresh.RenderOf(RenderInput{Form: with("count", "8")}); first.HTML != again.HTML {
		t.Errorf("the first answer's markup changed after later answers")
	}
	for i, p := range parts.Parts {
		if p.HTML != kept[i] {
			t.Errorf("part %s changed after a later answer", p.Key)
		}
	}
}

// TestFirstAnswerLeavesOutWhatThePageShows: the prerendered page's part
// hashes (Calculator's, the mount's data-parts) keep the first answer from
// sending the parts the page already shows; the parts that differ (the
// charts at the boxes' real widths), every later answer and a first answer
// without hashes or with malformed ones are sent as always.
func TestFirstAnswerLeavesOutWhatThePageShows(t *testing.T) {
	c, api := newCalc(t)
	def := calcapi.DefaultForm()
	o := api.EstimateForm(def, &calcapi.SweepSpec{Counts: SweepCounts(4), Strategies: SweepStrategies})
	_, hashes, err := Calculator(&c.meta, def, &o, false, "")
	if err != nil || !strings.Contains(hashes, "res:") || !strings.Contains(hashes, "fs0:") {
		t.Fatalf("Calculator's part hashes %q, %v", hashes, err)
	}
	all := len(c.Call(CalcCall{Parts: true}).Parts)
	if same := NewCalc(api).Call(CalcCall{Parts: true, Seen: hashes}); len(same.Parts) != 0 || same.State != "ok" {
		t.Errorf("the prerendered state's first answer sent %d parts, want none", len(same.Parts))
	}
	fresh := NewCalc(api)
	wide := fresh.Call(CalcCall{Parts: true, Seen: hashes, Widths: []float64{600, 600}})
	if len(wide.Parts) == 0 || len(wide.Parts) >= all {
		t.Errorf("at other widths the first answer sent %d of %d parts, want the charts' part alone or a few", len(wide.Parts), all)
	}
	for _, p := range wide.Parts {
		if p.Key == "fs0" || p.Key == "fs1" {
			t.Errorf("the form's part %s was sent again", p.Key)
		}
	}
	if next := fresh.Call(CalcCall{Form: wide.Form, Changed: "count", Value: ptr("8"), Parts: true, Widths: []float64{600, 600}}); len(next.Parts) == 0 {
		t.Errorf("a change after the first answer sent no parts")
	}
	if odd := NewCalc(api).Call(CalcCall{Parts: true, Seen: "res:zz,,fs0"}); len(odd.Parts) != all {
		t.Errorf("malformed hashes: %d parts sent, want all %d", len(odd.Parts), all)
	}
}

func ptr(s string) *string { return &s }
