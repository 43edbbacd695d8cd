package calcapi

import (
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
// Keys:
//
//	model                  preset name, or "custom" for a shape
//	layers hidden heads kv_heads ffn vocab glu   custom shape (glu: "1" or "")
//	head                   "", "lm" or "classifier"
//	length                 "tokens" (default) or "epochs"
//	tokens                 tokens processed, all epochs (length=tokens)
//	dataset_tokens epochs  tokens per epoch and passes (length=epochs)
//	seq batch precision    sequence length, sequences per GPU per step, numeric format
//	gpu count strategy     accelerator id or alias, how many, single|ddp|fsdp|tp|hybrid
//	tensor data_mode       hybrid: tensor-parallel degree, ddp|fsdp over the rest
//	region carbon pue price  grid preset id, g CO2e/kWh, PUE, USD/kWh ("" = model defaults)
//	cal                    calibration name ("" = the catalog default)
//	power                  power limit per GPU, W ("" = the board's default)
//	deadline minimise      the recommender panel: deadline in hours ("" = none), energy|co2e|cost|time
//	method                 full (default), lora or qlora
//	rank targets train_emb lora and qlora: adapter rank, adapted modules, "1" to train embeddings ("" = the method's default)
//	base_format compute_dtype  qlora: nf4|int8 and fp16|bf16|fp32 ("" = the defaults)
//	ckpt                   gradient checkpointing: "on", "off" or "" (the method's default)
//	compare                "1": also estimate full fine-tuning of the same configuration (lora and qlora)
type Form map[string]string

// FormKeys lists every key a Form may hold, in the order the page shows them.
var FormKeys = []string{"model", "layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "glu", "head",
	"length", "tokens", "dataset_tokens", "epochs", "seq", "batch", "precision",
	"method", "rank", "targets", "train_emb", "base_format", "compute_dtype", "ckpt", "compare",
	"gpu", "count", "strategy", "tensor", "data_mode", "region", "carbon", "pue", "price", "cal", "power", "deadline", "minimise"}

// DefaultForm is the configuration the calculator opens with: fine-tuning
// BERT-base on 200 M tokens with FSDP over four A100s, as
// content/examples/request.json but with 512-token sequences, so that a
// first visit lands inside the default calibration's fitted range (its
// envelope starts at 512 tokens).
func DefaultForm() Form {
	return Form{"model": "bert-base", "length": "tokens", "tokens": "2e8", "dataset_tokens": "1e8", "epochs": "2",
		"seq": "512", "batch": "32", "precision": "fp16", "gpu": "a100-sxm4-80gb", "count": "4", "strategy": "fsdp",
		"tensor": "2", "data_mode": "fsdp", "region": "world", "carbon": "475", "pue": "", "price": "0.15",
		"layers": "12", "hidden": "768", "heads": "12", "kv_heads": "", "ffn": "3072", "vocab": "30522", "glu": "", "head": "", "cal": "", "power": "", "deadline": "", "minimise": "energy",
		"method": "full", "rank": "", "targets": "", "train_emb": "", "base_format": "", "compute_dtype": "", "ckpt": "", "compare": ""}
}

// peft reports whether the form's method trains adapters (lora or qlora).
func (f Form) peft() bool {
	m := strings.TrimSpace(f["method"])
	return m == model.MethodLoRA || m == model.MethodQLoRA
}

// Active lists the keys that matter for this form (the custom shape only
// with model=custom, and so on): the keys a shared link carries.
func (f Form) Active() []string {
	var out []string
	for _, k := range FormKeys {
		switch k {
		case "layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "glu":
			if f["model"] != "custom" {
				continue
			}
		case "tokens":
			if f["length"] == "epochs" {
				continue
			}
		case "dataset_tokens", "epochs":
			if f["length"] != "epochs" {
				continue
			}
		case "tensor", "data_mode":
			if f["strategy"] != model.Hybrid {
				continue
			}
		case "rank", "targets", "train_emb", "compare":
			if !f.peft() {
				continue
			}
		case "base_format", "compute_dtype":
			if strings.TrimSpace(f["method"]) != model.MethodQLoRA {
				continue
			}
		}
		out = append(out, k)
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
}

func formErr(field, input, value, msg string) *Error {
	e := &model.FieldError{Field: field, Message: msg}
	if value != "" {
		e.Value = strconv.Quote(value)
	}
	return &Error{Field: field, Input: input, Value: e.Value, Message: msg, Text: e.Error(), Say: plain(field, input, msg, nil)}
}

// ParseNumber reads a number as people type one: "2e8", "200M", "2.5B",
// "1,000,000", "1_000", " 0.15 ". The suffixes k, M, B (or G) and T
// multiply by 1e3, 1e6, 1e9 and 1e12, in either case. It reports false for
// anything else, including NaN and infinities.
func ParseNumber(s string) (float64, bool) {
	s = strings.NewReplacer(",", "", "_", "", " ", "", "\u00a0", "", "\u202f", "").Replace(s)
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

// formFields maps form keys to request paths (for inputs that hold one
// request field).
var formFields = map[string]string{
	"model": "model.preset", "layers": "model.layers", "hidden": "model.hidden", "heads": "model.heads",
	"kv_heads": "model.kv_heads", "ffn": "model.ffn", "vocab": "model.vocab", "head": "model.head",
	"tokens": "training.tokens", "dataset_tokens": "training.dataset_tokens", "epochs": "training.epochs",
	"seq": "training.seq_len", "batch": "training.batch_per_gpu", "precision": "training.precision",
	"gpu": "hardware.gpu", "count": "hardware.count", "strategy": "strategy", "tensor": "strategy.tensor",
	"data_mode": "strategy.data_mode", "carbon": "site.carbon_g_per_kwh", "pue": "site.pue", "price": "site.usd_per_kwh",
	"region": "site.region", "cal": "calibration", "power": "hardware.power_limit_w",
	"deadline": "deadline_s", "minimise": "minimise",
	"method": "training.method", "rank": "training.lora.rank", "targets": "training.lora.targets",
	"train_emb": "training.lora.train_embeddings", "base_format": "training.lora.base_format",
	"compute_dtype": "training.lora.compute_dtype", "ckpt": "training.gradient_checkpointing",
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
	for k, p := range formFields {
		if p == path {
			return k
		}
	}
	return ""
}

// number reads the key's text as a number. Empty text is an error when
// required, else (0, nil): the model's stated default applies.
func (f Form) number(key string, required bool) (float64, *Error) {
	raw := strings.TrimSpace(f[key])
	if raw == "" {
		if required {
			return 0, formErr(formFields[key], key, "", "is required")
		}
		return 0, nil
	}
	x, ok := ParseNumber(raw)
	if !ok {
		return 0, formErr(formFields[key], key, f[key], numberProblem(key, raw))
	}
	return x, nil
}

// Request converts the form into a fine-tuning request. Only the form's own
// syntax is checked here (numbers, choices); ranges are the model's to check.
func (f Form) Request(regions []Region) (model.Request, *Error) {
	var req model.Request
	var err *Error
	num := func(key string, required bool) float64 {
		if err != nil {
			return 0
		}
		var x float64
		x, err = f.number(key, required)
		return x
	}
	switch m := strings.TrimSpace(f["model"]); m {
	case "":
		return req, formErr("model.preset", "model", "", "is required: a preset such as bert-base, or custom")
	case "custom":
		req.Model.Layers = num("layers", true)
		req.Model.Hidden = num("hidden", true)
		req.Model.Heads = num("heads", true)
		req.Model.KVHeads = num("kv_heads", false)
		req.Model.FFN = num("ffn", true)
		req.Model.Vocab = num("vocab", true)
		req.Model.GLU = f["glu"] == "1" || f["glu"] == "true" || f["glu"] == "on"
	default:
		req.Model.Preset = m
	}
	req.Model.Head = strings.TrimSpace(f["head"])
	if f["length"] == "epochs" {
		req.Training.DatasetTokens = num("dataset_tokens", true)
		req.Training.Epochs = num("epochs", true)
	} else {
		req.Training.Tokens = num("tokens", true)
	}
	req.Training.SeqLen = num("seq", true)
	req.Training.BatchPerGPU = num("batch", true)
	req.Training.Precision = model.Precision(strings.TrimSpace(f["precision"]))
	if m := strings.TrimSpace(f["method"]); m != "" && m != model.MethodFull {
		req.Training.Method = m
	}
	if f.peft() {
		l := &model.LoRASpec{Rank: num("rank", false), Targets: strings.TrimSpace(f["targets"]),
			TrainEmbeddings: on(f["train_emb"])}
		if strings.TrimSpace(f["method"]) == model.MethodQLoRA {
			l.BaseFormat = strings.TrimSpace(f["base_format"])
			l.ComputeDtype = model.Precision(strings.TrimSpace(f["compute_dtype"]))
		}
		if err == nil && l.Rank == 0 && strings.TrimSpace(f["rank"]) != "" {
			return req, formErr("training.lora.rank", "rank", f["rank"], "must be a whole number from 1 to the model's hidden size; leave it empty for the method's default")
		}
		if *l != (model.LoRASpec{}) {
			req.Training.LoRA = l
		}
	}
	switch c := strings.TrimSpace(f["ckpt"]); c {
	case "":
	case "on", "1", "true":
		t := true
		req.Training.GradientCheckpointing = &t
	case "off", "0", "false":
		t := false
		req.Training.GradientCheckpointing = &t
	default:
		return req, formErr("training.gradient_checkpointing", "ckpt", c, "must be on, off or empty (the method's default)")
	}
	req.Hardware.GPU = strings.TrimSpace(f["gpu"])
	req.Hardware.Count = num("count", true)
	req.Hardware.PowerLimitW = num("power", false)
	switch st := strings.TrimSpace(f["strategy"]); st {
	case model.Hybrid:
		t := num("tensor", true)
		if err == nil {
			n := req.Hardware.Count
			if t < 1 || t != float64(int64(t)) || n != float64(int64(n)) || int64(n)%int64(t) != 0 {
				return req, formErr("strategy.tensor", "tensor", f["tensor"], "must be a whole number that divides the GPU count ("+f["count"]+")")
			}
			req.Strategy = model.Strategy{Name: model.Hybrid, Tensor: t, Data: n / t, DataMode: strings.TrimSpace(f["data_mode"])}
		}
	default:
		req.Strategy = model.Strategy{Name: st}
	}
	req.Site.PUE = num("pue", false)
	req.Site.CarbonGPerKWh = num("carbon", false)
	req.Site.USDPerKWh = num("price", false)
	if err != nil {
		return req, err
	}
	// A grid preset names the region in reports only while the carbon
	// figure is the preset's own (or left empty, when the preset supplies it).
	if r := findRegion(regions, f["region"]); r != nil && (req.Site.CarbonGPerKWh == 0 || req.Site.CarbonGPerKWh == r.CarbonGPerKWh) {
		req.Site.Region = r.Name
		req.Site.CarbonGPerKWh = r.CarbonGPerKWh
	}
	req.Calibration = strings.TrimSpace(f["cal"])
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
