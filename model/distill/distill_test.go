package distill_test

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/distill"
)

// catalog is the content catalog without a work budget: these tests check
// the searches of whole plans over the whole table, which the API's budget
// refuses (budget_test.go checks the budget).
func catalog(t testing.TB) *model.Catalog {
	t.Helper()
	c, err := content.Catalog()
	if err != nil {
		t.Fatalf("content.Catalog() error: %v", err)
	}
	c.WorkBudget = -1
	return c
}

func evaluate(t testing.TB, cat *model.Catalog, p distill.Plan) distill.Result {
	t.Helper()
	r, err := distill.Evaluate(cat, p)
	if err != nil {
		t.Fatalf("Evaluate error: %v", err)
	}
	return r
}

func option(t testing.TB, r distill.Result, name string) distill.OptionResult {
	t.Helper()
	for _, o := range r.Options {
		if o.Name == name {
			return o
		}
	}
	t.Fatalf("no option %q in the result", name)
	return distill.OptionResult{}
}

func relErr(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }

func f(x float64) *float64 { return &x }

// presetPlan lists every preset, each distilled one against the SFT of its
// own student size.
func presetPlan() distill.Plan {
	return distill.Plan{
		Baseline: "sft-1b",
		Options: []distill.Option{
			{Preset: "sft-1b"}, {Preset: "sft-7b"}, {Preset: "sft-13b"},
			{Preset: "kd-1b"}, {Preset: "kd-13b", Baseline: "sft-13b"},
			{Preset: "synthetic-1b"}, {Preset: "synthetic-13b", Baseline: "sft-13b"},
		},
		Site: model.SiteSpec{PUE: 1, CarbonGPerKWh: 170, USDPerKWh: 0.15},
	}
}

// TestPresetsReproducePaper checks the published numbers of Lambert &
// Luccioni (ICML 2026, arXiv 2605.13981) as transcribed in
// shared/reference/distillation.md section 5: the main-results totals and
// J/token, the one-off KD overhead at 1B, and N* recomputed from the stage
// table (the bracketed values of the N* table).
func TestPresetsReproducePaper(t *testing.T) {
	r := evaluate(t, nil, presetPlan())
	totals := map[string]float64{"sft-1b": 7.00, "sft-7b": 19.50, "sft-13b": 34.60, "kd-1b": 16.90, "kd-13b": 42.50, "synthetic-1b": 16.65, "synthetic-13b": 40.70}
	jTok := map[string]float64{"sft-1b": 0.84, "sft-7b": 2.34, "sft-13b": 4.15, "kd-1b": 2.03, "kd-13b": 5.10, "synthetic-13b": 4.88}
	for name, want := range totals {
		o := option(t, r, name)
		if relErr(o.TotalKWh, want) > 0.01 {
			t.Errorf("%s total = %.4g kWh, want %.4g (main-results table)", name, o.TotalKWh, want)
		}
		if w, ok := jTok[name]; ok && relErr(o.JPerToken, w) > 0.01 {
			t.Errorf("%s J/token = %.4g, want %.4g (main-results table)", name, o.JPerToken, w)
		}
	}
	if got := option(t, r, "kd-1b").OneOffKWh / option(t, r, "sft-1b").TotalKWh; relErr(got, 2.41) > 0.01 {
		t.Errorf("one-off KD 1B / SFT 1B = %.4g, want 2.41 (16.90 / 7.00)", got)
	}
	nstar := map[string]float64{"kd-1b": 10.0, "kd-13b": 3.55, "synthetic-1b": 11.2, "synthetic-13b": 2.36}
	for name, want := range nstar {
		o := option(t, r, name)
		if o.NStar == nil {
			t.Errorf("%s N* = null (%s), want %.3g", name, o.NStarReason, want)
			continue
		}
		if relErr(*o.NStar, want) > 0.01 {
			t.Errorf("%s N* = %.4g, want %.3g (N* table, recomputed from the stage table)", name, *o.NStar, want)
		}
	}
	// Design rule 1: at 7B and 13B, KD and synthetic SFT are Pareto-dominated by direct SFT.
	dom := map[string]string{}
	for _, d := range r.Dominated {
		dom[d.Name] = strings.Join(d.DominatedBy, ",")
	}
	for _, name := range []string{"kd-13b", "synthetic-13b"} {
		if !strings.Contains(dom[name], "sft-13b") {
			t.Errorf("%s dominated by %q, want sft-13b among them (design rule 1)", name, dom[name])
		}
	}
	if len(r.Advice) == 0 || !strings.Contains(strings.Join(r.Advice, "\n"), "2.41× sft-1b") {
		t.Errorf("advice %q does not state the 2.41× one-off overhead", r.Advice)
	}
}

// TestPresetTable checks that the transcribed stage rows add up to the
// published totals (the reference notes they do exactly).
func TestPresetTable(t *testing.T) {
	for _, p := range distill.Presets() {
		s := p.StagesKWh
		sum := 0.0
		for _, v := range []*float64{s.Prerun, s.Preprocess, s.Teacher, s.Student, s.Eval} {
			if v != nil {
				sum += *v
			}
		}
		if sum == 0 {
			if p.Name != "sft-7b" {
				t.Errorf("%s has no stages", p.Name)
			}
			continue
		}
		if math.Abs(sum-p.TotalKWh) > 1e-9 {
			t.Errorf("%s: stages sum to %.4f kWh, total %.4f", p.Name, sum, p.TotalKWh)
		}
		if (p.Regime == distill.RegimeSFT) != (s.Teacher == nil) {
			t.Errorf("%s: regime %s with teacher stage %v", p.Name, p.Regime, s.Teacher)
		}
	}
}

// randomPlan draws a measured plan: a few SFT baselines and distilled
// options, some sharing teacher stages, with random qualities.
func randomPlan(rng *rand.Rand) distill.Plan {
	p := distill.Plan{Site: model.SiteSpec{PUE: 1 + rng.Float64(), CarbonGPerKWh: 1 + rng.Float64()*800, USDPerKWh: 0.01 + rng.Float64()*0.5}}
	nSFT := 1 + rng.IntN(3)
	for i := 0; i < nSFT; i++ {
		p.Options = append(p.Options, distill.Option{Name: "sft" + string(rune('a'+i)), Regime: distill.RegimeSFT, Quality: f(rng.Float64()),
			StagesKWh: &distill.StageValues{Preprocess: f(rng.Float64()), Student: f(rng.Float64() * 40), Eval: f(rng.Float64() * 2)}})
	}
	nD := 1 + rng.IntN(6)
	for i := 0; i < nD; i++ {
		o := distill.Option{Name: "d" + string(rune('a'+i)), Regime: []string{distill.RegimeKD, distill.RegimeSynthetic}[rng.IntN(2)],
			Baseline:  p.Options[rng.IntN(nSFT)].Name,
			StagesKWh: &distill.StageValues{Preprocess: f(rng.Float64()), Student: f(rng.Float64() * 40), Eval: f(rng.Float64() * 2)}}
		if rng.IntN(4) > 0 {
			o.Quality = f(rng.Float64())
		}
		if rng.IntN(3) == 0 {
			o.StagesKWh.Prerun = f(rng.Float64() * 0.1)
		}
		// Share with an earlier option of the same regime that owns its teacher stage.
		owner := ""
		for j := nSFT; j < len(p.Options); j++ {
			q := p.Options[j]
			if q.Regime == o.Regime && q.ShareTeacherWith == "" && rng.IntN(2) == 0 {
				owner = q.Name
			}
		}
		if owner != "" {
			o.ShareTeacherWith = owner
		} else {
			o.StagesKWh.Teacher = f(rng.Float64() * 20)
		}
		if rng.IntN(3) == 0 {
			o.Serving = &distill.Serving{JRef: rng.Float64(), JStudent: rng.Float64()}
		}
		p.Options = append(p.Options, o)
	}
	return p
}

func TestInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 300; i++ {
		p := randomPlan(rng)
		r := evaluate(t, nil, p)
		planSum, teacherOnce := 0.0, 0.0
		for _, o := range r.Options {
			// Stages sum to totals; CO2e and cost follow the site figures.
			sum, co2, teacher := 0.0, 0.0, 0.0
			for _, s := range o.Stages {
				sum += s.EnergyKWh
				co2 += s.CO2eKg
				if s.Stage == distill.StageTeacher {
					teacher += s.EnergyKWh
				}
			}
			teacherOnce += teacher
			planSum += o.TotalKWh
			if math.Abs(sum-o.TotalKWh) > 1e-12*math.Max(1, sum) {
				t.Errorf("plan %d %s: stages sum to %.15g, total %.15g", i, o.Name, sum, o.TotalKWh)
			}
			if want := o.TotalKWh * p.Site.PUE * p.Site.CarbonGPerKWh / 1000; math.Abs(o.CO2eKg-want) > 1e-9*math.Max(1, want) || math.Abs(co2-o.CO2eKg) > 1e-9*math.Max(1, co2) {
				t.Errorf("plan %d %s: CO2e %.6g kg, stages %.6g, want %.6g", i, o.Name, o.CO2eKg, co2, want)
			}
			if o.OneOffKWh < o.TotalKWh || (o.TeacherSharedWith == "" && o.OneOffKWh != o.TotalKWh) {
				t.Errorf("plan %d %s: one-off %.6g, total %.6g, shared with %q", i, o.Name, o.OneOffKWh, o.TotalKWh, o.TeacherSharedWith)
			}
			if o.Regime == distill.RegimeSFT {
				if o.NStar != nil || o.Curve != nil {
					t.Errorf("plan %d %s: an sft option has N* %v or a curve", i, o.Name, o.NStar)
				}
				continue
			}
			// Ē(N) is the curve, decreasing in N while the teacher costs anything.
			if len(o.Curve) != distill.CurveMax {
				t.Fatalf("plan %d %s: curve has %d points, want %d", i, o.Name, len(o.Curve), distill.CurveMax)
			}
			for k, c := range o.Curve {
				if c.N != k+1 || math.Abs(c.KWhPerStudent-(o.TeacherKWh/float64(c.N)+o.StudentKWh)) > 1e-12*c.KWhPerStudent {
					t.Errorf("plan %d %s: curve point %+v, want Ē(%d) = %.6g", i, o.Name, c, k+1, o.TeacherKWh/float64(k+1)+o.StudentKWh)
				}
				if k > 0 && o.TeacherKWh > 0 && !(c.KWhPerStudent < o.Curve[k-1].KWhPerStudent) {
					t.Errorf("plan %d %s: Ē(%d) = %.6g not below Ē(%d) = %.6g", i, o.Name, c.N, c.KWhPerStudent, c.N-1, o.Curve[k-1].KWhPerStudent)
				}
			}
			// N* solves the break-even equation, or there is none and a reason.
			sft := *o.BaselineStudentKWh
			switch {
			case o.NStar != nil:
				n := *o.NStar
				if n < 0 || math.IsInf(n, 0) || math.IsNaN(n) {
					t.Errorf("plan %d %s: N* = %g", i, o.Name, n)
				}
				if n > 0 {
					if got := o.TeacherKWh/n + o.StudentKWh; math.Abs(got-sft) > 1e-9*sft {
						t.Errorf("plan %d %s: Ē(N* = %.6g) = %.12g, want E_SFT = %.12g", i, o.Name, n, got, sft)
					}
				}
			case o.StudentKWh < sft:
				t.Errorf("plan %d %s: no N* (%s) although the student is cheaper (%.6g < %.6g)", i, o.Name, o.NStarReason, o.StudentKWh, sft)
			case o.NStarReason == "":
				t.Errorf("plan %d %s: no N* and no reason", i, o.Name)
			}
			if o.TStarTokens == nil && o.TStarReason == "" {
				t.Errorf("plan %d %s: no T* and no reason", i, o.Name)
			}
		}
		if math.Abs(planSum-r.PlanTotalKWh) > 1e-9*math.Max(1, planSum) {
			t.Errorf("plan %d: plan total %.6g, sum of options %.6g", i, r.PlanTotalKWh, planSum)
		}
		// Every teacher stage given is counted exactly once in the plan.
		given := 0.0
		for _, o := range p.Options {
			if o.StagesKWh.Teacher != nil {
				given += *o.StagesKWh.Teacher
			}
		}
		if math.Abs(given-teacherOnce) > 1e-9*math.Max(1, given) {
			t.Errorf("plan %d: teacher stages in the result sum to %.6g, given %.6g", i, teacherOnce, given)
		}
		checkPareto(t, r)
	}
}

// checkPareto checks that the Pareto set holds no dominated point, that
// every option with a quality is either efficient or listed as dominated by
// options that really dominate it.
func checkPareto(t *testing.T, r distill.Result) {
	t.Helper()
	pts := map[string]distill.Point{}
	for _, o := range r.Options {
		if o.Quality != nil {
			pts[o.Name] = distill.Point{Name: o.Name, EnergyKWh: o.OneOffKWh, Quality: *o.Quality}
		}
	}
	dominates := func(a, b distill.Point) bool {
		return a.EnergyKWh <= b.EnergyKWh && a.Quality >= b.Quality && (a.EnergyKWh < b.EnergyKWh || a.Quality > b.Quality)
	}
	for _, p := range r.Pareto {
		for _, q := range pts {
			if dominates(q, p) {
				t.Errorf("Pareto point %+v is dominated by %+v", p, q)
			}
		}
	}
	for _, d := range r.Dominated {
		for _, by := range d.DominatedBy {
			if !dominates(pts[by], pts[d.Name]) {
				t.Errorf("%s listed as dominated by %s: %+v vs %+v", d.Name, by, pts[d.Name], pts[by])
			}
		}
	}
	if len(r.Pareto)+len(r.Dominated) != len(pts) {
		t.Errorf("Pareto %d + dominated %d != %d points with a quality", len(r.Pareto), len(r.Dominated), len(pts))
	}
	for i := 1; i < len(r.Pareto); i++ {
		if r.Pareto[i].EnergyKWh < r.Pareto[i-1].EnergyKWh {
			t.Errorf("Pareto set not in order of energy: %+v", r.Pareto)
		}
	}
}

func TestNStarAndTStar(t *testing.T) {
	tests := []struct {
		name                  string
		teacher, sft, student float64
		want                  float64
		ok                    bool
	}{
		{"kd 1B, stage table", 11.00, 6.30, 5.20, 10.0, true},
		{"student not cheaper", 11, 5, 5, 0, false},
		{"student dearer", 11, 5, 6, 0, false},
		{"free teacher", 0, 6, 5, 0, true},
	}
	for _, tt := range tests {
		got, ok := distill.NStar(tt.teacher, tt.sft, tt.student)
		if ok != tt.ok || math.Abs(got-tt.want) > 1e-12*math.Max(1, tt.want) {
			t.Errorf("%s: NStar(%g, %g, %g) = %g, %v; want %g, %v", tt.name, tt.teacher, tt.sft, tt.student, got, ok, tt.want, tt.ok)
		}
	}
	// 10 kWh repaid at 0.5 J/token saved: 10·3.6e6/0.5 = 7.2e7 tokens.
	if got, ok := distill.TStar(10, 1.0, 0.5); !ok || math.Abs(got-7.2e7) > 1e-3 {
		t.Errorf("TStar(10, 1, 0.5) = %g, %v; want 7.2e7", got, ok)
	}
	for _, j := range [][2]float64{{0.5, 0.5}, {0.4, 0.5}} {
		if got, ok := distill.TStar(10, j[0], j[1]); ok || got != 0 {
			t.Errorf("TStar(10, %g, %g) = %g, %v; want no break-even", j[0], j[1], got, ok)
		}
	}
}

func TestSharedTeacher(t *testing.T) {
	p := distill.Plan{
		Options: []distill.Option{
			{Preset: "sft-1b"},
			{Preset: "kd-1b", Students: 4},
			{Name: "kd-1b-alpha-0.9", Regime: "kd", ShareTeacherWith: "kd-1b", Quality: f(0.71),
				StagesKWh: &distill.StageValues{Preprocess: f(0.37), Student: f(5.0), Eval: f(0.33)}},
		},
		Site: model.SiteSpec{PUE: 1.2, CarbonGPerKWh: 100, USDPerKWh: 0.1},
	}
	r := evaluate(t, nil, p)
	owner, sharer := option(t, r, "kd-1b"), option(t, r, "kd-1b-alpha-0.9")
	if sharer.TotalKWh != 0.37+5.0+0.33 || sharer.OneOffKWh != sharer.TotalKWh+11 || sharer.TeacherKWh != 11 {
		t.Errorf("sharer total %.4g, one-off %.4g, teacher %.4g; want 5.70, 16.70, 11", sharer.TotalKWh, sharer.OneOffKWh, sharer.TeacherKWh)
	}
	if want := 7.00 + 16.90 + 5.70; math.Abs(r.PlanTotalKWh-want) > 1e-9 {
		t.Errorf("plan total %.6g, want %.6g (teacher counted once)", r.PlanTotalKWh, want)
	}
	if owner.Students != 4 || sharer.Students != 4 || math.Abs(owner.KWhPerStudent-(11.0/4+5.2)) > 1e-12 {
		t.Errorf("students %d/%d, Ē(4) = %.6g; want 4 and %.6g", owner.Students, sharer.Students, owner.KWhPerStudent, 11.0/4+5.2)
	}
	if sharer.NStar == nil || math.Abs(*sharer.NStar-11/1.3) > 1e-9 {
		t.Errorf("sharer N* = %v, want %.6g", sharer.NStar, 11/1.3)
	}
	// Without students the group size is the default.
	p.Options[1].Students = 0
	if got := option(t, evaluate(t, nil, p), "kd-1b").Students; got != 2 {
		t.Errorf("default students = %d, want 2 (the owner and one sharer)", got)
	}
}

func TestServing(t *testing.T) {
	p := distill.Plan{Options: []distill.Option{
		{Preset: "sft-1b"},
		{Preset: "kd-1b", Serving: &distill.Serving{JRef: 2.0, JStudent: 0.5}},
		{Preset: "synthetic-1b", Serving: &distill.Serving{JRef: 0.5, JStudent: 0.5, ExtraTrainKWh: f(3)}},
	}}
	r := evaluate(t, nil, p)
	kd := option(t, r, "kd-1b")
	if kd.TStarTokens == nil || relErr(*kd.TStarTokens, 16.90*3.6e6/1.5) > 1e-12 {
		t.Errorf("kd-1b T* = %v, want %.6g", kd.TStarTokens, 16.90*3.6e6/1.5)
	}
	syn := option(t, r, "synthetic-1b")
	if syn.TStarTokens != nil || !strings.Contains(syn.TStarReason, "never repays") {
		t.Errorf("synthetic-1b T* = %v (%q), want null with a reason", syn.TStarTokens, syn.TStarReason)
	}
	if sft := option(t, r, "sft-1b"); sft.TStarTokens != nil || sft.TStarReason == "" {
		t.Errorf("sft-1b without serving: T* %v, reason %q", sft.TStarTokens, sft.TStarReason)
	}
}

func TestNeverBreaksEven(t *testing.T) {
	p := distill.Plan{Options: []distill.Option{
		{Name: "sft", Regime: "sft", StagesKWh: &distill.StageValues{Preprocess: f(0), Student: f(5), Eval: f(0)}},
		{Name: "kd", Regime: "kd", StagesKWh: &distill.StageValues{Preprocess: f(0), Teacher: f(3), Student: f(6), Eval: f(0)}},
	}}
	o := option(t, evaluate(t, nil, p), "kd")
	if o.NStar != nil || !strings.Contains(o.NStarReason, "never breaks even") {
		t.Errorf("N* = %v, reason %q; want null and a never-breaks-even reason", o.NStar, o.NStarReason)
	}
}

// TestExamplePlans evaluates every content/examples/plan-*.json.
func TestExamplePlans(t *testing.T) {
	cat := catalog(t)
	files, _ := filepath.Glob("../../content/examples/plan-*.json")
	if len(files) < 3 {
		t.Fatalf("found %d example plans, want at least 3", len(files))
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			fh, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer fh.Close()
			p, err := distill.ParsePlan(fh)
			if err != nil {
				t.Fatalf("ParsePlan: %v", err)
			}
			r := evaluate(t, cat, p)
			if len(r.Advice) == 0 {
				t.Errorf("no advice")
			}
		})
	}
}

func contentCatalog() (*model.Catalog, error) { return content.Catalog() }

// TestTinyOrFractionalBreakEven: a positive measured stage energy too small
// to be a measurement (1e-300 kWh) is refused with its field, and an N*
// below one is advised as "from the first student", not as a fraction of a
// student.
func TestTinyOrFractionalBreakEven(t *testing.T) {
	cat := catalog(t)
	plan := func(teacher string) string {
		return `{"baseline": "sft", "options": [
  {"name": "sft", "regime": "sft", "stages_kwh": {"preprocess": 0.37, "student": 6.30, "eval": 0.33}},
  {"name": "kd", "regime": "kd", "stages_kwh": {"preprocess": 0.37, "teacher": ` + teacher + `, "student": 5.20, "eval": 0.33}}]}`
	}
	for _, teacher := range []string{"1e-300", "5e-324", "9.9e-7"} {
		p, err := distill.ParsePlan(strings.NewReader(plan(teacher)))
		if err == nil {
			_, err = distill.Evaluate(cat, p)
		}
		fe := model.AsFieldError(err)
		if fe == nil || fe.Field != "options[1].stages_kwh.teacher" || !strings.Contains(fe.Message, "must be 0 or from 1e-06") {
			t.Errorf("teacher %s kWh: error %v, want a field error on options[1].stages_kwh.teacher", teacher, err)
		}
	}
	for _, teacher := range []string{"0", "1e-6", "0.55"} {
		p, err := distill.ParsePlan(strings.NewReader(plan(teacher)))
		if err != nil {
			t.Fatal(err)
		}
		r := evaluate(t, cat, p)
		kd := option(t, r, "kd")
		if kd.NStar == nil || *kd.NStar >= 1 {
			t.Fatalf("teacher %s kWh: N* = %v, want below 1", teacher, kd.NStar)
		}
		advice := strings.Join(r.Advice, "\n")
		if !strings.Contains(advice, "kd uses less energy than sft from the first student") || strings.Contains(advice, "breaks even with sft at N*") {
			t.Errorf("teacher %s kWh: advice should say the first student already saves:\n%s", teacher, advice)
		}
	}
}
