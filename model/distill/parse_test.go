package distill_test

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/distill"
	"github.com/wattscale/wattscale/model/internal/keytest"
)

const sftOK = `{"name": "sft", "regime": "sft", "stages_kwh": {"preprocess": 0.37, "student": 6.30, "eval": 0.33}}`

// plan wraps option JSON into a plan with a valid SFT baseline first.
func plan(opts ...string) string {
	return `{"options": [` + sftOK + `, ` + strings.Join(opts, ", ") + `]}`
}

const estTeacher = `"teacher": {"model": {"preset": "olmo-2-32b"}, "hardware": {"gpu": "h100", "count": 1}, "tokens": 3e7, "seq_len": 1024}`
const estStudent = `"student": {"model": {"preset": "olmo-2-1b"}, "training": {"tokens": 3e7, "seq_len": 1024, "batch_per_gpu": 8, "precision": "bf16"}, "hardware": {"gpu": "h100", "count": 1}, "strategy": "single"}`
const measRest = `"stages_kwh": {"preprocess": 0.37, "student": 5.2, "eval": 0.33}`

func TestPlanErrors(t *testing.T) {
	tests := []struct {
		name, body, field string
	}{
		{"empty body", ``, "(body)"},
		{"malformed", `{"options": [`, "(body)"},
		{"unknown top-level field", `{"options": [], "colour": 1}`, "colour"},
		{"no options", `{"options": []}`, "options"},
		{"null option", `{"options": [null]}`, "options[0]"},
		{"unknown option field", plan(`{"name": "kd", "regime": "kd", "temperature": 2}`), "options[1].temperature"},
		{"unknown stage", plan(`{"name": "kd", "regime": "kd", "stages_kwh": {"distil": 1}}`), "options[1].stages_kwh.distil"},
		{"energy as text", plan(`{"name": "kd", "regime": "kd", "stages_kwh": {"teacher": "lots"}}`), "options[1].stages_kwh.teacher"},
		{"negative energy", plan(`{"name": "kd", "regime": "kd", "stages_kwh": {"preprocess": 0.37, "teacher": -1, "student": 5.2, "eval": 0.33}}`), "options[1].stages_kwh.teacher"},
		{"missing student", plan(`{"name": "kd", "regime": "kd", "stages_kwh": {"preprocess": 0.37, "teacher": 11, "eval": 0.33}}`), "options[1].stages_kwh.student"},
		{"missing teacher", plan(`{"name": "kd", "regime": "kd", ` + measRest + `}`), "options[1].stages_kwh.teacher"},
		{"missing eval", plan(`{"name": "kd", "regime": "kd", "stages_kwh": {"preprocess": 0.37, "teacher": 11, "student": 5.2}}`), "options[1].stages_kwh.eval"},
		{"teacher in sft", `{"options": [{"name": "s", "regime": "sft", "stages_kwh": {"preprocess": 0, "teacher": 1, "student": 1, "eval": 0}}]}`, "options[0].stages_kwh.teacher"},
		{"stage given twice", plan(`{"name": "kd", "regime": "kd", "stages_kwh": {"preprocess": 0.37, "teacher": 11, "student": 5.2, "eval": 0.33}, ` + estTeacher + `}`), "options[1].teacher"},
		{"unknown preset", plan(`{"preset": "kd-70b"}`), "options[1].preset"},
		{"regime contradicts preset", plan(`{"preset": "kd-1b", "regime": "sft"}`), "options[1].regime"},
		{"unknown regime", plan(`{"name": "x", "regime": "rlhf"}`), "options[1].regime"},
		{"missing regime", plan(`{"name": "x"}`), "options[1].regime"},
		{"missing name", plan(`{"regime": "kd"}`), "options[1].name"},
		{"duplicate name", plan(`{"name": "SFT", "regime": "sft", "stages_kwh": {"preprocess": 0, "student": 1, "eval": 0}}`), "options[1].name"},
		{"zero students", plan(`{"name": "kd", "regime": "kd", "students": 0.5, "stages_kwh": {"preprocess": 0.37, "teacher": 11, "student": 5.2, "eval": 0.33}}`), "options[1].students"},
		{"negative students", plan(`{"preset": "kd-1b", "students": -3}`), "options[1].students"},
		{"unknown baseline", `{"baseline": "sft-9b", "options": [` + sftOK + `]}`, "baseline"},
		{"baseline not sft", `{"baseline": "kd-1b", "options": [` + sftOK + `, {"preset": "kd-1b"}]}`, "baseline"},
		{"option baseline not sft", plan(`{"preset": "kd-1b"}`, `{"preset": "kd-13b", "baseline": "kd-1b"}`), "options[2].baseline"},
		{"share with unknown", plan(`{"name": "kd", "regime": "kd", "share_teacher_with": "kd-9", ` + measRest + `}`), "options[1].share_teacher_with"},
		{"share across regimes", plan(`{"preset": "synthetic-1b"}`, `{"name": "kd", "regime": "kd", "share_teacher_with": "synthetic-1b", `+measRest+`}`), "options[2].share_teacher_with"},
		{"share and own teacher", plan(`{"preset": "kd-1b"}`, `{"name": "kd", "regime": "kd", "share_teacher_with": "kd-1b", "stages_kwh": {"preprocess": 0.37, "teacher": 1, "student": 5.2, "eval": 0.33}}`), "options[2].stages_kwh.teacher"},
		{"share with self", plan(`{"name": "kd", "regime": "kd", "share_teacher_with": "kd", ` + measRest + `}`), "options[1].share_teacher_with"},
		{"students on a sharer", plan(`{"preset": "kd-1b"}`, `{"name": "kd", "regime": "kd", "students": 3, "share_teacher_with": "kd-1b", `+measRest+`}`), "options[2].students"},
		{"fewer students than sharers", plan(`{"preset": "kd-1b", "students": 1}`, `{"name": "kd", "regime": "kd", "share_teacher_with": "kd-1b", `+measRest+`}`), "options[1].students"},
		{"quality as text", plan(`{"preset": "kd-1b", "quality": "good"}`), "options[1].quality"},
		{"serving negative", plan(`{"preset": "kd-1b", "serving": {"j_ref": -1, "j_student": 0.5}}`), "options[1].serving.j_ref"},
		{"bad pue", `{"options": [` + sftOK + `], "site": {"pue": 0.5}}`, "site.pue"},
		{"unknown site field", `{"options": [` + sftOK + `], "site": {"pue": 1.2, "grid": 3}}`, "site.grid"},
		{"total and stages", plan(`{"name": "kd", "regime": "kd", "total_kwh": 10, ` + measRest + `}`), "options[1].stages_kwh"},
		{"stage tokens for estimated stage", plan(`{"name": "kd", "regime": "kd", "stages_kwh": {"preprocess": 0.37, "student": 5.2, "eval": 0.33}, "stage_tokens": {"teacher": 3e7}, ` + estTeacher + `}`), "options[1].stage_tokens.teacher"},
		// Estimated stages: errors carry the full path into the configuration.
		{"student tokens negative", plan(`{"name": "kd", "regime": "kd", "stages_kwh": {"preprocess": 0.37, "teacher": 11, "eval": 0.33}, "student": {"model": {"preset": "olmo-2-1b"}, "training": {"tokens": -5, "seq_len": 1024, "batch_per_gpu": 8, "precision": "bf16"}, "hardware": {"gpu": "h100", "count": 1}, "strategy": "single"}}`), "options[1].student.training.tokens"},
		{"student unknown deep field", plan(`{"name": "kd", "regime": "kd", "student": {"training": {"epochz": 2}}}`), "options[1].student.training.epochz"},
		{"student bad strategy field", plan(`{"name": "kd", "regime": "kd", "student": {"strategy": {"tensor": 2, "pipeline": 2}}}`), "options[1].student.strategy.pipeline"},
		{"student site", plan(`{"name": "kd", "regime": "kd", "stages_kwh": {"preprocess": 0.37, "teacher": 11, "eval": 0.33}, "student": {"model": {"preset": "olmo-2-1b"}, "training": {"tokens": 3e7, "seq_len": 1024, "batch_per_gpu": 8, "precision": "bf16"}, "hardware": {"gpu": "h100", "count": 1}, "strategy": "single", "site": {"pue": 1.1}}}`), "options[1].student.site"},
		{"student too big for one GPU", plan(`{"name": "kd", "regime": "kd", "stages_kwh": {"preprocess": 0.37, "teacher": 11, "eval": 0.33}, "student": {"model": {"preset": "olmo-2-13b"}, "training": {"tokens": 3e7, "seq_len": 1024, "batch_per_gpu": 8, "precision": "bf16"}, "hardware": {"gpu": "h100", "count": 1}, "strategy": "single"}}`), "options[1].student.hardware.count"},
		{"teacher unknown gpu", plan(`{"name": "kd", "regime": "kd", ` + measRest + `, "teacher": {"model": {"preset": "olmo-2-32b"}, "hardware": {"gpu": "h1000", "count": 1}, "tokens": 3e7, "seq_len": 1024}}`), "options[1].teacher.hardware.gpu"},
		{"teacher unknown model", plan(`{"name": "kd", "regime": "kd", ` + measRest + `, "teacher": {"model": {"preset": "olmo-3-32b"}, "hardware": {"gpu": "h100", "count": 1}, "tokens": 3e7, "seq_len": 1024}}`), "options[1].teacher.model.preset"},
		{"teacher does not fit", plan(`{"name": "kd", "regime": "kd", ` + measRest + `, "teacher": {"model": {"preset": "llama-3-70b"}, "hardware": {"gpu": "h100", "count": 1}, "tokens": 3e7, "seq_len": 1024}}`), "options[1].teacher.hardware.count"},
		{"teacher batch too big", plan(`{"name": "kd", "regime": "synthetic", ` + measRest + `, "teacher": {"model": {"preset": "olmo-2-32b"}, "hardware": {"gpu": "h100", "count": 1}, "prompts": 1000, "prompt_tokens": 256, "max_new_tokens": 1024, "batch": 512}}`), "options[1].teacher.batch"},
		{"kd teacher with prompts", plan(`{"name": "kd", "regime": "kd", ` + measRest + `, "teacher": {"model": {"preset": "olmo-2-32b"}, "hardware": {"gpu": "h100", "count": 1}, "prompts": 10, "prompt_tokens": 10, "max_new_tokens": 10}}`), "options[1].teacher.prompts"},
		{"synthetic teacher with tokens", plan(`{"name": "syn", "regime": "synthetic", ` + measRest + `, ` + estTeacher + `}`), "options[1].teacher.tokens"},
		{"teacher fp8 on a100", plan(`{"name": "kd", "regime": "kd", ` + measRest + `, "teacher": {"model": {"preset": "olmo-2-32b"}, "hardware": {"gpu": "a100", "count": 2}, "strategy": "tp", "precision": "fp8", "tokens": 3e7, "seq_len": 1024}}`), "options[1].teacher.precision"},
		{"teacher tp not dividing heads", plan(`{"name": "kd", "regime": "kd", ` + measRest + `, "teacher": {"model": {"preset": "olmo-2-32b"}, "hardware": {"gpu": "h100", "count": 3}, "strategy": "tp", "tokens": 3e7, "seq_len": 1024}}`), "options[1].teacher.hardware.count"},
		{"teacher strategy missing", plan(`{"name": "kd", "regime": "kd", ` + measRest + `, "teacher": {"model": {"preset": "olmo-2-32b"}, "hardware": {"gpu": "h100", "count": 2}, "tokens": 3e7, "seq_len": 1024}}`), "options[1].teacher.strategy"},
		{"teacher u_memory above 1", plan(`{"name": "kd", "regime": "kd", ` + measRest + `, "teacher": {"model": {"preset": "olmo-2-32b"}, "hardware": {"gpu": "h100", "count": 1}, "tokens": 3e7, "seq_len": 1024, "u_memory": 1.5}}`), "options[1].teacher.u_memory"},
		{"eval without model", plan(`{"name": "kd", "regime": "kd", "stages_kwh": {"preprocess": 0.37, "teacher": 11, "student": 5.2}, "eval": {"hardware": {"gpu": "h100", "count": 1}, "tokens": 1e6, "seq_len": 1024}}`), "options[1].eval.model"},
		{"eval without work", plan(`{"name": "kd", "regime": "kd", "stages_kwh": {"preprocess": 0.37, "teacher": 11}, ` + estStudent + `, "eval": {"hardware": {"gpu": "h100", "count": 1}}}`), "options[1].eval.tokens"},
		{"preprocess without tokens", plan(`{"name": "kd", "regime": "kd", "stages_kwh": {"teacher": 11, "student": 5.2, "eval": 0.33}, "preprocess": {"hardware": {"gpu": "h100", "count": 1}}}`), "options[1].preprocess.tokens"},
		{"prerun without times", plan(`{"name": "kd", "regime": "kd", "stages_kwh": {"preprocess": 0.37, "teacher": 11, "student": 5.2, "eval": 0.33}, "prerun": {"hardware": {"gpu": "h100", "count": 1}}}`), "options[1].prerun.idle_s"},
	}
	cat := catalog(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := distill.ParsePlan(strings.NewReader(tt.body))
			if err == nil {
				_, err = distill.Evaluate(cat, p)
			}
			fe := model.AsFieldError(err)
			if fe == nil || fe.Field != tt.field {
				t.Errorf("error = %v, want a field error on %q", err, tt.field)
			}
		})
	}
}

// TestGoValues checks the values a Go caller can build but JSON cannot carry.
func TestGoValues(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name  string
		p     distill.Plan
		field string
	}{
		{"NaN energy", distill.Plan{Options: []distill.Option{{Name: "s", Regime: "sft", StagesKWh: &distill.StageValues{Preprocess: f(0), Student: f(nan), Eval: f(0)}}}}, "options[0].stages_kwh.student"},
		{"infinite quality", distill.Plan{Options: []distill.Option{{Preset: "sft-1b", Quality: f(math.Inf(1))}}}, "options[0].quality"},
		{"quality 7 (a score runs from 0 to 1)", distill.Plan{Options: []distill.Option{{Preset: "sft-1b", Quality: f(7)}}}, "options[0].quality"},
		{"negative quality", distill.Plan{Options: []distill.Option{{Preset: "sft-1b", Quality: f(-0.1)}}}, "options[0].quality"},
		{"NaN students", distill.Plan{Options: []distill.Option{{Preset: "kd-1b", Students: nan}}}, "options[0].students"},
		{"a fraction of a token", distill.Plan{Options: []distill.Option{{Preset: "kd-1b", Tokens: 1e-300}}}, "options[0].tokens"},
		{"NaN serving", distill.Plan{Options: []distill.Option{{Preset: "kd-1b", Serving: &distill.Serving{JRef: nan}}}}, "options[0].serving.j_ref"},
		{"estimated without catalog", distill.Plan{Options: []distill.Option{{Name: "s", Regime: "sft", StagesKWh: &distill.StageValues{Preprocess: f(0), Eval: f(0)}, Student: &model.Request{}}}}, "options[0].student"},
	}
	for _, tt := range tests {
		_, err := distill.Evaluate(nil, tt.p)
		if fe := model.AsFieldError(err); fe == nil || fe.Field != tt.field {
			t.Errorf("%s: error = %v, want a field error on %q", tt.name, err, tt.field)
		}
	}
}

func TestStudentLargerThanTeacherWarns(t *testing.T) {
	body := plan(`{"name": "kd", "regime": "kd", "stages_kwh": {"preprocess": 0.37, "eval": 0.33}, ` + estStudent + `,
		"teacher": {"model": {"preset": "qwen2.5-0.5b"}, "hardware": {"gpu": "h100", "count": 1}, "tokens": 3e7, "seq_len": 1024}}`)
	p, err := distill.ParsePlan(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	r := evaluate(t, catalog(t), p)
	if !strings.Contains(strings.Join(r.Warnings, "\n"), "larger than the teacher") {
		t.Errorf("warnings %q lack the student-larger-than-teacher warning", r.Warnings)
	}
}

// TestPlanRoundTrip checks that a plan written as JSON parses back equal.
func TestPlanRoundTrip(t *testing.T) {
	p := presetPlan()
	p.Options = append(p.Options, distill.Option{Name: "kd-sweep", Regime: "kd", ShareTeacherWith: "kd-1b", Quality: f(0.7),
		StagesKWh: &distill.StageValues{Preprocess: f(0.37), Student: f(5), Eval: f(0.33)}, Serving: &distill.Serving{JRef: 1, JStudent: 0.2, ExtraTrainKWh: f(3)},
		Teacher: nil})
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	q, err := distill.ParsePlan(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("ParsePlan(Marshal(plan)) error: %v\n%s", err, b)
	}
	if !reflect.DeepEqual(p, q) {
		t.Errorf("round trip changed the plan:\n%+v\n%+v", p, q)
	}
}

func FuzzParsePlan(f *testing.F) {
	cat, err := contentCatalog()
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(`{"baseline": "sft-1b", "options": [{"name": "sft-1b", "regime": "sft", "stages_kwh": {"preprocess": 0.37, "student": 6.30, "eval": 0.33}, "quality": 0.69}, {"name": "kd-1b", "regime": "kd", "stages_kwh": {"preprocess": 0.37, "teacher": 11.00, "student": 5.20, "eval": 0.33}, "quality": 0.70}], "site": {"pue": 1.0, "carbon_g_per_kwh": 170}}`))
	f.Add([]byte(`{"options": [{"preset": "sft-13b"}, {"preset": "kd-13b", "students": 3, "serving": {"j_ref": 4, "j_student": 1}}, {"name": "x", "regime": "kd", "share_teacher_with": "kd-13b", "stages_kwh": {"preprocess": 0, "student": 20, "eval": 1}}, {"preset": "sft-7b"}]}`))
	f.Add([]byte(plan(`{"name": "syn", "regime": "synthetic", ` + measRest + `, "teacher": {"model": {"preset": "olmo-2-32b"}, "hardware": {"gpu": "h100", "count": 2}, "strategy": "tp", "prompts": 100, "prompt_tokens": 64, "max_new_tokens": 128}}`)))
	f.Add([]byte(plan(`{"name": "kd", "regime": "kd", "stages_kwh": {"preprocess": 0.37}, ` + estTeacher + `, ` + estStudent + `, "eval": {"hardware": {"gpu": "a100", "count": 1}, "tokens": 1e5, "seq_len": 512, "prompts": 10, "prompt_tokens": 100, "max_new_tokens": 100}, "prerun": {"hardware": {"gpu": "h100", "count": 1}, "idle_s": 60}}`)))
	// Case variants and duplicate keys (issue 29).
	f.Add([]byte(`{"OPTIONS": [{"preset": "sft-1b"}], "options": [{"preset": "kd-1b"}]}`))
	f.Add([]byte(`{"options": [{"preset": "sft-1b", "Preset": "kd-1b"}, {"preset": "kd-1b", "students": 2, "students": 3}]}`))
	f.Add([]byte(plan(`{"name": "kd", "regime": "kd", "stages_kwh": {"preprocess": 0.37, "Student": 1}, ` + estTeacher + `}`)))
	keys := keytest.New(reflect.TypeFor[distill.Plan]())
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := distill.ParsePlan(bytes.NewReader(body))
		if err != nil {
			if model.AsFieldError(err) == nil {
				t.Fatalf("ParsePlan error %v is not a *FieldError", err)
			}
			return
		}
		if bad := keys.Bad(body); bad != "" {
			t.Fatalf("ParsePlan accepted %s: %s", body, bad)
		}
		r, err := distill.Evaluate(cat, p)
		if err != nil {
			if model.AsFieldError(err) == nil {
				t.Fatalf("Evaluate error %v is not a *FieldError", err)
			}
			return
		}
		out, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("result does not encode (NaN or Inf?): %v", err)
		}
		for _, o := range r.Options {
			sum := 0.0
			for _, s := range o.Stages {
				if !(s.EnergyKWh >= 0) {
					t.Fatalf("stage %s of %s has energy %g", s.Stage, o.Name, s.EnergyKWh)
				}
				sum += s.EnergyKWh
			}
			if math.Abs(sum-o.TotalKWh) > 1e-9*math.Max(1, sum) {
				t.Fatalf("%s: stages sum to %g, total %g", o.Name, sum, o.TotalKWh)
			}
			if o.NStar != nil && !(*o.NStar >= 0) {
				t.Fatalf("%s: N* = %g", o.Name, *o.NStar)
			}
			if o.TStarTokens != nil && !(*o.TStarTokens >= 0) {
				t.Fatalf("%s: T* = %g", o.Name, *o.TStarTokens)
			}
		}
		// What evaluates also round-trips.
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		q, err := distill.ParsePlan(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("re-parsing %s: %v", b, err)
		}
		r2, err := distill.Evaluate(cat, q)
		if err != nil {
			t.Fatalf("re-evaluating %s: %v", b, err)
		}
		if out2, _ := json.Marshal(r2); !bytes.Equal(out, out2) {
			t.Fatalf("re-parsed plan gives a different result:\n%s\n%s", out, out2)
		}
	})
}
