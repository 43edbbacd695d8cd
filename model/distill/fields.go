package distill

import (
	"fmt"
	"strings"

	"github.com/wattscale/wattscale/model"
)

// The plan's field table: every input of the planner form, once, with its
// plan path, kind, range, opening value and when it applies (the same
// model.Field type as the estimate request's table). It drives the planner
// form's decoding and its errors (wasm/calcapi), the form calc.js renders,
// its URL keys, and the OpenAPI descriptions of the plan (wasm/api).
//
// A key that starts with OptionKeyPrefix ("oK.") is an input of each
// option row: the page writes it "o1.name", "o2.name", …, and its Path's
// "[]" holds the option's index ("options[0].name"). A path with "[]" on a
// plan-wide key (n, jref, jstu) is set on every distilled option.
// An estimated student stage's inputs ("oK.s.KEY") are the rows of
// model.RequestFields; PlanFields lists only the plan's own.

// OptionKeyPrefix starts the key of an input of each option row.
const OptionKeyPrefix = "oK."

// The stage energies a planner row takes, kWh.
var stageKWhBounds = &model.Bounds{Min: 0, Max: maxKWh}

// notSFT applies to distilled rows.
var notSFT = &model.When{Key: "oK.regime", Value: RegimeSFT, Not: true}

// PlanFields is the planner form's field table, in the form's order.
var PlanFields = []model.Field{
	{Key: "set", Kind: model.KindEnum, Group: "plan", Label: "Start from", Choices: []string{"1b", "13b", "all", "custom"}, Form: "1b",
		Say:  map[string]string{"1b": "Paper: 1B students, 32B teacher", "13b": "Paper: 13B students", "all": "Paper: all seven pipelines", "custom": "My own numbers"},
		Hint: "Stage energies from Lambert & Luccioni (ICML 2026), measured on one H100",
		Help: "a ready-made plan (the paper's pipelines by student size) or the user's own numbers"},
	{Key: "n", Example: "a whole number, for example 4", Path: "options[].students", Kind: model.KindInt, Group: "plan", Label: "Students sharing each teacher stage (N)", Form: "1",
		Bounds: &model.Bounds{Min: 1, Max: MaxStudents, Whole: true}, Hint: "reuse of cached logits or a synthetic set",
		Default: "the options in the plan that share the teacher stage", Help: "students planned to share each distilled option's teacher stage (cached logits or a synthetic set)"},
	{Key: "rows", Path: "options", Kind: model.KindInt, Group: "plan", Label: "Options", Form: "3", Bounds: &model.Bounds{Min: 1, Max: MaxOptions, Whole: true},
		Help: "the pipelines compared; the form holds at most 12"},
	{Key: "oK.preset", Path: "options[].preset", Kind: model.KindString, Group: "option", Label: "Source", Optional: true,
		Default: "the option's own numbers", Help: "a row of the paper's table (sft-1b, sft-7b, sft-13b, kd-1b, kd-13b, synthetic-1b, synthetic-13b): it supplies the regime, the stages, the token count and the quality"},
	{Key: "oK.name", Path: "options[].name", Kind: model.KindString, Group: "option", Label: "Name", Optional: true,
		Default: "the preset's name", Help: "the option's name, unique in the plan"},
	{Key: "oK.regime", Path: "options[].regime", Kind: model.KindEnum, Group: "option", Label: "Regime", Choices: Regimes,
		Say:  map[string]string{RegimeSFT: "Direct SFT", RegimeKD: "Logit KD", RegimeSynthetic: "Synthetic-data SFT"},
		Help: "sft (the student trains on the data directly), kd (logit distillation from cached teacher log-probs) or synthetic (the student is fine-tuned on teacher-generated responses)"},
	{Key: "oK.pre", Path: "options[].stages_kwh.preprocess", Kind: model.KindNumber, Group: "option", Label: "Preprocess kWh", Unit: "kWh", Optional: true, Bounds: stageKWhBounds,
		Help: "measured energy of data preprocessing (tokenise, pack, shard), kWh"},
	{Key: "oK.teacher", Path: "options[].stages_kwh.teacher", Kind: model.KindNumber, Group: "option", Label: "Teacher kWh", Unit: "kWh", Optional: true, Bounds: stageKWhBounds, When: notSFT,
		Help: "measured energy of the teacher stage (logit caching or synthetic generation), kWh"},
	{Key: "oK.student", Path: "options[].stages_kwh.student", Kind: model.KindNumber, Group: "option", Label: "Student kWh", Unit: "kWh", Optional: true, Bounds: stageKWhBounds,
		When: &model.When{Key: "oK.smode", Value: StudentEstimate, Not: true}, Help: "measured energy of the student's training, kWh"},
	{Key: "oK.eval", Path: "options[].stages_kwh.eval", Kind: model.KindNumber, Group: "option", Label: "Evaluation kWh", Unit: "kWh", Optional: true, Bounds: stageKWhBounds,
		Help: "measured energy of the evaluation, kWh"},
	{Key: "oK.smode", Path: "options[].student", Kind: model.KindEnum, Group: "option", Label: "Student stage", Choices: []string{"", StudentEstimate}, Optional: true,
		Say:     map[string]string{"": "Measured energy (kWh)", StudentEstimate: "Estimated from its training setup"},
		Default: "measured (Student kWh)", Help: "the student stage measured (Student kWh) or estimated from its training setup (the fine-tuning estimate request, LoRA and QLoRA included)"},
	{Key: "oK.q", Path: "options[].quality", Kind: model.KindNumber, Group: "option", Label: "Quality Q (0 to 1)", Optional: true, Bounds: &model.Bounds{Min: 0, Max: 1},
		Hint: "student score ÷ teacher score; 0.7 or 70 %", Default: "unknown, off the energy–quality plane", Help: "quality score Q from 0 to 1: the student's benchmark score ÷ the teacher's"},
	{Key: "oK.baseline", Path: "options[].baseline", Kind: model.KindString, Group: "option", Label: "Compared with", Optional: true, When: notSFT,
		Default: "the plan's only direct-SFT option", Help: "the direct-SFT option a distilled option's N* compares with"},
	{Key: "region", Path: "site.region", Kind: model.KindString, Group: "site", Form: "world"},
	{Key: "carbon", Path: "site.carbon_g_per_kwh", Kind: model.KindNumber, Group: "site"},
	{Key: "pue", Path: "site.pue", Kind: model.KindNumber, Group: "site"},
	{Key: "price", Path: "site.usd_per_kwh", Kind: model.KindNumber, Group: "site"},
	{Key: "jref", Example: "a number, for example 1.2", Path: "options[].serving.j_ref", Kind: model.KindNumber, Group: "serving", Label: "Reference J/token", Unit: "J/token", Optional: true,
		Bounds: &model.Bounds{Min: 0, Max: maxJToken}, Default: "no T*", Help: "serving energy per token of the model the student replaces, J (for T*, with the student's)"},
	{Key: "jstu", Example: "a number, for example 0.3", Path: "options[].serving.j_student", Kind: model.KindNumber, Group: "serving", Label: "Student J/token", Unit: "J/token", Optional: true,
		Bounds: &model.Bounds{Min: 0, Max: maxJToken}, Default: "no T*", Help: "serving energy per token of the student, J (for T*, with the reference model's)"},
	{Key: "minimise", Path: "minimise", Kind: model.KindEnum, Group: "recommend", Label: "Minimise", Choices: []string{"", model.MinCO2e, model.MinCost, model.MinTime}, Optional: true,
		Say:     map[string]string{"": "Energy", model.MinCO2e: "CO₂e (operational + embodied)", model.MinCost: "Electricity cost", model.MinTime: "Time"},
		Default: "energy", Help: "what the per-stage recommender makes least: energy, CO2e (operational + embodied), electricity cost or time"},
	{Key: "deadline", Path: "deadline_s", Kind: model.KindNumber, Group: "recommend", Label: "Deadline per stage (hours)", Unit: "hours", Optional: true,
		Hint: "empty = no deadline", Default: "no deadline", Help: "each searched stage's own wall-clock limit, hours in the form (deadline_s, seconds, in the request)"},
}

// StudentEstimate is the oK.smode value of a student stage estimated from
// its training setup (Option.Student) instead of measured.
const StudentEstimate = "estimate"

// The site rows take label, help, range and default from the estimate
// request's table: the plan's site is the same object.
func init() {
	for i := range PlanFields {
		f := &PlanFields[i]
		if f.Group != "site" {
			continue
		}
		r := model.RequestField(f.Path)
		if r == nil {
			panic("distill: no request field " + f.Path)
		}
		key, form := f.Key, r.Form
		*f = *r
		f.Key, f.Group, f.Form = key, "site", form
	}
}

// PlanField returns the row of PlanFields whose Path is path, with any
// option index written "[]" ("options[].quality"), or nil.
func PlanField(path string) *model.Field {
	path = OptionPath(path)
	for i := range PlanFields {
		if PlanFields[i].Path == path {
			return &PlanFields[i]
		}
	}
	return nil
}

// PlanFieldByKey returns the row of PlanFields whose Key is key ("n",
// "oK.q" or a row's own "o3.q"), or nil.
func PlanFieldByKey(key string) *model.Field {
	key = OptionKey(key)
	for i := range PlanFields {
		if PlanFields[i].Key == key {
			return &PlanFields[i]
		}
	}
	return nil
}

// OptionPath writes the option index of a plan path as "[]":
// "options[3].quality" → "options[].quality".
func OptionPath(path string) string {
	rest, ok := strings.CutPrefix(path, "options[")
	if !ok {
		return path
	}
	j := strings.IndexByte(rest, ']')
	if j < 0 {
		return path
	}
	return "options[]" + rest[j+1:]
}

// OptionKey writes a row key's option number as "K": "o3.q" → "oK.q".
func OptionKey(key string) string {
	if len(key) < 3 || key[0] != 'o' {
		return key
	}
	j := 1
	for j < len(key) && key[j] >= '0' && key[j] <= '9' {
		j++
	}
	if j == 1 || j >= len(key) || key[j] != '.' {
		return key
	}
	return OptionKeyPrefix + key[j+1:]
}

// RowKey is row k's (from 1) key of a table key ("oK.q", 3 → "o3.q").
func RowKey(key string, k int) string {
	if rest, ok := strings.CutPrefix(key, OptionKeyPrefix); ok {
		return fmt.Sprintf("o%d.%s", k, rest)
	}
	return key
}

// RowPath is option i's (from 0) path of a table path
// ("options[].quality", 2 → "options[2].quality").
func RowPath(path string, i int) string {
	if rest, ok := strings.CutPrefix(path, "options[]"); ok {
		return fmt.Sprintf("options[%d]%s", i, rest)
	}
	return path
}
