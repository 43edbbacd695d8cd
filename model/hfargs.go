package model

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// The trainer's arguments (training.hf_args) and PEFT's adapter_config.json
// (training.peft), read into the training fields they mean. The tables are
// strings (names separated by spaces), not maps: the calculator's
// WebAssembly carries them as data, not as code that builds maps.

// optimStates pairs each Trainer optim value with the device memory per
// trained parameter it needs: fp32 weights and gradients (4 + 4 bytes, the
// Trainer's mixed precision keeps fp32 master weights) plus the optimizer's
// state: two fp32 moments for AdamW (8), two 8-bit moments for the
// bitsandbytes 8-bit optimizers (2; Dettmers et al. 2022, "8-bit Optimizers
// via Block-wise Quantization"), one moment for Lion, RMSprop and Adagrad,
// three for AdEMAMix, none for plain SGD (the Trainer's "sgd" has no
// momentum) and Adafactor's factored second moment without a first moment
// (about 0; Shazeer & Stern 2018). Paging (paged_*) moves state to host
// memory only under pressure and does not change it.
const optimStates = "adamw_torch 16 adamw_torch_fused 16 adamw_hf 16 adamw_apex_fused 16 adamw_torch_xla 16 adamw_torch_npu_fused 16 adamw_anyprecision 16 " +
	"paged_adamw_32bit 16 adamw_bnb_32bit 16 adam 16 adamw 16 schedule_free_adamw 16 adamw_8bit 10 adamw_bnb_8bit 10 paged_adamw_8bit 10 adamw_torch_8bit 10 " +
	"adamw_torch_4bit 9 lion_32bit 12 paged_lion_32bit 12 lion_8bit 9 paged_lion_8bit 9 rmsprop 12 rmsprop_bnb 12 rmsprop_bnb_32bit 12 rmsprop_bnb_8bit 9 " +
	"adagrad 12 ademamix 20 paged_ademamix_32bit 20 ademamix_8bit 11 paged_ademamix_8bit 11 adafactor 8 sgd 8"

// OptimizerStateBytes returns the bytes per trained parameter (weights,
// gradients and optimizer state) of a Trainer optim value, and whether
// wattscale knows it.
func OptimizerStateBytes(optim string) (float64, bool) {
	f := strings.Fields(optimStates)
	for i := 0; i+1 < len(f); i += 2 {
		if f[i] == optim {
			x, err := strconv.ParseFloat(f[i+1], 64)
			return x, err == nil
		}
	}
	return 0, false
}

// optimNames lists the optim values known.
func optimNames() []string {
	f := strings.Fields(optimStates)
	out := make([]string, 0, len(f)/2)
	for i := 0; i < len(f); i += 2 {
		out = append(out, f[i])
	}
	return out
}

// The trainer arguments read, and the TrainingArguments (and TRL
// SFTConfig) names that do not bear on the estimate.
const (
	argsMapped  = "per_device_train_batch_size gradient_accumulation_steps num_train_epochs max_steps bf16 fp16 tf32 gradient_checkpointing optim max_seq_length max_length torch_compile model_init_kwargs"
	argsIgnored = "deepspeed fsdp fsdp_config fsdp_min_num_params fsdp_transformer_layer_cls_to_wrap ddp_backend ddp_find_unused_parameters ddp_bucket_cap_mb ddp_broadcast_buffers ddp_timeout " +
		"per_device_eval_batch_size eval_strategy evaluation_strategy eval_steps eval_accumulation_steps eval_delay do_eval do_predict prediction_loss_only eval_do_concat_batches eval_on_start eval_use_gather_object " +
		"per_gpu_train_batch_size per_gpu_eval_batch_size torch_compile_backend torch_compile_mode packing auto_find_batch_size group_by_length length_column_name " +
		"dataloader_num_workers dataloader_pin_memory dataloader_drop_last dataloader_persistent_workers dataloader_prefetch_factor remove_unused_columns label_names bf16_full_eval fp16_full_eval " +
		"fp16_opt_level fp16_backend half_precision_backend tf32_full_eval jit_mode_eval use_ipex use_cpu no_cuda use_mps_device output_dir overwrite_output_dir do_train learning_rate weight_decay " +
		"adam_beta1 adam_beta2 adam_epsilon max_grad_norm lr_scheduler_type lr_scheduler_kwargs warmup_ratio warmup_steps log_level log_level_replica log_on_each_node logging_dir logging_strategy " +
		"logging_first_step logging_steps logging_nan_inf_filter save_strategy save_steps save_total_limit save_safetensors save_on_each_node save_only_model restore_callback_states_from_checkpoint " +
		"seed data_seed full_determinism local_rank tpu_num_cores tpu_metrics_debug debug past_index run_name disable_tqdm load_best_model_at_end metric_for_best_model greater_is_better " +
		"ignore_data_skip accelerator_config label_smoothing_factor optim_args optim_target_modules adafactor report_to skip_memory_metrics use_legacy_prediction_loop push_to_hub " +
		"resume_from_checkpoint hub_model_id hub_strategy hub_token hub_private_repo hub_always_push hub_revision gradient_checkpointing_kwargs include_inputs_for_metrics include_for_metrics " +
		"mp_parameters ray_scope dispatch_batches split_batches include_tokens_per_second include_num_input_tokens_seen neftune_noise_alpha batch_eval_metrics use_liger_kernel " +
		"average_tokens_across_devices push_to_hub_model_id push_to_hub_organization push_to_hub_token torchdynamo sharded_ddp xpu_backend dataset_text_field dataset_kwargs dataset_num_proc " +
		"dataset_batch_size eval_packing packing_strategy padding_free completion_only_loss assistant_only_loss chat_template_path eos_token pad_token dataset_name " +
		"num_of_sequences chars_per_token use_reentrant activation_offloading pad_to_multiple_of truncation_mode shuffle_dataset label_pad_token_id _n_gpu hub_private"
)

// argWhy says why an ignored argument that seems to bear on cost does not.
func argWhy(k string) string {
	switch {
	case k == "deepspeed" || strings.HasPrefix(k, "fsdp") || strings.HasPrefix(k, "ddp_backend"):
		return "the layout is strategy's"
	case strings.Contains(k, "eval"):
		return "evaluation is not estimated"
	case k == "packing":
		return "the tokens are training.tokens or dataset_tokens"
	case strings.HasPrefix(k, "torch_compile"):
		return "training.compile reads torch_compile; the backend and mode are not modelled"
	case k == "use_liger_kernel":
		return "fused kernels are training.stack's"
	}
	return ""
}

// The adapter and quantisation keys read, and those that do not bear on
// the estimate.
const (
	peftMapped = "peft_type r target_modules modules_to_save load_in_4bit load_in_8bit _load_in_4bit _load_in_8bit bnb_4bit_quant_type bnb_4bit_use_double_quant " +
		"bnb_4bit_compute_dtype quant_method quantization_config use_dora layers_to_transform rank_pattern alpha_pattern"
	peftIgnored = "lora_alpha lora_dropout bias fan_in_fan_out task_type base_model_name_or_path inference_mode init_lora_weights revision auto_mapping use_rslora " +
		"layers_pattern megatron_config megatron_core loftq_config runtime_config lora_bias exclude_modules peft_version bnb_4bit_quant_storage llm_int8_threshold " +
		"llm_int8_skip_modules llm_int8_enable_fp32_cpu_offload llm_int8_has_fp16_weight"
	// modules_to_save names that train the embeddings, and small task heads.
	embModules  = "embed_tokens lm_head wte embed_in embed_out word_embeddings tok_embeddings shared"
	headModules = "classifier score pre_classifier pooler qa_outputs"
)

// inList reports whether the space-separated list holds name.
func inList(list, name string) bool {
	return name != "" && strings.Contains(" "+list+" ", " "+name+" ")
}

// hfErr is the error code about a Hugging Face file's key field, without
// a value.
func hfErr(code, field string, args Args) *FieldError { return codeErr(code, field, nil, args) }

// unknownHFKey is the error for a key a file does not have, with close
// matches among the keys it may have.
func unknownHFKey(field, key, mapped, ignored string) error {
	names := strings.Fields(mapped + " " + ignored)
	for i, n := range names {
		names[i], _, _ = strings.Cut(n, ":")
	}
	sort.Strings(names)
	return hfErr(CodeHFUnknownKey, field+"."+key, Args{{Name: "near", List: NearestNames(key, names, 3)}})
}

// hfTraining is what training.hf_args and training.peft gave a request.
type hfTraining struct {
	took []Imported
	// maxSteps is the Trainer's max_steps (optimizer steps): the tokens
	// follow once the data-parallel ranks are known.
	maxSteps int
}

func (h *hfTraining) add(o *hfObject, key, field, use, note string) {
	h.took = append(h.took, Imported{File: o.file, Key: key, Value: clip(o.vals[key]), Field: field, Use: use, Note: note})
}

// take records key as filling field, overridden when the request gives the
// field itself (explicit), and reports whether to fill it.
func (h *hfTraining) take(o *hfObject, key, field string, explicit bool) bool {
	if explicit {
		h.add(o, key, field, UseOverridden, field+" is given")
		return false
	}
	h.add(o, key, field, UseUsed, "")
	return true
}

// applyHFTraining fills t's fields that are zero from training.hf_args and
// training.peft; fam is the model's family (nil: a preset or a shape, then
// target_modules takes Llama's names).
func applyHFTraining(t TrainingSpec, fam *hfFamily, a Arch) (TrainingSpec, *hfTraining, error) {
	h := &hfTraining{}
	if t.LoRA != nil {
		l := *t.LoRA
		t.LoRA = &l
	}
	if t.HFArgs != "" {
		if err := h.args(&t); err != nil {
			return t, nil, err
		}
	}
	if t.PEFT != "" {
		if err := h.peft(&t, fam, a); err != nil {
			return t, nil, err
		}
	}
	return t, h, nil
}

// trainerArgs are the trainer arguments read; nil = left out (or null).
type trainerArgs struct {
	Batch    *float64 `json:"per_device_train_batch_size"`
	Accum    *float64 `json:"gradient_accumulation_steps"`
	Epochs   *float64 `json:"num_train_epochs"`
	MaxSteps *float64 `json:"max_steps"`
	BF16     *bool    `json:"bf16"`
	FP16     *bool    `json:"fp16"`
	TF32     *bool    `json:"tf32"`
	Ckpt     *bool    `json:"gradient_checkpointing"`
	Optim    *string  `json:"optim"`
	MaxSeq   *float64 `json:"max_seq_length"`
	MaxLen   *float64 `json:"max_length"`
	Compile  *bool    `json:"torch_compile"`
	// Init is TRL's model_init_kwargs, the from_pretrained arguments,
	// read for attn_implementation.
	Init *struct {
		Attn *string `json:"attn_implementation"`
	} `json:"model_init_kwargs"`
}

// attnImplementations pairs transformers' attn_implementation values with
// training.attention's.
const attnImplementations = "eager:eager sdpa:sdpa flash_attention_2:flash2 flash_attention_3:flash3"

// argFields pairs each trainer argument read with the field it fills.
const argFields = "per_device_train_batch_size:training.batch_per_gpu gradient_accumulation_steps:training.gradient_accumulation num_train_epochs:training.epochs " +
	"max_steps:training.tokens bf16:training.precision fp16:training.precision tf32:training.precision gradient_checkpointing:training.gradient_checkpointing " +
	"optim:training.state_bytes_per_param max_seq_length:training.seq_len max_length:training.seq_len torch_compile:training.compile model_init_kwargs:training.attention"

func (h *hfTraining) args(t *TrainingSpec) error {
	o, err := parseHFObject([]byte(t.HFArgs), PathHFArgs)
	if err != nil {
		return err
	}
	var v trainerArgs
	if err := json.Unmarshal([]byte(t.HFArgs), &v); err != nil {
		return PrefixField(PathHFArgs, jsonError(err))
	}
	whole := func(n float64) Bounds { return Bounds{Min: 1, Max: n, Whole: true} }
	for _, c := range [...]struct {
		key string
		x   *float64
		b   Bounds
	}{{"per_device_train_batch_size", v.Batch, whole(1 << 16)}, {"gradient_accumulation_steps", v.Accum, whole(1 << 16)},
		{"max_steps", v.MaxSteps, Bounds{Min: -1, Max: 1 << 40, Whole: true}}, {"max_seq_length", v.MaxSeq, whole(1 << 21)}, {"max_length", v.MaxLen, whole(1 << 21)},
		{"num_train_epochs", v.Epochs, fieldEpochs.Bounds.withMin(0)}} {
		if c.x != nil {
			if err := c.b.Check(PathHFArgs+"."+c.key, *c.x); err != nil {
				return err
			}
		}
	}
	seq := v.MaxSeq
	if seq == nil {
		seq = v.MaxLen
	} else if v.MaxLen != nil && *v.MaxLen != *seq {
		return hfErr(CodeHFMaxLength, PathHFArgs+".max_length", nil)
	}
	attn := ""
	if v.Init != nil && v.Init.Attn != nil {
		var ok bool
		if attn, ok = lookup(attnImplementations, *v.Init.Attn); !ok {
			return codeErr(CodeHFAttention, PathHFArgs+".model_init_kwargs.attn_implementation", *v.Init.Attn, Args{{Name: "attention", Str: "training.attention"}})
		}
	}
	var sb float64
	if v.Optim != nil {
		var ok bool
		if sb, ok = OptimizerStateBytes(strings.ToLower(*v.Optim)); !ok {
			return codeErr(CodeHFOptim, PathHFArgs+".optim", *v.Optim, Args{{Name: "state_bytes", Str: "training.state_bytes_per_param"}, {Name: "near", List: NearestNames(*v.Optim, optimNames(), 4)}})
		}
	}
	is := func(b *bool) bool { return b != nil && *b }
	prec := Precision("")
	switch {
	case is(v.BF16) && is(v.FP16):
		return hfErr(CodeHFFP16BF16, PathHFArgs+".fp16", nil)
	case is(v.BF16):
		prec = BF16
	case is(v.FP16):
		prec = FP16
	case is(v.TF32):
		prec = TF32
	case v.BF16 != nil || v.FP16 != nil:
		prec = FP32 // neither: the Trainer trains in fp32
	}
	steps := 0.0
	if v.MaxSteps != nil {
		steps = *v.MaxSteps
	}
	// The request's own fields win; max_steps wins over num_train_epochs,
	// as in the Trainer.
	orig := *t
	given := func(field string) bool {
		switch field {
		case "training.batch_per_gpu":
			return orig.BatchPerGPU != 0
		case "training.gradient_accumulation":
			return orig.GradientAccumulation != 0
		case "training.tokens":
			return orig.Tokens != 0 || orig.Epochs != 0
		case "training.epochs":
			return orig.Tokens != 0 || orig.Epochs != 0 || steps > 0
		case "training.precision":
			return orig.Precision != "" && orig.Precision != prec
		case "training.gradient_checkpointing":
			return orig.GradientCheckpointing != nil
		case "training.state_bytes_per_param":
			return orig.StateBytesPerParam != 0
		case "training.seq_len":
			return orig.SeqLen != 0
		case "training.compile":
			return orig.Compile != nil
		case "training.attention":
			return orig.Attention != ""
		}
		return false
	}
	for _, k := range o.keys {
		field, mapped := lookup(argFields, k)
		switch {
		case !mapped && !inList(argsIgnored, k):
			return unknownHFKey(PathHFArgs, k, argFields, argsIgnored)
		case !o.has(k):
		case !mapped:
			h.add(o, k, "", UseIgnored, argWhy(k))
		case k == "max_steps" && steps <= 0:
			h.add(o, k, "", UseIgnored, "not positive: num_train_epochs sets the run")
		case k == "model_init_kwargs" && attn == "":
			h.add(o, k, "", UseIgnored, "it names no attn_implementation")
		case k == "max_length" && v.MaxSeq != nil:
			h.add(o, k, "", UseIgnored, "the same as max_seq_length")
		case field == "training.precision" && prec == "":
			h.add(o, k, "", UseIgnored, "tf32 off and neither bf16 nor fp16 given: the precision is training.precision's")
		case k == "num_train_epochs" && steps > 0:
			h.add(o, k, field, UseOverridden, "max_steps sets the run, as in the Trainer")
		case given(field):
			h.add(o, k, field, UseOverridden, field+" is given")
		default:
			h.add(o, k, field, UseUsed, "")
		}
	}
	set := func(x *float64, dst *float64) {
		if x != nil && *dst == 0 {
			*dst = *x
		}
	}
	set(v.Batch, &t.BatchPerGPU)
	set(v.Accum, &t.GradientAccumulation)
	set(seq, &t.SeqLen)
	if v.Optim != nil && t.StateBytesPerParam == 0 {
		t.StateBytesPerParam = sb
	}
	if v.Ckpt != nil && t.GradientCheckpointing == nil {
		t.GradientCheckpointing = v.Ckpt
	}
	if v.Compile != nil && t.Compile == nil {
		t.Compile = v.Compile
	}
	if v.Optim != nil && t.FusedOptimizer == nil {
		// The two AdamW implementations the Trainer names apart; the
		// other optimizers keep the default.
		switch strings.ToLower(*v.Optim) {
		case "adamw_torch":
			off := false
			t.FusedOptimizer = &off
		case "adamw_torch_fused":
			on := true
			t.FusedOptimizer = &on
		}
	}
	if attn != "" && t.Attention == "" {
		t.Attention = attn
	}
	if prec != "" && t.Precision == "" {
		t.Precision = prec
	}
	switch {
	case steps > 0 && !given("training.tokens"):
		h.maxSteps = int(steps)
	case v.Epochs != nil && !given("training.epochs"):
		if t.DatasetTokens == 0 && t.DatasetExamples == 0 {
			return codeErr(CodeHFEpochsNeedTokens, "training.dataset_tokens", nil, Args{{Name: "file", Str: PathHFArgs}, {Name: "examples", Str: "training.dataset_examples"}, {Name: "seq_len", Str: "training.seq_len"}})
		}
		t.Epochs = *v.Epochs
	}
	return nil
}

// peftValues are the values read from training.peft.
type peftValues struct {
	rank              int
	mods              loraModules
	emb, q4, q8, qfmt bool // qfmt: a 4-bit format other than NF4 with double quantisation
	compute           Precision
}

// peftRefused are keys whose only accepted values are off: what they turn
// on is not modelled.
const peftRefused = "use_dora layers_to_transform rank_pattern alpha_pattern"

// dtypes maps bnb_4bit_compute_dtype values to precisions.
const dtypes = "bfloat16:bf16 torch.bfloat16:bf16 bf16:bf16 float16:fp16 torch.float16:fp16 fp16:fp16 half:fp16 float32:fp32 torch.float32:fp32 fp32:fp32 float:fp32"

// lookup finds name in a space-separated table of name:value pairs.
func lookup(table, name string) (string, bool) {
	for _, e := range strings.Fields(table) {
		if n, v, _ := strings.Cut(e, ":"); n == name {
			return v, true
		}
	}
	return "", false
}

// read reads one mapped key of training.peft into v.
func (v *peftValues) read(o *hfObject, k string, fam *hfFamily, a Arch) (err error) {
	field := o.file + "." + k
	if inList(peftRefused, k) {
		switch string(bytes.TrimSpace(o.vals[k])) {
		case "false", "{}", "[]":
			return nil
		}
		return hfErr(CodeHFUnmodelled, field, nil)
	}
	var s string
	var b bool
	switch k {
	case "r":
		v.rank, err = o.int(k, 1, 1<<16)
		return err
	case "target_modules":
		v.mods, err = peftTargets(o, fam, a)
		return err
	case "modules_to_save":
		var names []string
		if json.Unmarshal(o.vals[k], &names) != nil {
			return hfErr(CodeHFModuleNames, field, nil).withValue(clip(o.vals[k]))
		}
		for _, n := range names {
			if inList(embModules, n) {
				v.emb = true
			} else if !inList(headModules, n) {
				return hfErr(CodeHFSaveModule, field, Args{{Name: "name", Str: n}, {Name: "embedding", Str: embModules}, {Name: "heads", Str: headModules}})
			}
		}
		return nil
	case "load_in_4bit", "_load_in_4bit", "load_in_8bit", "_load_in_8bit", "bnb_4bit_use_double_quant":
		if b, err = o.bool(k); err != nil {
			return err
		}
		v.q4 = v.q4 || b && strings.Contains(k, "4bit")
		v.q8 = v.q8 || b && strings.Contains(k, "8bit")
		v.qfmt = v.qfmt || !b && k == "bnb_4bit_use_double_quant"
		return nil
	}
	if s, err = o.str(k); err != nil {
		return err
	}
	s = strings.ToLower(s)
	switch k {
	case "peft_type":
		if s != "lora" {
			return hfErr(CodeHFPEFTType, field, nil)
		}
	case "bnb_4bit_quant_type":
		if s != "nf4" && s != "fp4" {
			return hfErr(CodeHFQuantType, field, nil).withValue(strconv.Quote(s))
		}
		v.qfmt = v.qfmt || s == "fp4"
	case "bnb_4bit_compute_dtype":
		p, ok := lookup(dtypes, s)
		if !ok {
			return hfErr(CodeHFComputeDtype, field, nil).withValue(strconv.Quote(s))
		}
		v.compute = Precision(p)
	case "quant_method":
		if s != "bitsandbytes" {
			return hfErr(CodeHFQuantMethod, field, nil)
		}
	}
	return nil
}

// peft reads adapter_config.json and the BitsAndBytesConfig keys.
func (h *hfTraining) peft(t *TrainingSpec, fam *hfFamily, a Arch) error {
	o, err := parseHFObject([]byte(t.PEFT), PathPEFT)
	if err != nil {
		return err
	}
	// The quantisation keys may sit in a nested quantization_config (as a
	// model's config.json writes them); they are read as if at the top.
	if o.has("quantization_config") {
		q, err := parseHFObject(o.vals["quantization_config"], PathPEFT+".quantization_config")
		if err != nil {
			return err
		}
		for _, k := range q.keys {
			if _, dup := o.vals[k]; dup {
				return hfErr(CodeHFAlsoAtTop, q.file+"."+k, nil)
			}
			o.keys = append(o.keys, k)
			o.vals[k] = q.vals[k]
		}
	}
	var v peftValues
	for _, k := range o.keys {
		mapped := inList(peftMapped, k)
		if !mapped && !inList(peftIgnored, k) {
			return unknownHFKey(PathPEFT, k, peftMapped, peftIgnored)
		}
		switch {
		case !o.has(k) || k == "quantization_config":
		case !mapped || inList(peftRefused, k) && v.read(o, k, fam, a) == nil:
			h.add(o, k, "", UseIgnored, "")
		default:
			if err := v.read(o, k, fam, a); err != nil {
				return err
			}
		}
	}
	if v.q4 && v.q8 {
		return hfErr(CodeHF4bit8bit, PathPEFT+".load_in_8bit", nil)
	}
	// The method follows from the quantisation; training.method wins.
	method, format, methodKey := MethodLoRA, FormatNF4, "r"
	if v.q8 {
		format = FormatInt8
	}
	for _, k := range []string{"load_in_4bit", "_load_in_4bit", "load_in_8bit", "_load_in_8bit", "peft_type"} {
		if o.has(k) {
			methodKey = k
			break
		}
	}
	if v.q4 || v.q8 {
		method = MethodQLoRA
	}
	explicit := strings.ToLower(strings.TrimSpace(t.Method))
	if h.take(o, methodKey, "training.method", explicit != "" && explicit != method) {
		t.Method = method
	}
	final := strings.ToLower(strings.TrimSpace(t.Method))
	peft := final == MethodLoRA || final == MethodQLoRA
	qlora := final == MethodQLoRA && method == MethodQLoRA
	l := LoRASpec{}
	if t.LoRA != nil {
		l = *t.LoRA
	}
	given := l // the request's own lora fields
	for _, k := range []string{"r", "target_modules", "modules_to_save", "bnb_4bit_compute_dtype", "bnb_4bit_quant_type", "bnb_4bit_use_double_quant", "quant_method"} {
		field, explicit := "training.lora.base_format", given.BaseFormat != ""
		switch k {
		case "r":
			field, explicit = "training.lora.rank", given.Rank != 0
		case "target_modules":
			field, explicit = "training.lora.targets", given.Targets != ""
		case "modules_to_save":
			field, explicit = "training.lora.train_embeddings", given.TrainEmbeddings
		case "bnb_4bit_compute_dtype":
			field, explicit = "training.lora.compute_dtype", given.ComputeDtype != ""
		}
		switch {
		case !o.has(k):
		case k == "modules_to_save" && !v.emb:
			h.add(o, k, "", UseIgnored, "a small task head, trained in full")
		case !peft:
			h.add(o, k, field, UseOverridden, "training.method is full")
		case !qlora && strings.HasPrefix(field, "training.lora.") && (k == "bnb_4bit_compute_dtype" || field == "training.lora.base_format"):
			h.add(o, k, "", UseIgnored, "the base is not quantised")
		case h.take(o, k, field, explicit):
			switch k {
			case "r":
				l.Rank = float64(v.rank)
			case "target_modules":
				l.Targets = strings.Join(v.mods.names(), ",")
			case "modules_to_save":
				l.TrainEmbeddings = true
			case "bnb_4bit_compute_dtype":
				l.ComputeDtype = v.compute
			default:
				l.BaseFormat = format
				if v.qfmt {
					h.took[len(h.took)-1].Note = "modelled as NF4 with double quantisation (4.127 bits per weight); fp4 or single quantisation store up to 0.37 bits more"
				}
			}
		}
	}
	if qlora && given.BaseFormat == "" {
		l.BaseFormat = format
	}
	if peft && l != (LoRASpec{}) {
		t.LoRA = &l
	}
	return nil
}

// peftTargets reads target_modules: a list of module names, or
// "all-linear".
func peftTargets(o *hfObject, fam *hfFamily, a Arch) (loraModules, error) {
	const k = "target_modules"
	field := o.file + "." + k
	var s string
	if json.Unmarshal(o.vals[k], &s) == nil {
		if strings.EqualFold(s, "all-linear") {
			return parseTargets(TargetsAttentionMLP, a)
		}
		return 0, hfErr(CodeHFTargetsRegex, field, nil)
	}
	var names []string
	if json.Unmarshal(o.vals[k], &names) != nil || len(names) == 0 {
		return 0, hfErr(CodeHFTargetsList, field, nil).withValue(clip(o.vals[k]))
	}
	mods := llamaModules
	if fam != nil {
		mods = fam.modules
	}
	var m loraModules
	for _, n := range names {
		x := moduleOf(mods, n[strings.LastIndex(n, ".")+1:])
		if x == 0 {
			return 0, hfErr(CodeHFTargetModule, field, Args{{Name: "name", Str: n}, {Name: "modules", List: moduleList(mods)}})
		}
		m |= x
	}
	if !a.GLU {
		m &^= modGate
	}
	return m, nil
}

// moduleOf looks a PEFT module name up in a family's module table, a
// space-separated list of name:modules ("qkv_proj:q,k,v"); 0 = not there.
func moduleOf(table, name string) loraModules {
	for _, e := range strings.Fields(table) {
		n, ms, _ := strings.Cut(e, ":")
		if n != name {
			continue
		}
		var m loraModules
		for _, x := range strings.Split(ms, ",") {
			for _, mn := range moduleNames {
				if mn.name == x {
					m |= mn.m
				}
			}
		}
		return m
	}
	return 0
}

// moduleList lists a module table's names.
func moduleList(table string) []string {
	var out []string
	for _, e := range strings.Fields(table) {
		n, _, _ := strings.Cut(e, ":")
		out = append(out, n)
	}
	return out
}
