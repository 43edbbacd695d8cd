package calcapi

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
)

func newAPI(t testing.TB) *API {
	t.Helper()
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	return New(cat)
}

func estimate(t testing.TB, a *API, in EstimateInput) EstimateOutput {
	t.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out EstimateOutput
	if err := json.Unmarshal(a.Estimate(b), &out); err != nil {
		t.Fatalf("Estimate output is not JSON: %v", err)
	}
	return out
}

func form(over map[string]string) Form {
	f := DefaultForm()
	for k, v := range over {
		f[k] = v
	}
	return f
}

// readBack answers the JSON b as the command line and the API read it
// (parse, then do with the embedded catalog) and returns the answer as
// they write it, through JSON. The built command line itself is compared
// with the page by site/e2e (TestEstimateMatchesCLI, the planner's tests)
// and with the Worker by wasm/worker.
func readBack[Req, Res any](t *testing.T, b []byte, parse func(io.Reader) (Req, error), do func(*model.Catalog, Req) (Res, error)) Res {
	t.Helper()
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	req, err := parse(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("reading back %s: %v", b, err)
	}
	res, err := do(cat, req)
	if err != nil {
		t.Fatalf("answering %s: %v", b, err)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var out Res
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEstimateMatchesCLI requires the request each form becomes (what
// the page shows and links) to give the identical response when read
// back as the command line and the API read it.
func TestEstimateMatchesCLI(t *testing.T) {
	a := newAPI(t)
	example, err := os.ReadFile("../../content/examples/request.json")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		in   EstimateInput
	}{
		{"example request", EstimateInput{Request: example}},
		{"default form", EstimateInput{Form: DefaultForm()}},
		{"llama hybrid h100", EstimateInput{Form: form(map[string]string{"model": "llama-3-8b", "gpu": "h100", "count": "16", "strategy": "hybrid", "tensor": "4", "data_mode": "fsdp", "seq": "4096", "batch": "2", "precision": "bf16", "tokens": "1.5B", "region": "fr", "carbon": "", "pue": "1.1"})}},
		{"custom shape by epochs", EstimateInput{Form: form(map[string]string{"model": "custom", "layers": "24", "hidden": "2048", "heads": "16", "kv_heads": "4", "ffn": "5632", "vocab": "32000", "glu": "1", "length": "epochs", "dataset_tokens": "50M", "epochs": "3", "gpu": "rtx-4090", "count": "2", "strategy": "ddp"})}},
		{"paper law calibration", EstimateInput{Form: form(map[string]string{"cal": "zoubeirou2026-bert-pooled", "gpu": "rtx-2080-ti", "count": "1", "strategy": "single", "precision": "fp16"})}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := estimate(t, a, c.in)
			if got.Error != nil {
				t.Fatalf("Estimate error %+v", got.Error)
			}
			want := readBack(t, got.Request, model.ParseRequest, (*model.Catalog).Estimate)
			if !reflect.DeepEqual(*got.Response, want) {
				t.Errorf("calcapi energy %.17g kWh, CLI %.17g kWh; responses differ:\ngot  %+v\nwant %+v", got.Response.EnergyKWh, want.EnergyKWh, *got.Response, want)
			}
		})
	}
}

func TestFormErrorsNameTheInput(t *testing.T) {
	a := newAPI(t)
	cases := []struct {
		name       string
		over       map[string]string
		field      string
		input      string
		msgContain string
	}{
		{"negative tokens", map[string]string{"tokens": "-5"}, "training.tokens", "tokens", "greater than 0"},
		{"letters in tokens", map[string]string{"tokens": "12abc"}, "training.tokens", "tokens", "must be a number"},
		{"NaN spelled out", map[string]string{"batch": "NaN"}, "training.batch_per_gpu", "batch", "must be a whole number, for example 32"},
		{"empty seq", map[string]string{"seq": " "}, "training.seq_len", "seq", "is required"},
		{"unknown gpu", map[string]string{"gpu": "h900"}, "hardware.gpu", "gpu", "h"},
		{"unknown preset", map[string]string{"model": "bert-huge"}, "model.preset", "model", "close matches"},
		{"fractional count", map[string]string{"count": "2.5"}, "hardware.count", "count", "whole number"},
		{"single on 4 gpus", map[string]string{"strategy": "single"}, "strategy", "strategy", "count 1"},
		{"tensor not dividing", map[string]string{"strategy": "hybrid", "tensor": "3"}, "strategy.tensor", "tensor", "divides the GPU count"},
		{"pue out of range", map[string]string{"pue": "7"}, "site.pue", "pue", "[1, 3]"},
		{"precision unsupported", map[string]string{"gpu": "p100", "precision": "bf16"}, "training.precision", "precision", "not supported"},
		{"heads not dividing hidden", map[string]string{"model": "custom", "heads": "7"}, "model.heads", "heads", "divide hidden"},
		{"epochs letters", map[string]string{"length": "epochs", "epochs": "two"}, "training.epochs", "epochs", "must be a number"},
		{"tokens below a sequence by epochs", map[string]string{"length": "epochs", "dataset_tokens": "10", "epochs": "1"}, "training.tokens", "dataset_tokens", "at least one sequence"},
		{"unknown calibration", map[string]string{"cal": "nope"}, "calibration", "cal", "known"},
		{"too big for memory", map[string]string{"model": "llama-3-70b", "count": "1", "strategy": "single"}, "hardware.count", "count", "GB per GPU"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := estimate(t, a, EstimateInput{Form: form(c.over)})
			if got.Error == nil {
				t.Fatalf("Estimate(%v) gave no error, want one on %s", c.over, c.field)
			}
			if got.Response != nil || got.Sweep != nil {
				t.Errorf("Estimate(%v) returned a result with its error", c.over)
			}
			e := got.Error
			if e.Field != c.field || e.Input != c.input || !strings.Contains(e.Message, c.msgContain) {
				t.Errorf("Estimate(%v) error = %+v, want field %q input %q message containing %q", c.over, e, c.field, c.input, c.msgContain)
			}
			if !strings.HasPrefix(e.Text, e.Field+": ") {
				t.Errorf("error text %q does not start with the field", e.Text)
			}
		})
	}
}

func TestParseNumber(t *testing.T) {
	cases := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"2e8", 2e8, true}, {"200M", 200e6, true}, {"200m", 200e6, true}, {"2.5B", 2.5e9, true}, {"1.5G", 1.5e9, true},
		{"3T", 3e12, true}, {"64k", 64e3, true}, {"1,000,000", 1e6, true}, {"1_000", 1000, true}, {" 0.15 ", 0.15, true},
		{"-5", -5, true}, {"1e-3", 1e-3, true},
		{"", 0, false}, {"12abc", 0, false}, {"NaN", 0, false}, {"Inf", 0, false}, {"+Inf", 0, false}, {"M", 0, false},
		{"0x10", 0, false}, {"1e400", 0, false}, {"--1", 0, false}, {"1.2.3", 0, false},
	}
	for _, c := range cases {
		got, ok := ParseNumber(c.in)
		if ok != c.ok || (ok && math.Abs(got-c.want) > 1e-12*math.Abs(c.want)) {
			t.Errorf("ParseNumber(%q) = %v, %v, want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// TestSweepAgreesWithEstimate checks the chart data: one call returns every
// (strategy, count) point, and the point at the request's own layout is the
// headline estimate.
func TestSweepAgreesWithEstimate(t *testing.T) {
	a := newAPI(t)
	counts := []int{1, 2, 3, 4, 6, 8, 12, 16}
	strategies := []string{"single", "ddp", "fsdp", "tp"}
	got := estimate(t, a, EstimateInput{Form: DefaultForm(), Sweep: &SweepSpec{Counts: counts, Strategies: strategies}})
	if got.Error != nil || got.SweepError != nil {
		t.Fatalf("errors %+v %+v", got.Error, got.SweepError)
	}
	if want := 1 + 3*len(counts); len(got.Sweep) != want {
		t.Fatalf("sweep has %d points, want %d (single only at 1 GPU)", len(got.Sweep), want)
	}
	found := false
	for _, p := range got.Sweep {
		if p.Error == "" && !(p.EnergyKWh > 0 && p.TimeS > 0) {
			t.Errorf("sweep point %+v has no energy or time and no error", p)
		}
		if p.Strategy == "fsdp" && p.GPUs == 4 {
			found = true
			if p.EnergyKWh != got.Response.EnergyKWh || p.TimeS != got.Response.TimeS {
				t.Errorf("sweep fsdp×4 = %.17g kWh, %.17g s; estimate %.17g kWh, %.17g s", p.EnergyKWh, p.TimeS, got.Response.EnergyKWh, got.Response.TimeS)
			}
		}
	}
	if !found {
		t.Error("sweep lacks the request's own layout (fsdp, 4 GPUs)")
	}
	// TP on BERT-base (12 heads) cannot use 8 or 16 GPUs.
	for _, p := range got.Sweep {
		if p.Strategy == "tp" && (p.GPUs == 8 || p.GPUs == 16) && p.Error == "" {
			t.Errorf("tp on %d GPUs with 12 heads gave %v kWh, want an error", p.GPUs, p.EnergyKWh)
		}
	}
}

func TestSnippets(t *testing.T) {
	a := newAPI(t)
	got := estimate(t, a, EstimateInput{Form: form(map[string]string{"region": "fr", "carbon": ""})})
	if got.Error != nil {
		t.Fatal(got.Error)
	}
	r := got.Response
	if r.Inputs.Region != "France" || r.Inputs.CarbonGPerKWh != 56 {
		t.Fatalf("region preset gave region %q carbon %v, want France 56", r.Inputs.Region, r.Inputs.CarbonGPerKWh)
	}
	card := got.Snippets.ModelCard
	var grams float64
	for _, line := range strings.Split(card, "\n") {
		if v, ok := strings.CutPrefix(line, "  emissions: "); ok {
			var err error
			if grams, ok = ParseNumber(v); !ok {
				t.Fatalf("emissions %q is not a number: %v", v, err)
			}
		}
	}
	if want := r.CO2eKg * 1000; math.Abs(grams-want) > 0.005*want {
		t.Errorf("model card emissions %v g, want %.4g g (3 significant digits)", grams, want)
	}
	for _, want := range []string{"co2_eq_emissions:\n", `training_type: "fine-tuning: bert-base`, `geographical_location: "France (56.0 g CO2e/kWh)"`, `hardware_used: "4 x A100 SXM4 80 GB"`, "calibration " + r.Calibration.Name + " " + r.Calibration.Version} {
		if !strings.Contains(card, want) {
			t.Errorf("model card lacks %q:\n%s", want, card)
		}
	}
	if !strings.Contains(got.Snippets.Citation, sig(r.EnergyKWh)+" kWh") || !strings.Contains(got.Snippets.Citation, r.Calibration.Name) {
		t.Errorf("citation %q lacks the energy %s kWh or the calibration", got.Snippets.Citation, sig(r.EnergyKWh))
	}
	// Editing the carbon figure away from the preset drops the region name.
	got = estimate(t, a, EstimateInput{Form: form(map[string]string{"region": "fr", "carbon": "100"})})
	if got.Response.Inputs.Region != "" || got.Response.Inputs.CarbonGPerKWh != 100 {
		t.Errorf("region fr with carbon 100 gave region %q carbon %v, want no region, 100", got.Response.Inputs.Region, got.Response.Inputs.CarbonGPerKWh)
	}
}

func TestMetaListsTheCatalog(t *testing.T) {
	a := newAPI(t)
	var m Meta
	if err := json.Unmarshal(a.Meta(), &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Presets) != len(a.Catalog.Presets) || len(m.GPUs) != len(a.Catalog.Hardware.GPUs) || len(m.Calibrations) != len(a.Catalog.Calibrations) {
		t.Errorf("meta lists %d presets, %d GPUs, %d calibrations; catalog has %d, %d, %d", len(m.Presets), len(m.GPUs), len(m.Calibrations),
			len(a.Catalog.Presets), len(a.Catalog.Hardware.GPUs), len(a.Catalog.Calibrations))
	}
	defaults := 0
	for _, c := range m.Calibrations {
		if c.Default {
			defaults++
			if c.Name != a.Catalog.Default {
				t.Errorf("default calibration %q, catalog default %q", c.Name, a.Catalog.Default)
			}
		}
	}
	if defaults != 1 {
		t.Errorf("%d calibrations marked default, want 1", defaults)
	}
	for _, k := range m.FormKeys {
		if _, ok := m.DefaultForm[k]; !ok {
			t.Errorf("default form lacks key %q", k)
		}
	}
	if got := estimate(t, a, EstimateInput{Form: m.DefaultForm}); got.Error != nil {
		t.Errorf("the default form gives an error: %+v", got.Error)
	}
}

func TestActiveKeys(t *testing.T) {
	f := DefaultForm()
	has := func(keys []string, k string) bool {
		for _, x := range keys {
			if x == k {
				return true
			}
		}
		return false
	}
	if k := f.Active(); has(k, "layers") || has(k, "tensor") || has(k, "epochs") || !has(k, "tokens") {
		t.Errorf("default form's active keys %v", k)
	}
	f["model"], f["strategy"], f["length"] = "custom", "hybrid", "epochs"
	if k := f.Active(); !has(k, "layers") || !has(k, "glu") || !has(k, "tensor") || !has(k, "epochs") || has(k, "tokens") {
		t.Errorf("custom hybrid epochs form's active keys %v", k)
	}
}

// FuzzEstimateForm feeds arbitrary field text (as a shared URL could carry)
// and checks that every answer is JSON with either a finite result or an
// error placed on a known input.
func FuzzEstimateForm(f *testing.F) {
	f.Add("tokens", "2e8", "count", "4")
	f.Add("tokens", "-1", "gpu", "h900")
	f.Add("strategy", "hybrid", "tensor", "0")
	f.Add("model", "custom", "heads", "1e9")
	f.Add("length", "epochs", "epochs", "NaN")
	a := newAPI(f)
	keys := map[string]bool{"": true}
	for _, k := range FormKeys {
		keys[k] = true
	}
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		fm := DefaultForm()
		fm[k1], fm[k2] = v1, v2
		b, _ := json.Marshal(EstimateInput{Form: fm, Sweep: &SweepSpec{Counts: []int{1, 2, 4}, Strategies: []string{"ddp", "tp"}}})
		raw := a.Estimate(b)
		var out EstimateOutput
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("output %q is not JSON: %v", raw, err)
		}
		switch {
		case out.Error != nil:
			if !keys[out.Error.Input] || out.Error.Message == "" {
				t.Fatalf("error %+v: input not a form key or empty message", out.Error)
			}
			if strings.Contains(out.Error.Message, "internal error") {
				t.Fatalf("panic: %s", out.Error.Message)
			}
		case out.Response == nil:
			t.Fatal("neither response nor error")
		default:
			if r := out.Response; !(r.EnergyKWh > 0) || math.IsInf(r.EnergyKWh, 0) || !(r.TimeS > 0) {
				t.Fatalf("response energy %v time %v", r.EnergyKWh, r.TimeS)
			}
		}
	})
}

// TestEveryTableFieldInFormAndURL checks that each row of the field table
// with a form key is a form input, reaches the request at its path, and
// survives the URL round trip (Form → query of the active keys → Form),
// so that a field added to model.RequestFields needs nothing else here.
func TestEveryTableFieldInFormAndURL(t *testing.T) {
	a := newAPI(t)
	var meta Meta
	if err := json.Unmarshal(a.Meta(), &meta); err != nil {
		t.Fatal(err)
	}
	shipped := map[string]bool{}
	for _, f := range meta.Fields {
		shipped[f.Key] = true
	}
	// A valid value other than the opening one, per kind, and the form
	// state that makes the field apply.
	for _, fd := range model.RequestFields {
		if fd.Key == "" {
			continue
		}
		t.Run(fd.Key, func(t *testing.T) {
			if !shipped[fd.Key] {
				t.Errorf("the page's field list lacks %q", fd.Key)
			}
			f := DefaultForm()
			if _, ok := f[fd.Key]; !ok {
				t.Fatalf("DefaultForm lacks %q", fd.Key)
			}
			if w := fd.When; w != nil {
				if len(w.In) > 0 {
					f[w.Key] = w.In[0]
				} else if w.Not {
					f[w.Key] = ""
				} else {
					f[w.Key] = w.Value
				}
			}
			if f["model"] == "custom" {
				f["layers"], f["hidden"], f["heads"], f["ffn"], f["vocab"] = "12", "768", "12", "3072", "30522"
			}
			value := ""
			switch fd.Kind {
			case model.KindNumber, model.KindInt:
				var x float64
				switch {
				case fd.Bounds == nil && fd.Path == "hardware.power_limit_w":
					g, err := a.Catalog.Hardware.Lookup(f["gpu"])
					if err != nil {
						t.Fatal(err)
					}
					pr := model.PowerLimits(g)
					x = math.Round((pr.MinW + pr.DefaultW) / 2)
				case fd.Path == "training.lora.rank":
					x = 16
				case fd.Bounds == nil:
					t.Fatalf("no test value for %q, a number without bounds", fd.Key)
				case fd.Max < 10:
					x = fd.Max
				default:
					x = fd.Min + 1
				}
				if fd.Key == "tokens" || fd.Key == "dataset_tokens" {
					x = 3e8
				}
				if fd.Key == "tensor" {
					x = 4
				}
				value = strconv.FormatFloat(x, 'g', -1, 64)
			case model.KindBool:
				value = "1"
			case model.KindEnum:
				for _, c := range fd.Choices {
					if c != "" && c != f[fd.Key] {
						value = c
						break
					}
				}
			default:
				value = map[string]string{"model": "gpt2", "gpu": "h100", "region": "fr", "cal": "zoubeirou2026-bert-pooled", "targets": "attention"}[fd.Key]
			}
			if value == "" {
				t.Fatalf("no test value for %q", fd.Key)
			}
			f[fd.Key] = value
			if fd.Key == "region" {
				f["carbon"] = "" // the region's own figure then applies (Region.Apply)
			}
			if !slices.Contains(f.Active(), fd.Key) {
				t.Fatalf("%q is not active in %v", fd.Key, f)
			}
			q := url.Values{}
			for _, k := range f.Active() {
				q.Set(k, f[k])
			}
			back := DefaultForm()
			parsed, err := url.ParseQuery(q.Encode())
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range parsed {
				back[k] = v[0]
			}
			if back[fd.Key] != value {
				t.Errorf("URL round trip: %s=%q came back as %q", fd.Key, value, back[fd.Key])
			}
			r1, e1 := f.Request(a.Regions)
			r2, e2 := back.Request(a.Regions)
			if e1 != nil || e2 != nil {
				t.Fatalf("form errors %+v / %+v", e1, e2)
			}
			if !reflect.DeepEqual(r1, r2) {
				t.Errorf("the request changed through the URL:\n%+v\n%+v", r1, r2)
			}
			if fd.Path != "" && !strings.Contains(string(mustJSON(r1)), `"`+fd.Path[strings.LastIndex(fd.Path, ".")+1:]+`"`) {
				t.Errorf("request %s lacks %s", mustJSON(r1), fd.Path)
			}
		})
	}
}

// TestStateBytesThroughTheForm follows training.state_bytes_per_param, the
// field the form once lacked, from the form's text to the estimate.
func TestStateBytesThroughTheForm(t *testing.T) {
	a := newAPI(t)
	lean := estimate(t, a, EstimateInput{Form: form(map[string]string{"state_bytes": "8"})})
	def := estimate(t, a, EstimateInput{Form: form(nil)})
	if lean.Error != nil || def.Error != nil {
		t.Fatalf("errors %+v %+v", lean.Error, def.Error)
	}
	if !strings.Contains(string(lean.Request), `"state_bytes_per_param":8`) {
		t.Errorf("request %s lacks state_bytes_per_param 8", lean.Request)
	}
	if got, want := lean.Response.Memory.StateGBPerGPU, def.Response.Memory.StateGBPerGPU/2; math.Abs(got-want) > 1e-9*want {
		t.Errorf("state per GPU with 8 bytes/param = %g GB, want half of %g", got, def.Response.Memory.StateGBPerGPU)
	}
	bad := estimate(t, a, EstimateInput{Form: form(map[string]string{"state_bytes": "100"})})
	if bad.Error == nil || bad.Error.Input != "state_bytes" || bad.Error.Field != "training.state_bytes_per_param" || !strings.Contains(bad.Error.Message, "[2, 64]") {
		t.Errorf("state_bytes 100 gave error %+v", bad.Error)
	}
}

// FuzzDropSeparators checks ParseNumber's separator removal against the
// strings.Replacer it replaced, byte for byte (invalid UTF-8 included).
func FuzzDropSeparators(f *testing.F) {
	for _, s := range []string{"1,000,000", "1_000", " 0.15 ", "2\u00a0000", "3\u202f000", "\u00a0\u202f,_ ", "\xc2", "\xe2\x80", "a\xc2\xa0b"} {
		f.Add(s)
	}
	ref := strings.NewReplacer(",", "", "_", "", " ", "", "\u00a0", "", "\u202f", "")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := dropSeparators(s), ref.Replace(s); got != want {
			t.Errorf("dropSeparators(%q) = %q, want %q", s, got, want)
		}
	})
}

// TestInputExactKeys: the page's calls decode their argument with the
// rules of the API and the command line: a key that differs from a field
// only in case, or that is given twice, is an error naming it.
func TestInputExactKeys(t *testing.T) {
	a := newAPI(t)
	req := `{"model":{"preset":"bert-base"},"training":{"tokens":2e8,"seq_len":128,"batch_per_gpu":32,"precision":"fp16"},"hardware":{"gpu":"a100","count":4},"strategy":"fsdp"}`
	for _, tt := range []struct {
		name  string
		call  func([]byte) []byte
		input string
		field string
	}{
		{"estimate, capital key", a.Estimate, `{"REQUEST":` + req + `}`, "REQUEST"},
		{"estimate, duplicate key", a.Estimate, `{"request":` + req + `,"request":` + req + `}`, "request"},
		{"estimate, case variant in the request", a.Estimate, `{"request":` + strings.Replace(req, `"count"`, `"Count"`, 1) + `}`, "hardware.Count"},
		{"estimate, duplicate form input", a.Estimate, `{"form":{"gpu":"a100","gpu":"h100"}}`, "form.gpu"},
		{"recommend, capital key", a.Recommend, `{"Form":{}}`, "Form"},
		{"planner, duplicate key", a.Distill, `{"plan":{"options":[]},"plan":{"options":[]}}`, "plan"},
		{"planner recommend, unknown key", a.DistillRecommend, `{"form":{},"colour":1}`, "colour"},
		{"own calibration, capital key", a.AddCalibration, `{"Calibrations":[]}`, "Calibrations"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out struct {
				Error *Error `json:"error"`
			}
			raw := tt.call([]byte(tt.input))
			if err := json.Unmarshal(raw, &out); err != nil {
				t.Fatalf("output %s: %v", raw, err)
			}
			if out.Error == nil || out.Error.Field != tt.field {
				t.Errorf("%s = %s, want an error at %s", tt.input, raw, tt.field)
			}
		})
	}
}

// TestHubIDInTheModelField checks that the model field takes a preset's
// Hugging Face hub id (whose config.json the preset's shape is): the same
// estimate as the preset's name, the hub id kept in the request the page
// links, and a custom shape with the head width and tied embeddings that
// a config.json gives round-tripping through the form.
func TestHubIDInTheModelField(t *testing.T) {
	a := newAPI(t)
	byName := estimate(t, a, EstimateInput{Form: form(map[string]string{"model": "qwen2.5-0.5b", "gpu": "h100", "count": "1", "strategy": "single"})})
	byHub := estimate(t, a, EstimateInput{Form: form(map[string]string{"model": "Qwen/Qwen2.5-0.5B", "gpu": "h100", "count": "1", "strategy": "single"})})
	if byName.Error != nil || byHub.Error != nil {
		t.Fatalf("errors: %+v, %+v", byName.Error, byHub.Error)
	}
	if byHub.Response.EnergyKWh != byName.Response.EnergyKWh || byHub.Response.Inputs.Model != "qwen2.5-0.5b" {
		t.Errorf("hub id: %.6g kWh as %q; preset name: %.6g kWh", byHub.Response.EnergyKWh, byHub.Response.Inputs.Model, byName.Response.EnergyKWh)
	}
	if !bytes.Contains(byHub.Request, []byte(`"preset":"Qwen/Qwen2.5-0.5B"`)) {
		t.Errorf("the request the page links lost the hub id: %s", byHub.Request)
	}
	// Qwen3-4B's config.json as a custom shape: head_dim 128 (not 2560/32)
	// and tied embeddings, 4.02 B parameters (the model card: 4.0 B).
	q3 := estimate(t, a, EstimateInput{Form: form(map[string]string{"model": "custom", "layers": "36", "hidden": "2560", "heads": "32", "kv_heads": "8", "head_dim": "128",
		"ffn": "9728", "vocab": "151936", "glu": "1", "tied": "1", "gpu": "h100", "count": "1", "strategy": "single"})})
	if q3.Error != nil {
		t.Fatalf("custom Qwen3-4B shape: %+v", q3.Error)
	}
	if p := q3.Response.Proxies.Params; p < 3.98e9 || p > 4.06e9 {
		t.Errorf("Qwen3-4B shape with head_dim and tied embeddings counts %.4g parameters, want about 4.02e9", p)
	}
}

// TestNoBudgetInTheBrowser: the page's searches have no work budget (the
// CPU is the user's), and New leaves the catalog it is given as it is.
func TestNoBudgetInTheBrowser(t *testing.T) {
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	a := New(cat)
	if a.Catalog.Budget() != 0 || cat.Budget() != model.DefaultWorkBudget {
		t.Errorf("the page's budget %d (want none, 0), the catalog's %d (want %d, untouched)", a.Catalog.Budget(), cat.Budget(), model.DefaultWorkBudget)
	}
}
