package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// APIVersion is the version of the request/response JSON. It changes when a
// field is renamed or removed, or its meaning changes.
const APIVersion = "1"

// Request is a fine-tuning estimate request, the same for the command line,
// the browser and the API. Numbers are float64 so that a fractional layer
// count is reported as such rather than as a JSON type error.
type Request struct {
	Model       ModelSpec    `json:"model"`
	Training    TrainingSpec `json:"training"`
	Hardware    HardwareSpec `json:"hardware"`
	Strategy    Strategy     `json:"strategy"`
	Site        SiteSpec     `json:"site"`
	Calibration string       `json:"calibration,omitempty"` // calibration name; "" = the catalog default
}

// ModelSpec names a preset or gives a shape. Head is "lm" (a vocabulary
// projection is trained, the default for custom shapes and decoder presets)
// or "classifier" (encoder fine-tuning with a small task head).
type ModelSpec struct {
	Preset  string  `json:"preset,omitempty"`
	Layers  float64 `json:"layers,omitempty"`
	Hidden  float64 `json:"hidden,omitempty"`
	Heads   float64 `json:"heads,omitempty"`
	KVHeads float64 `json:"kv_heads,omitempty"`
	FFN     float64 `json:"ffn,omitempty"`
	Vocab   float64 `json:"vocab,omitempty"`
	GLU     bool    `json:"glu,omitempty"`
	// Experts and ExpertsPerToken describe a mixture of experts: experts
	// feed-forward blocks of width FFN per layer, each token routed to
	// ExpertsPerToken of them; 0 = dense.
	Experts         float64 `json:"experts,omitempty"`
	ExpertsPerToken float64 `json:"experts_per_token,omitempty"`
	Head            string  `json:"head,omitempty"`
	// HeadDim is one attention head's width where it is not hidden/heads
	// (Gemma, Qwen3); 0 = hidden/heads.
	HeadDim float64 `json:"head_dim,omitempty"`
	// Tied shares the input embeddings with the LM head (one vocab×hidden
	// matrix instead of two).
	Tied bool `json:"tied,omitempty"`
	// HFConfig is a Hugging Face config.json (the JSON object): the shape
	// read from it (ParseHFConfig); a shape field given beside it wins.
	HFConfig RawObject `json:"hf_config,omitempty"`
}

// TrainingSpec gives the training length and step shape. Either Tokens, or
// DatasetTokens (or DatasetExamples) and Epochs.
type TrainingSpec struct {
	Tokens        float64 `json:"tokens,omitempty"`         // total tokens processed, all epochs
	DatasetTokens float64 `json:"dataset_tokens,omitempty"` // tokens in one epoch
	Epochs        float64 `json:"epochs,omitempty"`         // passes over the dataset (may be fractional)
	SeqLen        float64 `json:"seq_len"`                  // tokens per sequence
	BatchPerGPU   float64 `json:"batch_per_gpu"`            // sequences per GPU per step (micro-batch)
	// DatasetExamples is the examples (sequences) in one epoch, instead of
	// DatasetTokens: an epoch is then DatasetExamples × SeqLen tokens, each
	// example counted at the full sequence length (padded, or packed).
	DatasetExamples float64 `json:"dataset_examples,omitempty"`
	// GradientAccumulation is the micro-batches each GPU runs per optimizer
	// step (gradient_accumulation_steps); 0 = 1. The optimizer's update and
	// ddp's gradient all-reduce happen once per optimizer step.
	GradientAccumulation float64   `json:"gradient_accumulation,omitempty"`
	Precision            Precision `json:"precision"` // fp32, tf32, fp16, bf16 or fp8
	// StateBytesPerParam is the device memory per parameter for weights,
	// gradients and optimizer state; 0 = 16, AdamW in mixed precision
	// (ZeRO, Rajbhandari et al. 2020). Typical values: 8 for Adafactor with
	// fp32 master weights, 4 for Adafactor or plain SGD on pure bf16 weights.
	StateBytesPerParam float64 `json:"state_bytes_per_param,omitempty"`
	// Method is the fine-tuning method: "full" (every weight trained, the
	// default), "lora" or "qlora" (low-rank adapters on a frozen 16-bit or
	// quantised base).
	Method string `json:"method,omitempty"`
	// LoRA holds the adapter options of lora and qlora; nil = the method's
	// common recipe.
	LoRA *LoRASpec `json:"lora,omitempty"`
	// GradientCheckpointing recomputes each layer's activations in the
	// backward pass (one more forward pass, far less activation memory);
	// nil = off, on for qlora (its recipe).
	GradientCheckpointing *bool `json:"gradient_checkpointing,omitempty"`
	// Stack is the software stack: "reference" (the calibration as fitted,
	// the default) or "optimised" (fused kernels, packing, Megatron/NeMo
	// class; see StackUCompute16).
	Stack string `json:"stack,omitempty"`
	// Attention is the attention implementation: "sdpa" (PyTorch's
	// scaled_dot_product_attention, transformers' default; "" = sdpa),
	// "eager", "flash2" or "flash3" (FlashAttention-2 and -3); see
	// EagerAttentionCost.
	Attention string `json:"attention,omitempty"`
	// Compile says the model runs under torch.compile (the Trainer's
	// torch_compile); nil = false, the Trainer's default.
	Compile *bool `json:"compile,omitempty"`
	// FusedOptimizer says AdamW runs as one fused kernel per parameter
	// group (the Trainer's optim adamw_torch_fused, its default in
	// transformers 5.17); false is the foreach implementation
	// (adamw_torch), which streams the optimizer state in more passes
	// (ForeachExtraBytes). nil = true.
	FusedOptimizer *bool `json:"fused_optimizer,omitempty"`
	// TeacherLogits says the loss reads a teacher's cached top-k log-probs
	// (logit distillation): when the estimate would need them faster than
	// a published harness moved them (CachedLogitTokensPerS), it warns and
	// takes the interval of the input-bound class.
	TeacherLogits bool `json:"teacher_logits,omitempty"`
	// HFArgs is the trainer's arguments by their Hugging Face
	// TrainingArguments names (a JSON object: TrainingArguments.to_dict(),
	// or the keys of a TRL or Axolotl YAML); the fields above win over it.
	HFArgs RawObject `json:"hf_args,omitempty"`
	// PEFT is PEFT's adapter_config.json (a JSON object), with the
	// BitsAndBytesConfig keys of a QLoRA run at its top or in
	// quantization_config; the method and lora fields win over it.
	PEFT RawObject `json:"peft,omitempty"`
}

// RawObject is a JSON value kept as written (a Hugging Face file's
// object), read key by key where it is used; "" = absent. A string, so that
// the specs holding one stay comparable.
type RawObject string

// MarshalJSON writes the value as it was read (null when absent).
func (o RawObject) MarshalJSON() ([]byte, error) {
	if o == "" {
		return []byte("null"), nil
	}
	return []byte(o), nil
}

// UnmarshalJSON keeps the value as written; null is absent.
func (o *RawObject) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		*o = ""
		return nil
	}
	*o = RawObject(b)
	return nil
}

// DefaultStateBytesPerParam is AdamW's footprint in mixed precision: bf16
// weights and gradients plus fp32 master weights and two moments.
const DefaultStateBytesPerParam = 16

// HardwareSpec names the accelerator and how many.
type HardwareSpec struct {
	GPU   string  `json:"gpu"`
	Count float64 `json:"count"`
	// PowerLimitW is the board power limit per GPU (nvidia-smi -pl), W;
	// 0 = the board's default limit (its board power).
	PowerLimitW float64 `json:"power_limit_w,omitempty"`
}

// SiteSpec holds the facility and grid figures; zero means "use the stated
// default" and the response lists the defaults it used.
type SiteSpec struct {
	PUE           float64 `json:"pue,omitempty"`
	CarbonGPerKWh float64 `json:"carbon_g_per_kwh,omitempty"`
	USDPerKWh     float64 `json:"usd_per_kwh,omitempty"`
	Region        string  `json:"region,omitempty"` // free text, echoed for reports
}

// Site defaults and their sources.
const (
	DefaultPUE           = 1.56 // Uptime Institute 2024 global average (Green Algorithms' "unknown")
	DefaultCarbonGPerKWh = 475  // IEA world average (CodeCarbon and Green Algorithms default)
	DefaultUSDPerKWh     = 0.15 // an assumed commercial tariff; enter your own
)

// Strategy is the parallel layout. In JSON it is either a string ("single",
// "ddp", "fsdp", "tp") or an object {"tensor": t, "data": d, "data_mode":
// "ddp"|"fsdp"} for hybrid tensor × data parallelism.
type Strategy struct {
	Name     string  `json:"-"` // single, ddp, fsdp, tp or hybrid
	Tensor   float64 `json:"tensor,omitempty"`
	Data     float64 `json:"data,omitempty"`
	DataMode string  `json:"data_mode,omitempty"`
	// Context is the context-parallel degree of a hybrid layout: each
	// sequence split over this many GPUs (0 or 1: none).
	Context float64 `json:"context,omitempty"`
}

// Strategy names.
const (
	Single = "single"
	DDP    = "ddp"
	FSDP   = "fsdp"
	TP     = "tp"
	Hybrid = "hybrid"
)

// Strategies lists the strategy names in display order.
var Strategies = []string{Single, DDP, FSDP, TP, Hybrid}

// MarshalJSON writes a string for the simple strategies and an object for hybrid.
func (s Strategy) MarshalJSON() ([]byte, error) {
	if s.Name != Hybrid && s.Name != "" {
		return json.Marshal(s.Name)
	}
	type obj struct {
		Tensor   float64 `json:"tensor"`
		Data     float64 `json:"data"`
		DataMode string  `json:"data_mode,omitempty"`
		Context  float64 `json:"context,omitempty"`
	}
	return json.Marshal(obj{s.Tensor, s.Data, s.DataMode, s.Context})
}

// UnmarshalJSON accepts a strategy name or a hybrid object.
func (s *Strategy) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var name string
		if err := json.Unmarshal(b, &name); err != nil {
			return err
		}
		*s = Strategy{Name: strings.ToLower(strings.TrimSpace(name))}
		return nil
	}
	type obj struct {
		Tensor   float64 `json:"tensor"`
		Data     float64 `json:"data"`
		DataMode string  `json:"data_mode"`
		Context  float64 `json:"context"`
	}
	var o obj
	if err := CheckKeys(b, &o); err != nil {
		fe := AsFieldError(err)
		if fe.Code == CodeUnknownKey {
			fe = codeErr(CodeUnknownHybridKey, fe.Field, nil, nil)
		}
		return PrefixField("strategy", fe)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		msg := err.Error()
		if i := strings.Index(msg, "unknown field "); i >= 0 {
			name := strings.Trim(msg[i+len("unknown field "):], `"`)
			return codeErr(CodeUnknownHybridKey, "strategy."+name, nil, nil)
		}
		return codeErr(CodeStrategyShape, "strategy", nil, Args{{Name: "example", Str: `{"tensor", "data", "data_mode"}`}})
	}
	*s = Strategy{Name: Hybrid, Tensor: o.Tensor, Data: o.Data, DataMode: strings.ToLower(o.DataMode), Context: o.Context}
	return nil
}

// MaxRequestBytes bounds a request body.
const MaxRequestBytes = 64 << 10

// utf8BOM is the byte-order mark some editors write at the start of a file.
const utf8BOM = "\ufeff"

// ReadBody reads a JSON request body under the one rule every surface
// shares (the command line's standard input, the API, the browser): at most
// MaxRequestBytes (more is an error, never a silent cut), and a UTF-8
// byte-order mark at its start is dropped, as the CSV readers drop one.
// Data after the JSON value is refused by DecodeExact.
func ReadBody(r io.Reader) ([]byte, error) {
	raw, err := ReadAtMost(r, MaxRequestBytes)
	switch {
	case errors.Is(err, ErrTooLarge):
		return nil, TooLarge()
	case err != nil:
		return nil, codeErr(CodeBodyUnread, "(body)", nil, Args{{Name: "reason", Str: err.Error()}})
	}
	return bytes.TrimPrefix(raw, []byte(utf8BOM)), nil
}

// ErrTooLarge is ReadAtMost's error for input over its limit.
var ErrTooLarge = errors.New("input over its limit")

// ReadAtMost reads r to its end, at most limit bytes: more is an error
// that wraps ErrTooLarge and names the limit, never a silent cut (every
// bounded reader in the module goes through it; issue 29).
func ReadAtMost(r io.Reader, limit int64) ([]byte, error) {
	raw, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(raw)) > limit {
		return nil, fmt.Errorf("%w: more than %d bytes (%s), the most read", ErrTooLarge, limit, byteSize(limit))
	}
	return raw, nil
}

// byteSize writes n in KiB or MiB when it is a whole number of them.
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// TooLarge is the error for a body over MaxRequestBytes, the same on every
// surface (the API knows a Content-Length, the command line's standard
// input has none, so neither says how large).
func TooLarge() *FieldError {
	return codeErr(CodeBodyTooLarge, "(body)", nil, Args{{Name: "max", Num: MaxRequestBytes}})
}

// DecodeExact decodes the one JSON value in raw into v: every object key
// exactly one of the fields' JSON names (case matters), none given twice
// in one object (CheckKeys), no data after the value; encoding/json's
// errors become *FieldError with the field path where it can.
func DecodeExact(raw []byte, v any) error {
	if err := CheckKeys(raw, v); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if dec.More() {
		return codeErr(CodeBodyDataAfter, "(body)", nil, nil)
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); err != io.EOF {
		return codeErr(CodeBodyDataAfter, "(body)", nil, nil)
	}
	return nil
}

// ParseRequest decodes a request strictly; an unknown field anywhere in it
// is reported with its full path ("training.steps").
func ParseRequest(r io.Reader) (Request, error) {
	raw, err := ReadBody(r)
	if err != nil {
		return Request{}, err
	}
	return DecodeRequest(raw, "")
}

// DecodeRequest decodes a request held in raw one object at a time, so that
// every error names its full field path, prefixed by path (for a request
// nested in a larger document, e.g. "options[0].student"; "" at the top).
func DecodeRequest(raw []byte, path string) (Request, error) {
	if onePassSafe(raw) {
		var req Request
		if DecodeExact(raw, &req) == nil {
			return req, nil
		}
	}
	return decodeRequestByParts(raw, path)
}

// onePassSafe reports whether decoding raw in one pass into a Request
// gives what decodeRequestByParts gives, so that a valid request is read
// once instead of three times (the body, each part, LoRA's rank check):
// half the Worker's decoding time. Errors always come from the decode by
// parts, which names their paths. raw is refused when one pass could read
// it differently: a null (a one-pass decode hands it to Strategy's
// UnmarshalJSON; by parts it is skipped), a LoRA object (its explicit rank
// 0 is an error by parts only), an escape or a non-ASCII byte (a key that
// matches only after unescaping, such as "\u006cora"), or a top-level key
// written twice, in any case. (CheckKeys now refuses a key given twice and
// one that encoding/json would match by case folding, on both paths; the
// last two conditions are kept as a cheap margin.) The test
// FuzzDecodeRequestOnePass holds the two decodes equal.
func onePassSafe(raw []byte) bool {
	if len(raw) > 4096 {
		return false
	}
	var low [4096]byte
	n := copy(low[:], raw)
	for i, c := range low[:n] {
		switch {
		case c == '\\' || c >= 0x80:
			return false
		case 'A' <= c && c <= 'Z':
			low[i] = c + ('a' - 'A')
		}
	}
	b := low[:n]
	if bytes.Contains(b, []byte("null")) || bytes.Contains(b, []byte(`"lora"`)) {
		return false
	}
	for _, k := range requestKeys {
		if bytes.Count(b, []byte(k)) > 1 {
			return false
		}
	}
	return true
}

// requestKeys are the quoted top-level keys of a Request.
var requestKeys = []string{`"model"`, `"training"`, `"hardware"`, `"strategy"`, `"site"`, `"calibration"`}

// decodeRequestByParts decodes raw one object at a time (DecodeRequest).
func decodeRequestByParts(raw []byte, path string) (Request, error) {
	var j struct {
		Model       json.RawMessage `json:"model"`
		Training    json.RawMessage `json:"training"`
		Hardware    json.RawMessage `json:"hardware"`
		Strategy    json.RawMessage `json:"strategy"`
		Site        json.RawMessage `json:"site"`
		Calibration string          `json:"calibration"`
	}
	var req Request
	if err := DecodeExact(raw, &j); err != nil {
		return req, PrefixField(path, err)
	}
	req.Calibration = j.Calibration
	for _, part := range []struct {
		raw  json.RawMessage
		v    any
		name string
	}{
		{j.Model, &req.Model, "model"}, {j.Training, &req.Training, "training"},
		{j.Hardware, &req.Hardware, "hardware"}, {j.Site, &req.Site, "site"},
	} {
		if isNull(part.raw) {
			continue
		}
		if part.name == "training" {
			if err := checkLoRAJSON(part.raw); err != nil {
				return req, PrefixField(joinPath(path, part.name), err)
			}
		}
		if err := DecodeExact(part.raw, part.v); err != nil {
			return req, PrefixField(joinPath(path, part.name), err)
		}
	}
	// Strategy names its own fields ("strategy", "strategy.tensor").
	if !isNull(j.Strategy) {
		if err := DecodeExact(j.Strategy, &req.Strategy); err != nil {
			fe := AsFieldError(err)
			if fe != nil && fe.Field == "(body)" {
				fe.Field = "strategy"
			}
			return req, PrefixField(path, err)
		}
	}
	return req, nil
}

func isNull(raw []byte) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

func joinPath(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

// PrefixField returns err as a *FieldError whose field is prefixed by path
// ("" leaves it as it is; a body-level error takes path itself).
func PrefixField(path string, err error) error {
	fe := AsFieldError(err)
	if fe == nil {
		if path == "" {
			path = "(body)"
		}
		return &FieldError{Field: path, Message: err.Error()}
	}
	f := fe.Field
	switch {
	case path == "":
	case f == "" || f == "(body)":
		f = path
	default:
		f = path + "." + f
	}
	return fe.At(f)
}

func jsonError(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return codeErr(CodeBodyEmpty, "(body)", nil, nil)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return codeErr(CodeBodyTruncated, "(body)", nil, nil)
	case errors.As(err, &se):
		return codeErr(CodeBodySyntax, "(body)", nil, Args{{Name: "offset", Num: float64(se.Offset)}, {Name: "detail", Str: se.Error()}})
	case errors.As(err, &te):
		f := te.Field
		if f == "" {
			f = "(body)"
		}
		if num, ok := strings.CutPrefix(te.Value, "number "); ok {
			// A number that does not fit the field's Go type.
			switch jsonKind(te.Type.Kind().String()) {
			case "number":
				if x, err := strconv.ParseFloat(num, 64); err != nil && math.IsInf(x, 0) {
					return codeErr(CodeJSONBeyond, f, nil, nil).withValue(num)
				}
				return codeErr(CodeJSONWhole, f, nil, nil).withValue(num)
			}
		}
		return codeErr(CodeJSONKind, f, nil, Args{{Name: "kind", Str: jsonKind(te.Type.Kind().String())}}).withValue(te.Value)
	}
	msg := err.Error()
	if i := strings.Index(msg, "unknown field "); i >= 0 {
		name := strings.Trim(msg[i+len("unknown field "):], `"`)
		return codeErr(CodeUnknownKey, name, nil, nil)
	}
	if fe := AsFieldError(err); fe != nil {
		return fe
	}
	// What is left is encoding/json's own words (no structured form): it
	// stays uncoded, as does a non-field error PrefixField is given.
	if strings.HasPrefix(msg, "strategy:") {
		return &FieldError{Field: "strategy", Message: strings.TrimPrefix(msg, "strategy: ")}
	}
	return &FieldError{Field: "(body)", Message: msg}
}

func jsonKind(k string) string {
	switch k {
	case "float64", "int", "int64", "float32":
		return "number"
	case "struct", "map":
		return "object"
	case "slice":
		return "array"
	case "bool":
		return "boolean (true or false)"
	}
	return k
}

// finite reports whether every x is finite.
func finite(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
