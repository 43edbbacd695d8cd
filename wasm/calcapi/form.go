package calcapi

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/model"
)

// Form is the calculator's state as the page holds it: each input's text
// exactly as typed, keyed by the names the URL query uses. Keeping the raw
// text (not numbers) lets the page restore "12abc" from a shared link and
// show the message beside it; the conversion to a model.Request happens
// here, where it is tested natively.
//
// The keys, their request paths, kinds, ranges, opening values and when
// each applies are the rows of model.RequestFields; the page receives the
// same table (Meta.Fields). Besides the request's own fields the form has
// length ("tokens" or "epochs": which training-length inputs apply), model
// "custom" (give the shape instead of a preset) and region (a grid preset
// id that also fills the carbon intensity, see Region.Apply), and the
// recommender panel's search settings (recommendFields).
type Form map[string]string

// recommendFields are the form's keys outside the estimate request: the
// "cheaper ways to run this" panel's search settings, which fill the
// recommend request (Form.RecommendRequest) and which the panel renders,
// and compare (also estimate full fine-tuning, API.Estimate).
var recommendFields = []model.Field{
	{Key: "deadline", Example: "a number of hours, for example 10, or empty", Path: "deadline_s", Kind: model.KindNumber, Group: "recommend", Label: "Deadline (hours)", Unit: "hours", Optional: true,
		Default: "no deadline", Hint: "empty = no deadline", Help: "the latest the run may finish, hours"},
	{Key: "minimise", Path: "minimise", Kind: model.KindEnum, Group: "recommend", Label: "Minimise", Choices: []string{"energy", "co2e", "cost", "time"}, Form: "energy",
		Say:  map[string]string{"energy": "Energy", "co2e": "CO₂e (operational + embodied)", "cost": "Electricity cost", "time": "Time"},
		Help: "what the recommendation makes least: energy, CO2e (operational + embodied), electricity cost or time"},
	{Key: "only_gpu", Path: "candidates", Kind: model.KindBool, Group: "recommend", Label: "Only my GPU type", Optional: true,
		Help: "search only the form's GPU type (its counts, layouts and power limits), not every GPU of the table"},
	{Key: "compare", Kind: model.KindBool, Group: "method", Label: "Compare with full fine-tuning", Optional: true, When: &model.When{Key: "method", In: []string{model.MethodLoRA, model.MethodQLoRA}},
		Help: "lora and qlora: also estimate full fine-tuning of the same configuration"},
}

// peft reports whether the form's method trains adapters (lora or qlora).
func (f Form) peft() bool {
	m := strings.TrimSpace(f["method"])
	return m == model.MethodLoRA || m == model.MethodQLoRA
}

// FormKeys lists every key a Form may hold, in the order the page shows them.
var FormKeys = func() []string {
	var out []string
	for _, f := range model.RequestFields {
		if f.Key != "" {
			out = append(out, f.Key)
		}
	}
	for _, f := range recommendFields {
		out = append(out, f.Key)
	}
	return out
}()

// formFields maps form keys to their rows of model.RequestFields (or of
// recommendFields).
var formFields = func() map[string]*model.Field {
	m := map[string]*model.Field{}
	for i, f := range model.RequestFields {
		if f.Key != "" {
			m[f.Key] = &model.RequestFields[i]
		}
	}
	for i := range recommendFields {
		m[recommendFields[i].Key] = &recommendFields[i]
	}
	return m
}()

// DefaultForm is the configuration the calculator opens with: fine-tuning
// BERT-base on 200 M tokens with FSDP over four A100s, as
// the command-line page's example request but with 512-token sequences, so that a
// first visit lands inside the default calibration's fitted range (its
// envelope starts at 512 tokens).
func DefaultForm() Form {
	f := Form{}
	for _, k := range FormKeys {
		f[k] = formFields[k].Form
	}
	return f
}

// applies reports whether the field's input matters for this form.
func (f Form) applies(fd *model.Field) bool {
	return fd.When.Holds(func(k string) string { return f[k] })
}

// Active lists the keys that matter for this form (the custom shape only
// with model=custom, and so on): the keys a shared link carries.
func (f Form) Active() []string {
	var out []string
	for _, k := range FormKeys {
		if f.applies(formFields[k]) {
			out = append(out, k)
		}
	}
	return out
}

// Error is a problem with the form, placed where the page can show it:
// Field is the request's dotted JSON path (as in model.FieldError), Input
// the form key of the input to mark ("" for a message about the whole form).
type Error struct {
	Field   string `json:"field"`
	Input   string `json:"input"`
	Value   string `json:"value,omitempty"`
	Message string `json:"message"`
	Text    string `json:"text"` // the whole error as one line, as the command line prints it
	// Say is Message in the form's words, for the page: inputs by their
	// labels, no request paths or API routes.
	Say string `json:"say"`
	// Brief is Say's gist for the line beside the field where Say runs
	// long (a memory refusal with its advice): the page shows it and puts
	// Say behind a disclosure; "" when Say is short enough.
	Brief string `json:"brief,omitempty"`
	// Code and Args are the error as data (model.Message): the view
	// branches on Code ("" for an error not yet coded) and reads the
	// numbers from Args.
	Code string     `json:"code,omitempty"`
	Args model.Args `json:"args,omitempty"`
}

// decodeInput decodes a call's JSON argument into v (a pointer) with the
// rules of every other surface: each key exactly a field's name and none
// given twice (model.CheckKeys); unknown keys are errors.
func decodeInput(input []byte, v any) *Error {
	if err := model.CheckKeys(input, v); err != nil {
		fe := model.AsFieldError(err)
		return &Error{Field: fe.Field, Message: fe.Message, Text: fe.Error(), Code: fe.Code, Args: fe.Args}
	}
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil { // encoding/json's words: no code
		return &Error{Field: "(body)", Message: "is not valid JSON: " + err.Error(), Text: "(body): is not valid JSON: " + err.Error()}
	}
	return nil
}

// formErr is the form's error code about field (the form's input input),
// value the text typed there ("" for none) and args the values its words
// speak of.
func formErr(field, input, value, code string, args model.Args) *Error {
	e := model.CodeErr(code, field, nil, args)
	if value != "" {
		e.Value = strconv.Quote(value)
	}
	return &Error{Field: field, Input: input, Value: e.Value, Message: e.Message, Text: e.Error(), Say: e.Say(pageNamer), Code: code, Args: args}
}

// Codes of the form's own errors: an input left empty that the estimate
// needs (the tokens and the model with advice of their own on the page).
const (
	CodeRequired       = "form.required"
	CodeTokensRequired = "form.tokens_required"
	CodePresetRequired = "form.preset_required"
)

// Codes of the form's other errors: text that is not a number, a choice
// the form does not offer, inputs that need each other.
const (
	CodeNumberTooLarge = "form.number_too_large"
	CodeNumberExample  = "form.number_example" // example (the field's, in words)
	CodeNumber         = "form.number"         // example
	CodeRows           = "form.rows"           // max
	CodeStudents       = "form.students"       // max
	CodeJRefNeeded     = "form.jref_needed"
	CodeJStuNeeded     = "form.jstu_needed"
	CodeStudentMode    = "form.student_mode"
	CodeLength         = "form.length"
	CodeOnOff          = "form.on_off"
	CodeFormLoRARank   = "form.lora_rank"
	CodeTensorDivides  = "form.tensor_divides" // count (GPUs)
)

var formTexts = []model.MessageText{
	{Code: CodeRequired, Tech: "is required"},
	{Code: CodeTokensRequired, Tech: "is required", Plain: "is needed: the tokens the run processes, for example 2e8 or 200M"},
	{Code: CodePresetRequired, Tech: "is required: a preset such as bert-base, or custom", Plain: "is needed: pick a model from the list, or type custom to give its shape"},
	{Code: CodeNumberTooLarge, Tech: "is too large to be a number here"},
	{Code: CodeNumberExample, Tech: "must be {example}"},
	{Code: CodeNumber, Tech: "must be a number, for example {example}"},
	{Code: CodeRows, Tech: "must be a whole number of options from 1 to {max:int}"},
	{Code: CodeStudents, Tech: "must be a whole number of students from 1 to {max}"},
	{Code: CodeJRefNeeded, Tech: "is needed with the student's serving energy, to compute T*"},
	{Code: CodeJStuNeeded, Tech: "is needed with the reference model's serving energy, to compute T*"},
	{Code: CodeStudentMode, Tech: "must be empty (a measured energy) or estimate"},
	{Code: CodeLength, Tech: "must be tokens (total tokens) or epochs (tokens per epoch × epochs)"},
	{Code: CodeOnOff, Tech: "must be on, off or empty (the default)"},
	{Code: CodeFormLoRARank, Tech: "must be a whole number from 1 to the model's hidden size; leave it empty for the method's default"},
	{Code: CodeTensorDivides, Tech: "must be a whole number that divides the GPU count ({count})"},
}

var _ = model.AddTexts(formTexts)

// requiredErr is an input the estimate needs left empty.
func requiredErr(field, input string) *Error {
	code := CodeRequired
	switch field {
	case "training.tokens":
		code = CodeTokensRequired
	case "model.preset":
		code = CodePresetRequired
	}
	fe := model.CodeErr(code, field, nil, nil)
	return &Error{Field: field, Input: input, Message: fe.Message, Text: fe.Error(), Say: fe.Say(pageNamer), Code: code}
}

// ParseNumber reads a number as people type one: "2e8", "200M", "2.5B",
// "1,000,000", "1_000", " 0.15 ". The suffixes k, M, B (or G) and T
// multiply by 1e3, 1e6, 1e9 and 1e12, in either case. It reports false for
// anything else, including NaN and infinities.
func ParseNumber(s string) (float64, bool) {
	s = dropSeparators(s)
	if s == "" {
		return 0, false
	}
	mult := 1.0
	switch s[len(s)-1] {
	case 'k', 'K':
		mult = 1e3
	case 'm', 'M':
		mult = 1e6
	case 'b', 'B', 'g', 'G':
		mult = 1e9
	case 't', 'T':
		mult = 1e12
	}
	if mult != 1 {
		s = s[:len(s)-1]
	}
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return 0, false
		}
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	return x * mult, true
}

// dropSeparators removes the digit-group separators people type: commas,
// underscores, spaces, no-break and narrow no-break spaces. (A
// strings.Replacer built per call cost the first estimate in the browser
// its allocation and table; one built at start-up would add to package
// initialisation.)
func dropSeparators(s string) string {
	if !strings.ContainsAny(s, ",_ \u00a0\u202f") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == ',' || s[i] == '_' || s[i] == ' ':
		case strings.HasPrefix(s[i:], "\u00a0"):
			i++
		case strings.HasPrefix(s[i:], "\u202f"):
			i += 2
		default:
			b = append(b, s[i])
		}
	}
	return string(b)
}

// number reads the key's text as a number. Empty text is an error when
// required, else (0, nil): the model's stated default applies.
func (f Form) number(key string, required bool) (float64, *Error) {
	raw := strings.TrimSpace(f[key])
	path := formFields[key].Path
	if raw == "" {
		if required {
			return 0, requiredErr(path, key)
		}
		return 0, nil
	}
	x, ok := ParseNumber(raw)
	if !ok {
		code, args := numberProblem(formFields[key].Example, raw, calcNumberExample)
		return 0, formErr(path, key, f[key], code, args)
	}
	return x, nil
}

// InputFor names the form key whose input shows an error on the request
// field path ("" when the error concerns the whole request).
func (f Form) InputFor(path string) string {
	switch path {
	case "model":
		if f["model"] == "custom" {
			return "layers"
		}
		return "model"
	case "training.tokens":
		if f["length"] == "epochs" {
			return "dataset_tokens"
		}
		return "tokens"
	case "strategy.data":
		return "tensor"
	}
	if fd := model.RequestField(path); fd != nil {
		return fd.Key
	}
	return ""
}

// Request converts the form into a fine-tuning request. Only the form's own
// syntax is checked here (numbers, choices); ranges are the model's to check.
func (f Form) Request(regions []Region) (model.Request, *Error) {
	var req model.Request
	if strings.TrimSpace(f["model"]) == "" {
		return req, requiredErr("model.preset", "model")
	}
	// How the training length is given picks the fields that apply: a
	// value that is neither choice (a hand-made link) is an error, never
	// read as tokens.
	switch l := strings.TrimSpace(f["length"]); l {
	case "", "tokens", "epochs":
	default:
		return req, formErr("training", "length", l, CodeLength, nil)
	}
	for i := range model.RequestFields {
		fd := &model.RequestFields[i]
		k := fd.Key
		if k == "" || fd.Path == "" || !f.applies(fd) {
			continue
		}
		raw := strings.TrimSpace(f[k])
		var v any
		switch fd.Kind {
		case model.KindNumber, model.KindInt:
			if raw == "" {
				if !fd.Optional {
					return req, requiredErr(fd.Path, k)
				}
				continue
			}
			x, ok := ParseNumber(raw)
			if !ok {
				code, args := numberProblem(fd.Example, raw, calcNumberExample)
				return req, formErr(fd.Path, k, f[k], code, args)
			}
			v = x
		case model.KindBool:
			switch raw {
			case "": // unticked or left at the default: the model's default
				continue
			case "1", "true", "on":
				v = true
			case "0", "false", "off":
				v = false
			default:
				return req, formErr(fd.Path, k, raw, CodeOnOff, nil)
			}
		default:
			if k == "model" && raw == "custom" || k == "region" || raw == "" && fd.Optional || raw == fd.Implied && raw != "" {
				continue
			}
			v = raw
		}
		if err := fd.Set(&req, v); err != nil {
			panic(err) // the table and the request type disagree: a programming error
		}
	}
	if r := req.Training.LoRA; r != nil && r.Rank == 0 && strings.TrimSpace(f["rank"]) != "" {
		return req, formErr("training.lora.rank", "rank", f["rank"], CodeFormLoRARank, nil)
	}
	if req.Strategy.Name == model.Hybrid {
		// The form asks for the tensor degree; the data degree is the rest.
		t, n := req.Strategy.Tensor, req.Hardware.Count
		if t < 1 || t != float64(int64(t)) || n != float64(int64(n)) || int64(n)%int64(t) != 0 {
			return req, formErr("strategy.tensor", "tensor", f["tensor"], CodeTensorDivides, model.Args{{Name: "count", Num: n}})
		}
		req.Strategy.Data = n / t
	}
	if r := findRegion(regions, f["region"]); r != nil {
		r.Apply(&req.Site)
	}
	return req, nil
}

// on reads a checkbox's text.
func on(s string) bool {
	s = strings.TrimSpace(s)
	return s == "1" || s == "true" || s == "on"
}

func findRegion(regions []Region, id string) *Region {
	for i := range regions {
		if regions[i].ID == id {
			return &regions[i]
		}
	}
	return nil
}
