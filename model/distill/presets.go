package distill

import (
	"sort"
	"strings"

	"github.com/wattscale/wattscale/model"
)

// PaperCitation is the source of the presets.
const PaperCitation = "Lambert & Luccioni, Towards Resource-Efficient LLMs: End-to-End Energy Accounting of Distillation Pipelines, ICML 2026 (arXiv 2605.13981), main-results and stage-decomposition tables; teacher OLMo-2-SFT 32B, one H100 SXM 80 GB, bf16, sequence length 1024, averaged over three datasets and 2–3 repeats"

// PaperTokens is the token count behind the paper's whole-pipeline J/token
// column (J/token = total kWh · 3.6e6 / PaperTokens; "about 3.0e7 tokens").
const PaperTokens = 3.0e7

// Preset is one published pipeline. Stage energies are the paper's measured
// kWh (GPU and CPU energy, idle not subtracted); a nil stage was not
// published. Prerun is not in the published stage table and is left out of
// every preset. SFT 7B was published as a total only.
type Preset struct {
	Name        string      `json:"name"`
	Regime      string      `json:"regime"`
	Student     string      `json:"student"`                // student model, e.g. "OLMo-2 1B"
	StudentKey  string      `json:"student_model"`          // model preset id of the student
	TeacherKey  string      `json:"teacher_model"`          // model preset id of the teacher; "" for sft
	StagesKWh   StageValues `json:"stages_kwh"`             // published stage energies
	TotalKWh    float64     `json:"total_kwh"`              // published total
	JPerToken   float64     `json:"j_per_token"`            // published whole-pipeline J/token; 0 = not published
	Quality     *float64    `json:"quality,omitempty"`      // published Q; nil = not published
	TeacherWork string      `json:"teacher_work,omitempty"` // what the teacher stage does
	Source      string      `json:"source"`
}

func kwh(x float64) *float64 { return &x }

// Presets returns a fresh copy of the paper's published pipelines. Totals,
// J/token and Q are from the main-results table; stage energies from the
// stage-decomposition table (its rows add up to the totals; synthetic 1B's
// total, 16.65 kWh, appears only as that sum, and its Q was not published).
func Presets() []Preset {
	src := PaperCitation
	return []Preset{
		{Name: "sft-1b", Regime: RegimeSFT, Student: "OLMo-2 1B", StudentKey: "olmo-2-1b",
			StagesKWh: StageValues{Preprocess: kwh(0.37), Student: kwh(6.30), Eval: kwh(0.33)},
			TotalKWh:  7.00, JPerToken: 0.84, Quality: kwh(0.69), Source: src},
		{Name: "sft-7b", Regime: RegimeSFT, Student: "OLMo-2 7B", StudentKey: "olmo-2-7b",
			TotalKWh: 19.50, JPerToken: 2.34, Quality: kwh(0.90), Source: src + "; total only: the stage split of the 7B runs was not published"},
		{Name: "sft-13b", Regime: RegimeSFT, Student: "OLMo-2 13B", StudentKey: "olmo-2-13b",
			StagesKWh: StageValues{Preprocess: kwh(0.37), Student: kwh(33.15), Eval: kwh(1.08)},
			TotalKWh:  34.60, JPerToken: 4.15, Quality: kwh(0.99), Source: src},
		{Name: "kd-1b", Regime: RegimeKD, Student: "OLMo-2 1B", StudentKey: "olmo-2-1b", TeacherKey: "olmo-2-32b",
			StagesKWh: StageValues{Preprocess: kwh(0.37), Teacher: kwh(11.00), Student: kwh(5.20), Eval: kwh(0.33)},
			TotalKWh:  16.90, JPerToken: 2.03, Quality: kwh(0.70), TeacherWork: "logit caching (top-100 log-probs per token)", Source: src},
		{Name: "kd-13b", Regime: RegimeKD, Student: "OLMo-2 13B", StudentKey: "olmo-2-13b", TeacherKey: "olmo-2-32b",
			StagesKWh: StageValues{Preprocess: kwh(0.37), Teacher: kwh(11.00), Student: kwh(30.05), Eval: kwh(1.08)},
			TotalKWh:  42.50, JPerToken: 5.10, Quality: kwh(0.82), TeacherWork: "logit caching (top-100 log-probs per token)", Source: src},
		{Name: "synthetic-1b", Regime: RegimeSynthetic, Student: "OLMo-2 1B", StudentKey: "olmo-2-1b", TeacherKey: "olmo-2-32b",
			StagesKWh: StageValues{Preprocess: kwh(0.37), Teacher: kwh(10.60), Student: kwh(5.35), Eval: kwh(0.33)},
			TotalKWh:  16.65, TeacherWork: "synthetic generation (nucleus sampling, max_new_tokens up to 1024)", Source: src + "; total is the stage sum, J/token and Q not published"},
		{Name: "synthetic-13b", Regime: RegimeSynthetic, Student: "OLMo-2 13B", StudentKey: "olmo-2-13b", TeacherKey: "olmo-2-32b",
			StagesKWh: StageValues{Preprocess: kwh(0.37), Teacher: kwh(10.60), Student: kwh(28.65), Eval: kwh(1.08)},
			TotalKWh:  40.70, JPerToken: 4.88, Quality: kwh(0.85), TeacherWork: "synthetic generation (nucleus sampling, max_new_tokens up to 1024)", Source: src},
	}
}

// FindPreset looks a preset up by name, ignoring case; the error, a
// *model.FieldError on field, lists the known names.
func FindPreset(presets []Preset, name, field string) (*Preset, error) {
	for i := range presets {
		if strings.EqualFold(strings.TrimSpace(name), presets[i].Name) {
			return &presets[i], nil
		}
	}
	names := make([]string, len(presets))
	for i, p := range presets {
		names[i] = p.Name
	}
	sort.Strings(names)
	return nil, errAt(CodePlanPresetUnknown, field, quote(name), model.Args{{Name: "known", List: names}})
}
