package gen

import (
	"bytes"
	"encoding/json"
	"github.com/wattscale/wattscale/wasm/calcapi/view"
	"html"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/distill"
	"github.com/wattscale/wattscale/wasm/calcapi"
)

// The expected strings are what node 20 prints for the same calls of
// Number.prototype.toFixed and String, which calc.js uses for chart
// coordinates and attributes (its numbers follow site/gen/format.go, which the
// prerendered page calls directly): the prerendered page must read exactly
// as the page the script redraws.
func TestJSFormatting(t *testing.T) {
	fixed := []struct {
		x    float64
		d    int
		want string
	}{{0.25, 1, "0.3"}, {1.005, 2, "1.00"}, {254.25, 1, "254.3"}, {-0.25, 1, "-0.3"}, {12.345, 2, "12.35"}, {0.05, 1, "0.1"}, {99.95, 1, "100.0"}}
	for _, c := range fixed {
		if got := view.ToFixed(c.x, c.d); got != c.want {
			t.Errorf("view.ToFixed(%v, %d) = %q, want %q", c.x, c.d, got, c.want)
		}
	}
	nums := []struct {
		x    float64
		want string
	}{{1e-7, "1e-7"}, {1e21, "1e+21"}, {0.17416046984734132, "0.17416046984734132"}, {1.5e-6, "0.0000015"}, {123, "123"}, {0, "0"}}
	for _, c := range nums {
		if got := view.Num(c.x); got != c.want {
			t.Errorf("view.Num(%v) = %q, want %q", c.x, got, c.want)
		}
	}
}

// TestSweepCounts checks calc.js's chart counts: every count to 16, then
// four per doubling up to at least four times the chosen count.
func TestSweepCounts(t *testing.T) {
	got := view.SweepCounts(4)
	want := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 20, 24, 28, 32, 40, 48, 56, 64}
	if !slicesEqual(got, want) {
		t.Errorf("view.SweepCounts(4) = %v, want %v", got, want)
	}
	if c := view.SweepCounts(100); c[len(c)-1] != 512 {
		t.Errorf("view.SweepCounts(100) ends at %d, want 512 (the first power of two ≥ 400)", c[len(c)-1])
	}
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestPrerenderedCalculator checks the markup against the estimate the
// model makes for the calculator's default form as a request: the
// headline's energy, the cards, and
// a chart line per strategy with the configuration marked.
func TestPrerenderedCalculator(t *testing.T) {
	cat, p, _ := prerenders(t)
	fr, ferr := calcapi.DefaultForm().Request(calcapi.DefaultRegions())
	if ferr != nil {
		t.Fatal(ferr.Text)
	}
	b, _ := json.Marshal(fr)
	req, err := model.ParseRequest(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := cat.Estimate(req)
	if err != nil {
		t.Fatal(err)
	}
	for name, h := range map[string]string{"calculator": string(p.Calculator), "embed": string(p.Embed)} {
		m := regexp.MustCompile(`<output id="energy" data-kwh="([^"]+)"`).FindStringSubmatch(h)
		if m == nil {
			t.Fatalf("%s: no energy output", name)
		}
		got, err := strconv.ParseFloat(m[1], 64)
		if err != nil || got != resp.EnergyKWh {
			t.Errorf("%s: data-kwh = %s, want %v (the model's estimate of the default form)", name, m[1], resp.EnergyKWh)
		}
		v, u := view.EnergyParts(resp.EnergyKWh)
		if !strings.Contains(h, html.EscapeString(v)+` <span class="unit">`+u+`</span>`) {
			t.Errorf("%s: headline lacks %s %s", name, v, u)
		}
		if n := strings.Count(h, `<div class="card" data-card=`); n != 7 {
			t.Errorf("%s: %d cards, want 7", name, n)
		}
		charts := h
		if i := strings.Index(h, `id="chart-pareto"`); i >= 0 {
			charts = h[:i]
		}
		if n := strings.Count(charts, `<path class="line s-`); n != 8 {
			t.Errorf("%s: %d chart lines, want 8 (4 strategies in 2 charts)", name, n)
		}
		// The recommender's panel is prerendered on the calculator page
		// (view.Advice, as calc.wasm's advise draws it), not in the embed.
		if pareto := strings.Contains(h, `id="chart-pareto"`); pareto == (name == "embed") {
			t.Errorf("%s: recommender's panel present = %v; the calculator has one, the embed none", name, pareto)
		}
		if strings.Contains(h, "NaN") || strings.Contains(h, "Infinity") || strings.Contains(h, "<CTL") {
			t.Errorf("%s: markup contains NaN, Infinity or an unfilled control", name)
		}
		for _, id := range []string{`id="f-model"`, `id="f-gpu"`, `id="f-count"`, `id="chart-energy"`, `id="chart-time"`} {
			if strings.Count(h, id) != 1 {
				t.Errorf("%s: %s appears %d times, want once", name, id, strings.Count(h, id))
			}
		}
		share := strings.Contains(h, `id="snip-card"`)
		if share == (name == "embed") {
			t.Errorf("%s: share section present = %v; the embed has none, the calculator has one", name, share)
		}
	}
}

// TestPrerenderedPlanner checks the planner's markup against `go run
// ./site distill` on the planner's default plan: every option card's
// one-off and student energy and N*, the plan's total, and the parts the
// page shows (a form row per option, the three charts).
func TestPrerenderedPlanner(t *testing.T) {
	_, _, p := prerenders(t)
	h := string(p.Markup)
	plan, ferr := calcapi.DefaultPlanForm().Plan(calcapi.DefaultRegions())
	if ferr != nil {
		t.Fatal(ferr.Text)
	}
	// What "site distill" answers: the plan as JSON, read by
	// distill.ParsePlan and evaluated with the module's catalog.
	in, _ := json.Marshal(plan)
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := distill.ParsePlan(bytes.NewReader(in))
	if err != nil {
		t.Fatalf("site distill on the default plan: %v", err)
	}
	res, err := distill.Evaluate(cat, parsed)
	if err != nil {
		t.Fatalf("site distill on the default plan: %v", err)
	}
	cards := regexp.MustCompile(`<div class="option[^"]*" data-option="([^"]+)"(?: data-nstar="([^"]+)")? data-oneoff="([^"]+)" data-student="([^"]+)">`).FindAllStringSubmatch(h, -1)
	if len(cards) != len(res.Options) || len(cards) == 0 {
		t.Fatalf("%d option cards, want %d (site distill on the default plan)", len(cards), len(res.Options))
	}
	num := func(s string) float64 {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("attribute %q: %v", s, err)
		}
		return x
	}
	for i, c := range cards {
		o := res.Options[i]
		if c[1] != html.EscapeString(o.Name) {
			t.Errorf("card %d is %q, want %q", i, c[1], o.Name)
		}
		if got := num(c[3]); got != o.OneOffKWh {
			t.Errorf("%s: data-oneoff = %v, want %v", o.Name, got, o.OneOffKWh)
		}
		if got := num(c[4]); got != o.StudentKWh {
			t.Errorf("%s: data-student = %v, want %v", o.Name, got, o.StudentKWh)
		}
		switch {
		case o.NStar == nil && c[2] != "":
			t.Errorf("%s: data-nstar = %s, want none", o.Name, c[2])
		case o.NStar != nil && (c[2] == "" || num(c[2]) != *o.NStar):
			t.Errorf("%s: data-nstar = %q, want %v", o.Name, c[2], *o.NStar)
		case o.NStar != nil && !strings.Contains(h, "N* = "+sig(*o.NStar, 3)+" ("+html.EscapeString(o.Name)+")"):
			t.Errorf("%s: the curve does not mark N* = %s", o.Name, sig(*o.NStar, 3))
		}
	}
	if total := "Whole plan: " + view.EnergyText(res.PlanTotalKWh) + ", "; !strings.Contains(h, total) {
		t.Errorf("markup lacks the plan's total %q", total)
	}
	if n := strings.Count(h, `<fieldset class="row-opt" data-row=`); n != len(res.Options) {
		t.Errorf("%d option rows in the form, want %d", n, len(res.Options))
	}
	for _, id := range []string{`id="f-set"`, `id="f-n"`, `id="f-o1.preset"`, `id="plan-results"`, `id="curve"`, `id="plane"`} {
		if strings.Count(h, id) != 1 {
			t.Errorf("%s appears %d times, want once", id, strings.Count(h, id))
		}
	}
	if strings.Contains(h, "NaN") || strings.Contains(h, "Infinity") || strings.Contains(h, "<CTL") {
		t.Error("markup contains NaN, Infinity or an unfilled control")
	}
	if !slices.Contains(p.Keys, "set") || !slices.Contains(p.Keys, "o12.preset") {
		t.Errorf("URL keys %v lack set or o12.preset", p.Keys)
	}
}

// TestPrerenderedFormsFromTheFieldTable checks that the prerendered forms
// are the field tables': every row of the calculator's table (calcapi's
// Meta.Fields) and of the planner's (PlannerMeta.Fields, each option row's
// keys for each row) has its input, labelled in the table's words, a
// select offering exactly the row's options in the table's words (its
// catalogue's for the names the form offers from one), and the
// calculator's field is hidden exactly when the row's "when" does not
// hold; so a row added to a table reaches both forms with no other edit.
func TestPrerenderedFormsFromTheFieldTable(t *testing.T) {
	cat, p, pp := prerenders(t)
	api := calcapi.New(cat)
	var meta calcapi.Meta
	var pm calcapi.PlannerMeta
	if err := json.Unmarshal(api.Meta(), &meta); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(api.PlannerMeta(), &pm); err != nil {
		t.Fatal(err)
	}
	fieldRe := regexp.MustCompile(`<div class="field[^"]*" data-key="([^"]+)"([^>]*)>(.*?)<p class="err"`)
	check := func(t *testing.T, h string, f model.Field, key string, state map[string]string) {
		var m []string
		for _, x := range fieldRe.FindAllStringSubmatch(h, -1) {
			if x[1] == key {
				m = x
			}
		}
		if m == nil {
			t.Errorf("%s (%s): no field in the form", key, f.Path)
			return
		}
		if state != nil {
			hidden := strings.Contains(m[2], " hidden")
			if applies := f.When.Holds(func(k string) string { return state[k] }); hidden == applies {
				t.Errorf("%s: hidden = %v, but its row's when %+v holds = %v", key, hidden, f.When, applies)
			}
		}
		if !strings.Contains(m[3], `<label for="f-`+key+`">`+html.EscapeString(f.Label)+`</label>`) {
			t.Errorf("%s: not labelled %q: %s", key, f.Label, m[3])
		}
		opts := regexp.MustCompile(`<option value="([^"]*)"[^>]*>([^<]*)</option>`).FindAllStringSubmatch(m[3], -1)
		want := f.Options()
		if want == nil || key == "model" || key == "gpu" || strings.HasSuffix(key, "s.model") || strings.HasSuffix(key, "s.gpu") || strings.HasSuffix(key, ".preset") || strings.HasSuffix(key, ".baseline") || key == "region" || key == "cal" {
			return // a text field, or the catalogue's names
		}
		if len(opts) != len(want) {
			t.Errorf("%s: %d options, want the row's %d (%q)", key, len(opts), len(want), want)
			return
		}
		for i, v := range want {
			if opts[i][1] != html.EscapeString(v) || opts[i][2] != html.EscapeString(f.Text(v)) {
				t.Errorf("%s: option %d is %q %q, want %q %q", key, i, opts[i][1], opts[i][2], v, f.Text(v))
			}
		}
	}
	for _, f := range meta.Fields {
		if f.Key == "" || f.Key == "length" { // length: the radios
			continue
		}
		t.Run("calculator/"+f.Key, func(t *testing.T) { check(t, string(p.Calculator), f, f.Key, meta.DefaultForm) })
	}
	length := formField(meta.Fields, "length")
	if !strings.Contains(string(p.Calculator), `role="radiogroup" aria-label="`+html.EscapeString(length.Label)+`"`) {
		t.Errorf("no radio group labelled %q", length.Label)
	}
	for _, v := range length.Choices {
		if !strings.Contains(string(p.Calculator), `value="`+v+`" id="f-length-`+v+`"`) || !strings.Contains(string(p.Calculator), `<label for="f-length-`+v+`">`+html.EscapeString(length.Text(v))+`</label>`) {
			t.Errorf("length: no radio %q labelled %q", v, length.Text(v))
		}
	}
	rows, _ := strconv.Atoi(pm.Default["rows"])
	for _, f := range pm.Fields {
		if f.Key == "rows" { // the count of option rows, not an input
			continue
		}
		for i := 1; i <= rows; i++ {
			key := distill.RowKey(f.Key, i)
			t.Run("planner/"+key, func(t *testing.T) { check(t, string(pp.Markup), f, key, nil) })
			if key == f.Key {
				break
			}
		}
	}
}

func formField(fs []model.Field, key string) model.Field {
	for _, f := range fs {
		if f.Key == key {
			return f
		}
	}
	return model.Field{}
}

// prerenders are the real content's catalog and the calculator's and the
// planner's prerendered markup.
func prerenders(t *testing.T) (*model.Catalog, *prerendered, *plannerPrerendered) {
	t.Helper()
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	p, err := prerenderCalculator(cat)
	if err != nil {
		t.Fatal(err)
	}
	pp, err := prerenderPlanner(cat)
	if err != nil {
		t.Fatal(err)
	}
	return cat, p, pp
}
