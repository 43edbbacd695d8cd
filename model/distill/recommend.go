package distill

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/wattscale/wattscale/model"
)

// RecommendRequest asks for the cheapest hardware of each GPU-bound stage
// of a plan, stage by stage (the teacher and the student may run on
// different hardware). Candidates, DeadlineS and Minimise apply to every
// stage; Stages overrides them for one stage. Field names are a public
// interface (APIVersion).
type RecommendRequest struct {
	Plan Plan `json:"plan"`
	// Candidates are the GPU types to search (model.RecommendRequest's);
	// left out, every accelerator of the table up to 64 each.
	Candidates []model.Candidate `json:"candidates,omitempty"`
	// DeadlineS is each stage's own wall-clock limit, s; 0 = none.
	DeadlineS float64 `json:"deadline_s,omitempty"`
	Minimise  string  `json:"minimise,omitempty"` // energy (default), co2e, cost or time
	// Stages overrides the search settings of single stages.
	Stages []StageSearch `json:"stages,omitempty"`
}

// StageSearch overrides the search settings for one stage of one option.
type StageSearch struct {
	Option     string            `json:"option"` // the option's name (a preset's name when it has none)
	Stage      string            `json:"stage"`  // teacher, student or eval
	Candidates []model.Candidate `json:"candidates,omitempty"`
	DeadlineS  *float64          `json:"deadline_s,omitempty"` // nil = the request's; 0 = none
	Minimise   string            `json:"minimise,omitempty"`   // "" = the request's
}

// StageConfig is one configuration of a stage with its figures: the shape
// of model.Config, with the stage's own input in Request (a student's
// estimate request) or Inference (a teacher or evaluation stage).
type StageConfig struct {
	Hardware       model.ConfigHardware `json:"hardware"`
	Strategy       model.Strategy       `json:"strategy"` // inference stages: single, tp or dp
	EnergyKWh      float64              `json:"energy_kwh"`
	TimeS          float64              `json:"time_s"`
	CO2eKg         float64              `json:"co2e_kg"`
	EmbodiedCO2eKg float64              `json:"embodied_co2e_kg"`
	TotalCO2eKg    float64              `json:"total_co2e_kg"`
	CostUSD        float64              `json:"cost_usd"`
	GPUHours       float64              `json:"gpu_hours"`
	MeetsDeadline  bool                 `json:"meets_deadline"`
	Request        *model.Request       `json:"request,omitempty"`   // student: send it to site estimate
	Inference      *InferenceSpec       `json:"inference,omitempty"` // teacher, eval: the stage with this hardware
	// A student's global batch and how it is run (model.Config).
	SequencesPerStep     int                `json:"sequences_per_step,omitempty"`
	BatchPerGPU          int                `json:"batch_per_gpu,omitempty"`
	GradientAccumulation int                `json:"gradient_accumulation,omitempty"`
	Warnings             []string           `json:"warnings,omitempty"`
	WarningMessages      []model.Message    `json:"warning_messages,omitempty"`
	Memory               *model.MemoryCheck `json:"memory,omitempty"`
}

// StageRecommendation is the recommender's answer for one stage: the
// search's answer (model.Search, as model.RecommendResponse gives it), or
// Reason when the stage is not searched (a measured energy, CPU work,
// idle time).
type StageRecommendation struct {
	Option string `json:"option"`
	Stage  string `json:"stage"`
	Path   string `json:"path"` // the stage in the plan, e.g. options[1].student
	// Reason says why the stage was not searched; "" when it was.
	Reason string `json:"reason,omitempty"`
	model.Search[StageConfig]
}

// PlanSaving is what moving every searched stage to its best
// configuration saves on the plan (positive = less).
type PlanSaving struct {
	EnergyKWh float64 `json:"energy_kwh"`
	EnergyPct float64 `json:"energy_pct"`
	CO2eKg    float64 `json:"co2e_kg"` // operational
	CostUSD   float64 `json:"cost_usd"`
}

// Recommendation is the per-stage recommender's answer.
type Recommendation struct {
	Version string                `json:"version"`
	Stages  []StageRecommendation `json:"stages"`
	// PlanTotalKWh is the plan's total as given (Result.PlanTotalKWh);
	// PlanTotalBestKWh the same with every searched stage at its best
	// configuration, or kept at its current one where that already meets
	// the stage's deadline with no more of what is minimised.
	PlanTotalKWh     float64    `json:"plan_total_kwh"`
	PlanTotalBestKWh float64    `json:"plan_total_best_kwh"`
	Saving           PlanSaving `json:"saving"`
	Warnings         []string   `json:"warnings"`
	Assumptions      []string   `json:"assumptions"`
}

// MaxStageSearches bounds RecommendRequest.Stages.
const MaxStageSearches = 3 * MaxOptions

// ParseRecommendRequest decodes a per-stage recommend request strictly;
// errors name the field's full path ("plan.options[1].student.training.tokens",
// "stages[0].candidates[1].gpu").
func ParseRecommendRequest(r io.Reader) (RecommendRequest, error) {
	var out RecommendRequest
	raw, err := model.ReadBody(r)
	if err != nil {
		return out, err
	}
	var j struct {
		Plan       json.RawMessage   `json:"plan"`
		Candidates []json.RawMessage `json:"candidates"`
		DeadlineS  float64           `json:"deadline_s"`
		Minimise   string            `json:"minimise"`
		Stages     []json.RawMessage `json:"stages"`
	}
	if err := model.DecodeExact(raw, &j); err != nil {
		return out, err
	}
	if isNull(j.Plan) {
		return out, errAt(CodePlanRequired, "plan", "", nil)
	}
	if out.Plan, err = parsePlan(j.Plan); err != nil {
		return out, atPath("plan", err)
	}
	out.DeadlineS, out.Minimise = j.DeadlineS, j.Minimise
	if out.Candidates, err = model.DecodeCandidates(j.Candidates, "candidates"); err != nil {
		return out, err
	}
	if len(j.Stages) > MaxStageSearches {
		return out, errAt(CodeTooManyStages, "stages", fmt.Sprint(len(j.Stages)), model.Args{{Name: "max", Num: MaxStageSearches}})
	}
	for i, raw := range j.Stages {
		path := fmt.Sprintf("stages[%d]", i)
		var s struct {
			Option     string            `json:"option"`
			Stage      string            `json:"stage"`
			Candidates []json.RawMessage `json:"candidates"`
			DeadlineS  *float64          `json:"deadline_s"`
			Minimise   string            `json:"minimise"`
		}
		if err := decodeAt(raw, &s, path); err != nil {
			return out, err
		}
		ss := StageSearch{Option: s.Option, Stage: s.Stage, DeadlineS: s.DeadlineS, Minimise: s.Minimise}
		if ss.Candidates, err = model.DecodeCandidates(s.Candidates, path+".candidates"); err != nil {
			return out, err
		}
		out.Stages = append(out.Stages, ss)
	}
	return out, nil
}

// stageSettings are the search settings of one stage and where they came
// from (the field path errors about them name).
type stageSettings struct {
	cands     []model.Candidate
	candsPath string // "candidates" or "stages[K].candidates"
	deadline  float64
	minimise  string
	path      string // "" or "stages[K]": where deadline and minimise came from
}

// Recommend runs the recommender for each GPU-bound stage of the plan
// independently: a student stage given as an estimate request goes to
// cat.Recommend exactly as POST /api/v1/recommend would take it (its model
// and training as the workload, its hardware and strategy as current, the
// plan's site), and a teacher or evaluation stage given as an inference
// configuration is searched over GPU type × count × layout (single, tp,
// dp). Stages with a measured energy, preprocessing and prerun are listed
// with the reason they are not searched. Bad input is a *model.FieldError
// naming the field's path in the request.
func Recommend(cat *model.Catalog, req RecommendRequest) (Recommendation, error) {
	out := Recommendation{Version: APIVersion, Stages: []StageRecommendation{}, Warnings: []string{}, Assumptions: []string{}}
	res, err := Evaluate(cat, req.Plan)
	if err != nil {
		return out, atPath("plan", err)
	}
	out.PlanTotalKWh = res.PlanTotalKWh
	names := make([]string, len(res.Options))
	for i := range res.Options {
		names[i] = res.Options[i].Name
	}
	global := stageSettings{cands: req.Candidates, candsPath: "candidates", deadline: req.DeadlineS, minimise: req.Minimise}
	// Every deadline and objective is checked here, searched or not: a bad
	// value on a stage that is not searched (measured, shared) is still an
	// error, not ignored.
	if err := checkSettings("", req.DeadlineS, req.Minimise); err != nil {
		return out, err
	}
	settings := map[string]stageSettings{}
	for i, s := range req.Stages {
		path := fmt.Sprintf("stages[%d]", i)
		stage := strings.ToLower(strings.TrimSpace(s.Stage))
		if stage != StageTeacher && stage != StageStudent && stage != StageEval {
			return out, errAt(CodeSearchStage, path+".stage", quote(s.Stage), nil)
		}
		idx := slices.IndexFunc(names, func(n string) bool { return strings.EqualFold(n, strings.TrimSpace(s.Option)) })
		if idx < 0 {
			return out, errAt(CodeSearchOption, path+".option", quote(s.Option), model.Args{{Name: "known", List: names}})
		}
		d := 0.0
		if s.DeadlineS != nil {
			d = *s.DeadlineS
		}
		if err := checkSettings(path, d, s.Minimise); err != nil {
			return out, model.AsFieldError(err).InContext(model.CodeForStage, fmt.Sprintf("options[%d].%s", idx, stage))
		}
		key := fmt.Sprintf("%d.%s", idx, stage)
		if _, dup := settings[key]; dup {
			return out, errAt(CodeStageAgain, path, "", model.Args{{Name: "stage", Str: stage}, {Name: "option", Str: names[idx]}})
		}
		st := global
		st.path = path
		if s.Candidates != nil {
			st.cands, st.candsPath = s.Candidates, path+".candidates"
		}
		if s.DeadlineS != nil {
			st.deadline = *s.DeadlineS
		}
		if s.Minimise != "" {
			st.minimise = s.Minimise
		}
		settings[key] = st
	}

	settingsOf := func(i int, stage string) stageSettings {
		if st, ok := settings[fmt.Sprintf("%d.%s", i, stage)]; ok {
			return st
		}
		return global
	}
	if err := checkRecommendBudget(cat, &req.Plan, &res, settingsOf); err != nil {
		return out, err
	}
	site, _, err := model.ResolveSite(req.Plan.Site)
	if err != nil {
		return out, atPath("plan", err)
	}
	est, err := newEstimator(cat, req.Plan.Calibration)
	if err != nil {
		return out, atPath("plan", err)
	}
	assumed := map[string]bool{}
	assume := func(a []string) {
		for _, s := range a {
			if !assumed[s] {
				assumed[s] = true
				out.Assumptions = append(out.Assumptions, s)
			}
		}
	}
	var saveKWh, saveCO2e, saveUSD float64
	for i := range req.Plan.Options {
		in := &req.Plan.Options[i]
		ro := &res.Options[i]
		for _, sr := range ro.Stages {
			path := fmt.Sprintf("options[%d].%s", i, sr.Stage)
			rec := StageRecommendation{Option: ro.Name, Stage: sr.Stage, Path: path, Search: model.NewSearch[StageConfig]()}
			st := settingsOf(i, sr.Stage)
			var cur, best *StageConfig
			var obj string
			switch {
			case sr.Source == "shared":
				rec.Reason = "shares another option's teacher stage (" + ro.TeacherSharedWith + "), searched there"
			case sr.Source != "estimated":
				rec.Reason = "a " + sr.Source + " energy, not a configuration: give the stage as an estimate to search its hardware"
			case sr.Stage == StagePrerun || sr.Stage == StagePreprocess:
				rec.Reason = "not GPU-bound: " + map[string]string{StagePrerun: "checks and idle time at idle power", StagePreprocess: "CPU work while the GPUs idle"}[sr.Stage] + ", so no GPU choice makes it cheaper"
			case sr.Stage == StageStudent:
				r, err := cat.Recommend(studentRecommendRequest(in.Student, req.Plan, st))
				if err != nil {
					return out, stageErr(err, st, "plan."+path)
				}
				rec.fromModel(r)
				obj = r.Minimise
				assume(r.Assumptions)
			case sr.Stage == StageTeacher || sr.Stage == StageEval:
				spec := in.Teacher
				if sr.Stage == StageEval {
					spec = in.Eval
				}
				if err := est.recommendInference(cat, &rec, spec, ro.Regime, studentModel(in), site, st, "plan."+path); err != nil {
					return out, err
				}
				obj = rec.Minimise
			default:
				rec.Reason = "not searched"
			}
			cur, best = rec.Current, rec.Best
			if cur != nil && best != nil {
				after := best
				if cur.MeetsDeadline && score(obj, cur) <= score(obj, best) {
					after = cur
				}
				saveKWh += cur.EnergyKWh - after.EnergyKWh
				saveCO2e += cur.CO2eKg - after.CO2eKg
				saveUSD += cur.CostUSD - after.CostUSD
			}
			out.Stages = append(out.Stages, rec)
		}
	}
	out.PlanTotalBestKWh = out.PlanTotalKWh - saveKWh
	out.Saving = PlanSaving{EnergyKWh: saveKWh, CO2eKg: saveCO2e, CostUSD: saveUSD}
	if out.PlanTotalKWh > 0 {
		out.Saving.EnergyPct = 100 * saveKWh / out.PlanTotalKWh
	}
	out.Assumptions = append(out.Assumptions, "each stage is searched on its own (its own deadline, GPU type, count and layout); the plan's total with every searched stage at its best keeps a stage at its current configuration where that already meets the deadline with no more of what is minimised")
	return out, nil
}

// checkSettings checks a deadline (0 = none) and an objective ("" = the
// default) given at path ("" = the request's top level).
func checkSettings(path string, deadline float64, minimise string) error {
	at := func(f string) string {
		if path == "" {
			return f
		}
		return path + "." + f
	}
	if deadline != 0 {
		if err := checkPositive(at("deadline_s"), deadline, model.MaxDeadlineS); err != nil {
			return err
		}
	}
	switch strings.ToLower(strings.TrimSpace(minimise)) {
	case "", model.MinEnergy, model.MinCO2e, model.MinCost, model.MinTime:
		return nil
	}
	return errAt(model.CodeMinimise, at("minimise"), quote(minimise), nil)
}

// studentModel is the option's student model, for an evaluation stage that
// names none.
func studentModel(in *Option) *model.ModelSpec {
	if in.Student != nil {
		return &in.Student.Model
	}
	return nil
}

// studentRecommendRequest is the single recommender's request for a
// student stage: its model, training and calibration as the workload, its
// own hardware and strategy as current, the plan's site.
func studentRecommendRequest(s *model.Request, p Plan, st stageSettings) model.RecommendRequest {
	cal := s.Calibration
	if cal == "" {
		cal = p.Calibration
	}
	return model.RecommendRequest{
		Workload:   model.Workload{Model: s.Model, Training: s.Training, Calibration: cal},
		Candidates: st.cands, DeadlineS: st.deadline, Minimise: st.minimise,
		Current: &model.Current{Hardware: s.Hardware, Strategy: s.Strategy}, Site: p.Site,
	}
}

// stageErr places an error of the single recommender on the request's
// paths: candidates on where they were given, deadline and minimise on the
// request or the stage override, the workload and current on the plan's
// stage (planPath, e.g. plan.options[1].student).
func stageErr(err error, st stageSettings, planPath string) error {
	fe := model.AsFieldError(err)
	if fe == nil {
		return err
	}
	e := *fe
	switch f := fe.Field; {
	case f == "candidates" || strings.HasPrefix(f, "candidates["):
		e = *fe.InContext(model.CodeSearching, strings.TrimPrefix(planPath, "plan."))
		e.Field = st.candsPath + strings.TrimPrefix(f, "candidates")
	case f == "deadline_s" || f == "minimise":
		e = *fe.InContext(model.CodeSearching, strings.TrimPrefix(planPath, "plan."))
		if st.path != "" {
			e.Field = st.path + "." + f
		}
	case strings.HasPrefix(f, "workload."):
		e.Field = planPath + "." + strings.TrimPrefix(f, "workload.")
	case strings.HasPrefix(f, "current."):
		e.Field = planPath + "." + strings.TrimPrefix(f, "current.")
	case strings.HasPrefix(f, "site"):
		e.Field = "plan." + f
	default:
		e.Field = planPath + "." + f
	}
	return &e
}

// fromModel takes the single recommender's answer, its configurations as
// StageConfigs.
func (rec *StageRecommendation) fromModel(r model.RecommendResponse) {
	conv := func(c *model.Config) *StageConfig {
		if c == nil {
			return nil
		}
		req := c.Request
		return &StageConfig{Hardware: c.Hardware, Strategy: c.Strategy, EnergyKWh: c.EnergyKWh, TimeS: c.TimeS, CO2eKg: c.CO2eKg,
			EmbodiedCO2eKg: c.EmbodiedCO2eKg, TotalCO2eKg: c.TotalCO2eKg, CostUSD: c.CostUSD, GPUHours: c.GPUHours,
			MeetsDeadline: c.MeetsDeadline, Request: &req,
			SequencesPerStep: c.SequencesPerStep, BatchPerGPU: c.BatchPerGPU, GradientAccumulation: c.GradientAccumulation, Warnings: c.Warnings, WarningMessages: c.WarningMessages, Memory: c.Memory}
	}
	s := r.Search
	rec.Search = model.Search[StageConfig]{Minimise: s.Minimise, DeadlineS: s.DeadlineS, MeetsDeadline: s.MeetsDeadline,
		Best: conv(s.Best), Fastest: conv(s.Fastest), Current: conv(s.Current), Pareto: rec.Pareto, Saving: s.Saving,
		Searched: s.Searched, Feasible: s.Feasible, GlobalBatch: s.GlobalBatch, Held: s.Held, Skipped: s.Skipped,
		Warnings: append(rec.Warnings, s.Warnings...), WarningMessages: append(rec.WarningMessages, s.WarningMessages...), Assumptions: rec.Assumptions}
	for i := range s.Pareto {
		rec.Pareto = append(rec.Pareto, *conv(&s.Pareto[i]))
	}
}

// score is what a configuration has of the objective.
func score(obj string, c *StageConfig) float64 {
	switch obj {
	case model.MinCO2e:
		return c.TotalCO2eKg
	case model.MinCost:
		return c.CostUSD
	case model.MinTime:
		return c.TimeS
	}
	return c.EnergyKWh
}

// recommendInference searches an inference stage (teacher or evaluation)
// over the candidates' GPU types × counts × layouts (single on one GPU; tp
// and dp on more) with the stage's own workload, and fills rec.
func (e *estimator) recommendInference(cat *model.Catalog, rec *StageRecommendation, spec *InferenceSpec, regime string, fallback *model.ModelSpec, site model.SiteSpec, st stageSettings, planPath string) error {
	obj := strings.ToLower(strings.TrimSpace(st.minimise))
	switch obj {
	case "":
		obj = model.MinEnergy
	case model.MinEnergy, model.MinCO2e, model.MinCost, model.MinTime:
	default:
		field := "minimise"
		if st.path != "" {
			field = st.path + ".minimise"
		}
		return errAt(model.CodeMinimise, field, quote(st.minimise), nil)
	}
	if st.deadline != 0 {
		field := "deadline_s"
		if st.path != "" {
			field = st.path + ".deadline_s"
		}
		if err := checkPositive(field, st.deadline, model.MaxDeadlineS); err != nil {
			return err
		}
	}
	rec.Minimise, rec.DeadlineS = obj, st.deadline
	role := regime
	if rec.Stage == StageEval {
		role = StageEval
	}
	emb := model.EmbodiedKgPerGPUHour()
	config := func(s InferenceSpec, r stageEst, g *model.GPU, n int) StageConfig {
		gh := float64(n) * r.timeS / 3600
		c := StageConfig{Hardware: model.ConfigHardware{GPU: g.ID, Count: n, PowerLimitW: g.BoardPowerW}, Strategy: model.Strategy{Name: s.Strategy},
			EnergyKWh: r.kwh, TimeS: r.timeS, CO2eKg: r.kwh * site.PUE * site.CarbonGPerKWh / 1000, EmbodiedCO2eKg: gh * emb,
			CostUSD: r.kwh * site.PUE * site.USDPerKWh, GPUHours: gh, MeetsDeadline: st.deadline == 0 || r.timeS <= st.deadline}
		c.TotalCO2eKg = c.CO2eKg + c.EmbodiedCO2eKg
		if c.Strategy.Name == "" {
			c.Strategy.Name = InferSingle
		}
		c.Inference = &s
		return c
	}
	// The current configuration, as the plan estimates it.
	cg, cn, err := e.lookupGPU(spec.Hardware, planPath, 1)
	if err != nil {
		return err
	}
	r, err := e.inference(spec, role, fallback, planPath)
	if err != nil {
		return err
	}
	cur := config(*spec, r, cg, cn)
	rec.Current = &cur

	cands, err := model.CheckCandidates(cat.Hardware, st.cands, st.candsPath)
	if err != nil {
		fe := model.AsFieldError(err)
		if fe.Field == st.candsPath {
			fe = fe.InContext(model.CodeSearching, strings.TrimPrefix(planPath, "plan."))
		}
		return fe
	}
	var pts []StageConfig
	lean := *e
	lean.quiet = true
	for _, cd := range cands {
		g, maxN := cd.GPU, cd.MaxCount
		for _, n := range model.InferenceCounts(maxN) {
			layouts := []string{InferSingle}
			if n > 1 {
				layouts = []string{InferTP, InferDP}
			}
			for _, lay := range layouts {
				s := *spec
				s.Hardware = model.HardwareSpec{GPU: g.ID, Count: float64(n)}
				s.Strategy = lay
				rec.Searched++
				r, err := lean.inference(&s, role, fallback, planPath)
				if err != nil {
					continue // does not fit, or the layout does not apply (tp over a count that does not divide the heads)
				}
				pts = append(pts, config(s, r, g, n))
			}
		}
	}
	rec.Feasible = len(pts)
	rec.Assumptions = append(rec.Assumptions,
		fmt.Sprintf("searched %d configurations of the %s stage: GPU type × count (up to each candidate's max_count) × layout (single on one GPU; tp and dp on more), each at its board's default power limit (power limits are not modelled for inference stages); %d fit", rec.Searched, rec.Stage, len(pts)),
		"embodied CO2e: "+model.EmbodiedSource)
	if len(pts) == 0 {
		rec.Warn(model.Message{Code: CodeNoneFitsInference})
		return nil
	}
	bi, fi, warn := model.PickBest(len(pts), st.deadline, func(i int) float64 { return score(obj, &pts[i]) },
		func(i int) float64 { return pts[i].EnergyKWh }, func(i int) float64 { return pts[i].TimeS },
		func(i int) model.Message {
			return model.ConfigName(pts[i].Hardware.Count, pts[i].Hardware.GPU, pts[i].Strategy.Name)
		})
	best, fastest := &pts[bi], &pts[fi]
	rec.MeetsDeadline = warn.Code == ""
	if warn.Code != "" {
		rec.Warn(warn)
	}
	b, f := *best, *fastest
	rec.Best, rec.Fastest = &b, &f
	rec.Pareto = []StageConfig{}
	for _, i := range model.ParetoFront(len(pts), func(i int) float64 { return pts[i].TimeS }, func(i int) float64 { return pts[i].EnergyKWh }) {
		rec.Pareto = append(rec.Pareto, pts[i])
	}
	rec.Saving = &model.Saving{EnergyKWh: cur.EnergyKWh - b.EnergyKWh, TimeS: cur.TimeS - b.TimeS, CO2eKg: cur.CO2eKg - b.CO2eKg,
		EmbodiedCO2eKg: cur.EmbodiedCO2eKg - b.EmbodiedCO2eKg, CostUSD: cur.CostUSD - b.CostUSD}
	if cur.EnergyKWh > 0 {
		rec.Saving.EnergyPct = 100 * rec.Saving.EnergyKWh / cur.EnergyKWh
	}
	if rec.Stage == StageTeacher && regime == RegimeKD {
		for _, c := range []*StageConfig{rec.Best, rec.Current} {
			tok := c.Inference.Tokens
			if w, ok := model.InputBoundMessage("logit caching on "+c.Hardware.GPU, tok, c.TimeS, c.Hardware.Count); ok {
				rec.Warn(w)
				break
			}
		}
	}
	return nil
}
