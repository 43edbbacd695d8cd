package distill

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/wattscale/wattscale/model"
)

// APIVersion is the version of the plan and result JSON. It changes when a
// field is renamed or removed, or its meaning changes.
const APIVersion = "1"

// The regimes an option may name.
const (
	RegimeSFT       = "sft"       // the student trains on the data directly, no teacher
	RegimeKD        = "kd"        // logit distillation from cached teacher log-probs
	RegimeSynthetic = "synthetic" // the student is fine-tuned on teacher-generated responses
)

// Regimes lists the regimes in display order.
var Regimes = []string{RegimeSFT, RegimeKD, RegimeSynthetic}

// The stage names, in pipeline order. StageUnsplit holds a measured total
// whose split into stages is not known.
const (
	StagePrerun     = "prerun"
	StagePreprocess = "preprocess"
	StageTeacher    = "teacher"
	StageStudent    = "student"
	StageEval       = "eval"
	StageUnsplit    = "unsplit"
)

// Limits on a plan.
const (
	MaxOptions  = 100  // options in one plan
	MaxStudents = 1e6  // students sharing one teacher stage
	CurveMax    = 50   // the amortisation curve runs over N = 1…CurveMax
	maxKWh      = 1e9  // a sanity bound on any energy, kWh
	minKWh      = 1e-6 // the smallest positive measured stage energy, kWh (3.6 J)
	maxName     = 100  // characters in an option name
	maxJToken   = 1e6  // J per served token
	maxTokens   = 1e16 // tokens in any stage
)

// Plan is what a user compares: options (pipelines), the default direct-SFT
// baseline they are measured against, and the site figures that turn energy
// into CO2e and cost. The same type serves the command line, the browser and
// the API.
type Plan struct {
	// Baseline names the direct-SFT option distilled options are compared
	// with; an option's own Baseline overrides it. "" = the only sft option
	// in the plan, if there is exactly one.
	Baseline string   `json:"baseline,omitempty"`
	Options  []Option `json:"options"`
	// Site gives PUE, grid intensity and price; zero fields use the stated
	// defaults of the fine-tuning estimate (model.DefaultPUE and so on).
	Site model.SiteSpec `json:"site"`
	// Calibration names the roofline calibration estimated stages use
	// ("" = the catalog's default).
	Calibration string `json:"calibration,omitempty"`
}

// Option is one pipeline. Each stage is given one way: measured (StagesKWh),
// from a preset (Preset), or estimated from a configuration (Prerun,
// Preprocess, Teacher, Student, Eval); a stage given two ways is an error.
// TotalKWh stands for a measured pipeline whose stage split is unknown.
type Option struct {
	Name   string `json:"name,omitempty"` // unique in the plan; "" = the preset's name
	Regime string `json:"regime,omitempty"`
	// Preset names a row of the paper's table (Presets); it supplies the
	// regime, the stages, the token count and the quality.
	Preset   string `json:"preset,omitempty"`
	Baseline string `json:"baseline,omitempty"` // overrides Plan.Baseline for this option
	// Quality is the option's quality score Q from 0 to 1 (higher is better;
	// the paper uses mean student score ÷ teacher score, so 0.7 means the
	// student reaches 70 % of the teacher); nil = unknown, off the plane.
	Quality *float64 `json:"quality,omitempty"`
	// Tokens is the pipeline's training tokens; the whole-pipeline J/token is
	// the one-off energy over Tokens. 0 = the estimated student stage's
	// tokens, or unknown.
	Tokens float64 `json:"tokens,omitempty"`
	// Students is the number of students planned to share this option's
	// teacher outputs (whole, ≥ 1); 0 = the options in the plan that share it.
	Students float64 `json:"students,omitempty"`
	// ShareTeacherWith names the option whose teacher stage this one reuses:
	// its energy is counted once, in that option.
	ShareTeacherWith string `json:"share_teacher_with,omitempty"`

	StagesKWh   *StageValues `json:"stages_kwh,omitempty"`   // measured stage energies, kWh
	StageTokens *StageValues `json:"stage_tokens,omitempty"` // tokens of measured stages, for J/token
	TotalKWh    *float64     `json:"total_kwh,omitempty"`    // a measured total with no stage split

	Prerun     *PrerunSpec     `json:"prerun,omitempty"`
	Preprocess *PreprocessSpec `json:"preprocess,omitempty"`
	Teacher    *InferenceSpec  `json:"teacher,omitempty"`
	Student    *model.Request  `json:"student,omitempty"` // the fine-tuning estimate request
	Eval       *InferenceSpec  `json:"eval,omitempty"`

	Serving *Serving `json:"serving,omitempty"`
}

// StageValues holds one number per stage; nil = not given.
type StageValues struct {
	Prerun     *float64 `json:"prerun,omitempty"`
	Preprocess *float64 `json:"preprocess,omitempty"`
	Teacher    *float64 `json:"teacher,omitempty"`
	Student    *float64 `json:"student,omitempty"`
	Eval       *float64 `json:"eval,omitempty"`
}

// Get returns the value for stage s (a Stage* name; nil for another).
func (v *StageValues) Get(s string) *float64 {
	if v == nil {
		return nil
	}
	switch s {
	case StagePrerun:
		return v.Prerun
	case StagePreprocess:
		return v.Preprocess
	case StageTeacher:
		return v.Teacher
	case StageStudent:
		return v.Student
	case StageEval:
		return v.Eval
	}
	return nil
}

// Serving gives the serving energies behind T*: joules per served token of
// the reference model the student replaces and of the student.
type Serving struct {
	JRef     float64 `json:"j_ref"`
	JStudent float64 `json:"j_student"`
	// ExtraTrainKWh is the training energy serving must repay; nil = the
	// option's one-off pipeline energy (teacher included).
	ExtraTrainKWh *float64 `json:"extra_train_kwh,omitempty"`
}

// PrerunSpec estimates the prerun stage: environment checks and an idle
// baseline at idle power, then a burn-in at busy power, on Hardware.
type PrerunSpec struct {
	Hardware model.HardwareSpec `json:"hardware"`
	IdleS    float64            `json:"idle_s,omitempty"`
	BurnInS  float64            `json:"burn_in_s,omitempty"`
}

// PreprocessSpec estimates data preprocessing (tokenise, pack, shard): CPU
// work at CPUPowerW for Tokens/TokensPerS seconds plus the calibration's
// fixed start-up time, while the GPUs of Hardware sit idle (the paper's
// harness counts the gross power of every visible GPU).
type PreprocessSpec struct {
	Tokens     float64            `json:"tokens"`
	TokensPerS float64            `json:"tokens_per_s,omitempty"` // 0 = DefaultTokensPerS
	CPUPowerW  float64            `json:"cpu_power_w,omitempty"`  // 0 = DefaultCPUPowerW
	Hardware   model.HardwareSpec `json:"hardware"`               // GPUs visible during the stage; count 0 = none
}

// InferenceSpec estimates an inference stage: the teacher (logit caching
// over Tokens for kd, generation of Prompts × MaxNewTokens for synthetic) or
// the evaluation (scoring Tokens and/or generating).
type InferenceSpec struct {
	Model    model.ModelSpec    `json:"model"` // eval: "" = the student's model
	Hardware model.HardwareSpec `json:"hardware"`
	// Strategy is single (one GPU), tp (tensor parallel: weights split over
	// the GPUs) or dp (a full replica per GPU); "" = single on one GPU.
	Strategy  string          `json:"strategy,omitempty"`
	Precision model.Precision `json:"precision,omitempty"` // weights and activations; "" = bf16

	// Prefill: forward passes over Tokens in sequences of SeqLen (logit
	// caching, log-likelihood scoring); TopK log-probs stored per token (kd).
	Tokens float64 `json:"tokens,omitempty"`
	SeqLen float64 `json:"seq_len,omitempty"`
	TopK   float64 `json:"top_k,omitempty"`

	// Generation: Prompts prompts of PromptTokens tokens each, decoded to
	// MaxNewTokens new tokens each.
	Prompts      float64 `json:"prompts,omitempty"`
	PromptTokens float64 `json:"prompt_tokens,omitempty"`
	MaxNewTokens float64 `json:"max_new_tokens,omitempty"`

	// Batch is the sequences processed together per replica; 0 = the largest
	// that fits in memory. At decode it sets how many tokens share one read
	// of the weights, so it changes J/token by an order of magnitude.
	Batch float64 `json:"batch,omitempty"`

	// UCompute and UMemory override the calibration's achieved fractions of
	// peak FLOP/s and bandwidth, (0, 1]; 0 = the calibration's.
	UCompute float64 `json:"u_compute,omitempty"`
	UMemory  float64 `json:"u_memory,omitempty"`
}

// ParsePlan decodes a plan strictly: unknown fields and trailing data are
// errors, and every error is a *model.FieldError whose Field is the JSON
// path, for example "options[1].student.training.tokens". ParsePlan checks
// syntax and types only; Evaluate checks values.
func ParsePlan(r io.Reader) (Plan, error) {
	raw, err := model.ReadBody(r)
	if err != nil {
		return Plan{}, err
	}
	return parsePlan(raw)
}

// parsePlan decodes a plan read by ParsePlan (or nested in a request).
func parsePlan(raw []byte) (Plan, error) {
	var top struct {
		Baseline    string            `json:"baseline"`
		Options     []json.RawMessage `json:"options"`
		Site        json.RawMessage   `json:"site"`
		Calibration string            `json:"calibration"`
	}
	if err := model.DecodeExact(raw, &top); err != nil {
		return Plan{}, err
	}
	p := Plan{Baseline: top.Baseline, Calibration: top.Calibration}
	if err := decodeAt(top.Site, &p.Site, "site"); err != nil {
		return Plan{}, err
	}
	if len(top.Options) > MaxOptions {
		return Plan{}, errAt(CodeTooManyOptions, "options", fmt.Sprint(len(top.Options)), model.Args{{Name: "max", Num: MaxOptions}})
	}
	p.Options = make([]Option, len(top.Options))
	for i, raw := range top.Options {
		if err := parseOption(raw, &p.Options[i], fmt.Sprintf("options[%d]", i)); err != nil {
			return Plan{}, err
		}
	}
	return p, nil
}

func parseOption(raw json.RawMessage, o *Option, path string) error {
	var j struct {
		Name             string          `json:"name"`
		Regime           string          `json:"regime"`
		Preset           string          `json:"preset"`
		Baseline         string          `json:"baseline"`
		Quality          *float64        `json:"quality"`
		Tokens           float64         `json:"tokens"`
		Students         float64         `json:"students"`
		ShareTeacherWith string          `json:"share_teacher_with"`
		StagesKWh        json.RawMessage `json:"stages_kwh"`
		StageTokens      json.RawMessage `json:"stage_tokens"`
		TotalKWh         *float64        `json:"total_kwh"`
		Prerun           json.RawMessage `json:"prerun"`
		Preprocess       json.RawMessage `json:"preprocess"`
		Teacher          json.RawMessage `json:"teacher"`
		Student          json.RawMessage `json:"student"`
		Eval             json.RawMessage `json:"eval"`
		Serving          json.RawMessage `json:"serving"`
	}
	if isNull(raw) {
		return errAt(CodeOptionNull, path, "", nil)
	}
	if err := decodeAt(raw, &j, path); err != nil {
		return err
	}
	*o = Option{Name: j.Name, Regime: j.Regime, Preset: j.Preset, Baseline: j.Baseline, Quality: j.Quality,
		Tokens: j.Tokens, Students: j.Students, ShareTeacherWith: j.ShareTeacherWith, TotalKWh: j.TotalKWh}
	var err error
	if o.StagesKWh, err = decodePtr[StageValues](j.StagesKWh, path+".stages_kwh"); err != nil {
		return err
	}
	if o.StageTokens, err = decodePtr[StageValues](j.StageTokens, path+".stage_tokens"); err != nil {
		return err
	}
	if o.Prerun, err = decodePtr[PrerunSpec](j.Prerun, path+".prerun"); err != nil {
		return err
	}
	if o.Preprocess, err = decodePtr[PreprocessSpec](j.Preprocess, path+".preprocess"); err != nil {
		return err
	}
	if o.Teacher, err = decodePtr[InferenceSpec](j.Teacher, path+".teacher"); err != nil {
		return err
	}
	if o.Eval, err = decodePtr[InferenceSpec](j.Eval, path+".eval"); err != nil {
		return err
	}
	if o.Serving, err = decodePtr[Serving](j.Serving, path+".serving"); err != nil {
		return err
	}
	if !isNull(j.Student) {
		req, err := parseRequest(j.Student, path+".student")
		if err != nil {
			return err
		}
		o.Student = &req
	}
	return nil
}

// parseRequest decodes a fine-tuning request nested at path, with full
// field paths in its errors (model.DecodeRequest).
func parseRequest(raw json.RawMessage, path string) (model.Request, error) {
	return model.DecodeRequest(raw, path)
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// decodePtr decodes raw into a new T, or returns nil for an absent or null value.
func decodePtr[T any](raw json.RawMessage, path string) (*T, error) {
	if isNull(raw) {
		return nil, nil
	}
	v := new(T)
	if err := decodeAt(raw, v, path); err != nil {
		return nil, err
	}
	return v, nil
}

// decodeAt decodes raw strictly into v and puts path in front of the field
// of any error.
func decodeAt(raw json.RawMessage, v any, path string) error {
	if isNull(raw) {
		return nil
	}
	if err := model.DecodeExact(raw, v); err != nil {
		return atPath(path, err)
	}
	return nil
}

// atPath returns err as a *model.FieldError whose field is prefixed by path.
func atPath(path string, err error) error { return model.PrefixField(path, err) }
