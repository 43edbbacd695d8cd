package calcapi

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/distill"
)

// TestMessagesSpeakTheFormsWords checks Error.Say for the messages a first
// visitor met (issue 14): no request paths, no API routes, an example that
// fits the input, "too large" for an overflowing number.
func TestMessagesSpeakTheFormsWords(t *testing.T) {
	a := newAPI(t)
	cases := []struct {
		name     string
		over     map[string]string
		input    string
		want     string
		wantText string // Text keeps the command line's path
	}{
		{"unknown GPU", map[string]string{"gpu": "h999"}, "gpu", "the list under the field shows every one", "hardware.gpu: "},
		{"letters in the GPU count", map[string]string{"count": "abc"}, "count", "must be a whole number, for example 8", "hardware.count: "},
		{"1e400 tokens", map[string]string{"tokens": "1e400"}, "tokens", "is too large", "training.tokens: "},
		{"0 tokens", map[string]string{"tokens": "0"}, "tokens", "must be more than 0 tokens", "training.tokens: "},
		{"empty tokens", map[string]string{"tokens": ""}, "tokens", "is needed", "training.tokens: "},
		{"empty model", map[string]string{"model": ""}, "model", "pick a model from the list", "model.preset: "},
		{"PUE below 1", map[string]string{"pue": "0.5"}, "pue", "from 1 to 3", "site.pue: "},
		{"memory names the optimizer state in words", map[string]string{"model": "llama-3-8b", "gpu": "h100", "count": "2", "strategy": "ddp"}, "count", "“optimizer state per parameter”", "training.state_bytes_per_param"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := estimate(t, a, EstimateInput{Form: form(c.over)})
			e := out.Error
			if e == nil {
				t.Fatalf("Estimate(%v) gave no error", c.over)
			}
			if e.Input != c.input || !strings.Contains(e.Say, c.want) {
				t.Errorf("Estimate(%v) error input %q say %q, want input %q and say containing %q", c.over, e.Input, e.Say, c.input, c.want)
			}
			for _, bad := range []string{"training.", "hardware.", "model.", "site.", "GET /api", "dataset_tokens", "state_bytes"} {
				if strings.Contains(e.Say, bad) {
					t.Errorf("say %q contains %q", e.Say, bad)
				}
			}
			if !strings.Contains(e.Text, c.wantText) {
				t.Errorf("text %q lost the path %q the command line prints", e.Text, c.wantText)
			}
		})
	}
}

// TestLinkWithSeveralBadFieldsReportsAll checks that a form with three
// wrong inputs gets three errors, each on its input.
func TestLinkWithSeveralBadFieldsReportsAll(t *testing.T) {
	a := newAPI(t)
	out := estimate(t, a, EstimateInput{Form: form(map[string]string{"batch": "0", "count": "many", "pue": "9"})})
	got := map[string]string{}
	for _, e := range out.Errors {
		got[e.Input] = e.Say
	}
	for _, k := range []string{"batch", "count", "pue"} {
		if got[k] == "" {
			t.Errorf("errors %v have none for %q", got, k)
		}
	}
	if len(out.Errors) != 3 || out.Errors[0] != nil && out.Error != nil && out.Errors[0].Input != out.Error.Input {
		t.Errorf("errors = %d (first %v), want 3 starting with Error (%v)", len(out.Errors), out.Errors[0], out.Error)
	}
	if ok := estimate(t, a, EstimateInput{Form: DefaultForm()}); len(ok.Errors) != 0 {
		t.Errorf("default form has errors %v", ok.Errors)
	}
}

// TestDefaultFormIsInsideTheEnvelope checks that the calculator opens
// without an envelope warning, and that the command line's example at a
// sequence length below the fitted range (32) gets a plain explanation
// naming the range and what to change.
func TestDefaultFormIsInsideTheEnvelope(t *testing.T) {
	a := newAPI(t)
	out := estimate(t, a, EstimateInput{Form: DefaultForm()})
	if out.Error != nil {
		t.Fatal(out.Error.Text)
	}
	if !out.Response.Calibration.InEnvelope || len(out.Envelope) != 0 {
		t.Errorf("default form outside the envelope: %v; note %v", out.Response.Calibration.Outside, out.Envelope)
	}
	for _, w := range out.Response.Warnings {
		if strings.Contains(w, "envelope") {
			t.Errorf("default form warns %q", w)
		}
	}
	// The command line's example at a sequence length below every run the
	// calibration was fitted on.
	req, err := os.ReadFile("../../content/examples/request.json")
	if err != nil {
		t.Fatal(err)
	}
	short := strings.Replace(string(req), `"seq_len": 128`, `"seq_len": 32`, 1)
	if short == string(req) {
		t.Fatalf("content/examples/request.json has no \"seq_len\": 128 to shorten: %s", req)
	}
	cli := estimate(t, a, EstimateInput{Request: json.RawMessage(short)})
	if cli.Error != nil {
		t.Fatal(cli.Error.Text)
	}
	if cli.Response.Calibration.InEnvelope {
		t.Fatalf("sequence length 32 is inside the envelope %v", cli.Response.Calibration.Outside)
	}
	note := strings.Join(cli.Envelope, " ")
	for _, want := range []string{"Sequence length 32 is below the range", "64 to 8192", "choose a sequence length inside that range", "widened"} {
		if !strings.Contains(note, want) {
			t.Errorf("envelope note %q lacks %q", note, want)
		}
	}
}

// TestBestPerStudentNeedsAStageSplit checks the planner's badge on the
// paper's seven pipelines: sft-7b, published as a total only, has no
// per-student energy and must not win; sft-1b (6.30 kWh student stage, the
// lowest of the split options at N = 1) does.
func TestBestPerStudentNeedsAStageSplit(t *testing.T) {
	a := newAPI(t)
	f := PlanForm{"set": "all", "n": "1", "region": "world", "carbon": "475", "price": "0.15"}
	f.setRows(PlanSets["all"])
	out := distillForm(t, a, f)
	if out.Error != nil {
		t.Fatal(out.Error.Text)
	}
	if out.BestPerStudent != "sft-1b" {
		t.Errorf("best per student = %q, want sft-1b (sft-7b has no stage split)", out.BestPerStudent)
	}
	only := PlanForm{"set": "custom", "n": "1", "rows": "1", "o1.preset": "sft-7b"}
	if got := distillForm(t, a, only); got.Error != nil || got.BestPerStudent != "" {
		t.Errorf("a plan of sft-7b alone: best %q error %v, want no best", got.BestPerStudent, got.Error)
	}
}

// TestCustomPlanOpensValid checks that "My own numbers" opens on a plan
// that evaluates, with the paper's 1B stage energies as editable numbers.
func TestCustomPlanOpensValid(t *testing.T) {
	a := newAPI(t)
	f := CustomPlanForm()
	for k, v := range DefaultPlanForm() {
		if _, ok := f[k]; !ok && !strings.HasPrefix(k, "o") && k != "rows" {
			f[k] = v
		}
	}
	out := distillForm(t, a, f)
	if out.Error != nil {
		t.Fatalf("custom plan: %s", out.Error.Text)
	}
	if len(out.Result.Options) != 2 || out.Result.Options[0].Source != distill.SourceMeasured {
		t.Errorf("custom plan options %+v, want two measured options", out.Result.Options)
	}
	if f["o2.teacher"] == "" || f["o1.student"] == "" || f["o2.q"] == "" {
		t.Errorf("custom form %v lacks stage energies or quality to edit", f)
	}
}

// TestQualityIsAScoreFromZeroToOne checks Q's range and the percent form.
func TestQualityIsAScoreFromZeroToOne(t *testing.T) {
	a := newAPI(t)
	for _, c := range []struct {
		q    string
		want float64 // 0 = an error
	}{{"0.7", 0.7}, {"70 %", 0.7}, {"70%", 0.7}, {"7", 0}, {"-0.1", 0}, {"170%", 0}} {
		f := CustomPlanForm()
		f["n"], f["o2.q"] = "1", c.q
		out := distillForm(t, a, f)
		if c.want == 0 {
			if out.Error == nil || out.Error.Input != "o2.q" || !strings.Contains(out.Error.Say, "score from 0 to 1") {
				t.Errorf("quality %q: error %+v, want one on o2.q saying it is a score from 0 to 1", c.q, out.Error)
			}
			continue
		}
		if out.Error != nil {
			t.Errorf("quality %q: %s", c.q, out.Error.Text)
			continue
		}
		if q := out.Result.Options[1].Quality; q == nil || *q < c.want-1e-12 || *q > c.want+1e-12 {
			t.Errorf("quality %q read as %v, want %v", c.q, q, c.want)
		}
	}
}

func distillForm(t *testing.T, a *API, f PlanForm) PlanOutput {
	t.Helper()
	b, err := json.Marshal(PlanInput{Form: f})
	if err != nil {
		t.Fatal(err)
	}
	var out PlanOutput
	if err := json.Unmarshal(a.Distill(b), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOwnCalibrations checks AddCalibration: a user's calibration joins the
// catalog marked as theirs and estimates with it work; a shipped name is
// refused; a refit under the same name replaces the earlier one.
func TestOwnCalibrations(t *testing.T) {
	a := newAPI(t)
	const sampleLaw = "zoubeirou2026-bert-pooled" // a calibration wattscale ships
	shipped, err := a.Catalog.Calibration(sampleLaw)
	if err != nil {
		t.Fatal(err)
	}
	mine := *shipped
	mine.Name, mine.Title = "user-law", "my law"
	b, _ := json.Marshal(mine)
	var out OwnOutput
	json.Unmarshal(a.AddCalibration([]byte(`{"calibrations":[`+string(b)+`]}`)), &out)
	if out.Error != nil {
		t.Fatal(out.Error.Text)
	}
	var found bool
	for _, c := range out.Calibrations {
		if c.Name == "user-law" {
			found = c.Own
		} else if c.Own {
			t.Errorf("shipped calibration %s marked as the user's own", c.Name)
		}
	}
	if !found {
		t.Errorf("calibrations %+v lack user-law marked as own", out.Calibrations)
	}
	if e := estimate(t, a, EstimateInput{Form: form(map[string]string{"cal": "user-law"})}); e.Error != nil {
		t.Errorf("estimate with the user's calibration: %s", e.Error.Text)
	}
	mine.Title = "refitted"
	b, _ = json.Marshal(mine)
	json.Unmarshal(a.AddCalibration([]byte(`{"calibrations":[`+string(b)+`]}`)), &out)
	if out.Error != nil || len(out.Calibrations) != len(a.Catalog.Calibrations) {
		t.Errorf("refit under the same name: %+v", out)
	}
	b, _ = json.Marshal(shipped)
	json.Unmarshal(a.AddCalibration([]byte(`{"calibrations":[`+string(b)+`]}`)), &out)
	if out.Error == nil || !strings.Contains(out.Error.Say, "another name") {
		t.Errorf("taking the shipped name %s: %+v, want an error", sampleLaw, out.Error)
	}
}

// TestFormLabelsFromTheFieldTable: a message names every input of the
// field table by its form label (or, for the few listed in messageLabels,
// by that wording), and messageLabels names only rows the table has.
func TestFormLabelsFromTheFieldTable(t *testing.T) {
	rows := map[string]string{}
	for _, f := range append(append([]model.Field{}, model.RequestFields...), recommendFields...) {
		if f.Path == "" {
			continue
		}
		rows[f.Path] = f.Label
		want := f.Label
		if l, ok := messageLabels[f.Path]; ok {
			want = l
		}
		if got := formLabels()[f.Path]; got != want {
			t.Errorf("formLabels()[%q] = %q, want %q", f.Path, got, want)
		}
	}
	for p, l := range messageLabels {
		if rows[p] == "" {
			t.Errorf("messageLabels[%q] = %q: no row of the field table has that path", p, l)
		} else if rows[p] == l {
			t.Errorf("messageLabels[%q] = %q repeats the form's label: leave it to the table", p, l)
		}
	}
}

// TestAdviceNotWhatIsSelected walks memory refusals over methods, base
// formats, layouts and GPUs and fails when a message's advice suggests
// what the form already has (fsdp when fsdp shards, "tensor parallelism"
// when it is used, qlora when it is the method, nf4 when it is the
// format), or shows a request path (training., hardware.) or a GPU id
// instead of the form's words and the GPU's name.
func TestAdviceNotWhatIsSelected(t *testing.T) {
	a := newAPI(t)
	type advice struct {
		text     string
		selected func(Form) bool
	}
	advices := []advice{
		{"use fsdp", func(f Form) bool {
			return f["strategy"] == model.FSDP || f["strategy"] == model.Hybrid && f["data_mode"] == model.FSDP
		}},
		{"tensor parallelism", func(f Form) bool { return f["strategy"] == model.Hybrid || f["strategy"] == model.TP }},
		{"qlora (“Method”)", func(f Form) bool { return f["method"] == model.MethodQLoRA }},
		{"lora or qlora", func(f Form) bool { return f["method"] == model.MethodLoRA || f["method"] == model.MethodQLoRA }},
		{"or nf4 (", func(f Form) bool { return f["base_format"] == model.FormatNF4 }},
	}
	var ids []string
	for _, g := range a.Catalog.Hardware.GPUs {
		ids = append(ids, g.ID)
	}
	refusals := 0
	for _, method := range []string{model.MethodFull, model.MethodLoRA, model.MethodQLoRA} {
		for _, format := range []string{"", model.FormatNF4, model.FormatInt8} {
			if (format == "") != (method != model.MethodQLoRA) {
				continue
			}
			for _, lay := range [][3]string{{"ddp", "", ""}, {"fsdp", "", ""}, {"tp", "", ""}, {"hybrid", "2", "fsdp"}, {"hybrid", "4", "ddp"}, {"single", "", ""}} {
				for _, gpu := range []string{"a100-sxm4-80gb", "rtx-a6000", "t4"} {
					f := DefaultForm()
					f["model"], f["precision"], f["seq"], f["batch"] = "llama-2-70b", "bf16", "4096", "1"
					f["gpu"], f["count"], f["strategy"], f["method"] = gpu, "8", lay[0], method
					if lay[0] == "single" {
						f["count"] = "1"
					}
					if lay[1] != "" {
						f["tensor"], f["data_mode"] = lay[1], lay[2]
					}
					if format != "" {
						f["base_format"] = format
					}
					out := estimate(t, a, EstimateInput{Form: f})
					for _, e := range append([]*Error{out.Error}, out.Errors...) {
						if e == nil {
							continue
						}
						if strings.Contains(e.Message, "GB") {
							refusals++
						}
						for _, ad := range advices {
							if ad.selected(f) && strings.Contains(e.Say, ad.text) {
								t.Errorf("%s %s %s on %s × %s: advice %q with it already selected: %s", method, format, lay, f["count"], gpu, ad.text, e.Say)
							}
						}
						for _, bad := range append([]string{"training.", "hardware.", "strategy."}, ids...) {
							if containsWord(e.Say, bad) {
								t.Errorf("%s %s %s on %s: the message shows %q: %s", method, format, lay, gpu, bad, e.Say)
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d memory refusals walked", refusals)
	if refusals < 10 {
		t.Errorf("only %d memory refusals walked: the forms no longer reach the advice", refusals)
	}
}

// containsWord reports whether s holds w not inside a longer id or word.
func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(w)
		idc := func(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' }
		if (j == 0 || !idc(s[j-1]) || strings.HasSuffix(w, ".")) && (end >= len(s) || !idc(s[end]) || strings.HasSuffix(w, ".")) {
			return true
		}
		i = j + 1
	}
}

// TestShownMessagesUseNamesNotKeys renders what the calculator shows in
// words for the default, LoRA, QLoRA, power-limit, long-sequence and 70B
// states (warnings, assumptions, errors and the recommender panel's
// sentences) and
// fails on a request path (training., hardware.), a bare JSON name or a
// GPU id: the page shows labels and names, the API keeps paths and ids.
func TestShownMessagesUseNamesNotKeys(t *testing.T) {
	a := newAPI(t)
	bad := []string{"training.", "hardware.", "batch_per_gpu", "gradient_checkpointing", "seq_len", "state_bytes_per_param"}
	for _, g := range a.Catalog.Hardware.GPUs {
		bad = append(bad, g.ID)
	}
	states := map[string]Form{}
	for name, mod := range map[string]map[string]string{
		"default":     {},
		"lora":        {"method": "lora"},
		"qlora":       {"method": "qlora", "model": "llama-2-70b", "gpu": "rtx-a6000", "count": "1", "strategy": "single", "precision": "bf16"},
		"power limit": {"power": "250"},
		"7B long":     {"model": "llama-2-7b", "precision": "bf16", "seq": "4096"},
		"70B fsdp":    {"model": "llama-2-70b", "precision": "bf16", "gpu": "h100-sxm5", "count": "8", "strategy": "fsdp"},
	} {
		f := DefaultForm()
		for k, v := range mod {
			f[k] = v
		}
		states[name] = f
	}
	shown := 0
	for name, f := range states {
		var said []string
		o := estimate(t, a, EstimateInput{Form: f})
		said = append(append(said, o.Warnings...), o.Assumptions...)
		if o.Response != nil && len(o.Assumptions) != len(o.Response.Assumptions) {
			t.Errorf("%s: %d assumptions in words for the response's %d", name, len(o.Assumptions), len(o.Response.Assumptions))
		}
		for _, e := range append([]*Error{o.Error}, o.Errors...) {
			if e != nil {
				said = append(said, e.Say)
			}
		}
		if r := recommendForm(t, a, f); r.Say != nil {
			said = append(append(said, r.Say.Current, r.Say.Searched), r.Say.Skipped...)
			said = append(said, r.Say.Warnings...)
		}
		shown += len(said)
		for _, s := range said {
			for _, b := range bad {
				if containsWord(s, b) {
					t.Errorf("%s: the page would show %q: %s", name, b, s)
				}
			}
		}
	}
	if shown < 12 {
		t.Errorf("only %d messages rendered: the states no longer reach them", shown)
	}
}
