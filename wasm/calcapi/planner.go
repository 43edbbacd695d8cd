package calcapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/distill"
)

// PlanForm is the planner's state as typed, keyed as its URL query:
//
//	n                    students planned to share each teacher stage (whole, ≥ 1)
//	region carbon pue price   as in Form
//	jref jstu            serving energy, J per token, of the reference model and the student (for T*)
//	rows                 how many option rows (1…MaxPlanRows)
//	oK.preset            row K's paper preset (distill.Presets), or "" for the row's own numbers
//	oK.name oK.regime    name; sft, kd or synthetic
//	oK.pre oK.teacher oK.student oK.eval   stage energies, kWh (prerun is not modelled by the paper's table)
//	oK.q                 quality Q (student ÷ teacher score), optional
//	oK.baseline          the sft row a distilled row is compared with ("" = the plan's only sft row)
//	oK.smode             the student stage: "" (measured, oK.student kWh) or "estimate"
//	oK.s.KEY             with smode=estimate, the student's fine-tuning request: KEY is a
//	                     key of the calculator's form (StudentKeys: model, tokens, method,
//	                     rank, gpu, …), read by Form.Request as the calculator reads it
//
// Rows count from 1. A row with a preset uses the paper's numbers; the page
// clears the preset when the user edits a number of that row.
type PlanForm map[string]string

// MaxPlanRows bounds the planner's rows.
const MaxPlanRows = 12

// PlanSets are the plans the planner offers ready-made: the paper's
// pipelines by student size.
var PlanSets = map[string][]string{
	"1b":  {"sft-1b", "kd-1b", "synthetic-1b"},
	"13b": {"sft-13b", "kd-13b", "synthetic-13b"},
	"all": {"sft-1b", "sft-7b", "sft-13b", "kd-1b", "kd-13b", "synthetic-1b", "synthetic-13b"},
}

// CustomPlanForm is what "My own numbers" opens with: a valid plan to edit,
// the paper's 1B direct-SFT and logit-KD pipelines (sft-1b, kd-1b) copied
// as the user's own stage energies and quality.
func CustomPlanForm() PlanForm {
	f := PlanForm{"set": "custom", "rows": "2"}
	presets := distill.Presets()
	for i, name := range []string{"sft-1b", "kd-1b"} {
		pr, err := distill.FindPreset(presets, name, "")
		if err != nil {
			panic("calcapi: preset " + name + " is gone: " + err.Error())
		}
		o := fmt.Sprintf("o%d.", i+1)
		f[o+"name"] = "my " + map[string]string{distill.RegimeSFT: "direct SFT", distill.RegimeKD: "logit KD"}[pr.Regime]
		f[o+"regime"] = pr.Regime
		for key, x := range map[string]*float64{"pre": pr.StagesKWh.Preprocess, "teacher": pr.StagesKWh.Teacher, "student": pr.StagesKWh.Student, "eval": pr.StagesKWh.Eval} {
			if x != nil {
				f[o+key] = strconv.FormatFloat(*x, 'g', -1, 64)
			}
		}
		if pr.Quality != nil {
			f[o+"q"] = strconv.FormatFloat(*pr.Quality, 'g', -1, 64)
		}
	}
	return f
}

// BestPerStudent names the option with the lowest energy per student among
// those with a stage split: an option known only by its total (sft-7b in
// the paper) has no per-student figure and never wins. "" when none has one.
func BestPerStudent(r *distill.Result) string {
	best, bestKWh := "", math.Inf(1)
	for _, o := range r.Options {
		split := len(o.Stages) > 0
		for _, s := range o.Stages {
			if s.Stage == distill.StageUnsplit {
				split = false
			}
		}
		if split && o.KWhPerStudent > 0 && o.KWhPerStudent < bestKWh {
			best, bestKWh = o.Name, o.KWhPerStudent
		}
	}
	return best
}

// StudentModeEstimate is oK.smode's value for a student stage estimated
// from its training configuration instead of a measured energy.
const StudentModeEstimate = distill.StudentEstimate

// StudentKeys are the calculator form keys a planner row's estimated
// student stage takes, as "oK.s.KEY", in the form's order: the rows of
// model.RequestFields marked Student (the model preset, the training run,
// the method with its LoRA/QLoRA options, and the hardware and layout).
// The site is the plan's.
var StudentKeys = studentKeys()

func studentKeys() []string {
	var keys []string
	for _, f := range model.RequestFields {
		if f.Student {
			keys = append(keys, f.Key)
		}
	}
	return keys
}

// paperStudentTokens are the tokens the paper's students processed, as the
// study's harness logs imply them (published stage kWh × 3.6e6 ÷ the
// harness's measured J/token of the same stage; Lambert & Luccioni, ICML
// 2026, and github.com/StellarLuminosity/Energy at commit 091a5534; the
// derivation is in model/distill's TestPaperSetupComparison). sft-7b was
// published as a total only.
var paperStudentTokens = map[string]float64{"sft-1b": 6.62e8, "sft-13b": 4.63e8, "kd-1b": 7.26e7, "kd-13b": 8.63e7,
	"synthetic-1b": 5.62e8, "synthetic-13b": 4.00e8}

// DefaultStudentForm is what a row's student stage opens with when it
// switches to an estimate: the paper's setup (one H100 SXM, bf16,
// 1024-token sequences, micro-batch 4 with 16 accumulated per optimizer
// step, the harness's configs/base.yaml; gradient checkpointing, which its
// sft_main.py and kd_main.py always enable; Adafactor on bf16 weights, 4
// bytes of state per parameter, the optimizer of the stage logs the token
// counts come from) for the preset's student model and token
// count (paperStudentTokens), trained in full; "" or a preset without a
// stage split = the sft-1b setup. Keys are the calculator form's
// (StudentKeys).
func DefaultStudentForm(preset string) map[string]string {
	f := map[string]string{}
	for _, k := range StudentKeys {
		f[k] = formFields[k].Form
	}
	tokens, ok := paperStudentTokens[preset]
	pr, err := distill.FindPreset(distill.Presets(), preset, "")
	if !ok || err != nil {
		tokens, pr = paperStudentTokens["sft-1b"], &distill.Preset{StudentKey: "olmo-2-1b"}
	}
	for k, v := range map[string]string{"model": pr.StudentKey, "tokens": strings.Replace(strconv.FormatFloat(tokens, 'g', -1, 64), "e+0", "e", 1),
		"seq": "1024", "batch": "4", "accum": "16", "precision": "bf16", "state_bytes": "4", "ckpt": "on", "method": model.MethodFull, "gpu": "h100-sxm5", "count": "1", "strategy": model.Single} {
		f[k] = v
	}
	return f
}

// studentRequest reads row's estimated student stage (keys "oK.s.KEY")
// through Form.Request, so that the calculator's parsing, defaults and
// messages apply; errors are placed on the row's inputs and paths.
func (f PlanForm) studentRequest(row, path string) (*model.Request, *Error) {
	sub := Form{}
	for _, k := range StudentKeys {
		sub[k] = f[row+"s."+k]
	}
	if strings.TrimSpace(sub["length"]) == "" {
		sub["length"] = "tokens" // a link from before the row took epochs
	}
	req, err := sub.Request(nil) // (which refuses a length that is neither tokens nor epochs)
	if err != nil {
		e := *err
		e.Field = path + ".student." + err.Field
		e.Input = row + "s." + err.Input
		fe := &model.FieldError{Field: e.Field, Value: e.Value, Message: e.Message}
		e.Text = fe.Error()
		return nil, &e
	}
	return &req, nil
}

// planSiteKeys are the calculator's site inputs, which the planner shares
// (rows of model.RequestFields).
var planSiteKeys = []string{"region", "carbon", "pue", "price"}

// DefaultPlanForm is the planner's opening state: the paper's 1B pipelines.
func DefaultPlanForm() PlanForm {
	f := PlanForm{"set": "1b", "n": "1", "jref": "", "jstu": ""}
	for _, k := range planSiteKeys {
		f[k] = formFields[k].Form // the calculator's site inputs, opening as there
	}
	f.setRows(PlanSets["1b"])
	return f
}

// setRows fills the rows with paper presets.
func (f PlanForm) setRows(presets []string) {
	f["rows"] = strconv.Itoa(len(presets))
	for i, p := range presets {
		f[fmt.Sprintf("o%d.preset", i+1)] = p
	}
}

// PlanInput is the argument of Distill: the planner form, or a plan JSON
// (as `go run ./site distill` reads it).
type PlanInput struct {
	Form PlanForm        `json:"form,omitempty"`
	Plan json.RawMessage `json:"plan,omitempty"`
}

// PlanOutput is Distill's result: the plan the form became, the planner's
// result, or an Error placed on a form input.
type PlanOutput struct {
	Plan   json.RawMessage `json:"plan,omitempty"`
	Result *distill.Result `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
	// BestPerStudent is the option the page marks "lowest energy per
	// student" (BestPerStudent); "" when no option has a stage split.
	BestPerStudent string `json:"best_per_student,omitempty"`
	// NStar holds, by option name, what the page says of its N* (NStarText).
	NStar map[string]string `json:"n_star_text,omitempty"`
	// Warnings are the result's warnings in the form's words (Say of its
	// warning_messages), for the page instead of the API's warnings.
	Warnings []string `json:"warnings_say,omitempty"`
}

// NStarText is what the page says of o's N*: the break-even count with
// its range, the range first when a stage behind it was estimated in a
// regime the model flags, or why there is none.
func NStarText(o *distill.OptionResult) string {
	if o.NStar == nil {
		return o.NStarReason
	}
	point := strconv.FormatFloat(*o.NStar, 'g', 3, 64)
	r := o.NStarRange
	switch {
	case r == nil:
		return "N* = " + point + " students to break even"
	case o.RangeFlagged:
		return "Breaks even at N* of " + r.Text("students") + " (central " + point + "; a stage was estimated in a regime the model flags, so the range is the answer)"
	}
	return "N* = " + point + " students to break even (" + r.Text("students") + " with each estimated stage within its interval)"
}

// Plan converts the form into a distillation plan.
func (f PlanForm) Plan(regions []Region) (distill.Plan, *Error) {
	presets := distill.Presets() // once per interaction, not per row
	var p distill.Plan
	// num reads the number of a key of distill.PlanFields (row: the
	// option's number from 1 for a row key, else 0); its errors name the
	// table's path (an option's, for a row key).
	num := func(key string, row int, required bool) (*float64, *Error) {
		fd := distill.PlanFieldByKey(key)
		field := fd.Path
		if row > 0 {
			field = distill.RowPath(fd.Path, row-1)
		}
		raw := strings.TrimSpace(f[key])
		if raw == "" {
			if required {
				return nil, requiredErr(field, key)
			}
			return nil, nil
		}
		x, ok := ParseNumber(raw)
		if !ok {
			code, args := numberProblem(planExample(fd), raw, planNumberExample)
			return nil, formErr(field, key, f[key], code, args)
		}
		return &x, nil
	}
	rows, ok := ParseNumber(f["rows"])
	if !ok || rows < 1 || rows > MaxPlanRows || rows != float64(int(rows)) {
		return p, formErr("options", "rows", f["rows"], CodeRows, model.Args{{Name: "max", Num: MaxPlanRows}})
	}
	n, err := num("n", 0, true)
	if err != nil {
		return p, err
	}
	if fd := distill.PlanFieldByKey("n"); fd.Bounds.Check(fd.Path, *n) != nil {
		return p, formErr(fd.Path, "n", f["n"], CodeStudents, model.Args{{Name: "max", Num: fd.Bounds.Max}})
	}
	jref, err := num("jref", 0, false)
	if err != nil {
		return p, err
	}
	jstu, err := num("jstu", 0, false)
	if err != nil {
		return p, err
	}
	if (jref == nil) != (jstu == nil) {
		if jref == nil {
			return p, formErr(distill.PlanFieldByKey("jref").Path, "jref", "", CodeJRefNeeded, nil)
		}
		return p, formErr(distill.PlanFieldByKey("jstu").Path, "jstu", "", CodeJStuNeeded, nil)
	}
	for i := 1; i <= int(rows); i++ {
		k := func(s string) string { return fmt.Sprintf("o%d.%s", i, s) }
		path := fmt.Sprintf("options[%d]", i-1)
		row := func(key string) string { return f[distill.RowKey(key, i)] }
		var o distill.Option
		if pr := strings.TrimSpace(f[k("preset")]); pr != "" {
			o.Preset = pr
		} else {
			o.Name = strings.TrimSpace(f[k("name")])
			o.Regime = strings.TrimSpace(f[k("regime")])
			// The measured stages: the table's stages_kwh rows that apply.
			sv := &distill.StageValues{}
			dst := map[string]**float64{"preprocess": &sv.Preprocess, "teacher": &sv.Teacher, "student": &sv.Student, "eval": &sv.Eval}
			for _, fd := range distill.PlanFields {
				stage, ok := strings.CutPrefix(fd.Path, "options[].stages_kwh.")
				if !ok || !fd.When.Holds(row) {
					continue
				}
				v, err := num(distill.RowKey(fd.Key, i), i, false)
				if err != nil {
					return p, err
				}
				*dst[stage] = v
			}
			o.StagesKWh = sv
			switch mode := strings.TrimSpace(f[k("smode")]); mode {
			case "":
			case StudentModeEstimate:
				req, err := f.studentRequest(k(""), path)
				if err != nil {
					return p, err
				}
				o.Student = req
			default:
				return p, formErr(path+".student", k("smode"), mode, CodeStudentMode, nil)
			}
			// Quality is a score from 0 to 1; "70 %" reads as 0.7.
			qkey, orig := k("q"), f[k("q")]
			pct := false
			if raw, ok := strings.CutSuffix(strings.TrimSpace(orig), "%"); ok {
				pct = true
				f = f.with(qkey, raw)
			}
			q, err := num(qkey, i, false)
			if pct {
				f = f.with(qkey, orig)
				if q != nil {
					*q /= 100
				}
				if err != nil {
					err.Value = strconv.Quote(orig)
				}
			}
			if err != nil {
				return p, err
			}
			o.Quality = q
		}
		regime := o.Regime
		var pr *distill.Preset
		if o.Preset != "" {
			pr, _ = distill.FindPreset(presets, o.Preset, path+".preset")
			if pr != nil {
				regime = pr.Regime
			}
		}
		if regime == distill.RegimeKD || regime == distill.RegimeSynthetic {
			o.Students = *n
			o.Baseline = strings.TrimSpace(f[k("baseline")])
			if o.Baseline == "" && pr != nil {
				o.Baseline = f.sameStudentSFT(presets, int(rows), pr.StudentKey)
			}
			if jref != nil {
				o.Serving = &distill.Serving{JRef: *jref, JStudent: *jstu}
			}
		}
		p.Options = append(p.Options, o)
	}
	var site [3]float64
	for j, key := range []string{"pue", "carbon", "price"} {
		x, err := num(key, 0, false)
		if err != nil {
			return p, err
		}
		if x != nil {
			site[j] = *x
		}
	}
	p.Site = model.SiteSpec{PUE: site[0], CarbonGPerKWh: site[1], USDPerKWh: site[2]}
	if r := findRegion(regions, f["region"]); r != nil {
		r.Apply(&p.Site)
	}
	return p, nil
}

// with returns f with key set to v, a copy: Plan reads the form it is given
// without changing it.
func (f PlanForm) with(key, v string) PlanForm {
	g := make(PlanForm, len(f)+1)
	for k, x := range f {
		g[k] = x
	}
	g[key] = v
	return g
}

// sameStudentSFT names the preset sft row that trains the same student, when
// the plan has more than one sft row (with one, distill picks it itself).
func (f PlanForm) sameStudentSFT(presets []distill.Preset, rows int, student string) string {
	var sft []*distill.Preset
	for i := 1; i <= rows; i++ {
		name := f[fmt.Sprintf("o%d.preset", i)]
		if pr, err := distill.FindPreset(presets, name, ""); err == nil && pr.Regime == distill.RegimeSFT {
			sft = append(sft, pr)
		} else if name == "" && strings.TrimSpace(f[fmt.Sprintf("o%d.regime", i)]) == distill.RegimeSFT {
			sft = append(sft, nil)
		}
	}
	if len(sft) < 2 {
		return ""
	}
	for _, p := range sft {
		if p != nil && p.StudentKey == student {
			return p.Name
		}
	}
	return ""
}

// optionIndex splits "options[3].stages_kwh.teacher" into 3 and
// "stages_kwh.teacher".
func optionIndex(path string) (int, string, bool) {
	rest, ok := strings.CutPrefix(path, "options[")
	if !ok {
		return 0, "", false
	}
	j := strings.IndexByte(rest, ']')
	if j < 1 {
		return 0, "", false
	}
	i, err := strconv.Atoi(rest[:j])
	if err != nil || i < 0 {
		return 0, "", false
	}
	return i, strings.TrimPrefix(rest[j+1:], "."), true
}

// InputFor names the planner input that shows an error on a plan field path.
func (f PlanForm) InputFor(path string) string {
	if i, rest, ok := optionIndex(path); ok {
		row := fmt.Sprintf("o%d.", i+1)
		switch {
		case strings.HasPrefix(rest, "serving.j_ref"):
			return "jref"
		case strings.HasPrefix(rest, "serving.j_student"):
			return "jstu"
		case strings.HasPrefix(rest, "student."):
			sub := Form{"model": f[row+"s.model"]}
			if k := sub.InputFor(strings.TrimPrefix(rest, "student.")); k != "" {
				return row + "s." + k
			}
			return row + "smode"
		case rest == "stages_kwh.prerun":
			return row + "pre"
		case rest == "name" && f[row+"preset"] != "", rest == "total_kwh", rest == "":
			return row + "preset"
		}
		if fd := distill.PlanField(path); fd != nil && fd.Key != "" {
			return distill.RowKey(fd.Key, i+1)
		}
		return ""
	}
	if fd := distill.PlanField(path); fd != nil {
		return fd.Key
	}
	return ""
}

// Distill evaluates a plan, from the planner form or a plan JSON, through
// distill.ParsePlan and distill.Evaluate: the `site distill` path.
func (a *API) Distill(input []byte) (out []byte) {
	defer recoverInto(&out)
	var in PlanInput
	if e := decodeInput(input, &in); e != nil {
		return mustJSON(PlanOutput{Error: e})
	}
	return mustJSON(a.DistillOf(in))
}

// DistillOf is Distill for a decoded input.
func (a *API) DistillOf(in PlanInput) PlanOutput {
	var o PlanOutput
	o.Plan = in.Plan
	if in.Form != nil {
		p, ferr := in.Form.Plan(a.Regions)
		if ferr != nil {
			o.Error = ferr
			return o
		}
		o.Plan = mustJSON(p)
	}
	plan, err := distill.ParsePlan(bytes.NewReader(o.Plan))
	if err == nil {
		var res distill.Result
		if res, err = distill.Evaluate(a.Catalog, plan); err == nil {
			o.Result = &res
			o.BestPerStudent = BestPerStudent(&res)
			for _, w := range res.WarningMessages {
				o.Warnings = append(o.Warnings, Say(w))
			}
			o.NStar = map[string]string{}
			for i := range res.Options {
				if res.Options[i].Regime != distill.RegimeSFT {
					o.NStar[res.Options[i].Name] = NStarText(&res.Options[i])
				}
			}
		}
	}
	if err != nil {
		e := a.errorOf(err, nil)
		if in.Form != nil {
			e.Input = in.Form.InputFor(e.Field)
		}
		o.Error = e
	}
	return o
}

// PlannerMeta is what the planner page needs besides Meta: the paper's
// presets, the regimes, the ready-made plans and the default form.
type PlannerMeta struct {
	Presets  []distill.Preset    `json:"presets"`
	Regimes  []string            `json:"regimes"`
	Sets     map[string][]string `json:"sets"`
	Default  PlanForm            `json:"default_form"`
	Custom   PlanForm            `json:"custom_form"` // what "My own numbers" opens with
	Citation string              `json:"citation"`
	MaxRows  int                 `json:"max_rows"`
	// StudentKeys are the calculator form keys of an estimated student
	// stage ("oK.s.KEY"); StudentForms their opening values per plan
	// preset ("" = a row of the user's own numbers).
	StudentKeys  []string                     `json:"student_keys"`
	StudentForms map[string]map[string]string `json:"student_forms"`
	// Fields is the planner form's field table (PlanFormFields): what the
	// page renders, toggles and keeps in the URL.
	Fields []model.Field `json:"fields"`
	// Layout is the form's fieldsets around the option rows (layout.go).
	Layout []Section `json:"layout"`
}

// studentLabels are the planner's shorter labels of some of an estimated
// student's inputs.
var studentLabels = map[string]string{"model": "Student model", "tokens": "Training tokens", "train_emb": "Train embeddings, LM head"}

// PlanFormFields is the planner form's field table: distill.PlanFields,
// then an estimated student stage's inputs, the calculator's rows of
// model.RequestFields keyed "oK.s.KEY" at "options[].student.PATH" (they
// apply while the row's oK.smode is estimate, and by their own "when").
//
// Built on first use (sync.OnceValue): the calculator's WebAssembly links
// this package without the planner, and a package-level table would be
// built, and linked in with distill's, at its every start.
var PlanFormFields = sync.OnceValue(func() []model.Field {
	out := slices.Clone(distill.PlanFields)
	for _, k := range StudentKeys {
		r := *formFields[k]
		r.Key, r.Path, r.Group = "oK.s."+k, "options[].student."+r.Path, "student"
		if l := studentLabels[k]; l != "" {
			r.Label = l
		}
		if k == "length" { // left out (a link from before the row took epochs): total tokens
			r.Optional, r.Default = true, "tokens"
		}
		if r.Kind == model.KindBool && r.Offer == nil { // a select: the row's default is the student's preset's
			r.Offer, r.Say = []string{"", "on", "off"}, model.BoolSay
		}
		if r.When != nil {
			w := *r.When
			w.Key = "oK.s." + w.Key
			r.When = &w
		}
		out = append(out, r)
	}
	return out
})

// PlannerMeta returns the planner's catalogue as JSON.
func (a *API) PlannerMeta() (out []byte) {
	defer recoverInto(&out)
	return mustJSON(PlannerMetaOf())
}

// PlannerMetaOf is the planner's catalogue (PlannerMeta's, decoded).
func PlannerMetaOf() PlannerMeta {
	return PlannerMeta{Presets: distill.Presets(), Regimes: distill.Regimes, Sets: PlanSets, Default: DefaultPlanForm(), Custom: CustomPlanForm(), Citation: distill.PaperCitation, MaxRows: MaxPlanRows,
		StudentKeys: StudentKeys, StudentForms: studentForms(), Fields: PlanFormFields(), Layout: PlannerLayout()}
}

// studentForms are DefaultStudentForm for each preset and for a row of the
// user's own numbers ("").
func studentForms() map[string]map[string]string {
	m := map[string]map[string]string{"": DefaultStudentForm("")}
	for _, p := range distill.Presets() {
		m[p.Name] = DefaultStudentForm(p.Name)
	}
	return m
}
