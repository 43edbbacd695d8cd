package calcapi

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/distill"
)

func plan(t testing.TB, a *API, in PlanInput) PlanOutput {
	t.Helper()
	b, _ := json.Marshal(in)
	var out PlanOutput
	if err := json.Unmarshal(a.Distill(b), &out); err != nil {
		t.Fatalf("Distill output is not JSON: %v", err)
	}
	return out
}

func planForm(set string, over map[string]string) PlanForm {
	f := DefaultPlanForm()
	for k := range f {
		if strings.HasPrefix(k, "o") && strings.Contains(k, ".") {
			delete(f, k)
		}
	}
	f.setRows(PlanSets[set])
	for k, v := range over {
		f[k] = v
	}
	return f
}

// TestPlannerReproducesPaperNStar checks the planner's ready-made plans
// against the break-even counts of Lambert & Luccioni (ICML 2026),
// recomputed from their stage table (shared/reference/distillation.md §5):
// N* = E_teacher / (E_student_SFT − E_student_distill).
func TestPlannerReproducesPaperNStar(t *testing.T) {
	a := newAPI(t)
	want := map[string]float64{
		"kd-1b":         11.00 / (6.30 - 5.20),   // paper: ~10 (10.0)
		"synthetic-1b":  10.60 / (6.30 - 5.35),   // paper: ~11 (11.2)
		"kd-13b":        11.00 / (33.15 - 30.05), // paper: ~4 (3.55)
		"synthetic-13b": 10.60 / (33.15 - 28.65), // paper: 2–3 (2.36)
	}
	paper := map[string][2]float64{"kd-1b": {9.95, 10.05}, "synthetic-1b": {11.1, 11.25}, "kd-13b": {3.5, 3.6}, "synthetic-13b": {2.3, 2.4}}
	for _, set := range []string{"1b", "13b", "all"} {
		f := planForm(set, nil)
		out := plan(t, a, PlanInput{Form: f})
		if out.Error != nil {
			t.Fatalf("set %s: %+v", set, out.Error)
		}
		for _, o := range out.Result.Options {
			w, ok := want[o.Name]
			if !ok {
				if o.NStar != nil {
					t.Errorf("set %s: %s (%s) has N* %v, want none", set, o.Name, o.Regime, *o.NStar)
				}
				continue
			}
			if o.NStar == nil {
				t.Errorf("set %s: %s has no N* (%s)", set, o.Name, o.NStarReason)
				continue
			}
			if math.Abs(*o.NStar-w) > 1e-9*w || *o.NStar < paper[o.Name][0] || *o.NStar > paper[o.Name][1] {
				t.Errorf("set %s: N*(%s) = %.4f, want %.4f (paper %v)", set, o.Name, *o.NStar, w, paper[o.Name])
			}
		}
	}
}

// TestPlannerMatchesCLI requires the plan each form becomes to give the
// identical result when read back as `site distill` and the API read it.
func TestPlannerMatchesCLI(t *testing.T) {
	a := newAPI(t)
	forms := []PlanForm{
		DefaultPlanForm(),
		planForm("13b", map[string]string{"n": "3", "jref": "0.5", "jstu": "0.1", "region": "fr", "carbon": "", "pue": "1.2"}),
		planForm("1b", map[string]string{"rows": "4", "o4.name": "my kd", "o4.regime": "kd", "o4.pre": "0.4", "o4.teacher": "8", "o4.student": "5", "o4.eval": "0.3", "o4.q": "0.72"}),
	}
	for i, f := range forms {
		got := plan(t, a, PlanInput{Form: f})
		if got.Error != nil {
			t.Fatalf("form %d: %+v", i, got.Error)
		}
		want := readBack(t, got.Plan, distill.ParsePlan, distill.Evaluate)
		if !reflect.DeepEqual(*got.Result, want) {
			t.Errorf("form %d: planner result differs from site distill\ngot  %+v\nwant %+v", i, *got.Result, want)
		}
	}
}

func TestPlannerErrorsNameTheInput(t *testing.T) {
	a := newAPI(t)
	custom := map[string]string{"rows": "4", "o4.name": "mine", "o4.regime": "kd", "o4.pre": "0.4", "o4.teacher": "8", "o4.student": "5", "o4.eval": "0.3"}
	with := func(over map[string]string) PlanForm {
		f := planForm("1b", custom)
		for k, v := range over {
			f[k] = v
		}
		return f
	}
	cases := []struct {
		name  string
		form  PlanForm
		input string
		msg   string
	}{
		{"letters in a stage", with(map[string]string{"o4.teacher": "8kwh"}), "o4.teacher", "must be a number"},
		{"negative stage", with(map[string]string{"o4.student": "-1"}), "o4.student", ""},
		{"zero students", with(map[string]string{"n": "0"}), "n", ""},
		{"letters in students", with(map[string]string{"n": "many"}), "n", "must be a whole number, for example 4"},
		{"serving half given", with(map[string]string{"jref": "0.5"}), "jstu", "T*"},
		{"unknown preset", with(map[string]string{"o2.preset": "kd-2b"}), "o2.preset", "known"},
		{"duplicate name", with(map[string]string{"o4.name": "kd-1b"}), "o4.name", "unique"},
		{"bad regime", with(map[string]string{"o4.regime": "dpo"}), "o4.regime", ""},
		{"too many rows", with(map[string]string{"rows": "99"}), "rows", "from 1 to"},
		{"pue out of range", with(map[string]string{"pue": "9"}), "pue", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := plan(t, a, PlanInput{Form: c.form})
			if out.Error == nil {
				t.Fatalf("no error, want one on %s", c.input)
			}
			if out.Result != nil {
				t.Error("a result came with the error")
			}
			if out.Error.Input != c.input || !strings.Contains(out.Error.Message, c.msg) {
				t.Errorf("error %+v, want input %q and a message containing %q", out.Error, c.input, c.msg)
			}
		})
	}
}

// estimatedStudentForm is the custom plan with option 1's student stage
// estimated from the paper's setup, with over applied to its student keys.
func estimatedStudentForm(over map[string]string) PlanForm {
	f := CustomPlanForm()
	for k, v := range DefaultPlanForm() {
		if _, ok := f[k]; !ok && !strings.HasPrefix(k, "o") {
			f[k] = v
		}
	}
	f["o1.smode"] = StudentModeEstimate
	for k, v := range DefaultStudentForm("sft-1b") {
		f["o1.s."+k] = v
	}
	for k, v := range over {
		f["o1.s."+k] = v
	}
	return f
}

// TestPlannerLoRAStudent: a planner row's student stage may be estimated
// and trained with LoRA or QLoRA (issue 12 item 3): the row's student
// stage energy equals the fine-tuning estimate of the same request, falls
// from full to lora, and bad LoRA options are errors on the row's input.
func TestPlannerLoRAStudent(t *testing.T) {
	a := newAPI(t)
	studentKWh := func(over map[string]string) float64 {
		t.Helper()
		out := plan(t, a, PlanInput{Form: estimatedStudentForm(over)})
		if out.Error != nil {
			t.Fatalf("plan with %v: %+v", over, out.Error)
		}
		for _, s := range out.Result.Options[0].Stages {
			if s.Stage == distill.StageStudent {
				if s.Source != "estimated" {
					t.Errorf("student stage source %q, want estimated", s.Source)
				}
				return s.EnergyKWh
			}
		}
		t.Fatalf("plan with %v: no student stage", over)
		return 0
	}
	full := studentKWh(nil)
	lora := studentKWh(map[string]string{"method": "lora", "rank": "16"})
	qlora := studentKWh(map[string]string{"method": "qlora"})
	if !(lora < full) {
		t.Errorf("student stage with lora = %.4g kWh, not below full fine-tuning's %.4g kWh", lora, full)
	}
	if !(qlora > 0) {
		t.Errorf("student stage with qlora = %.4g kWh", qlora)
	}
	// The stage is the calculator's estimate of the same request at the plan's site.
	sub := Form{"length": "tokens"}
	for k, v := range DefaultStudentForm("sft-1b") {
		sub[k] = v
	}
	sub["method"], sub["rank"] = "lora", "16"
	req, ferr := sub.Request(nil)
	if ferr != nil {
		t.Fatal(ferr)
	}
	req.Site = model.SiteSpec{PUE: 1.56}
	e, err := a.Catalog.Estimate(req)
	if err != nil {
		t.Fatal(err)
	}
	if d := math.Abs(e.EnergyKWh-lora) / lora; d > 1e-12 {
		t.Errorf("planner's lora student %.6g kWh, calculator's estimate %.6g kWh", lora, e.EnergyKWh)
	}

	for _, c := range []struct {
		over        map[string]string
		input, path string
	}{
		{map[string]string{"method": "lora", "rank": "0"}, "o1.s.rank", "options[0].student.training.lora.rank"},
		{map[string]string{"method": "lora", "rank": "99999"}, "o1.s.rank", "options[0].student.training.lora.rank"},
		{map[string]string{"method": "lora", "targets": "q,zz"}, "o1.s.targets", "options[0].student.training.lora.targets"},
		{map[string]string{"method": "sgd"}, "o1.s.method", "options[0].student.training.method"},
		{map[string]string{"tokens": "lots"}, "o1.s.tokens", "options[0].student.training.tokens"},
		{map[string]string{"model": "custom", "layers": "0"}, "o1.s.layers", "options[0].student.model.layers"},
		{map[string]string{"model": "custom", "heads": "7"}, "o1.s.heads", "options[0].student.model.heads"},
		{map[string]string{"gpu": "h100-sxm5-8gb"}, "o1.s.gpu", "options[0].student.hardware.gpu"},
	} {
		out := plan(t, a, PlanInput{Form: estimatedStudentForm(c.over)})
		if out.Error == nil {
			t.Errorf("%v: no error", c.over)
			continue
		}
		if out.Error.Input != c.input || out.Error.Field != c.path {
			t.Errorf("%v: error on input %q, field %q (%s), want %q, %q", c.over, out.Error.Input, out.Error.Field, out.Error.Text, c.input, c.path)
		}
		if strings.Contains(out.Error.Say, "options[") {
			t.Errorf("%v: the page's message %q shows a JSON path", c.over, out.Error.Say)
		}
	}
}

// TestPlannerRecommendPerStage: the planner's "cheaper hardware" panel is
// distill.Recommend on the form's plan; the estimated student stage is
// searched, the measured ones say why not; bad settings land on their inputs.
func TestPlannerRecommendPerStage(t *testing.T) {
	a := newAPI(t)
	f := estimatedStudentForm(map[string]string{"method": "lora"})
	f["minimise"], f["deadline"] = "energy", "2"
	in, _ := json.Marshal(PlanInput{Form: f})
	var out PlanRecommendOutput
	if err := json.Unmarshal(a.DistillRecommend(in), &out); err != nil {
		t.Fatal(err)
	}
	if out.Error != nil {
		t.Fatalf("DistillRecommend: %+v", out.Error)
	}
	p, ferr := f.Plan(a.Regions)
	if ferr != nil {
		t.Fatal(ferr)
	}
	want, err := distill.Recommend(a.Catalog, distill.RecommendRequest{Plan: p, Minimise: "energy", DeadlineS: 7200})
	if err != nil {
		t.Fatal(err)
	}
	if got, w := mustJSON(out.Result), mustJSON(want); !bytes.Equal(got, w) {
		t.Errorf("DistillRecommend differs from distill.Recommend on the form's plan")
	}
	searched := 0
	for _, s := range out.Result.Stages {
		if s.Reason == "" {
			searched++
			if s.Path != "options[0].student" || s.Best == nil || s.Best.Request.Training.Method != model.MethodLoRA {
				t.Errorf("searched %s (best %+v), want only options[0].student with its lora workload", s.Path, s.Best)
			}
		}
	}
	if searched != 1 {
		t.Errorf("%d stages searched, want the estimated student only", searched)
	}
	for _, c := range []struct{ key, value, input string }{{"minimise", "joy", "minimise"}, {"deadline", "soon", "deadline"}, {"deadline", "-1", "deadline"}} {
		g := estimatedStudentForm(nil)
		g[c.key] = c.value
		in, _ := json.Marshal(PlanInput{Form: g})
		var o PlanRecommendOutput
		json.Unmarshal(a.DistillRecommend(in), &o)
		if o.Error == nil || o.Error.Input != c.input {
			t.Errorf("%s=%q: error %+v, want one on input %s", c.key, c.value, o.Error, c.input)
		}
	}
}

// TestPlanFieldTableDrivesTheForm: every row of the planner's field table
// (PlanFormFields) that the form decodes reports a bad value on its own
// input, with its table path (the option's index filled in); every row of
// the plan's table is a key of the page's table; the opening values are
// the table's.
func TestPlanFieldTableDrivesTheForm(t *testing.T) {
	a := newAPI(t)
	keys := map[string]bool{}
	for _, f := range PlanFormFields() {
		keys[f.Key] = true
	}
	for _, f := range distill.PlanFields {
		if !keys[f.Key] {
			t.Errorf("plan field %s is not in the page's table", f.Key)
		}
	}
	bad := map[model.FieldKind]string{model.KindNumber: "zz", model.KindInt: "zz", model.KindEnum: "zz"}
	checked := 0
	for _, fd := range PlanFormFields() {
		v, ok := bad[fd.Kind]
		switch {
		case fd.Key == "oK.preset", fd.Key == "oK.baseline", fd.Key == "oK.s.gpu", fd.Key == "oK.s.model", fd.Key == "oK.s.targets":
			v, ok = "zz", true // names the model checks
		case fd.Key == "set", fd.Key == "rows", fd.Group == "site" && fd.Kind == model.KindString:
			ok = false // the page's choice of a ready-made plan, the row count, free text
		}
		if !ok {
			continue
		}
		f := estimatedStudentForm(map[string]string{"method": "qlora", "strategy": "hybrid", "tensor": "1"})
		f["o1.regime"], f["o1.teacher"], f["jref"], f["jstu"] = "kd", "1", "1", "1"
		if fd.Key == "oK.student" {
			f["o1.smode"] = "" // a measured student
		}
		if w := fd.When; w != nil && strings.HasPrefix(w.Key, distill.OptionKeyPrefix) {
			switch { // the row's inputs that make the field apply (a custom shape, epochs)
			case len(w.In) > 0:
				f[distill.RowKey(w.Key, 1)] = w.In[0]
			case !w.Not:
				f[distill.RowKey(w.Key, 1)] = w.Value
			}
		}
		key := distill.RowKey(fd.Key, 1)
		f[key] = v
		if fd.Key == "oK.s.tensor" {
			f[key] = "zz"
		}
		in, _ := json.Marshal(PlanInput{Form: f})
		var out PlanRecommendOutput
		if err := json.Unmarshal(a.DistillRecommend(in), &out); err != nil {
			t.Fatal(err)
		}
		checked++
		if out.Error == nil {
			t.Errorf("%s = %q: no error", key, v)
			continue
		}
		want := fd.Path // a plan-wide input: every distilled option's field
		if strings.HasPrefix(fd.Key, distill.OptionKeyPrefix) {
			want = distill.RowPath(fd.Path, 0)
		}
		if out.Error.Input != key || !strings.HasPrefix(out.Error.Field, want) {
			t.Errorf("%s = %q: error on input %q, field %q (%s); want input %s, field %s", key, v, out.Error.Input, out.Error.Field, out.Error.Text, key, want)
		}
	}
	if checked < 20 {
		t.Errorf("checked %d fields, want the table's", checked)
	}
	def := DefaultPlanForm()
	for _, k := range []string{"set", "n", "region", "carbon", "pue", "price"} {
		if fd := distill.PlanFieldByKey(k); def[k] != fd.Form {
			t.Errorf("default form %s = %q, the table opens it at %q", k, def[k], fd.Form)
		}
	}
}

// TestStudentKeysFromTheFieldTable: the planner's estimated student takes
// exactly the field table's rows marked Student, and each reaches the
// student's request: a value out of its range in the row's input is an
// error on that input and the field's path.
func TestStudentKeysFromTheFieldTable(t *testing.T) {
	a := newAPI(t)
	var marked []string
	for _, fd := range model.RequestFields {
		if !fd.Student {
			continue
		}
		marked = append(marked, fd.Key)
		if _, ok := DefaultStudentForm("sft-1b")[fd.Key]; !ok {
			t.Errorf("DefaultStudentForm lacks %q", fd.Key)
		}
		if fd.Bounds == nil || fd.Path == "" {
			continue
		}
		over := map[string]string{fd.Key: strconv.FormatFloat(2*fd.Max+1, 'g', -1, 64)}
		if w := fd.When; w != nil {
			switch {
			case len(w.In) > 0:
				over[w.Key] = w.In[0]
			case !w.Not:
				over[w.Key] = w.Value
			}
		}
		out := plan(t, a, PlanInput{Form: estimatedStudentForm(over)})
		if out.Error == nil || out.Error.Input != "o1.s."+fd.Key || out.Error.Field != "options[0].student."+fd.Path {
			t.Errorf("%s out of range: error %+v, want one on input o1.s.%s, field options[0].student.%s", fd.Key, out.Error, fd.Key, fd.Path)
		}
	}
	if !slices.Equal(StudentKeys, marked) {
		t.Errorf("StudentKeys = %v, want the rows marked Student: %v", StudentKeys, marked)
	}
	if len(marked) < 10 {
		t.Errorf("only %d rows marked Student: %v", len(marked), marked)
	}
}

// TestPlannerUseItHoldsTheBatch: "Use it" loads a student's best into its
// option as the page does (hardware, layout, micro-batch and
// accumulation), and the stage then costs what the recommender said, with
// the global batch it held.
func TestPlannerUseItHoldsTheBatch(t *testing.T) {
	a := newAPI(t)
	f := estimatedStudentForm(map[string]string{"method": "lora"})
	f["minimise"] = "energy"
	search := func(f PlanForm) *distill.StageRecommendation {
		in, _ := json.Marshal(PlanInput{Form: f})
		var out PlanRecommendOutput
		if err := json.Unmarshal(a.DistillRecommend(in), &out); err != nil {
			t.Fatal(err)
		}
		if out.Error != nil {
			t.Fatalf("DistillRecommend: %+v", out.Error)
		}
		for i := range out.Result.Stages {
			if s := &out.Result.Stages[i]; s.Path == "options[0].student" {
				return s
			}
		}
		t.Fatal("no options[0].student stage")
		return nil
	}
	s := search(f)
	b := s.Best
	if b == nil || s.Current == nil || b.SequencesPerStep != s.Current.SequencesPerStep {
		t.Fatalf("best %+v, current %+v: want the current's global batch held", b, s.Current)
	}
	f["o1.s.gpu"], f["o1.s.count"], f["o1.s.power"] = b.Hardware.GPU, itoa(b.Hardware.Count), ftoa(b.Hardware.PowerLimitW)
	f["o1.s.strategy"] = b.Strategy.Name
	if b.Strategy.Name == model.Hybrid {
		f["o1.s.tensor"], f["o1.s.data_mode"] = ftoa(b.Strategy.Tensor), b.Strategy.DataMode
	}
	f["o1.s.batch"], f["o1.s.accum"] = itoa(b.BatchPerGPU), ""
	if b.GradientAccumulation > 1 {
		f["o1.s.accum"] = itoa(b.GradientAccumulation)
	}
	if got := search(f).Current; got == nil || got.EnergyKWh != b.EnergyKWh {
		t.Errorf("after Use it the student stage costs %+v, the recommender's best %.10g kWh", got, b.EnergyKWh)
	}
}
