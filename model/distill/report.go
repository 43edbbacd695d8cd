package distill

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/wattscale/wattscale/model"
)

// result assembles the Result from resolved options.
func (ev *evaluation) result() Result {
	r := Result{Version: APIVersion, Site: ev.site, Options: make([]OptionResult, len(ev.opts)),
		Pareto: []Point{}, Dominated: []Dominated{}, Advice: []string{}}
	ev.assumeOnce("N* and Ē(N) = E_teacher/N + E_student compare student stages only: preprocessing and evaluation appear in both pipelines and cancel (paper section 4)")
	for i, o := range ev.opts {
		ev.optionResult(o, &r.Options[i])
		r.PlanTotalKWh += r.Options[i].TotalKWh
		for _, st := range r.Options[i].Stages {
			lo, hi := stageEnds(st)
			r.PlanTotalIntervalKWh[0] += lo
			r.PlanTotalIntervalKWh[1] += hi
		}
		r.PlanCO2eKg += r.Options[i].CO2eKg
		r.PlanCostUSD += r.Options[i].CostUSD
	}
	if ev.planBase != nil {
		r.Baseline = ev.planBase.name
	}
	ev.pareto(&r)
	r.Advice = append(r.Advice, ev.advice(&r)...)
	r.WarningMessages = append([]model.Message{}, ev.warn...)
	r.Warnings = model.MessageTexts(r.WarningMessages)
	r.Assumptions = append([]string{}, ev.assume...)
	return r
}

func (ev *evaluation) optionResult(o *opt, or *OptionResult) {
	*or = OptionResult{Name: o.name, Regime: o.regime, Stages: o.stages, Students: 1}
	if o.quality != nil {
		q := *o.quality // a copy: the result does not alias the plan or the presets
		or.Quality = &q
	}
	var srcs []string
	for _, s := range []string{SourceMeasured, SourcePreset, SourceEstimated} {
		if o.sources.has(s) {
			srcs = append(srcs, s)
		}
	}
	switch {
	case len(srcs) == 1 && srcs[0] == SourcePreset:
		or.Source = "preset " + o.preset.Name
	case len(srcs) == 1:
		or.Source = srcs[0]
	default:
		or.Source = "mixed"
	}
	timed := true
	for _, st := range o.stages {
		or.TotalKWh += st.EnergyKWh
		or.CO2eKg += st.CO2eKg
		or.CostUSD += st.CostUSD
		or.TimeS += st.TimeS
		if st.TimeS == 0 && st.Source != SourceShared {
			timed = false
		}
	}
	if !timed {
		or.TimeS = 0
	}
	or.OneOffKWh = or.TotalKWh
	for _, st := range o.stages {
		lo, hi := stageEnds(st)
		or.OneOffIntervalKWh[0] += lo
		or.OneOffIntervalKWh[1] += hi
	}
	if o.owner != nil {
		or.TeacherSharedWith = o.owner.name
		or.OneOffKWh += o.owner.ownTeacherKWh
		or.OneOffIntervalKWh[0] += o.owner.ownTeacherEnds[0]
		or.OneOffIntervalKWh[1] += o.owner.ownTeacherEnds[1]
	}
	or.Tokens = o.tokens
	if or.Tokens == 0 && !o.unsplit {
		for _, st := range o.stages {
			if st.Stage == StageStudent {
				or.Tokens = st.Tokens
			}
		}
	}
	if or.Tokens > 0 {
		or.JPerToken = or.OneOffKWh * 3.6e6 / or.Tokens
	}
	if o.baseline != nil {
		or.Baseline = o.baseline.name
	}
	if !o.unsplit {
		or.TeacherKWh, or.StudentKWh = o.teacherKWh(), o.studentKWh
		or.KWhPerStudent = o.studentKWh
	}
	ev.amortise(o, or)
	ev.serving(o, or)
}

// amortise fills N*, the planned per-student energy and the curve.
func (ev *evaluation) amortise(o *opt, or *OptionResult) {
	b := o.baseline
	switch {
	case !o.distilled():
		or.NStarReason = "direct SFT has no teacher stage to amortise"
		return
	case o.unsplit:
		or.NStarReason = "the stage split is not given, so the teacher and student stages are unknown"
		return
	}
	or.Students = o.students
	or.KWhPerStudent = PerStudentKWh(or.TeacherKWh, or.StudentKWh, o.students)
	or.Curve = make([]CurvePoint, CurveMax)
	for n := 1; n <= CurveMax; n++ {
		or.Curve[n-1] = CurvePoint{N: n, KWhPerStudent: PerStudentKWh(or.TeacherKWh, or.StudentKWh, n)}
	}
	switch {
	case b == nil:
		or.NStarReason = "no direct-SFT baseline to compare with: add an sft option and name it in baseline"
		return
	case b.unsplit:
		or.NStarReason = fmt.Sprintf("baseline %s gives only a total, no student stage to compare with", b.name)
		return
	}
	bs := b.studentKWh
	or.BaselineStudentKWh = &bs
	or.NStarRange, or.RangeFlagged = nStarRange(o, b)
	if n, ok := NStar(or.TeacherKWh, bs, or.StudentKWh); ok {
		or.NStar = &n
	} else if or.StudentKWh < bs {
		or.NStarReason = fmt.Sprintf("the distilled student stage saves only %.3g kWh against %s's, too little to repay the teacher stage in any plausible number of students", bs-or.StudentKWh, b.name)
	} else {
		or.NStarReason = fmt.Sprintf("never breaks even: the distilled student stage (%s kWh) is not cheaper than %s's (%s kWh), so no number of students sharing the teacher outputs repays the teacher stage",
			kwhStr(or.StudentKWh), b.name, kwhStr(bs))
	}
	if d := math.Abs(o.preprocEvalKWh - b.preprocEvalKWh); d > 1e-9*math.Max(o.preprocEvalKWh, b.preprocEvalKWh) {
		ev.warn = append(ev.warn, model.Message{Code: CodeSplitDiffers, Args: model.Args{{Name: "option", Str: o.name}, {Name: "kwh", Num: o.preprocEvalKWh}, {Name: "baseline", Str: b.name}, {Name: "baseline_kwh", Num: b.preprocEvalKWh}}})
	}
}

// nStarRange is N* of option o against baseline b with every estimated
// stage anywhere in its interval: the least teacher energy over the
// largest saving to the most over the smallest, the high end unbounded
// when the smallest saving is not positive. It is nil when every stage
// involved is exact or when even the largest saving is not positive;
// flagged says a stage behind it was estimated in a flagged regime.
func nStarRange(o, b *opt) (*Range, bool) {
	t, s, base := o.teacherEnds(), o.studentEnds, b.studentEnds
	if t[0] == t[1] && s[0] == s[1] && base[0] == base[1] {
		return nil, false
	}
	flagged := o.flagged || b.flagged || (o.owner != nil && o.owner.flagged)
	low, ok := NStar(t[0], base[1], s[0])
	if !ok {
		return nil, flagged
	}
	r := &Range{Low: low}
	if high, ok := NStar(t[1], base[0], s[1]); ok {
		r.High = &high
	}
	return r, flagged
}

// serving fills T*.
func (ev *evaluation) serving(o *opt, or *OptionResult) {
	s := o.in.Serving
	if s == nil {
		or.TStarReason = "no serving energies given (serving.j_ref and serving.j_student, J per served token)"
		return
	}
	or.ExtraTrainKWh = or.OneOffKWh
	if s.ExtraTrainKWh != nil {
		or.ExtraTrainKWh = *s.ExtraTrainKWh
	} else {
		ev.assumeOnce("T* repays the option's one-off pipeline energy (teacher stage included) unless serving.extra_train_kwh says otherwise; it assumes the student replaces a reference model of the same role")
	}
	if t, ok := TStar(or.ExtraTrainKWh, s.JRef, s.JStudent); ok {
		or.TStarTokens = &t
		if iv := or.OneOffIntervalKWh; s.ExtraTrainKWh == nil && iv[1] > iv[0] {
			lo, _ := TStar(iv[0], s.JRef, s.JStudent)
			hi, _ := TStar(iv[1], s.JRef, s.JStudent)
			or.TStarRange = &[2]float64{lo, hi}
		}
	} else if s.JRef > s.JStudent {
		or.TStarReason = fmt.Sprintf("the saving per served token (%.3g J) is too small to repay the training in a finite number of tokens", s.JRef-s.JStudent)
	} else {
		or.TStarReason = fmt.Sprintf("serving never repays the training: the student uses %.3g J/token, not less than the reference's %.3g J/token", s.JStudent, s.JRef)
	}
}

// pareto fills the energy–quality Pareto set and the dominated options.
func (ev *evaluation) pareto(r *Result) {
	var pts []Point
	var missing []string
	for _, or := range r.Options {
		if or.Quality == nil {
			missing = append(missing, or.Name)
			continue
		}
		pts = append(pts, Point{Name: or.Name, EnergyKWh: or.OneOffKWh, Quality: *or.Quality})
	}
	switch {
	case len(pts) == 0:
		ev.warn = append(ev.warn, model.Message{Code: CodeNoQuality})
		return
	case len(missing) > 0:
		ev.warn = append(ev.warn, model.Message{Code: CodeMissingQuality, Args: model.Args{{Name: "options", List: missing}}})
	}
	ev.assumeOnce("the energy–quality plane places each option at its one-off energy (teacher stage included even when shared) and its quality Q; the Pareto set minimises energy and maximises quality")
	front, by := Pareto(pts)
	for _, i := range front {
		r.Pareto = append(r.Pareto, pts[i])
	}
	for i, d := range by {
		if d == nil {
			continue
		}
		dm := Dominated{Name: pts[i].Name}
		for _, j := range d {
			dm.DominatedBy = append(dm.DominatedBy, pts[j].Name)
		}
		r.Dominated = append(r.Dominated, dm)
	}
}

// advice applies the paper's design rules to the plan's numbers.
func (ev *evaluation) advice(r *Result) []string {
	var out []string
	res := map[string]*OptionResult{}
	for i := range r.Options {
		res[r.Options[i].Name] = &r.Options[i]
	}
	type ns struct {
		name string
		n    float64
	}
	var finite []ns
	estimated := false
	for _, o := range ev.opts {
		or := res[o.name]
		if o.sources.has(SourceEstimated) {
			estimated = true
		}
		if !o.distilled() || o.baseline == nil {
			continue
		}
		b := res[o.baseline.name]
		if b.TotalKWh > 0 {
			ratio := or.OneOffKWh / b.TotalKWh
			s := fmt.Sprintf("At N = 1, %s costs %.2f× %s (%s vs %s kWh)", o.name, ratio, b.Name, kwhStr(or.OneOffKWh), kwhStr(b.TotalKWh))
			if !o.unsplit && or.OneOffKWh > 0 {
				s += fmt.Sprintf("; its teacher stage is %.0f %% of it", 100*or.TeacherKWh/or.OneOffKWh)
			}
			if ratio > 1 {
				s += " (design rule 1: count the teacher)."
			} else {
				s += ": cheaper even without reuse."
			}
			out = append(out, s)
		}
		switch {
		case or.NStar != nil && *or.NStar < 1:
			// N* below one is no count of students: the student-stage
			// saving alone repays the teacher stage.
			n := *or.NStar
			out = append(out, fmt.Sprintf("%s uses less energy than %s from the first student: its teacher stage (%s kWh) is smaller than what its student stage saves (%s kWh), so no reuse is needed (N* = %s, below one).",
				o.name, b.Name, kwhStr(or.TeacherKWh), kwhStr(*or.BaselineStudentKWh-or.StudentKWh), sig3(n)))
			finite = append(finite, ns{o.name, n})
		case or.NStar != nil:
			n := *or.NStar
			from := math.Floor(n) + 1
			s := fmt.Sprintf("%s breaks even with %s at N* = %s: from N = %.0f students sharing its %s, each costs less than direct SFT (design rule 2: reuse before regenerating).",
				o.name, b.Name, sig3(n), from, teacherWork(o.regime))
			if or.RangeFlagged && or.NStarRange != nil {
				s += fmt.Sprintf(" A stage behind it was estimated in a regime the model flags, so read N* as %s.", or.NStarRange.Text("students"))
			}
			out = append(out, s)
			finite = append(finite, ns{o.name, n})
			if o.students > 1 {
				out = append(out, fmt.Sprintf("With the planned N = %d, %s costs %s kWh per student against %s kWh for %s's student stage.",
					o.students, o.name, kwhStr(or.KWhPerStudent), kwhStr(*or.BaselineStudentKWh), b.Name))
			}
			if n > CurveMax {
				out = append(out, fmt.Sprintf("%s's break-even lies beyond the N = 1…%d curve.", o.name, CurveMax))
			}
		case or.BaselineStudentKWh != nil:
			out = append(out, fmt.Sprintf("%s %s (design rule 4: student-side savings come from earlier convergence, so keep the stopping rule identical across regimes).", o.name, or.NStarReason))
		}
	}
	if len(finite) >= 2 {
		sort.SliceStable(finite, func(i, j int) bool { return finite[i].n < finite[j].n })
		lo, hi := finite[0], finite[len(finite)-1]
		if hi.n > 1.05*lo.n {
			out = append(out, fmt.Sprintf("Reuse needed ranges from N* = %s (%s) to %s (%s): students whose training saves little amortise the teacher worst (design rule 3: small students amortise worst).", sig3(lo.n), lo.name, sig3(hi.n), hi.name))
		}
	}
	for _, d := range r.Dominated {
		a, by := res[d.Name], res[d.DominatedBy[0]]
		for _, n := range d.DominatedBy[1:] {
			if c := res[n]; c.OneOffKWh < by.OneOffKWh {
				by = c
			}
		}
		s := fmt.Sprintf("%s is Pareto-dominated by %s, which uses %s energy (%s vs %s kWh) for %s quality (%.3g vs %.3g)",
			d.Name, by.Name, cmpWord(by.OneOffKWh, a.OneOffKWh, "less", "as much"), kwhStr(by.OneOffKWh), kwhStr(a.OneOffKWh),
			cmpWord(*a.Quality, *by.Quality, "higher", "equal"), *by.Quality, *a.Quality)
		if k := len(d.DominatedBy) - 1; k > 0 {
			s += fmt.Sprintf(", and by %d other option(s)", k)
		}
		out = append(out, s+".")
	}
	// Teacher stages produced more than once within a regime: measured ones
	// may be the same work; estimated ones are when their workloads agree.
	for _, reg := range []string{RegimeKD, RegimeSynthetic} {
		groups := map[string][]*opt{}
		var keys []string
		for _, o := range ev.opts {
			if o.regime != reg || !o.hasTeacher || o.owner != nil {
				continue
			}
			k := ""
			if t := o.in.Teacher; t != nil {
				w := *t
				w.Hardware, w.Strategy, w.Batch, w.UCompute, w.UMemory = model.HardwareSpec{}, "", 0, 0, 0
				k = fmt.Sprintf("%+v", w)
			}
			if groups[k] == nil {
				keys = append(keys, k)
			}
			groups[k] = append(groups[k], o)
		}
		for _, k := range keys {
			g := groups[k]
			if len(g) < 2 {
				continue
			}
			var names []string
			sum, least := 0.0, math.Inf(1)
			for _, o := range g {
				names = append(names, o.name)
				sum += o.ownTeacherKWh
				least = math.Min(least, o.ownTeacherKWh)
			}
			cond := "if they use the same teacher and data, "
			if k != "" {
				cond = "they run the same teacher workload: "
			}
			out = append(out, fmt.Sprintf("%s each produce their own %s (%s kWh in all); %sproduce them once and reuse them (share_teacher_with) to save up to %s kWh (design rule 2).",
				joinAnd(names), teacherWork(reg), kwhStr(sum), cond, kwhStr(sum-least)))
		}
		var shared []string
		for _, o := range ev.opts {
			if o.regime == reg && o.owner != nil {
				shared = append(shared, o.name)
			}
		}
		if len(shared) > 0 && reg == RegimeKD {
			out = append(out, fmt.Sprintf("%s reuse cached logits, so each extra KD point costs only its student stage; in a KD sweep tune α first, temperature is second order (design rule 5).", joinAnd(shared)))
		}
	}
	for _, o := range ev.opts {
		if o.regime == RegimeSynthetic && o.in.Teacher != nil {
			for _, st := range o.stages {
				if st.Stage == StageTeacher {
					out = append(out, fmt.Sprintf("%s's teacher decodes %s tokens for %s kWh; generation energy grows with max_new_tokens and prompts and falls with batch size, so trim prompts and lengths before generating more (design rule 6).", o.name, model.ShortNum(st.Tokens), kwhStr(st.EnergyKWh)))
				}
			}
		}
	}
	for _, or := range r.Options {
		if or.TStarTokens != nil {
			out = append(out, fmt.Sprintf("Serving with %s instead of the reference model repays %s kWh of training after T* = %.3g served tokens.", or.Name, kwhStr(or.ExtraTrainKWh), *or.TStarTokens))
		} else if or.ExtraTrainKWh > 0 || (or.TStarReason != "" && !strings.HasPrefix(or.TStarReason, "no serving")) {
			out = append(out, fmt.Sprintf("%s: %s.", or.Name, or.TStarReason))
		}
	}
	if estimated {
		out = append(out, "Stages marked estimated are physics estimates under the stated assumptions; measure kWh per stage and recompute N* and T* on your hardware (design rule 7).")
	}
	return out
}

// cmpWord returns better when a < b, same when equal (for energies: a less
// than b; for qualities pass them the other way round).
func cmpWord(a, b float64, better, same string) string {
	if a < b {
		return better
	}
	return same
}

func joinAnd(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// kwhStr prints an energy: two decimals from 1 kWh, three significant
// digits below.
func kwhStr(x float64) string {
	if math.Abs(x) >= 1 {
		return fmt.Sprintf("%.2f", x)
	}
	return fmt.Sprintf("%.3g", x)
}

// sig3 prints x to three significant digits, keeping trailing zeros
// ("10.0"), and whole from 100.
func sig3(x float64) string {
	if math.Abs(x) >= 100 {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%#.3g", x)
}
