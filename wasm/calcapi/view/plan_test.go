package view

import (
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/wasm/calcapi"
)

func newPlan(t testing.TB) (*Plan, *calcapi.API) {
	t.Helper()
	_, api := newCalc(t)
	return NewPlan(api), api
}

// estimatedLink is a link to one option whose student stage is
// estimated: a LoRA student on one H100, which the per-stage search
// searches.
const estimatedLink = "set=custom&n=1&rows=1&o1.name=mine&o1.regime=sft&o1.pre=0.4&o1.eval=0.3&o1.smode=estimate&o1.s.model=olmo-2-1b&o1.s.tokens=1e8&o1.s.seq=1024&o1.s.batch=8&o1.s.precision=bf16&o1.s.method=lora&o1.s.gpu=h100-sxm5&o1.s.count=1&o1.s.strategy=single"

// TestPlanDefaultIsThePrerender holds the run-time view of the default
// plan, before the page has measured its charts' box, equal to the markup
// the generator writes into the page (view.Planner), so the takeover
// changes nothing that was not measured.
func TestPlanDefaultIsThePrerender(t *testing.T) {
	p, api := newPlan(t)
	m, pm := api.MetaOf(), calcapi.PlannerMetaOf()
	out := api.DistillOf(calcapi.PlanInput{Form: pm.Default})
	pre, hashes, err := Planner(&m, &pm, pm.Default, &out)
	if err != nil {
		t.Fatal(err)
	}
	// With the prerender's part hashes, the first answer leaves out every
	// part the page shows (all of them at the prerender's widths), and
	// without them or with malformed ones it sends every part.
	all := len(NewPlan(api).RenderOf(PlanRenderInput{Parts: true}).Parts)
	if same := NewPlan(api).RenderOf(PlanRenderInput{Parts: true, Seen: hashes}); all == 0 || len(same.Parts) != 0 || same.State != "ok" {
		t.Errorf("with the prerender's hashes the first answer sent %d of %d parts, want none", len(same.Parts), all)
	}
	if odd := NewPlan(api).RenderOf(PlanRenderInput{Parts: true, Seen: "x:1,,y"}); len(odd.Parts) != all {
		t.Errorf("malformed hashes: %d of %d parts sent", len(odd.Parts), all)
	}
	got := p.RenderOf(PlanRenderInput{})
	if got.State != "ok" || got.HTML != pre {
		t.Errorf("state %q; run-time markup equals the prerender: %v", got.State, got.HTML == pre)
	}
	for _, want := range []string{`class="summary"`, `data-option="kd-1b"`, `id="curve"`, `id="plane"`, "Whole plan:"} {
		if !strings.Contains(got.HTML, want) {
			t.Errorf("default plan lacks %s", want)
		}
	}
	golden(t, "plan-default", got.HTML)
	if q, _ := url.ParseQuery(got.Query); q.Get("set") != "1b" || q.Get("o2.preset") != "kd-1b" || q.Has("o2.name") {
		t.Errorf("default plan's query %q: want set=1b and the rows' presets only", got.Query)
	}
}

// TestPlanStates renders the planner's states a user meets, checks what
// each must show and holds each one's markup as a golden file: the
// per-stage search of an estimated student (at a measured width: one
// chart each), an error on a field with the previous plan dimmed, and a
// first plan in error with nothing to dim.
func TestPlanStates(t *testing.T) {
	p, _ := newPlan(t)
	rec := p.RenderOf(PlanRenderInput{Link: estimatedLink, Widths: []float64{600}})
	if rec.State != "ok" {
		t.Fatalf("estimated student: state %q", rec.State)
	}
	for _, want := range []string{`data-stage-rec="options[0].student"`, `data-act="use" data-act-row="0"`, "Use it for option 1", "Not searched:", `viewBox="0 0 600 `} {
		if !strings.Contains(rec.HTML, want) {
			t.Errorf("estimated student lacks %s", want)
		}
	}
	if strings.Contains(rec.HTML, "data-pre=") {
		t.Errorf("at a measured width the charts are drawn once, without data-pre")
	}
	golden(t, "plan-recommend", rec.HTML)

	// "Use it" loads the searched best into the option.
	used := p.RenderOf(PlanRenderInput{Form: rec.Form, Action: "use", Row: 0, Widths: []float64{600}})
	best := regexp.MustCompile(`data-best-kwh="([^"]+)"`).FindStringSubmatch(rec.HTML)
	cur := regexp.MustCompile(`data-current-kwh="([^"]+)"`).FindStringSubmatch(used.HTML)
	if best == nil || cur == nil || best[1] != cur[1] {
		t.Errorf("after Use it the student's configuration costs %v kWh, want the search's best %v", cur, best)
	}
	if used.Form["o1.s.gpu"] == "" || !strings.Contains(used.Query, "o1.s.power=") {
		t.Errorf("after Use it: form %v, query %q: want the best's GPU and power limit", used.Form, used.Query)
	}

	stale := p.RenderOf(PlanRenderInput{Form: used.Form, Changed: "o1.s.tokens", Value: "lots", Widths: []float64{600}})
	if stale.State != "error" {
		t.Fatalf("tokens “lots”: state %q", stale.State)
	}
	for _, want := range []string{`class="results stale"`, `data-kind="error"`, "Fix “Training tokens” to update the plan", `class="field invalid" data-key="o1.s.tokens"`, "(you entered “lots”)"} {
		if !strings.Contains(stale.HTML+partsHTML(stale.Parts), want) {
			t.Errorf("a field in error: the markup lacks %s", want)
		}
	}
	golden(t, "plan-stale", stale.HTML)

	p2, _ := newPlan(t)
	empty := p2.RenderOf(PlanRenderInput{Link: "n=0"})
	if empty.State != "error" || !strings.Contains(empty.HTML, `class="results stale empty"`) || !strings.Contains(empty.HTML, "Check “") {
		t.Errorf("a link in error with no plan before: state %q; want the results hidden and the banner naming the field", empty.State)
	}
	golden(t, "plan-empty", empty.HTML)
}

func partsHTML(ps []Part) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.HTML)
	}
	return b.String()
}

// TestPlanRules walks the planner form's rules: a ready-made plan fills
// the rows, editing a number of a preset row makes it the user's own with
// the preset's numbers, an estimated student opens on the paper's setup,
// a row added gets focus and one removed moves the rows after it up, a
// region fills in its intensity, and only the changed parts come back.
func TestPlanRules(t *testing.T) {
	p, _ := newPlan(t)
	st := p.RenderOf(PlanRenderInput{Parts: true})
	if len(st.Parts) != 3 {
		t.Errorf("first answer: %d parts, want the summary, the form and the results", len(st.Parts))
	}
	step := func(in PlanRenderInput) PlanRenderOutput {
		t.Helper()
		in.Form, in.Parts = st.Form, true
		st = p.RenderOf(in)
		if st.State != "ok" && in.Action != "add" && in.Action != "remove" { // (a row added has no energies yet)
			t.Fatalf("%+v: state %q", in, st.State)
		}
		return st
	}
	if o := step(PlanRenderInput{Changed: "set", Value: "all"}); o.Form["rows"] != "7" || o.Form["o7.preset"] != "synthetic-13b" {
		t.Errorf("set=all: rows %q, o7.preset %q", o.Form["rows"], o.Form["o7.preset"])
	}
	if o := step(PlanRenderInput{Changed: "o4.teacher", Value: "5.5"}); o.Form["o4.preset"] != "" || o.Form["o4.name"] != "kd-1b (mine)" || o.Form["o4.teacher"] != "5.5" || o.Form["o4.student"] != "5.2" || o.Form["set"] != "custom" {
		t.Errorf("editing kd-1b's teacher: %v", o.Form)
	}
	if o := step(PlanRenderInput{Changed: "o1.smode", Value: "estimate"}); o.Form["o1.s.model"] != "olmo-2-1b" || o.Form["o1.s.tokens"] != "6.62e8" || o.Show["o1.s.model"] != "olmo-2-1b" {
		t.Errorf("estimating sft-1b's student: %v", o.Form)
	}
	if o := step(PlanRenderInput{Changed: "n", Value: "3"}); len(o.Parts) == 0 || len(o.Parts) > 3 || !strings.Contains(o.Query, "n=3") {
		t.Errorf("n=3: %d parts, query %q", len(o.Parts), o.Query)
	}
	if o := step(PlanRenderInput{Action: "add"}); o.Form["rows"] != "8" || o.Focus != "o8.name" || o.Form["o8.regime"] != "kd" {
		t.Errorf("add: rows %q, focus %q", o.Form["rows"], o.Focus)
	}
	if o := step(PlanRenderInput{Action: "remove", Row: 2}); o.Form["rows"] != "7" || o.Form["o2.preset"] != "sft-13b" || o.Form["o7.name"] != "option 8" || o.Form["o8.name"] != "" {
		t.Errorf("remove 2: %v", o.Form)
	}
	step(PlanRenderInput{Action: "remove", Row: 7})
	if o := step(PlanRenderInput{Changed: "region", Value: "fr"}); o.Form["carbon"] == "" || o.Form["carbon"] == "475" {
		t.Errorf("region fr: carbon %q, want France's intensity", o.Form["carbon"])
	}
	o := step(PlanRenderInput{Action: "hf", Row: 3, Values: map[string]string{"model": "olmo-2-1b", "ckpt": "1", "nonsense": "x"}})
	if o.Form["o3.smode"] != "estimate" || o.Form["o3.s.ckpt"] != "on" || len(o.Left) != 1 || o.Left[0] != "nonsense" {
		t.Errorf("Hugging Face values into option 3: smode %q, ckpt %q, left %v", o.Form["o3.smode"], o.Form["o3.s.ckpt"], o.Left)
	}
	if !strings.Contains(o.HFOptions, `<option value="3">Option 3: `) || len(o.HF) != 6 || o.HF[2]["model"] != "olmo-2-1b" {
		t.Errorf("the Hugging Face box's choices: %q, %d forms", o.HFOptions, len(o.HF))
	}
	// A link with a ready-made plan alone opens that plan, and leaves the
	// address; what was typed before Go answered goes over it, in order,
	// and the address follows.
	if l := p.RenderOf(PlanRenderInput{Link: "?set=13b&n=4"}); l.Form["o1.preset"] != "sft-13b" || l.Form["n"] != "4" || l.Form["rows"] != "3" || l.Address {
		t.Errorf("?set=13b&n=4 opens %v (address %v)", l.Form, l.Address)
	}
	if l := p.RenderOf(PlanRenderInput{Link: "?set=13b&n=4", Typed: [][2]string{{"n", "3"}, {"n", "5"}}}); l.Form["n"] != "5" || l.Form["o1.preset"] != "sft-13b" || !l.Address {
		t.Errorf("typed n=3, n=5 over ?set=13b&n=4: n %q, o1.preset %q, address %v", l.Form["n"], l.Form["o1.preset"], l.Address)
	}
	if out := p.Render([]byte(`{"form":{"rows":"x"},"changed":"n","value":"1"}`)); !json.Valid(out) {
		t.Errorf("a form with no rows: %.200s", out)
	}
}
