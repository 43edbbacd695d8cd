package distill_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/distill"
	"github.com/wattscale/wattscale/model/internal/keytest"
)

func paperEstimatedPlan(t testing.TB) distill.Plan {
	t.Helper()
	raw, err := os.ReadFile("../../content/examples/plan-paper-estimated.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := distill.ParsePlan(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func recStage(t testing.TB, r distill.Recommendation, path string) distill.StageRecommendation {
	t.Helper()
	for _, s := range r.Stages {
		if s.Path == path {
			return s
		}
	}
	t.Fatalf("no stage %s in the recommendation", path)
	return distill.StageRecommendation{}
}

// TestRecommendPerStageIsTheSingleRecommender: each student stage's answer
// is model.Catalog.Recommend's on that stage's own request (its model and
// training as the workload, its hardware and strategy as current, the
// plan's site), with the per-stage override where one is given.
func TestRecommendPerStageIsTheSingleRecommender(t *testing.T) {
	cat := catalog(t)
	p := paperEstimatedPlan(t)
	cands := []model.Candidate{{GPU: "h100-sxm5", MaxCount: 8}, {GPU: "a100-sxm4-80gb", MaxCount: 8}, {GPU: "a40", MaxCount: 4}}
	deadline := 7200.0
	req := distill.RecommendRequest{Plan: p, Candidates: cands, Minimise: "energy",
		Stages: []distill.StageSearch{{Option: "kd-1b", Stage: "student", Candidates: cands[:1], DeadlineS: &deadline, Minimise: "time"}}}
	got, err := distill.Recommend(cat, req)
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range p.Options {
		s := o.Student
		want := model.RecommendRequest{Workload: model.Workload{Model: s.Model, Training: s.Training}, Candidates: cands, Minimise: "energy",
			Current: &model.Current{Hardware: s.Hardware, Strategy: s.Strategy}, Site: p.Site}
		if o.Name == "kd-1b" {
			want.Candidates, want.DeadlineS, want.Minimise = cands[:1], deadline, "time"
		}
		single, err := cat.Recommend(want)
		if err != nil {
			t.Fatal(err)
		}
		st := recStage(t, got, "options["+string(rune('0'+i))+"].student")
		if st.Reason != "" {
			t.Fatalf("%s: not searched: %s", st.Path, st.Reason)
		}
		if st.Best.EnergyKWh != single.Best.EnergyKWh || st.Best.Hardware != single.Best.Hardware || !reflect.DeepEqual(st.Best.Strategy, single.Best.Strategy) {
			t.Errorf("%s best: %+v %.6g kWh, single recommender %+v %.6g kWh", st.Path, st.Best.Hardware, st.Best.EnergyKWh, single.Best.Hardware, single.Best.EnergyKWh)
		}
		if len(st.Pareto) != len(single.Pareto) || st.Searched != single.Searched || st.Feasible != single.Feasible || st.Minimise != single.Minimise {
			t.Errorf("%s: pareto %d, searched %d, feasible %d, minimise %s; single recommender %d, %d, %d, %s", st.Path, len(st.Pareto), st.Searched, st.Feasible, st.Minimise,
				len(single.Pareto), single.Searched, single.Feasible, single.Minimise)
		}
		for j := range st.Pareto {
			if j < len(single.Pareto) && st.Pareto[j].EnergyKWh != single.Pareto[j].EnergyKWh {
				t.Errorf("%s pareto[%d]: %.6g kWh, single recommender %.6g", st.Path, j, st.Pareto[j].EnergyKWh, single.Pareto[j].EnergyKWh)
			}
		}
		if st.Current.EnergyKWh != single.Current.EnergyKWh || *st.Saving != *single.Saving {
			t.Errorf("%s current/saving %.6g/%+v, single recommender %.6g/%+v", st.Path, st.Current.EnergyKWh, *st.Saving, single.Current.EnergyKWh, *single.Saving)
		}
		// The plan's own student stage is the current configuration.
		r := evaluate(t, cat, p)
		for _, sr := range option(t, r, o.Name).Stages {
			if sr.Stage == distill.StageStudent && math.Abs(sr.EnergyKWh-st.Current.EnergyKWh) > 1e-12*sr.EnergyKWh {
				t.Errorf("%s: current %.9g kWh, the plan's student stage %.9g kWh", st.Path, st.Current.EnergyKWh, sr.EnergyKWh)
			}
		}
	}
}

// TestRecommendPlanTotalNeverRises: minimising energy with no deadline,
// the plan with every searched stage at its best never exceeds the plan as
// given, and the saving is the difference; a teacher stage's best, put
// back into the plan, gives the energy the recommender reported.
func TestRecommendPlanTotalNeverRises(t *testing.T) {
	cat := catalog(t)
	p := paperEstimatedPlan(t)
	for _, cands := range [][]model.Candidate{nil, {{GPU: "h100-sxm5", MaxCount: 8}}, {{GPU: "a100-sxm4-40gb", MaxCount: 2}, {GPU: "rtx-4090", MaxCount: 4}}} {
		r, err := distill.Recommend(cat, distill.RecommendRequest{Plan: p, Candidates: cands})
		if err != nil {
			t.Fatal(err)
		}
		if !(r.PlanTotalBestKWh <= r.PlanTotalKWh) || r.Saving.EnergyKWh < 0 {
			t.Errorf("candidates %v: plan at best %.6g kWh, as given %.6g kWh", cands, r.PlanTotalBestKWh, r.PlanTotalKWh)
		}
		if d := r.PlanTotalKWh - r.PlanTotalBestKWh - r.Saving.EnergyKWh; math.Abs(d) > 1e-9*r.PlanTotalKWh {
			t.Errorf("candidates %v: saving %.6g kWh, totals differ by %.6g", cands, r.Saving.EnergyKWh, r.PlanTotalKWh-r.PlanTotalBestKWh)
		}
		if r.PlanTotalKWh != evaluate(t, cat, p).PlanTotalKWh {
			t.Errorf("plan total %.6g, Evaluate's %.6g", r.PlanTotalKWh, evaluate(t, cat, p).PlanTotalKWh)
		}
	}
	r, err := distill.Recommend(cat, distill.RecommendRequest{Plan: p})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"options[1].teacher", "options[2].teacher", "options[0].eval"} {
		st := recStage(t, r, path)
		if st.Best == nil || st.Best.Inference == nil || len(st.Pareto) == 0 {
			t.Fatalf("%s: no best inference configuration (%s)", path, st.Reason)
		}
		if st.Best.EnergyKWh > st.Current.EnergyKWh {
			t.Errorf("%s: best %.6g kWh above the current %.6g kWh, which the search includes", path, st.Best.EnergyKWh, st.Current.EnergyKWh)
		}
		for j := 1; j < len(st.Pareto); j++ {
			if !(st.Pareto[j].TimeS >= st.Pareto[j-1].TimeS && st.Pareto[j].EnergyKWh < st.Pareto[j-1].EnergyKWh) {
				t.Errorf("%s: pareto not sorted by time with falling energy at %d", path, j)
			}
		}
		q := paperEstimatedPlan(t)
		i := int(path[len("options[")] - '0')
		if strings.HasSuffix(path, "teacher") {
			q.Options[i].Teacher = st.Best.Inference
		} else {
			q.Options[i].Eval = st.Best.Inference
		}
		for _, sr := range evaluate(t, cat, q).Options[i].Stages {
			if path == "options["+string(rune('0'+i))+"]."+sr.Stage && math.Abs(sr.EnergyKWh-st.Best.EnergyKWh) > 1e-12*sr.EnergyKWh {
				t.Errorf("%s: best put back into the plan gives %.9g kWh, recommended %.9g kWh", path, sr.EnergyKWh, st.Best.EnergyKWh)
			}
		}
	}
	for _, path := range []string{"options[0].preprocess", "options[1].preprocess"} {
		if st := recStage(t, r, path); st.Reason == "" || st.Best != nil {
			t.Errorf("%s: searched (best %v), want a reason why preprocessing is not", path, st.Best)
		}
	}
}

// TestRecommendMeasuredStagesSaySo: a plan of measured or preset stages
// has nothing to search; each stage says why, and the totals agree.
func TestRecommendMeasuredStagesSaySo(t *testing.T) {
	cat := catalog(t)
	p, err := distill.ParsePlan(strings.NewReader(`{"options":[{"preset":"sft-1b"},{"preset":"kd-1b"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := distill.Recommend(cat, distill.RecommendRequest{Plan: p})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Stages) == 0 {
		t.Fatal("no stages listed")
	}
	for _, s := range r.Stages {
		if s.Reason == "" || s.Best != nil || s.Searched != 0 {
			t.Errorf("%s: reason %q, best %v, searched %d; want a reason and no search", s.Path, s.Reason, s.Best, s.Searched)
		}
	}
	if r.PlanTotalBestKWh != r.PlanTotalKWh || r.Saving.EnergyKWh != 0 {
		t.Errorf("plan at best %.6g kWh, as given %.6g kWh, with nothing searched", r.PlanTotalBestKWh, r.PlanTotalKWh)
	}
}

// TestRecommendPlanErrors: bad input is a field error on the request's
// path: candidates where they were given (naming the stage searched), the
// plan's own fields under plan., per-stage overrides under stages[K].
func TestRecommendPlanErrors(t *testing.T) {
	cat := catalog(t)
	raw, err := os.ReadFile("../../content/examples/plan-paper-estimated.json")
	if err != nil {
		t.Fatal(err)
	}
	plan := string(raw)
	for _, c := range []struct {
		body, field, msg string
	}{
		{`{"plan": PLAN, "candidates": [{"gpu": "h100-sxm5-8gb"}]}`, "candidates[0].gpu", "options[0].student"},
		{`{"plan": PLAN, "candidates": []}`, "candidates", "options[0].student"},
		{`{"plan": PLAN, "stages": [{"option": "kd-1b", "stage": "student", "candidates": [{"gpu": "nope"}]}]}`, "stages[0].candidates[0].gpu", "options[1].student"},
		{`{"plan": PLAN, "stages": [{"option": "kd-1b", "stage": "teacher", "candidates": [{"gpu": "h100-sxm5", "max_count": 0.5}]}]}`, "stages[0].candidates[0].max_count", ""},
		{`{"plan": PLAN, "stages": [{"option": "kd-1b", "stage": "teacher", "minimise": "joy"}]}`, "stages[0].minimise", ""},
		{`{"plan": PLAN, "stages": [{"option": "kd-1b", "stage": "student", "deadline_s": -1}]}`, "stages[0].deadline_s", "options[1].student"},
		{`{"plan": PLAN, "stages": [{"option": "kd-2b", "stage": "student"}]}`, "stages[0].option", "sft-1b, kd-1b, synthetic-1b"},
		{`{"plan": PLAN, "stages": [{"option": "kd-1b", "stage": "preprocess"}]}`, "stages[0].stage", ""},
		{`{"plan": PLAN, "stages": [{"option": "kd-1b", "stage": "student", "candidatez": []}]}`, "stages[0].candidatez", ""},
		{`{"plan": {"options": [{"preset": "kd-9b"}]}}`, "plan.options[0].preset", ""},
		{`{"candidates": []}`, "plan", ""},
	} {
		body := strings.Replace(c.body, "PLAN", plan, 1)
		req, err := distill.ParseRecommendRequest(strings.NewReader(body))
		if err == nil {
			_, err = distill.Recommend(cat, req)
		}
		fe := model.AsFieldError(err)
		if fe == nil || fe.Field != c.field || !strings.Contains(fe.Error(), c.msg) {
			t.Errorf("%.90s…: error %v, want one on %s mentioning %q", c.body, err, c.field, c.msg)
		}
	}
}

// TestRecommendJSON: the answer encodes every stage with the shapes of
// /api/v1/recommend (best, pareto, current, saving, warnings).
func TestRecommendJSON(t *testing.T) {
	cat := catalog(t)
	r, err := distill.Recommend(cat, distill.RecommendRequest{Plan: paperEstimatedPlan(t), Candidates: []model.Candidate{{GPU: "h100-sxm5", MaxCount: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	json.Unmarshal(b, &back)
	for _, k := range []string{"stages", "plan_total_kwh", "plan_total_best_kwh", "saving", "warnings", "assumptions"} {
		if _, ok := back[k]; !ok {
			t.Errorf("answer lacks %s", k)
		}
	}
	st := back["stages"].([]any)[2].(map[string]any) // options[0].student
	for _, k := range []string{"best", "pareto", "current", "saving", "warnings", "fastest"} {
		if _, ok := st[k]; !ok {
			t.Errorf("stage %v lacks %s", st["path"], k)
		}
	}
}

// FuzzParseRecommendPlan: any body gives a per-stage recommendation or a
// *model.FieldError, never a panic; an answer encodes as JSON and its plan
// total at best never exceeds the plan's when minimising energy with no
// deadline.
func FuzzParseRecommendPlan(f *testing.F) {
	cat, err := contentCatalog()
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(`{"plan": {"options": [{"preset": "sft-1b"}, {"preset": "kd-1b"}]}}`))
	f.Add([]byte(`{"plan": {"options": [{"name": "s", "regime": "sft", "stages_kwh": {"preprocess": 0.3, "eval": 0.2}, "student": {"model": {"preset": "bert-base"}, "training": {"tokens": 1e7, "seq_len": 128, "batch_per_gpu": 8, "method": "lora"}, "hardware": {"gpu": "t4", "count": 1}, "strategy": "single"}}]}, "candidates": [{"gpu": "t4", "max_count": 4}, {"gpu": "a10", "max_count": 2}], "minimise": "cost"}`))
	f.Add([]byte(`{"plan": {"options": [{"name": "kd", "regime": "kd", "stages_kwh": {"preprocess": 0.3, "student": 2, "eval": 0.2}, "teacher": {"model": {"preset": "olmo-2-7b"}, "hardware": {"gpu": "a100", "count": 1}, "tokens": 1e6, "seq_len": 512}}]}, "stages": [{"option": "kd", "stage": "teacher", "candidates": [{"gpu": "h100", "max_count": 4}], "deadline_s": 60}]}`))
	f.Add([]byte(`{"plan": {"options": []}, "stages": [{"option": "x", "stage": "student", "deadline_s": -1}]}`))
	f.Add([]byte(`{"plan": {"options": [{"preset": "sft-1b"}]}, "PLAN": {"options": []}, "minimise": "cost", "minimise": "energy"}`))
	f.Add([]byte(`{"plan": {"options": [{"preset": "kd-1b"}]}, "stages": [{"option": "kd-1b", "stage": "teacher", "Stage": "student", "candidates": [{"gpu": "h100", "GPU": "t4"}]}]}`))
	keys := keytest.New(reflect.TypeFor[distill.RecommendRequest]())
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := distill.ParseRecommendRequest(bytes.NewReader(body))
		if err != nil {
			if model.AsFieldError(err) == nil {
				t.Fatalf("ParseRecommendRequest error %v is not a *FieldError", err)
			}
			return
		}
		if bad := keys.Bad(body); bad != "" {
			t.Fatalf("ParseRecommendRequest accepted %s: %s", body, bad)
		}
		r, err := distill.Recommend(cat, req)
		if err != nil {
			if model.AsFieldError(err) == nil {
				t.Fatalf("Recommend error %v is not a *FieldError", err)
			}
			return
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("answer does not encode: %v", err)
		}
		energy := req.Minimise == "" || strings.EqualFold(strings.TrimSpace(req.Minimise), "energy")
		if energy && req.DeadlineS == 0 && len(req.Stages) == 0 && r.PlanTotalBestKWh > r.PlanTotalKWh*(1+1e-12) {
			t.Fatalf("plan at best %.6g kWh above the plan's %.6g kWh", r.PlanTotalBestKWh, r.PlanTotalKWh)
		}
	})
}

// TestRecommendPlanChecksEveryDeadline: a bad deadline_s or minimise is an
// error even where no stage is searched (a measured plan; a stage override
// on a measured stage), not accepted silently.
func TestRecommendPlanChecksEveryDeadline(t *testing.T) {
	cat := catalog(t)
	measured := `{"options": [` + sftOK + `]}`
	for _, tt := range []struct{ body, field string }{
		{`{"plan": ` + measured + `, "deadline_s": -1}`, "deadline_s"},
		{`{"plan": ` + measured + `, "deadline_s": 1e300}`, "deadline_s"},
		{`{"plan": ` + measured + `, "minimise": "joy"}`, "minimise"},
		{`{"plan": ` + measured + `, "stages": [{"option": "sft", "stage": "student", "deadline_s": -5}]}`, "stages[0].deadline_s"},
		{`{"plan": ` + measured + `, "stages": [{"option": "sft", "stage": "eval", "minimise": "speed"}]}`, "stages[0].minimise"},
	} {
		req, err := distill.ParseRecommendRequest(strings.NewReader(tt.body))
		if err == nil {
			_, err = distill.Recommend(cat, req)
		}
		if fe := model.AsFieldError(err); fe == nil || fe.Field != tt.field {
			t.Errorf("%s: %v, want an error on %s", tt.body, err, tt.field)
		}
	}
	req, err := distill.ParseRecommendRequest(strings.NewReader(`{"plan": ` + measured + `, "deadline_s": 3600, "stages": [{"option": "sft", "stage": "student", "deadline_s": 0}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := distill.Recommend(cat, req); err != nil {
		t.Errorf("good deadlines on a measured plan: %v", err)
	}
}

// TestStageCandidatesAreTheRecommendersRules: an inference stage's
// candidates are checked by model.CheckCandidates, the recommender's own
// rules and words (a GPU named twice says which candidate named it first).
func TestStageCandidatesAreTheRecommendersRules(t *testing.T) {
	cat := catalog(t)
	p := paperEstimatedPlan(t)
	cands := []model.Candidate{{GPU: "h100-sxm5"}, {GPU: "H100-SXM5"}}
	_, want := cat.Recommend(model.RecommendRequest{Workload: model.Workload{Model: p.Options[1].Student.Model, Training: p.Options[1].Student.Training}, Candidates: cands})
	var teacher string
	for _, o := range p.Options {
		if o.Teacher != nil {
			teacher = o.Name
			break
		}
	}
	if teacher == "" {
		t.Fatal("the example plan has no estimated teacher stage")
	}
	_, err := distill.Recommend(cat, distill.RecommendRequest{Plan: p, Stages: []distill.StageSearch{{Option: teacher, Stage: "teacher", Candidates: cands}}})
	fe, wfe := model.AsFieldError(err), model.AsFieldError(want)
	if fe == nil || wfe == nil || fe.Code != model.CodeGPUAgain || wfe.Code != model.CodeGPUAgain {
		t.Fatalf("stage search: %v; recommender: %v; want both %s", err, want, model.CodeGPUAgain)
	}
	if fe.Field != "stages[0].candidates[1].gpu" || !strings.Contains(fe.Message, "already stages[0].candidates[0]") {
		t.Errorf("stage search: %v; want it on stages[0].candidates[1].gpu, naming the first", err)
	}
}
