package distill

import (
	"fmt"
	"math"
	"strings"

	"github.com/wattscale/wattscale/model"
)

// stageOrder is the pipeline order of the stages an option may give.
var stageOrder = [...]string{StagePrerun, StagePreprocess, StageTeacher, StageStudent, StageEval}

// opt is an option being resolved.
type opt struct {
	path     string
	in       *Option
	name     string
	regime   string
	preset   *Preset
	stages   []StageResult
	unsplit  bool
	owner    *opt // the option whose teacher stage this one reuses
	sharers  int  // options reusing this one's teacher stage
	baseline *opt
	students int
	quality  *float64
	tokens   float64

	ownTeacherKWh float64
	studentKWh    float64
	// ownTeacherEnds and studentEnds are those stages' intervals (equal
	// ends for a stage taken as exact); flagged is set when a stage was
	// estimated in an interval class other than core.
	ownTeacherEnds, studentEnds [2]float64
	flagged                     bool
	studentParams               float64 // 0 = unknown
	teacherParams               float64
	hasTeacher                  bool // its own teacher stage
	sources                     sourceSet
	preprocEvalKWh              float64
}

// sourceSet records which sources an option's stages came from.
type sourceSet uint8

func sourceBit(src string) sourceSet {
	switch src {
	case SourceMeasured:
		return 1
	case SourcePreset:
		return 2
	case SourceEstimated:
		return 4
	case SourceShared:
		return 8
	}
	return 0
}

func (s *sourceSet) add(src string)     { *s |= sourceBit(src) }
func (s sourceSet) has(src string) bool { return s&sourceBit(src) != 0 }

func (o *opt) distilled() bool { return o.regime != RegimeSFT }

// teacherKWh is the teacher energy amortised over this option's students.
// teacherEnds is teacherKWh's interval.
func (o *opt) teacherEnds() [2]float64 {
	if o.owner != nil {
		return o.owner.ownTeacherEnds
	}
	return o.ownTeacherEnds
}

// stageEnds is a stage's energy interval: its estimate's, or its energy at
// both ends for a stage taken as exact.
func stageEnds(st StageResult) (lo, hi float64) {
	if iv := st.EnergyIntervalKWh; iv != nil {
		return iv[0], iv[1]
	}
	return st.EnergyKWh, st.EnergyKWh
}

func (o *opt) teacherKWh() float64 {
	if o.owner != nil {
		return o.owner.ownTeacherKWh
	}
	return o.ownTeacherKWh
}

// evaluation carries the state of one Evaluate call.
type evaluation struct {
	cat  *model.Catalog
	plan *Plan
	est  *estimator
	site SiteUsed
	opts []*opt
	// planBase is the plan's default baseline (nil = none).
	planBase *opt
	byName   map[string]*opt
	warn     []model.Message
	assume   []string
	seen     map[string]bool // assumptions already stated
	presets  []Preset        // the paper's presets, loaded on first use
}

func (ev *evaluation) assumeOnce(s string) {
	if !ev.seen[s] {
		ev.seen[s] = true
		ev.assume = append(ev.assume, s)
	}
}

// Evaluate checks a plan and computes its result. cat supplies the
// hardware table, the model presets and the calibrations that estimated
// stages need; it may be nil when every stage is measured or from a preset.
// Every error is a *model.FieldError naming the offending field. The result
// holds no NaN or infinity.
func Evaluate(cat *model.Catalog, p Plan) (Result, error) {
	ev := &evaluation{cat: cat, plan: &p, byName: map[string]*opt{}, seen: map[string]bool{}}
	if err := ev.resolveSite(p.Site); err != nil {
		return Result{}, err
	}
	if len(p.Options) == 0 {
		return Result{}, &model.FieldError{Field: "options", Message: "must list at least one option (pipeline)"}
	}
	if len(p.Options) > MaxOptions {
		return Result{}, &model.FieldError{Field: "options", Value: fmt.Sprint(len(p.Options)), Message: fmt.Sprintf("must hold at most %d options", MaxOptions)}
	}
	if err := checkPlanBudget(cat, &p); err != nil {
		return Result{}, err
	}
	for i := range p.Options {
		o, err := ev.resolveOption(i, &p.Options[i])
		if err != nil {
			return Result{}, err
		}
		ev.opts = append(ev.opts, o)
		ev.byName[strings.ToLower(o.name)] = o
	}
	if err := ev.link(); err != nil {
		return Result{}, err
	}
	for _, o := range ev.opts {
		if err := ev.fillStages(o); err != nil {
			return Result{}, err
		}
	}
	r := ev.result()
	if !finiteResult(&r) {
		return Result{}, &model.FieldError{Field: "options", Message: "give a result that is not a finite number; check that the values are within physical ranges"}
	}
	return r, nil
}

// checkTokens reports a *model.FieldError unless x is 0 (unknown) or a
// finite count from 1 to maxTokens.
func checkTokens(field string, x float64) error {
	if x == 0 {
		return nil
	}
	if math.IsNaN(x) || math.IsInf(x, 0) || x < 1 || x > maxTokens {
		return &model.FieldError{Field: field, Value: model.ShortNum(x), Message: fmt.Sprintf("must be 0 (unknown) or a number of tokens from 1 to %s", model.ShortNum(maxTokens))}
	}
	return nil
}

// finiteResult reports whether every number in r is finite.
func finiteResult(r *Result) bool {
	ok := func(xs ...float64) bool {
		for _, x := range xs {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return false
			}
		}
		return true
	}
	if !ok(r.PlanTotalKWh, r.PlanCO2eKg, r.PlanCostUSD) {
		return false
	}
	for i := range r.Options {
		o := &r.Options[i]
		if !ok(o.TotalKWh, o.OneOffKWh, o.CO2eKg, o.CostUSD, o.TimeS, o.JPerToken, o.TeacherKWh, o.StudentKWh, o.KWhPerStudent, o.ExtraTrainKWh) {
			return false
		}
		for _, st := range o.Stages {
			if !ok(st.EnergyKWh, st.TimeS, st.Tokens, st.JPerToken, st.CO2eKg, st.CostUSD) {
				return false
			}
		}
		for _, c := range o.Curve {
			if !ok(c.KWhPerStudent) {
				return false
			}
		}
	}
	return true
}

func (ev *evaluation) resolveSite(s model.SiteSpec) error {
	site, assume, err := model.ResolveSite(s)
	if err != nil {
		return err
	}
	for _, a := range assume {
		ev.assumeOnce(a)
	}
	ev.site = SiteUsed{PUE: site.PUE, CarbonGPerKWh: site.CarbonGPerKWh, USDPerKWh: site.USDPerKWh, Region: site.Region}
	ev.assumeOnce(fmt.Sprintf("CO2e = energy × PUE × grid intensity and cost = energy × PUE × price, per stage, with PUE %.2f, %g gCO2e/kWh and %.2f USD/kWh", ev.site.PUE, ev.site.CarbonGPerKWh, ev.site.USDPerKWh))
	return nil
}

// resolveOption checks an option's own fields (not yet its links to others).
func (ev *evaluation) resolveOption(i int, in *Option) (*opt, error) {
	o := &opt{path: fmt.Sprintf("options[%d]", i), in: in}
	if in.Preset != "" {
		if ev.presets == nil {
			ev.presets = Presets()
		}
		p, err := FindPreset(ev.presets, in.Preset, o.path+".preset")
		if err != nil {
			return nil, err
		}
		o.preset = p
	}
	o.name = strings.TrimSpace(in.Name)
	if o.name == "" && o.preset != nil {
		o.name = o.preset.Name
	}
	switch {
	case o.name == "":
		return nil, &model.FieldError{Field: o.path + ".name", Message: "is required (or a preset, whose name is used)"}
	case len(o.name) > maxName:
		return nil, &model.FieldError{Field: o.path + ".name", Message: fmt.Sprintf("must be at most %d characters", maxName)}
	case ev.byName[strings.ToLower(o.name)] != nil:
		return nil, &model.FieldError{Field: o.path + ".name", Value: quote(o.name), Message: "is used by another option; names must be unique"}
	}
	o.regime = strings.ToLower(strings.TrimSpace(in.Regime))
	if o.preset != nil {
		if o.regime != "" && o.regime != o.preset.Regime {
			return nil, &model.FieldError{Field: o.path + ".regime", Value: quote(in.Regime), Message: fmt.Sprintf("contradicts preset %s, whose regime is %s", o.preset.Name, o.preset.Regime)}
		}
		o.regime = o.preset.Regime
	}
	switch o.regime {
	case RegimeSFT, RegimeKD, RegimeSynthetic:
	case "":
		return nil, &model.FieldError{Field: o.path + ".regime", Message: "is required: sft, kd or synthetic"}
	default:
		return nil, &model.FieldError{Field: o.path + ".regime", Value: quote(in.Regime), Message: "must be sft (direct fine-tuning), kd (logit distillation) or synthetic (synthetic-data SFT)"}
	}

	o.quality = in.Quality
	if o.quality == nil && o.preset != nil {
		o.quality = o.preset.Quality
	}
	if q := o.quality; q != nil {
		if math.IsNaN(*q) || *q < 0 || *q > 1 {
			return nil, &model.FieldError{Field: o.path + ".quality", Value: model.ShortNum(*q),
				Message: "must be a score from 0 to 1 (the student's benchmark score ÷ the teacher's; 0.7 for 70 %)"}
		}
	}
	o.tokens = in.Tokens
	if o.tokens == 0 && o.preset != nil {
		o.tokens = PaperTokens
	} else if err := checkTokens(o.path+".tokens", in.Tokens); err != nil {
		return nil, err
	}
	if in.Students != 0 {
		if err := PlanField("options[].students").Bounds.Check(o.path+".students", in.Students); err != nil {
			return nil, err
		}
		if !o.distilled() {
			return nil, &model.FieldError{Field: o.path + ".students", Message: "applies to kd and synthetic options: it counts the students sharing a teacher stage"}
		}
	}
	if in.Baseline != "" && !o.distilled() {
		return nil, &model.FieldError{Field: o.path + ".baseline", Message: "applies to kd and synthetic options: an sft option is itself a baseline"}
	}
	if in.ShareTeacherWith != "" && !o.distilled() {
		return nil, &model.FieldError{Field: o.path + ".share_teacher_with", Message: "applies to kd and synthetic options: an sft pipeline has no teacher stage"}
	}
	if s := in.Serving; s != nil {
		if err := PlanField("options[].serving.j_ref").Bounds.Check(o.path+".serving.j_ref", s.JRef); err != nil {
			return nil, err
		}
		if err := PlanField("options[].serving.j_student").Bounds.Check(o.path+".serving.j_student", s.JStudent); err != nil {
			return nil, err
		}
		if x := s.ExtraTrainKWh; x != nil {
			if err := checkRange(o.path+".serving.extra_train_kwh", *x, 0, maxKWh, false); err != nil {
				return nil, err
			}
		}
	}
	return o, ev.checkStageSources(o)
}

// checkStageSources checks that each stage is given at most one way and
// that the stages the regime needs are there.
func (ev *evaluation) checkStageSources(o *opt) error {
	in := o.in
	if in.TotalKWh != nil || (o.preset != nil && o.preset.StagesKWh == (StageValues{})) {
		o.unsplit = true
		if in.TotalKWh != nil && o.preset != nil {
			return &model.FieldError{Field: o.path + ".total_kwh", Message: fmt.Sprintf("conflicts with preset %s, which gives the energy", o.preset.Name)}
		}
		if in.StagesKWh != nil || in.Prerun != nil || in.Preprocess != nil || in.Teacher != nil || in.Student != nil || in.Eval != nil {
			f := ".stages_kwh"
			if in.StagesKWh == nil {
				f = ".student"
			}
			return &model.FieldError{Field: o.path + f, Message: "conflicts with a total given without a stage split (total_kwh or a total-only preset); give stages or a total, not both"}
		}
		if in.ShareTeacherWith != "" {
			return &model.FieldError{Field: o.path + ".share_teacher_with", Message: "needs a stage split: this option gives only a total"}
		}
		if in.TotalKWh != nil {
			if err := checkKWh(o.path+".total_kwh", *in.TotalKWh); err != nil {
				return err
			}
		}
		return nil
	}
	for _, s := range stageOrder {
		measured, configured := in.StagesKWh.Get(s) != nil, ev.config(in, s)
		fromPreset := o.preset != nil && o.preset.StagesKWh.Get(s) != nil && !(s == StageTeacher && in.ShareTeacherWith != "")
		n := 0
		for _, b := range []bool{measured, configured, fromPreset} {
			if b {
				n++
			}
		}
		stageField := func() string { return o.path + ".stages_kwh." + s }
		if n > 1 {
			field := stageField()
			var given []string
			if measured {
				given = append(given, "stages_kwh."+s)
			}
			if configured {
				given = append(given, s)
				field = o.path + "." + s
			}
			if fromPreset {
				given = append(given, "preset "+o.preset.Name)
			}
			return &model.FieldError{Field: field, Message: fmt.Sprintf("is given %d ways (%s); give each stage once: measured, estimated or from a preset", n, strings.Join(given, ", "))}
		}
		if s == StageTeacher {
			switch {
			case !o.distilled() && n > 0:
				return &model.FieldError{Field: stageField(), Message: "is not part of an sft pipeline: direct SFT has no teacher; use regime kd or synthetic"}
			case in.ShareTeacherWith != "" && n > 0:
				return &model.FieldError{Field: stageField(), Message: fmt.Sprintf("conflicts with share_teacher_with %q: a shared teacher stage is counted in the option that produces it", in.ShareTeacherWith)}
			case o.distilled() && in.ShareTeacherWith == "" && n == 0:
				return &model.FieldError{Field: stageField(), Message: fmt.Sprintf("is required for a %s pipeline: give it measured (stages_kwh.teacher), estimated (teacher) or reuse another option's (share_teacher_with)", o.regime)}
			}
			continue
		}
		if n == 0 && s != StagePrerun {
			return &model.FieldError{Field: stageField(), Message: fmt.Sprintf("is required: give the %s stage measured (stages_kwh.%s, kWh; 0 if it did not run) or estimated (%s)", s, s, s)}
		}
	}
	if in.StageTokens != nil {
		for _, s := range stageOrder {
			v := in.StageTokens.Get(s)
			if v == nil {
				continue
			}
			if in.StagesKWh.Get(s) == nil && (o.preset == nil || o.preset.StagesKWh.Get(s) == nil) {
				return &model.FieldError{Field: o.path + ".stage_tokens." + s, Message: "applies to measured stages only; an estimated stage counts its own tokens"}
			}
			if err := checkTokens(o.path+".stage_tokens."+s, *v); err != nil {
				return err
			}
		}
	}
	return nil
}

// config reports whether an estimated configuration is given for stage s.
func (ev *evaluation) config(in *Option, s string) bool {
	switch s {
	case StagePrerun:
		return in.Prerun != nil
	case StagePreprocess:
		return in.Preprocess != nil
	case StageTeacher:
		return in.Teacher != nil
	case StageStudent:
		return in.Student != nil
	case StageEval:
		return in.Eval != nil
	}
	return false
}

// link resolves baselines and shared teacher stages.
func (ev *evaluation) link() error {
	find := func(name, field string) (*opt, error) {
		o := ev.byName[strings.ToLower(strings.TrimSpace(name))]
		if o == nil {
			return nil, &model.FieldError{Field: field, Value: quote(name), Message: "names no option in the plan; known: " + ev.names()}
		}
		return o, nil
	}
	var planBase *opt
	var sfts []*opt
	for _, o := range ev.opts {
		if !o.distilled() {
			sfts = append(sfts, o)
		}
	}
	switch {
	case ev.plan.Baseline != "":
		b, err := find(ev.plan.Baseline, "baseline")
		if err != nil {
			return err
		}
		if b.distilled() {
			return &model.FieldError{Field: "baseline", Value: quote(ev.plan.Baseline), Message: fmt.Sprintf("must name a direct-SFT option (regime sft); %s is %s", b.name, b.regime)}
		}
		planBase = b
	case len(sfts) == 1:
		planBase = sfts[0]
	}
	ev.planBase = planBase
	for _, o := range ev.opts {
		if !o.distilled() {
			continue
		}
		o.baseline = planBase
		if o.in.Baseline != "" {
			b, err := find(o.in.Baseline, o.path+".baseline")
			if err != nil {
				return err
			}
			if b.distilled() {
				return &model.FieldError{Field: o.path + ".baseline", Value: quote(o.in.Baseline), Message: fmt.Sprintf("must name a direct-SFT option (regime sft); %s is %s", b.name, b.regime)}
			}
			o.baseline = b
		}
		if o.in.ShareTeacherWith == "" {
			continue
		}
		f := o.path + ".share_teacher_with"
		w, err := find(o.in.ShareTeacherWith, f)
		if err != nil {
			return err
		}
		switch {
		case w == o:
			return &model.FieldError{Field: f, Value: quote(o.in.ShareTeacherWith), Message: "names this option itself"}
		case w.regime != o.regime:
			return &model.FieldError{Field: f, Value: quote(o.in.ShareTeacherWith), Message: fmt.Sprintf("must name a %s option: %s is %s, and %s outputs are not %s outputs", o.regime, w.name, w.regime, teacherWork(w.regime), teacherWork(o.regime))}
		case w.in.ShareTeacherWith != "":
			return &model.FieldError{Field: f, Value: quote(o.in.ShareTeacherWith), Message: fmt.Sprintf("must name the option that produces the teacher stage; %s itself shares %s's", w.name, w.in.ShareTeacherWith)}
		case w.unsplit:
			return &model.FieldError{Field: f, Value: quote(o.in.ShareTeacherWith), Message: fmt.Sprintf("names %s, which gives only a total, no teacher stage", w.name)}
		}
		if o.in.Students != 0 {
			return &model.FieldError{Field: o.path + ".students", Message: fmt.Sprintf("set students on %s, which produces the teacher stage this option shares", w.name)}
		}
		o.owner = w
		w.sharers++
	}
	for _, o := range ev.opts {
		if !o.distilled() {
			continue
		}
		o.students = 1 + o.sharers
		if o.in.Students != 0 {
			if int(o.in.Students) < o.students {
				return &model.FieldError{Field: o.path + ".students", Value: model.ShortNum(o.in.Students), Message: fmt.Sprintf("must be at least %d: %d option(s) in the plan share this teacher stage", o.students, o.sharers)}
			}
			o.students = int(o.in.Students)
		}
	}
	for _, o := range ev.opts {
		if o.owner != nil {
			o.students = o.owner.students
		}
	}
	return nil
}

func (ev *evaluation) names() string {
	n := make([]string, len(ev.opts))
	for i, o := range ev.opts {
		n[i] = o.name
	}
	return strings.Join(n, ", ")
}

func teacherWork(regime string) string {
	if regime == RegimeKD {
		return "cached logits"
	}
	return "synthetic data"
}

// needEstimator returns the estimator, creating it on first use.
func (ev *evaluation) needEstimator(field string) (*estimator, error) {
	if ev.est != nil {
		return ev.est, nil
	}
	if ev.cat == nil {
		return nil, &model.FieldError{Field: field, Message: "cannot be estimated without the hardware and calibration catalog; give it measured"}
	}
	est, err := newEstimator(ev.cat, ev.plan.Calibration)
	if err != nil {
		return nil, atPath("", err)
	}
	ev.est = est
	return est, nil
}

// fillStages computes an option's stages in pipeline order.
func (ev *evaluation) fillStages(o *opt) error {
	in := o.in
	if o.unsplit {
		e := 0.0
		src := SourceMeasured
		if in.TotalKWh != nil {
			e = *in.TotalKWh
		} else {
			e, src = o.preset.TotalKWh, SourcePreset
		}
		o.sources.add(src)
		o.stages = []StageResult{ev.stage(StageUnsplit, src, e, 0, 0, "total energy; the split into stages was not given")}
		if o.preset != nil {
			ev.warn = append(ev.warn, model.Message{Code: CodeTotalOnly, Args: model.Args{{Name: "option", Str: o.name}, {Name: "kwh", Num: e}}})
		}
		return nil
	}
	o.stages = make([]StageResult, 0, len(stageOrder))
	var studentModel *model.ModelSpec
	if in.Student != nil {
		studentModel = &in.Student.Model
	}
	for _, s := range stageOrder {
		var st StageResult
		switch {
		case s == StageTeacher && o.owner != nil:
			st = StageResult{Stage: s, Source: SourceShared, SharedWith: o.owner.name,
				Detail: fmt.Sprintf("reuses the %s of %s; its energy is counted there", teacherWork(o.regime), o.owner.name)}
			o.sources.add(SourceShared)
		case in.StagesKWh.Get(s) != nil:
			e := *in.StagesKWh.Get(s)
			if err := checkKWh(o.path+".stages_kwh."+s, e); err != nil {
				return err
			}
			st = ev.stage(s, SourceMeasured, e, 0, ev.stageTokens(o, s), "")
			o.sources.add(SourceMeasured)
		case o.preset != nil && o.preset.StagesKWh.Get(s) != nil:
			detail := ""
			if s == StageTeacher {
				detail = o.preset.TeacherWork
			}
			st = ev.stage(s, SourcePreset, *o.preset.StagesKWh.Get(s), 0, ev.stageTokens(o, s), detail)
			o.sources.add(SourcePreset)
		case ev.config(in, s):
			est, err := ev.estimateStage(o, s, studentModel)
			if err != nil {
				return err
			}
			st = ev.stage(s, SourceEstimated, est.kwh, est.timeS, est.tokens, est.detail)
			if est.hi > 0 {
				st.EnergyIntervalKWh, st.IntervalClass = &[2]float64{est.lo, est.hi}, est.class
			}
			o.sources.add(SourceEstimated)
			for _, w := range est.warnings {
				ev.warn = append(ev.warn, model.Message{Code: CodeStageWarning, Args: model.Args{{Name: "option", Str: o.name}, {Name: "stage", Str: s}, {Name: "warning", Msgs: []model.Message{w}}}})
			}
			switch s {
			case StageStudent:
				o.studentParams = est.params
			case StageTeacher:
				o.teacherParams = est.params
			}
		default:
			if s == StageTeacher && !o.distilled() {
				continue
			}
			if s == StagePrerun {
				ev.assumeOnce("prerun (environment checks, idle baseline, burn-in) is counted only where an option gives it; the paper's published stage table has no prerun column, so its presets leave it out")
				continue
			}
			return &model.FieldError{Field: o.path + ".stages_kwh." + s, Message: "is required"}
		}
		lo, hi := stageEnds(st)
		switch s {
		case StageTeacher:
			if o.owner == nil {
				o.ownTeacherKWh, o.hasTeacher = st.EnergyKWh, true
				o.ownTeacherEnds = [2]float64{lo, hi}
			}
		case StageStudent:
			o.studentKWh = st.EnergyKWh
			o.studentEnds = [2]float64{lo, hi}
		case StagePreprocess, StageEval:
			o.preprocEvalKWh += st.EnergyKWh
		}
		if st.IntervalClass != "" && st.IntervalClass != model.ClassCore {
			o.flagged = true
		}
		o.stages = append(o.stages, st)
	}
	if o.studentParams > 0 && o.teacherParams > 0 && o.studentParams > o.teacherParams {
		ev.warn = append(ev.warn, model.Message{Code: CodeStudentLarger, Args: model.Args{{Name: "option", Str: o.name}, {Name: "student", Num: o.studentParams}, {Name: "teacher", Num: o.teacherParams}}})
	}
	return nil
}

// stageTokens returns the tokens of a measured or preset stage, 0 if unknown.
func (ev *evaluation) stageTokens(o *opt, s string) float64 {
	if v := o.in.StageTokens.Get(s); v != nil {
		return *v
	}
	return 0
}

// estimateStage estimates stage s of option o from its configuration.
func (ev *evaluation) estimateStage(o *opt, s string, studentModel *model.ModelSpec) (stageEst, error) {
	in := o.in
	field := o.path + "." + s
	est, err := ev.needEstimator(field)
	if err != nil {
		return stageEst{}, err
	}
	switch s {
	case StagePrerun:
		return est.prerun(in.Prerun, field)
	case StagePreprocess:
		r, assume, err := est.preprocess(in.Preprocess, field)
		for _, a := range assume {
			ev.assumeOnce(a)
		}
		return r, err
	case StageTeacher:
		ev.inferenceAssumptions(est)
		if o.regime == RegimeKD {
			ev.assumeOnce(fmt.Sprintf("logit caching: fp32 logits over the whole vocabulary are written and read twice (log-softmax, top-k) at every position; top-k log-probs (default k = %d, the paper's harness) are %d bytes each on the host; host link, CPU and disk energy are not counted", DefaultTopK, topKEntryBytes))
		} else {
			ev.assumeOnce("synthetic generation: every sequence decodes max_new_tokens tokens (batched decoding runs until the longest sequence in the batch ends; an upper bound when responses stop early)")
		}
		return est.inference(in.Teacher, o.regime, nil, field)
	case StageStudent:
		sreq := *in.Student
		sreq.Training.TeacherLogits = sreq.Training.TeacherLogits || o.regime == RegimeKD
		r, resp, err := est.student(sreq, model.SiteSpec{PUE: ev.site.PUE, CarbonGPerKWh: ev.site.CarbonGPerKWh, USDPerKWh: ev.site.USDPerKWh, Region: ev.site.Region}, ev.plan.Calibration, field)
		if err != nil {
			return r, err
		}
		for _, a := range resp.Assumptions {
			ev.assumeOnce("student training (fine-tuning estimate): " + a)
		}
		for _, w := range resp.WarningMessages {
			ev.warn = append(ev.warn, model.Message{Code: CodeStudentWarning, Args: model.Args{{Name: "option", Str: o.name}, {Name: "warning", Msgs: []model.Message{w}}}})
		}
		ev.assumeOnce("estimated student stages come from the fine-tuning estimate (its calibration, AdamW state of 16 bytes per parameter); the step cost of KD's extra loss term over the cached top-k log-probs is not added")
		return r, nil
	case StageEval:
		ev.inferenceAssumptions(est)
		if in.Eval.Model == (model.ModelSpec{}) {
			if studentModel == nil {
				return stageEst{}, &model.FieldError{Field: field + ".model", Message: "is required when the student stage is not estimated (it defaults to the student's model)"}
			}
			ev.assumeOnce("estimated evaluation runs the student's model unless eval.model names another")
		}
		return est.inference(in.Eval, "eval", studentModel, field)
	}
	return stageEst{}, fmt.Errorf("distill: unknown stage %q", s)
}

func (ev *evaluation) inferenceAssumptions(est *estimator) {
	for _, a := range est.inferenceAssumptions() {
		ev.assumeOnce(a)
	}
}

// stage builds a stage result with its CO2e, cost and J/token.
func (ev *evaluation) stage(name, source string, kwh, timeS, tokens float64, detail string) StageResult {
	st := StageResult{Stage: name, Source: source, EnergyKWh: kwh, TimeS: timeS, Tokens: tokens, Detail: detail,
		CO2eKg: kwh * ev.site.PUE * ev.site.CarbonGPerKWh / 1000, CostUSD: kwh * ev.site.PUE * ev.site.USDPerKWh}
	if tokens > 0 {
		st.JPerToken = kwh * 3.6e6 / tokens
	}
	return st
}
