package model

import (
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// The field table: every input of an estimate request, once. It drives the
// range checks and their messages (Catalog.Estimate), the calculator's form
// and URL state (wasm/calcapi ships it to the page), the OpenAPI schema
// (wasm/api) and the field lists in the README and the API page (checked by
// tests). A new request field is a row here plus the model code that uses
// it.

// FieldKind is how a field's value is written.
type FieldKind string

// Field kinds.
const (
	KindNumber FieldKind = "number" // a finite number within Bounds
	KindInt    FieldKind = "int"    // a whole number within Bounds
	KindEnum   FieldKind = "enum"   // one of Choices
	KindBool   FieldKind = "bool"   // in a form: "1" (or "true", "on") or ""
	KindString FieldKind = "string" // free text or a name from a catalogue (preset, GPU, calibration)
	KindObject FieldKind = "object" // a JSON object: a Hugging Face file, read key by key (model/hf.go)
)

// Bounds is a numeric field's accepted range, and with it the one wording
// of a range error used across the project.
type Bounds struct {
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
	MinOpen bool    `json:"min_open,omitempty"` // Min itself is excluded
	Whole   bool    `json:"whole,omitempty"`    // whole numbers only
}

// Check returns a *FieldError naming field unless x is finite and within b.
func (b Bounds) Check(field string, x float64) error {
	bad := math.IsNaN(x) || math.IsInf(x, 0) || x < b.Min || x > b.Max || (b.MinOpen && x == b.Min) || (b.Whole && x != math.Trunc(x))
	if !bad {
		return nil
	}
	return codeErr(b.code(), field, x, Args{{Name: "min", Num: b.Min}, {Name: "max", Num: b.Max}})
}

// withMin is b with the lower end min, excluded.
func (b Bounds) withMin(min float64) Bounds {
	b.Min, b.MinOpen = min, true
	return b
}

func (b Bounds) code() string {
	switch {
	case b.Whole:
		return CodeRangeWhole
	case b.MinOpen:
		return CodeRangeOpen
	}
	return CodeRangeClosed
}

// Rule is the range in words, as an error message says it.
func (b Bounds) Rule() string {
	return Message{Code: b.code(), Args: Args{{Name: "min", Num: b.Min}, {Name: "max", Num: b.Max}}}.Text(Technical)
}

// When says when a form field applies: while the form key Key holds Value
// (or, with Not, anything else; with In, one of those values).
type When struct {
	Key   string   `json:"key"`
	Value string   `json:"value,omitempty"`
	Not   bool     `json:"not,omitempty"`
	In    []string `json:"in,omitempty"`
}

// Holds reports whether the condition holds for the form values get returns.
func (w *When) Holds(get func(key string) string) bool {
	if w == nil {
		return true
	}
	v := get(w.Key)
	if len(w.In) > 0 {
		for _, x := range w.In {
			if v == x {
				return true
			}
		}
		return false
	}
	return (v == w.Value) != w.Not
}

// Field is one row of a field table.
type Field struct {
	Key   string    `json:"key"`            // the form's and the URL query's name; "" for a field the form derives
	Path  string    `json:"path,omitempty"` // dotted JSON path in the request; "" for a form-only choice
	Kind  FieldKind `json:"kind"`
	Group string    `json:"group"` // the form's fieldset: model, training, method, hardware, site, calibration
	Label string    `json:"label"` // the form's label
	Help  string    `json:"help"`  // what it is, in the form's words (tooltips, OpenAPI, docs)
	Unit  string    `json:"unit,omitempty"`
	*Bounds
	Choices []string `json:"choices,omitempty"` // KindEnum: the accepted values ("" when it may be left empty)
	// Offer makes a string or bool row's input a select of these values
	// (targets: the common module sets; ckpt: default, on, off); an enum's
	// select offers its Choices.
	Offer []string `json:"offer,omitempty"`
	// Say is the form's words for a choice or an offered value; a value it
	// does not list shows as itself ("" as "Default").
	Say map[string]string `json:"say,omitempty"`
	// Optional fields may be left out (zero in JSON, empty in the form):
	// the model then uses its stated default, Default says which.
	Optional bool   `json:"optional,omitempty"`
	Default  string `json:"default,omitempty"` // what leaving it out means, in words
	Hint     string `json:"hint,omitempty"`    // the form's hint under the input
	// Example is what a valid number looks like, as the form says it of
	// text that is not a number ("must be " + Example).
	Example string `json:"-"`
	Form    string `json:"form"`              // the form's opening text
	Implied string `json:"implied,omitempty"` // a form value that means "leave the field out" (the model's default)
	When    *When  `json:"when,omitempty"`
	// Student marks the inputs a distillation plan's estimated student
	// stage takes too (the planner's row; wasm/calcapi.StudentKeys): the
	// preset or a shape (what a pasted config.json gives), the training
	// run with the trainer arguments' keys (epochs, optimizer state,
	// attention, torch.compile), the method and the hardware. The site is
	// the plan's.
	Student bool `json:"-"`
}

// Options are the values the form's select of the row offers (its Choices,
// else Offer; nil: the row's input is not a select).
func (f *Field) Options() []string {
	if f.Kind == KindEnum {
		return f.Choices
	}
	return f.Offer
}

// Text is the form's words for the row's value v.
func (f *Field) Text(v string) string {
	if t, ok := f.Say[v]; ok {
		return t
	}
	if v == "" {
		return "Default"
	}
	return v
}

// Check checks x against the field's bounds (nil bounds accept anything).
func (f *Field) Check(x float64) error {
	if f.Bounds == nil {
		return nil
	}
	return f.Bounds.Check(f.Path, x)
}

// The defaults' figures as RequestFields writes them, constants so that
// the table is laid out by the compiler rather than built when a program
// starts (TestFieldDefaultTexts checks them against the values).
const (
	defaultStateBytesText = "16"   // DefaultStateBytesPerParam
	defaultCarbonText     = "475"  // DefaultCarbonGPerKWh
	defaultPUEText        = "1.56" // DefaultPUE
	defaultUSDText        = "0.15" // DefaultUSDPerKWh
)

// RequestFields is the estimate request's field table, in the form's order.
// Its rows are constants (no call, no computed text) except the maps of
// words, so that the compiler lays most of it out as data: code run at
// start-up is compiled by the browser before the calculator's first
// answer.
var RequestFields = []Field{
	{Key: "model", Student: true, Path: "model.preset", Kind: KindString, Group: "model", Label: "Preset or “custom”", Form: "bert-base",
		Default: "give the shape instead (layers, hidden, heads, ffn, vocab)", Help: "a model preset (bert-base, llama-3-8b, …); in the form, custom gives the shape"},
	{Key: "layers", Student: true, Example: "a whole number, for example 24", Path: "model.layers", Kind: KindInt, Group: "model", Label: "Layers", Form: "12", Bounds: &Bounds{Min: 1, Max: 1 << 22, Whole: true},
		Default: "required for a shape", Help: "transformer layers (blocks)", When: &When{Key: "model", Value: "custom"}},
	{Key: "hidden", Student: true, Example: "a whole number, for example 2048", Path: "model.hidden", Kind: KindInt, Group: "model", Label: "Hidden size", Form: "768", Bounds: &Bounds{Min: 1, Max: 1 << 22, Whole: true},
		Default: "required for a shape", Help: "model (embedding) width d", When: &When{Key: "model", Value: "custom"}},
	{Key: "heads", Student: true, Example: "a whole number, for example 16", Path: "model.heads", Kind: KindInt, Group: "model", Label: "Attention heads", Form: "12", Bounds: &Bounds{Min: 1, Max: 1 << 22, Whole: true},
		Default: "required for a shape", Help: "attention heads; they must divide the hidden size", When: &When{Key: "model", Value: "custom"}},
	{Key: "kv_heads", Student: true, Example: "a whole number, for example 8, or empty", Path: "model.kv_heads", Kind: KindInt, Group: "model", Label: "KV heads (GQA)", Bounds: &Bounds{Min: 0, Max: 1 << 22, Whole: true}, Optional: true,
		Default: "as many as the attention heads", Hint: "empty = heads", Help: "key/value heads for grouped-query attention", When: &When{Key: "model", Value: "custom"}},
	{Key: "ffn", Student: true, Example: "a whole number, for example 8192", Path: "model.ffn", Kind: KindInt, Group: "model", Label: "FFN size", Form: "3072", Bounds: &Bounds{Min: 1, Max: 1 << 22, Whole: true},
		Default: "required for a shape", Help: "inner width of the feed-forward block", When: &When{Key: "model", Value: "custom"}},
	{Key: "vocab", Student: true, Example: "a whole number, for example 32000", Path: "model.vocab", Kind: KindInt, Group: "model", Label: "Vocabulary", Form: "30522", Bounds: &Bounds{Min: 1, Max: 1 << 22, Whole: true},
		Default: "required for a shape", Help: "vocabulary size", When: &When{Key: "model", Value: "custom"}},
	{Key: "glu", Student: true, Path: "model.glu", Kind: KindBool, Group: "model", Label: "Gated MLP (SwiGLU)", Optional: true, Default: "false",
		Help: "a gated feed-forward block (SwiGLU, three matrices)", When: &When{Key: "model", Value: "custom"}},
	{Key: "experts", Student: true, Path: "model.experts", Kind: KindInt, Group: "model", Label: "Experts (MoE)", Bounds: &Bounds{Min: 0, Max: MaxExperts, Whole: true}, Optional: true,
		Default: "0 (a dense model)", Hint: "empty = dense", Help: "mixture of experts: feed-forward experts per layer, each ffn wide; their matmuls are charged at the rate published MoE training reaches (see the methodology)", When: &When{Key: "model", Value: "custom"}},
	{Key: "experts_per_token", Student: true, Path: "model.experts_per_token", Kind: KindInt, Group: "model", Label: "Experts per token", Bounds: &Bounds{Min: 0, Max: MaxExperts, Whole: true}, Optional: true,
		Default: "needed with experts", Hint: "top-k routing", Help: "mixture of experts: the experts each token is routed to (top-k); FLOPs count these, memory and traffic all experts", When: &When{Key: "model", Value: "custom"}},
	{Key: "head_dim", Student: true, Example: "a whole number, for example 128, or empty", Path: "model.head_dim", Kind: KindInt, Group: "model", Label: "Head width", Bounds: &Bounds{Min: 0, Max: 1 << 14, Whole: true}, Optional: true,
		Default: "hidden ÷ heads", Hint: "empty = hidden ÷ heads", Help: "one attention head's width where it is not hidden ÷ heads (Gemma, Qwen3): the query and output projections are then hidden × heads·head_dim", When: &When{Key: "model", Value: "custom"}},
	{Key: "tied", Student: true, Path: "model.tied", Kind: KindBool, Group: "model", Label: "Tied embeddings", Optional: true, Default: "false",
		Help: "the LM head shares the input embeddings (one vocabulary × hidden matrix instead of two)", When: &When{Key: "model", Value: "custom"}},
	{Path: PathHFConfig, Kind: KindObject, Group: "model", Label: "Hugging Face config.json", Optional: true, Default: "no config: give a preset or a shape",
		Help: "the model's config.json from its Hugging Face repository, as a JSON object; read for " + hfFamilyNames + "; a shape field given beside it wins, and inputs.imported lists what was read"},
	{Key: "head", Student: true, Path: "model.head", Kind: KindEnum, Group: "model", Label: "Trained head", Choices: []string{"", "lm", "classifier"}, Optional: true,
		Say:     map[string]string{"": "Default for the model", "lm": "Language-model head (vocabulary)", "classifier": "Small classifier head"},
		Default: "lm, or classifier for encoder presets (BERT, RoBERTa, DistilBERT)", Help: "lm (a vocabulary projection is trained) or classifier (a small task head)"},
	{Key: "length", Student: true, Kind: KindEnum, Group: "training", Label: "Training length given as", Choices: []string{"tokens", "epochs"}, Form: "tokens",
		Say:  map[string]string{"tokens": "Total tokens", "epochs": "Dataset × epochs"},
		Help: "total tokens, or tokens per epoch × epochs"},
	{Key: "tokens", Student: true, Example: "a number of tokens, for example 2e8, 200M or 1.5B", Path: "training.tokens", Kind: KindNumber, Group: "training", Label: "Tokens processed (all epochs)", Unit: "tokens", Form: "2e8",
		Bounds: &Bounds{Min: 0, Max: 1e16, MinOpen: true}, Default: "give dataset_tokens and epochs instead", Hint: "e.g. 2e8, 200M, 1.5B", Help: "tokens processed over the whole run, all epochs", When: &When{Key: "length", Value: "epochs", Not: true}},
	{Key: "dataset_tokens", Student: true, Example: "a number of tokens, for example 1e8 or 100M", Path: "training.dataset_tokens", Kind: KindNumber, Group: "training", Label: "Tokens per epoch", Unit: "tokens", Form: "1e8",
		Bounds: &Bounds{Min: 0, Max: 1e16, MinOpen: true}, Default: "give tokens instead", Help: "tokens in one pass over the dataset", When: &When{Key: "length", Value: "epochs"}},
	{Path: "training.dataset_examples", Kind: KindNumber, Group: "training", Label: "Examples per epoch", Unit: "sequences", Bounds: &Bounds{Min: 0, Max: 1e13, MinOpen: true}, Optional: true,
		Default: "give dataset_tokens instead", Help: "examples (sequences) in one pass over the dataset, instead of dataset_tokens: an epoch is dataset_examples × seq_len tokens, each example counted at the full sequence length (padded, or packed); with epochs or num_train_epochs of training.hf_args"},
	{Key: "epochs", Student: true, Example: "a number, for example 3", Path: "training.epochs", Kind: KindNumber, Group: "training", Label: "Epochs", Form: "2",
		Bounds: &Bounds{Min: 0, Max: 1e4, MinOpen: true}, Default: "give tokens instead", Help: "passes over the dataset (may be fractional)", When: &When{Key: "length", Value: "epochs"}},
	{Key: "seq", Student: true, Example: "a whole number of tokens, for example 512", Path: "training.seq_len", Kind: KindInt, Group: "training", Label: "Sequence", Unit: "tokens", Form: "512", Bounds: &Bounds{Min: 1, Max: 1 << 21, Whole: true},
		Help: "tokens per sequence"},
	{Key: "batch", Student: true, Example: "a whole number, for example 32", Path: "training.batch_per_gpu", Kind: KindInt, Group: "training", Label: "Batch / GPU", Unit: "sequences", Form: "32", Bounds: &Bounds{Min: 1, Max: 1 << 16, Whole: true},
		Help: "sequences per GPU per step (micro-batch)"},
	{Key: "accum", Student: true, Example: "a whole number, for example 8, or empty", Path: "training.gradient_accumulation", Kind: KindInt, Group: "training", Label: "Accumulation steps", Unit: "micro-batches", Bounds: &Bounds{Min: 1, Max: 1 << 16, Whole: true}, Optional: true,
		Default: "1 (an optimizer step after every micro-batch)", Hint: "empty = 1",
		Help: "micro-batches per GPU per optimizer step (gradient_accumulation_steps): the optimizer's update and ddp's gradient all-reduce run once per optimizer step, so more accumulation means less weight and optimizer traffic per token"},
	{Key: "precision", Student: true, Path: "training.precision", Kind: KindEnum, Group: "training", Label: "Precision", Form: "fp16", Choices: []string{string(FP32), string(TF32), string(FP16), string(BF16), string(FP8)}, Optional: true,
		Default: "the accelerator's usual mixed-precision format: " + DefaultPrecisionRule,
		Help:    "numeric format of the matrix multiplications"},
	{Key: "state_bytes", Student: true, Path: "training.state_bytes_per_param", Kind: KindNumber, Group: "training", Label: "State bytes / parameter", Unit: "bytes",
		Bounds: &Bounds{Min: 2, Max: 64}, Optional: true,
		Default: defaultStateBytesText + " (AdamW in mixed precision)", Hint: "empty = " + defaultStateBytesText + " (AdamW)",
		Help: "device memory per parameter for weights, gradients and optimizer state: 16 for AdamW in mixed precision, about 8 for Adafactor with fp32 master weights, 4 on pure bf16 weights; sets the memory check and the optimizer's memory traffic"},
	{Key: "stack", Path: "training.stack", Kind: KindEnum, Group: "training", Label: "Software stack", Choices: Stacks, Optional: true,
		Form: StackReference, Implied: StackReference, Default: "reference", Hint: "optimised: fused kernels, packing (Megatron, NeMo, MLPerf class)",
		Help: "how well the training software uses the GPU: reference (the calibration as fitted to research-style runs) or optimised (fused kernels, sequence packing, Megatron-LM, NeMo, torchtitan or MLPerf-class stacks: about 45 % of the 16-bit peak, 40 % of fp8, memory traffic overlapped with the matmuls)"},
	{Key: "attention", Student: true, Path: "training.attention", Kind: KindEnum, Group: "training", Label: "Attention", Choices: Attentions, Optional: true,
		Say:  map[string]string{AttnEager: "Eager", AttnSDPA: "SDPA", AttnFlash2: "FlashAttention-2", AttnFlash3: "FlashAttention-3"},
		Form: AttnSDPA, Implied: AttnSDPA, Default: "sdpa (transformers' default attn_implementation)", Hint: "eager is slower at long sequences; flash3 needs Hopper",
		Help: "attention implementation (attn_implementation): sdpa (PyTorch's fused scaled_dot_product_attention, the default), flash2 (FlashAttention-2: as fast as sdpa), flash3 (FlashAttention-3 on H100/H200: attention 1.5× faster) or eager (scores written to memory: attention 8× slower on an A100, from the FlashAttention-2 paper's GPT training, and slower still on GPUs with more arithmetic per byte of bandwidth, as measured on an H200)"},
	{Key: "compile", Student: true, Path: "training.compile", Kind: KindBool, Group: "training", Label: "torch.compile", Optional: true, Offer: []string{"", "on", "off"}, Say: BoolSay,
		Default: "off (the Trainer's torch_compile default)", Hint: "fuses element-wise kernels",
		Help: "torch.compile (the Trainer's torch_compile): element-wise kernels fused around the matmuls, so a step's memory traffic overlaps its arithmetic instead of adding to it"},
	{Key: "fused_opt", Student: true, Path: "training.fused_optimizer", Kind: KindBool, Group: "training", Label: "Fused AdamW", Optional: true, Offer: []string{"", "on", "off"}, Say: BoolSay,
		Default: "on (the Trainer's default optim, adamw_torch_fused, in transformers 5.17)", Hint: "off = foreach AdamW (optim adamw_torch)",
		Help: "AdamW as one fused kernel (the Trainer's optim adamw_torch_fused, its default) or off for the foreach implementation (adamw_torch), which streams the optimizer state in more passes: 60 more bytes per trained parameter and step, measured by wattscale on an H200 (about 7 % of a 1.5B full fine-tune's step); the hf_args optim adamw_torch and adamw_torch_fused set it"},
	{Key: "", Path: "training.teacher_logits", Kind: KindBool, Group: "training", Label: "Loss reads cached teacher log-probs", Optional: true, Default: "false (the planner sets it for logit-KD students)",
		Help: "logit distillation: the loss reads a teacher's cached top-k log-probs; when the estimate would need them faster than a published harness moved them (870 tokens/s per GPU, Lambert & Luccioni 2026), it warns and takes the input-bound interval"},
	{Key: "method", Student: true, Path: "training.method", Kind: KindEnum, Group: "method", Label: "Method", Choices: []string{MethodFull, MethodLoRA, MethodQLoRA}, Optional: true,
		Say:  map[string]string{MethodFull: "Full", MethodLoRA: "LoRA", MethodQLoRA: "QLoRA"},
		Form: MethodFull, Implied: MethodFull, Default: "full", Hint: "LoRA and QLoRA train adapters on a frozen base",
		Help: "fine-tuning method: full (every weight trained), lora (low-rank adapters on a frozen 16-bit base) or qlora (adapters on a quantised base)"},
	{Key: "ckpt", Student: true, Path: "training.gradient_checkpointing", Kind: KindBool, Group: "method", Label: "Checkpointing", Optional: true, Offer: []string{"", "on", "off"}, Say: BoolSay,
		Default: "off; on for qlora (its recipe)", Hint: "recomputes activations; default on for QLoRA",
		Help: "gradient checkpointing: recompute each layer's activations in the backward pass (one more forward pass, far less activation memory)"},
	{Key: "rank", Student: true, Example: "a whole number, for example 16, or empty", Path: "training.lora.rank", Kind: KindInt, Group: "method", Label: "LoRA rank", Optional: true, When: loraOnly,
		Default: "8 for lora (PEFT's default), 64 for qlora", Hint: "empty = 8 (LoRA), 64 (QLoRA)", Help: "adapter rank r, a whole number from 1 to the model's hidden size"},
	{Key: "targets", Student: true, Path: "training.lora.targets", Kind: KindString, Group: "method", Label: "Adapted modules", Optional: true, When: loraOnly,
		Offer: []string{"", "qv", "attention", "attention_mlp"}, Say: map[string]string{"qv": "q, v", "attention": "q, k, v, o", "attention_mlp": "All linear"},
		Default: "qv for lora, attention_mlp for qlora", Hint: "default: q, v (LoRA), all linear (QLoRA)",
		Help: "the adapted modules: qv, attention, attention_mlp, or a comma-separated list of q, k, v, o, gate, up, down"},
	{Key: "base_format", Student: true, Path: "training.lora.base_format", Kind: KindEnum, Group: "method", Label: "Base weights", Choices: []string{"", "nf4", "int8"}, Optional: true, Say: map[string]string{"": "Default (NF4)", "nf4": "NF4"},
		When: &When{Key: "method", Value: MethodQLoRA}, Default: "nf4", Hint: "NF4 with double quantisation: 4.127 bits",
		Help: "qlora: storage format of the frozen base, nf4 (4-bit NormalFloat, double quantisation) or int8 (LLM.int8())"},
	{Key: "compute_dtype", Student: true, Path: "training.lora.compute_dtype", Kind: KindEnum, Group: "method", Label: "Compute dtype", Choices: []string{"", "bf16", "fp16", "fp32"}, Optional: true, Say: map[string]string{"": "As precision", "fp32": "fp32 (slow)"},
		When: &When{Key: "method", Value: MethodQLoRA}, Default: "training.precision", Help: "qlora: the format the base weights are dequantised to for each matmul"},
	{Key: "train_emb", Student: true, Path: "training.lora.train_embeddings", Kind: KindBool, Group: "method", Label: "Train embeddings and LM head in full", Optional: true, When: loraOnly,
		Default: "false", Help: "train the token embeddings and the LM head in full (with optimizer state) besides the adapters"},
	{Path: PathHFArgs, Kind: KindObject, Group: "training", Label: "Hugging Face trainer arguments", Optional: true, Default: "none",
		Help: "the trainer's arguments by their TrainingArguments names, as a JSON object: per_device_train_batch_size, gradient_accumulation_steps, num_train_epochs or max_steps, bf16, fp16, tf32, gradient_checkpointing, optim, torch_compile, model_init_kwargs.attn_implementation and max_seq_length or max_length are read; other known arguments are listed as ignored, an unknown one is an error; the training fields win over it"},
	{Path: PathPEFT, Kind: KindObject, Group: "method", Label: "PEFT adapter_config.json", Optional: true, Default: "none",
		Help: "PEFT's adapter_config.json as a JSON object, with a QLoRA run's BitsAndBytesConfig keys (load_in_4bit, bnb_4bit_quant_type, bnb_4bit_use_double_quant, bnb_4bit_compute_dtype) at its top or in quantization_config: r, target_modules and modules_to_save are read and the method follows (qlora with a quantised base, else lora); the method and lora fields win over it"},
	{Key: "gpu", Student: true, Path: "hardware.gpu", Kind: KindString, Group: "hardware", Label: "GPU", Form: "a100-sxm4-80gb",
		Help: "accelerator id or alias (a100-sxm4-80gb, h100, …)"},
	{Key: "count", Student: true, Example: "a whole number, for example 8", Path: "hardware.count", Kind: KindInt, Group: "hardware", Label: "GPUs", Form: "4", Bounds: &Bounds{Min: 1, Max: 1 << 20, Whole: true},
		Help: "how many accelerators"},
	{Key: "power", Student: true, Example: "a number of watts, for example 300, or empty", Path: "hardware.power_limit_w", Kind: KindNumber, Group: "hardware", Label: "Power limit (W)", Unit: "W", Optional: true,
		Default: "the board's default limit (its board power)", Hint: "per GPU; empty = the board’s default limit",
		Help: "board power limit per GPU, as nvidia-smi -pl sets it; it must lie within the board's range of limits"},
	{Key: "strategy", Student: true, Path: "strategy", Kind: KindEnum, Group: "hardware", Label: "Strategy", Form: FSDP, Choices: Strategies,
		Say:  map[string]string{Single: "Single GPU", DDP: "DDP (data parallel)", FSDP: "FSDP (fully sharded)", TP: "Tensor parallel", Hybrid: "Hybrid tensor × data"},
		Help: "parallel layout: single, ddp, fsdp, tp, or hybrid tensor × data parallelism"},
	{Key: "tensor", Student: true, Example: "a whole number, for example 2", Path: "strategy.tensor", Kind: KindInt, Group: "hardware", Label: "Tensor-parallel degree", Form: "2", Bounds: &Bounds{Min: 1, Max: 1 << 20, Whole: true},
		Hint: "data ranks = GPUs ÷ this", Default: "required in a hybrid layout", Help: "hybrid: tensor-parallel ranks; the data-parallel ranks are the GPUs divided by this", When: &When{Key: "strategy", Value: Hybrid}},
	{Key: "", Path: "strategy.data", Kind: KindInt, Group: "hardware", Label: "Data-parallel degree", Bounds: &Bounds{Min: 1, Max: 1 << 20, Whole: true},
		Default: "required in a hybrid layout", Help: "hybrid: data-parallel ranks (the form derives it: GPUs ÷ tensor-parallel degree)", When: &When{Key: "strategy", Value: Hybrid}},
	{Key: "", Path: "strategy.context", Kind: KindInt, Group: "hardware", Label: "Context-parallel degree", Bounds: &Bounds{Min: 1, Max: 1 << 10, Whole: true}, Optional: true,
		Default: "1 (no context parallelism)", Help: "hybrid: GPUs each sequence is split over (context parallelism, ring attention); GPUs = tensor × context × data", When: &When{Key: "strategy", Value: Hybrid}},
	{Key: "data_mode", Student: true, Path: "strategy.data_mode", Kind: KindEnum, Group: "hardware", Label: "Data parallel as", Form: FSDP, Choices: []string{FSDP, DDP}, Say: map[string]string{FSDP: "FSDP", DDP: "DDP"},
		Optional: true, Default: "ddp", Help: "hybrid: how the data-parallel ranks hold the model, fsdp (sharded) or ddp (replicated)", When: &When{Key: "strategy", Value: Hybrid}},
	{Key: "region", Path: "site.region", Kind: KindString, Group: "site", Label: "Grid region", Form: "world", Optional: true, Default: "no region named",
		Help: "where the run draws power; echoed in reports (the form's grid presets also fill the carbon intensity)"},
	{Key: "carbon", Example: "a number, for example 400", Path: "site.carbon_g_per_kwh", Kind: KindNumber, Group: "site", Label: "g CO₂e/kWh", Unit: "g CO2e/kWh", Form: "475",
		Bounds: &Bounds{Min: 0, Max: 2000}, Optional: true, Default: defaultCarbonText + " (IEA world average)",
		Help: "carbon intensity of the electricity"},
	{Key: "pue", Example: "a number from 1 to 3, for example 1.2, or empty", Path: "site.pue", Kind: KindNumber, Group: "site", Label: "PUE", Bounds: &Bounds{Min: 1, Max: 3}, Optional: true,
		Default: defaultPUEText + " (Uptime Institute 2024 global average)", Hint: "empty = " + defaultPUEText, Help: "the facility's power usage effectiveness (facility energy ÷ IT energy)"},
	{Key: "price", Example: "a number, for example 0.15", Path: "site.usd_per_kwh", Kind: KindNumber, Group: "site", Label: "USD/kWh", Unit: "USD/kWh", Form: "0.15",
		Bounds: &Bounds{Min: 0, Max: 10}, Optional: true, Default: defaultUSDText + " (an assumed tariff)",
		Help: "electricity price"},
	{Key: "cal", Path: "calibration", Kind: KindString, Group: "calibration", Label: "Coefficients", Optional: true,
		Default: "the catalog's default calibration", Help: "the calibration to use, by name"},
}

// BoolSay is the form's words for a bool row offered as a select of
// "", "on" and "off" (the default, on, off).
var BoolSay = map[string]string{"": "Default", "on": "On", "off": "Off"}

// loraOnly is when the adapter inputs apply.
var loraOnly = &When{Key: "method", In: []string{MethodLoRA, MethodQLoRA}}

var requestFieldByPath = func() map[string]*Field {
	m := map[string]*Field{}
	for i := range RequestFields {
		if p := RequestFields[i].Path; p != "" {
			m[p] = &RequestFields[i]
		}
	}
	return m
}()

// RequestField returns the row of RequestFields for a request path, or nil.
func RequestField(path string) *Field { return requestFieldByPath[path] }

// checkField checks x against the bounds of the request field at path.
func checkField(path string, x float64) error {
	f := RequestField(path)
	if f == nil {
		panic("model: no field " + path + " in RequestFields")
	}
	return f.Check(x)
}

// Set stores v (float64, bool or string, as the field's kind says) at the
// field's JSON path in req. A strategy name goes to Strategy.Name.
//
// Its errors are not coded: they say the field table and the request type
// disagree, a programming error.
func (f *Field) Set(req *Request, v any) error {
	if f.Path == "" {
		return errors.New("model: field " + strconv.Quote(f.Key) + " has no request path")
	}
	if f.Path == "strategy" {
		s, ok := v.(string)
		if !ok {
			return errors.New("model: strategy takes a string, got " + typeName(v))
		}
		req.Strategy.Name = s
		return nil
	}
	dst := req.at(f.Path)
	ok := false
	switch p := dst.(type) {
	case nil:
		return errors.New("model: " + f.Path + ": no field of the request")
	case *float64:
		var x float64
		if x, ok = v.(float64); ok {
			*p = x
		}
	case *string:
		var x string
		if x, ok = v.(string); ok {
			*p = x
		}
	case *Precision:
		var x string
		if x, ok = v.(string); ok {
			*p = Precision(x)
		}
	case *RawObject:
		var x string
		if x, ok = v.(string); ok {
			*p = RawObject(x)
		}
	case *bool:
		var x bool
		if x, ok = v.(bool); ok {
			*p = x
		}
	case **bool: // an optional value: nil = the default
		var x bool
		if x, ok = v.(bool); ok {
			*p = &x
		}
	}
	if !ok {
		want := strings.TrimPrefix(typeName(dst), "*")
		if _, opt := dst.(**bool); opt {
			want = "bool"
		}
		return errors.New("model: field " + f.Path + " takes " + want + ", got " + typeName(v))
	}
	return nil
}

// at is a pointer to the request's field at a dotted JSON path (nil for
// none), allocating training.lora on the way to its fields: a switch
// rather than reflection, which keeps package reflect off the
// calculator's path (calc.wasm compiles no reflection code for its first
// answer). TestSetIsReflectSet holds it to the struct tags.
func (r *Request) at(path string) any {
	m, t, h, st, site := &r.Model, &r.Training, &r.Hardware, &r.Strategy, &r.Site
	switch path {
	case "model.preset":
		return &m.Preset
	case "model.layers":
		return &m.Layers
	case "model.hidden":
		return &m.Hidden
	case "model.heads":
		return &m.Heads
	case "model.kv_heads":
		return &m.KVHeads
	case "model.ffn":
		return &m.FFN
	case "model.vocab":
		return &m.Vocab
	case "model.glu":
		return &m.GLU
	case "model.experts":
		return &m.Experts
	case "model.experts_per_token":
		return &m.ExpertsPerToken
	case "model.head":
		return &m.Head
	case "model.head_dim":
		return &m.HeadDim
	case "model.tied":
		return &m.Tied
	case "model.hf_config":
		return &m.HFConfig
	case "training.tokens":
		return &t.Tokens
	case "training.dataset_tokens":
		return &t.DatasetTokens
	case "training.epochs":
		return &t.Epochs
	case "training.seq_len":
		return &t.SeqLen
	case "training.batch_per_gpu":
		return &t.BatchPerGPU
	case "training.dataset_examples":
		return &t.DatasetExamples
	case "training.gradient_accumulation":
		return &t.GradientAccumulation
	case "training.precision":
		return &t.Precision
	case "training.state_bytes_per_param":
		return &t.StateBytesPerParam
	case "training.method":
		return &t.Method
	case "training.gradient_checkpointing":
		return &t.GradientCheckpointing
	case "training.stack":
		return &t.Stack
	case "training.attention":
		return &t.Attention
	case "training.compile":
		return &t.Compile
	case "training.fused_optimizer":
		return &t.FusedOptimizer
	case "training.teacher_logits":
		return &t.TeacherLogits
	case "training.hf_args":
		return &t.HFArgs
	case "training.peft":
		return &t.PEFT
	case "hardware.gpu":
		return &h.GPU
	case "hardware.count":
		return &h.Count
	case "hardware.power_limit_w":
		return &h.PowerLimitW
	case "strategy.tensor":
		return &st.Tensor
	case "strategy.data":
		return &st.Data
	case "strategy.data_mode":
		return &st.DataMode
	case "strategy.context":
		return &st.Context
	case "site.pue":
		return &site.PUE
	case "site.carbon_g_per_kwh":
		return &site.CarbonGPerKWh
	case "site.usd_per_kwh":
		return &site.USDPerKWh
	case "site.region":
		return &site.Region
	case "calibration":
		return &r.Calibration
	}
	if lora, ok := strings.CutPrefix(path, "training.lora."); ok {
		if t.LoRA == nil {
			t.LoRA = &LoRASpec{}
		}
		return t.LoRA.at(lora)
	}
	return nil
}

// at is a pointer to the adapter's field at a JSON key (nil for none).
func (l *LoRASpec) at(key string) any {
	switch key {
	case "rank":
		return &l.Rank
	case "targets":
		return &l.Targets
	case "train_embeddings":
		return &l.TrainEmbeddings
	case "base_format":
		return &l.BaseFormat
	case "compute_dtype":
		return &l.ComputeDtype
	}
	return nil
}

// typeName is v's Go type as fmt's %T writes it.
func typeName(v any) string {
	if v == nil {
		return "<nil>"
	}
	return reflect.TypeOf(v).String()
}
