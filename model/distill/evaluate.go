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
		return Result{}, errAt(CodeNoOptions, "options", "", nil)
	}
	if len(p.Options) > MaxOptions {
		return Result{}, errAt(CodeTooManyOptions, "options", fmt.Sprint(len(p.Options)), model.Args{{Name: "max", Num: MaxOptions}})
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
		return Result{}, errAt(model.CodeNotFinite, "options", "", nil)
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
		return errAt(CodeTokensRange, field, model.ShortNum(x), model.Args{{Name: "max", Num: maxTokens}})
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
		return nil, errAt(CodeNameRequired, o.path+".name", "", nil)
	case len(o.name) > maxName:
		return nil, errAt(model.CodeTooLong, o.path+".name", "", model.Args{{Name: "max", Num: maxName}})
	case ev.byName[strings.ToLower(o.name)] != nil:
		return nil, errAt(CodeNameTaken, o.path+".name", quote(o.name), nil)
	}
	o.regime = strings.ToLower(strings.TrimSpace(in.Regime))
	if o.preset != nil {
		if o.regime != "" && o.regime != o.preset.Regime {
			return nil, errAt(CodeRegimePreset, o.path+".regime", quote(in.Regime), model.Args{{Name: "preset", Str: o.preset.Name}, {Name: "regime", Str: string(o.preset.Regime)}})
		}
		o.regime = o.preset.Regime
	}
	switch o.regime {
	case RegimeSFT, RegimeKD, RegimeSynthetic:
	case "":
		return nil, errAt(CodeRegimeRequired, o.path+".regime", "", nil)
	default:
		return nil, errAt(CodeRegime, o.path+".regime", quote(in.Regime), nil)
	}

	o.quality = in.Quality
	if o.quality == nil && o.preset != nil {
		o.quality = o.preset.Quality
	}
	if q := o.quality; q != nil {
		if math.IsNaN(*q) || *q < 0 || *q > 1 {
			return nil, errAt(CodeQuality, o.path+".quality", model.ShortNum(*q), nil)
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
			return nil, errAt(CodeStudentsSFT, o.path+".students", "", nil)
		}
	}
	if in.Baseline != "" && !o.distilled() {
		return nil, errAt(CodeBaselineSFT, o.path+".baseline", "", nil)
	}
	if in.ShareTeacherWith != "" && !o.distilled() {
		return nil, errAt(CodeShareSFT, o.path+".share_teacher_with", "", nil)
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
			return errAt(CodeTotalPreset, o.path+".total_kwh", "", model.Args{{Name: "preset", Str: o.preset.Name}})
		}
		if in.StagesKWh != nil || in.Prerun != nil || in.Preprocess != nil || in.Teacher != nil || in.Student != nil || in.Eval != nil {
			f := ".stages_kwh"
			if in.StagesKWh == nil {
				f = ".student"
			}
			return errAt(CodeTotalAndStages, o.path+f, "", nil)
		}
		if in.ShareTeacherWith != "" {
			return errAt(CodeShareNeedsSplit, o.path+".share_teacher_with", "", nil)
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
			return errAt(CodeStageWays, field, "", model.Args{{Name: "n", Num: float64(n)}, {Name: "ways", List: given}})
		}
		if s == StageTeacher {
			switch {
			case !o.distilled() && n > 0:
				return errAt(CodeSFTNoTeacher, stageField(), "", nil)
			case in.ShareTeacherWith != "" && n > 0:
				return errAt(CodeTeacherShared, stageField(), "", model.Args{{Name: "with", Str: in.ShareTeacherWith}})
			case o.distilled() && in.ShareTeacherWith == "" && n == 0:
				return errAt(CodeTeacherRequired, stageField(), "", model.Args{{Name: "regime", Str: string(o.regime)}})
			}
			continue
		}
		if n == 0 && s != StagePrerun {
			return errAt(CodeStageRequired, stageField(), "", model.Args{{Name: "stage", Str: s}})
		}
	}
	if in.StageTokens != nil {
		for _, s := range stageOrder {
			v := in.StageTokens.Get(s)
			if v == nil {
				continue
			}
			if in.StagesKWh.Get(s) == nil && (o.preset == nil || o.preset.StagesKWh.Get(s) == nil) {
				return errAt(CodeStageTokensMeasured, o.path+".stage_tokens."+s, "", nil)
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
			return nil, errAt(CodeOptionUnknown, field, quote(name), model.Args{{Name: "known", Str: ev.names()}})
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
			return errAt(CodeBaselineNotSFT, "baseline", quote(ev.plan.Baseline), model.Args{{Name: "name", Str: b.name}, {Name: "regime", Str: string(b.regime)}})
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
				return errAt(CodeBaselineNotSFT, o.path+".baseline", quote(o.in.Baseline), model.Args{{Name: "name", Str: b.name}, {Name: "regime", Str: string(b.regime)}})
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
			return errAt(CodeShareSelf, f, quote(o.in.ShareTeacherWith), nil)
		case w.regime != o.regime:
			return errAt(CodeShareRegime, f, quote(o.in.ShareTeacherWith), model.Args{{Name: "regime", Str: string(o.regime)}, {Name: "name", Str: w.name}, {Name: "other", Str: string(w.regime)}, {Name: "other_work", Str: teacherWork(w.regime)}, {Name: "work", Str: teacherWork(o.regime)}})
		case w.in.ShareTeacherWith != "":
			return errAt(CodeShareChain, f, quote(o.in.ShareTeacherWith), model.Args{{Name: "name", Str: w.name}, {Name: "with", Str: w.in.ShareTeacherWith}})
		case w.unsplit:
			return errAt(CodeShareTotal, f, quote(o.in.ShareTeacherWith), model.Args{{Name: "name", Str: w.name}})
		}
		if o.in.Students != 0 {
			return errAt(CodeStudentsOnProducer, o.path+".students", "", model.Args{{Name: "name", Str: w.name}})
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
				return errAt(CodeStudentsAtLeast, o.path+".students", model.ShortNum(o.in.Students), model.Args{{Name: "min", Num: float64(o.students)}, {Name: "sharers", Num: float64(o.sharers)}})
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
		return nil, errAt(CodeNoCatalog, field, "", nil)
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
			return errAt(CodeRequired, o.path+".stages_kwh."+s, "", nil)
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
				return stageEst{}, errAt(CodeEvalModel, field+".model", "", nil)
			}
			ev.assumeOnce("estimated evaluation runs the student's model unless eval.model names another")
		}
		return est.inference(in.Eval, "eval", studentModel, field)
	}
	return stageEst{}, fmt.Errorf("distill: unknown stage %q", s) // internal: the callers pass the stages' constants
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
