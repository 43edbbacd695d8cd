package model

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// The trainer's arguments (training.hf_args) and PEFT's adapter_config.json
// (training.peft), read into the training fields they mean.

// OptimizerStateBytes is the device memory per trained parameter of each
// Trainer optim value: fp32 weights and gradients (4 + 4 bytes, the
// Trainer's mixed precision keeps fp32 master weights) plus the optimizer's
// state: two fp32 moments for AdamW (8), two 8-bit moments for the
// bitsandbytes 8-bit optimizers (2; Dettmers et al. 2022, "8-bit Optimizers
// via Block-wise Quantization"), one moment for Lion and RMSprop-like
// optimizers, none for plain SGD (the Trainer's "sgd" has no momentum) and
// Adafactor's factored second moment without a first moment (about 0;
// Shazeer & Stern 2018). Paging (paged_*) moves state to host memory only
// under pressure and does not change it.
var OptimizerStateBytes = map[string]float64{
	"adamw_torch": 16, "adamw_torch_fused": 16, "adamw_hf": 16, "adamw_apex_fused": 16, "adamw_torch_xla": 16, "adamw_torch_npu_fused": 16,
	"adamw_anyprecision": 16, "paged_adamw_32bit": 16, "adamw_bnb_32bit": 16, "adam": 16, "adamw": 16, "schedule_free_adamw": 16,
	"adamw_8bit": 10, "adamw_bnb_8bit": 10, "paged_adamw_8bit": 10, "adamw_torch_8bit": 10,
	"adamw_torch_4bit": 9,
	"lion_32bit":       12, "paged_lion_32bit": 12, "lion_8bit": 9, "paged_lion_8bit": 9,
	"rmsprop": 12, "rmsprop_bnb": 12, "rmsprop_bnb_32bit": 12, "rmsprop_bnb_8bit": 9, "adagrad": 12,
	"ademamix": 20, "paged_ademamix_32bit": 20, "ademamix_8bit": 11, "paged_ademamix_8bit": 11,
	"adafactor": 8, "sgd": 8,
}

func optimNames() []string {
	out := make([]string, 0, len(OptimizerStateBytes))
	for k := range OptimizerStateBytes {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// hfArgsIgnored are TrainingArguments (and TRL SFTConfig) names that do not
// bear on the estimate, with why where they seem to.
var hfArgsIgnored = map[string]string{
	"deepspeed": "the layout is strategy's", "fsdp": "the layout is strategy's", "fsdp_config": "the layout is strategy's", "fsdp_min_num_params": "the layout is strategy's",
	"fsdp_transformer_layer_cls_to_wrap": "the layout is strategy's", "ddp_backend": "the layout is strategy's", "ddp_find_unused_parameters": "", "ddp_bucket_cap_mb": "", "ddp_broadcast_buffers": "", "ddp_timeout": "",
	"per_device_eval_batch_size": "evaluation is not estimated", "eval_strategy": "evaluation is not estimated", "evaluation_strategy": "evaluation is not estimated", "eval_steps": "evaluation is not estimated",
	"eval_accumulation_steps": "evaluation is not estimated", "eval_delay": "evaluation is not estimated", "do_eval": "evaluation is not estimated", "do_predict": "", "prediction_loss_only": "", "eval_do_concat_batches": "", "eval_on_start": "", "eval_use_gather_object": "",
	"per_gpu_train_batch_size": "deprecated; per_device_train_batch_size", "per_gpu_eval_batch_size": "", "torch_compile": "compilation is not modelled", "torch_compile_backend": "", "torch_compile_mode": "",
	"packing": "the tokens are what training.tokens or dataset_tokens says", "auto_find_batch_size": "", "group_by_length": "", "length_column_name": "", "dataloader_num_workers": "", "dataloader_pin_memory": "",
	"dataloader_drop_last": "", "dataloader_persistent_workers": "", "dataloader_prefetch_factor": "", "remove_unused_columns": "", "label_names": "", "bf16_full_eval": "", "fp16_full_eval": "",
	"fp16_opt_level": "", "fp16_backend": "", "half_precision_backend": "", "tf32_full_eval": "", "jit_mode_eval": "", "use_ipex": "", "use_cpu": "", "no_cuda": "", "use_mps_device": "",
	"output_dir": "", "overwrite_output_dir": "", "do_train": "", "learning_rate": "", "weight_decay": "", "adam_beta1": "", "adam_beta2": "", "adam_epsilon": "", "max_grad_norm": "",
	"lr_scheduler_type": "", "lr_scheduler_kwargs": "", "warmup_ratio": "", "warmup_steps": "", "log_level": "", "log_level_replica": "", "log_on_each_node": "", "logging_dir": "",
	"logging_strategy": "", "logging_first_step": "", "logging_steps": "", "logging_nan_inf_filter": "", "save_strategy": "", "save_steps": "", "save_total_limit": "", "save_safetensors": "",
	"save_on_each_node": "", "save_only_model": "", "restore_callback_states_from_checkpoint": "", "seed": "", "data_seed": "", "full_determinism": "", "local_rank": "", "tpu_num_cores": "",
	"tpu_metrics_debug": "", "debug": "", "past_index": "", "run_name": "", "disable_tqdm": "", "load_best_model_at_end": "", "metric_for_best_model": "", "greater_is_better": "",
	"ignore_data_skip": "", "accelerator_config": "", "label_smoothing_factor": "", "optim_args": "", "optim_target_modules": "", "adafactor": "", "report_to": "", "skip_memory_metrics": "",
	"use_legacy_prediction_loop": "", "push_to_hub": "", "resume_from_checkpoint": "", "hub_model_id": "", "hub_strategy": "", "hub_token": "", "hub_private_repo": "", "hub_always_push": "",
	"hub_revision": "", "gradient_checkpointing_kwargs": "", "include_inputs_for_metrics": "", "include_for_metrics": "", "mp_parameters": "", "ray_scope": "", "dispatch_batches": "",
	"split_batches": "", "include_tokens_per_second": "", "include_num_input_tokens_seen": "", "neftune_noise_alpha": "", "batch_eval_metrics": "", "use_liger_kernel": "kernels are training.stack's",
	"average_tokens_across_devices": "", "push_to_hub_model_id": "", "push_to_hub_organization": "", "push_to_hub_token": "", "torchdynamo": "", "sharded_ddp": "", "xpu_backend": "",
	"dataset_text_field": "", "dataset_kwargs": "", "dataset_num_proc": "", "dataset_batch_size": "", "model_init_kwargs": "", "eval_packing": "", "packing_strategy": "", "padding_free": "",
	"completion_only_loss": "", "assistant_only_loss": "", "chat_template_path": "", "eos_token": "", "pad_token": "", "dataset_name": "", "num_of_sequences": "", "chars_per_token": "",
	"use_reentrant": "", "activation_offloading": "", "pad_to_multiple_of": "", "truncation_mode": "", "shuffle_dataset": "", "label_pad_token_id": "", "_n_gpu": "", "hub_private": "",
}

// hfArgsMapped are the trainer arguments read.
var hfArgsMapped = []string{"per_device_train_batch_size", "gradient_accumulation_steps", "num_train_epochs", "max_steps", "bf16", "fp16", "tf32",
	"gradient_checkpointing", "optim", "max_seq_length", "max_length"}

// peftIgnored are adapter_config.json and BitsAndBytesConfig keys that do
// not bear on the estimate.
var peftIgnored = map[string]string{
	"lora_alpha": "a scale, no cost", "lora_dropout": "", "bias": "", "fan_in_fan_out": "", "task_type": "the head is model.head", "base_model_name_or_path": "the model is model.*",
	"inference_mode": "", "init_lora_weights": "", "revision": "", "auto_mapping": "", "use_rslora": "a scale, no cost", "layers_pattern": "", "megatron_config": "", "megatron_core": "",
	"loftq_config": "", "runtime_config": "", "lora_bias": "", "exclude_modules": "", "modules_to_save_names": "", "peft_version": "",
	"bnb_4bit_quant_storage": "", "llm_int8_threshold": "", "llm_int8_skip_modules": "", "llm_int8_enable_fp32_cpu_offload": "", "llm_int8_has_fp16_weight": "",
}

// peftMapped are the adapter and quantisation keys read.
var peftMapped = []string{"peft_type", "r", "target_modules", "modules_to_save", "load_in_4bit", "load_in_8bit", "_load_in_4bit", "_load_in_8bit",
	"bnb_4bit_quant_type", "bnb_4bit_use_double_quant", "bnb_4bit_compute_dtype", "quant_method", "quantization_config", "use_dora", "layers_to_transform", "rank_pattern", "alpha_pattern"}

// unknownHFKey is the error for a key a file does not have, with close matches.
func unknownHFKey(file, key string, mapped []string, ignored map[string]string) error {
	names := append([]string(nil), mapped...)
	for k := range ignored {
		names = append(names, k)
	}
	sort.Strings(names)
	return fieldErr(file+"."+key, nil, "is not a known key; close matches: %s", strings.Join(NearestNames(key, names, 3), ", "))
}

// hfTraining is what training.hf_args and training.peft gave a request.
type hfTraining struct {
	took []Imported
	// maxSteps is the Trainer's max_steps (optimizer steps): the tokens
	// follow once the data-parallel ranks are known.
	maxSteps int
	notes    []string
}

func (h *hfTraining) add(file, key string, v json.RawMessage, field, use, note string) {
	h.took = append(h.took, Imported{File: file, Key: key, Value: clip(v), Field: field, Use: use, Note: note})
}

// applyHFTraining fills t's fields that are zero from training.hf_args and
// training.peft; mods are the model's PEFT module names (nil: the family is
// not known, then only the generic names are read).
func applyHFTraining(t TrainingSpec, mods map[string]loraModules, a Arch) (TrainingSpec, *hfTraining, error) {
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
		if err := h.peft(&t, mods, a); err != nil {
			return t, nil, err
		}
	}
	return t, h, nil
}

func (h *hfTraining) args(t *TrainingSpec) error {
	const file = PathHFArgs
	o, err := parseHFObject([]byte(t.HFArgs), file)
	if err != nil {
		return err
	}
	set := func(key, field string, explicit bool, apply func()) {
		if explicit {
			h.add(file, key, o.vals[key], field, UseOverridden, field+" is given")
			return
		}
		apply()
		h.add(file, key, o.vals[key], field, UseUsed, "")
	}
	note := func(s string) { // on the entry just added, when it was used
		if e := &h.took[len(h.took)-1]; e.Use == UseUsed {
			e.Note = s
		}
	}
	var prec []string // bf16, fp16, tf32 set true, in that order
	precKeys := false
	var steps int
	for _, k := range o.keys {
		if !o.has(k) {
			if _, ok := hfArgsIgnored[k]; !ok && !contains(hfArgsMapped, k) {
				return unknownHFKey(file, k, hfArgsMapped, hfArgsIgnored)
			}
			continue // null: the Trainer's default
		}
		switch k {
		case "per_device_train_batch_size":
			n, err := o.int(k, 1, 1<<16)
			if err != nil {
				return err
			}
			set(k, "training.batch_per_gpu", t.BatchPerGPU != 0, func() { t.BatchPerGPU = float64(n) })
		case "gradient_accumulation_steps":
			n, err := o.int(k, 1, 1<<16)
			if err != nil {
				return err
			}
			set(k, "training.gradient_accumulation", t.GradientAccumulation != 0, func() { t.GradientAccumulation = float64(n) })
		case "max_steps":
			n, err := o.int(k, -1, 1<<40)
			if err != nil {
				return err
			}
			if n <= 0 {
				h.add(file, k, o.vals[k], "", UseIgnored, "not positive: the run is set by num_train_epochs")
				continue
			}
			steps = n
		case "num_train_epochs":
			if _, err := o.num(k); err != nil {
				return err
			}
		case "bf16", "fp16", "tf32":
			b, err := o.bool(k)
			if err != nil {
				return err
			}
			if k != "tf32" {
				precKeys = true
			}
			if b {
				prec = append(prec, k)
			}
		case "gradient_checkpointing":
			b, err := o.bool(k)
			if err != nil {
				return err
			}
			set(k, "training.gradient_checkpointing", t.GradientCheckpointing != nil, func() { t.GradientCheckpointing = &b })
		case "optim":
			s, err := o.str(k)
			if err != nil {
				return err
			}
			sb, ok := OptimizerStateBytes[strings.ToLower(s)]
			if !ok {
				return fieldErr(file+"."+k, s, "is not an optimizer wattscale knows the state of; close matches: %s (or give training.state_bytes_per_param)", strings.Join(NearestNames(s, optimNames(), 4), ", "))
			}
			set(k, "training.state_bytes_per_param", t.StateBytesPerParam != 0, func() { t.StateBytesPerParam = sb })
			note(fmt.Sprintf("%s bytes per trained parameter (weights, gradients, optimizer state)", strconv.FormatFloat(sb, 'g', -1, 64)))
		case "max_seq_length", "max_length":
			n, err := o.int(k, 1, 1<<21)
			if err != nil {
				return err
			}
			if other := map[string]string{"max_seq_length": "max_length", "max_length": "max_seq_length"}[k]; o.has(other) {
				if m, err := o.int(other, 1, 1<<21); err == nil && m != n {
					return fieldErr(file+"."+k, n, "differs from %s (%d); give one sequence length", other, m)
				}
				if k == "max_length" {
					h.add(file, k, o.vals[k], "training.seq_len", UseIgnored, "the same as max_seq_length")
					continue
				}
			}
			set(k, "training.seq_len", t.SeqLen != 0, func() { t.SeqLen = float64(n) })
		default:
			why, ok := hfArgsIgnored[k]
			if !ok {
				return unknownHFKey(file, k, hfArgsMapped, hfArgsIgnored)
			}
			h.add(file, k, o.vals[k], "", UseIgnored, why)
		}
	}
	// The run's length: max_steps wins over num_train_epochs, as in the
	// Trainer; explicit tokens win over both.
	explicitLen := t.Tokens != 0 || t.DatasetTokens != 0 && t.Epochs != 0
	if steps > 0 {
		if explicitLen {
			h.add(file, "max_steps", o.vals["max_steps"], "training.tokens", UseOverridden, "training.tokens is given")
		} else {
			h.maxSteps = steps
			h.add(file, "max_steps", o.vals["max_steps"], "training.tokens", UseUsed, "optimizer steps × per_device_train_batch_size × gradient_accumulation_steps × data-parallel ranks × seq_len")
		}
	}
	if o.has("num_train_epochs") {
		ep, _ := o.num("num_train_epochs")
		switch {
		case steps > 0:
			h.add(file, "num_train_epochs", o.vals["num_train_epochs"], "training.epochs", UseOverridden, "max_steps sets the run, as in the Trainer")
		case t.Tokens != 0 || t.Epochs != 0:
			h.add(file, "num_train_epochs", o.vals["num_train_epochs"], "training.epochs", UseOverridden, "training.tokens or training.epochs is given")
		default:
			if err := fieldEpochs.Check(ep); err != nil {
				return PrefixField(file, &FieldError{Field: "num_train_epochs", Value: AsFieldError(err).Value, Message: AsFieldError(err).Message})
			}
			if t.DatasetTokens == 0 {
				return fieldErr("training.dataset_tokens", nil, "is required with num_train_epochs from %s: the tokens in one epoch (examples × sequence length)", file)
			}
			t.Epochs = ep
			h.add(file, "num_train_epochs", o.vals["num_train_epochs"], "training.epochs", UseUsed, "")
		}
	}
	if precKeys || len(prec) > 0 {
		p := FP32
		switch {
		case contains(prec, "bf16") && contains(prec, "fp16"):
			return fieldErr(file+".fp16", nil, "cannot be true with bf16 (the Trainer refuses both)")
		case contains(prec, "bf16"):
			p = BF16
		case contains(prec, "fp16"):
			p = FP16
		case contains(prec, "tf32"):
			p = TF32
		}
		use, note := UseUsed, ""
		if t.Precision != "" {
			use, note = UseOverridden, "training.precision is given"
		} else {
			t.Precision = p
			if p == FP32 {
				note = "neither bf16 nor fp16: the Trainer trains in fp32"
			}
		}
		for _, k := range []string{"bf16", "fp16", "tf32"} {
			if o.has(k) {
				h.add(file, k, o.vals[k], "training.precision", use, note)
			}
		}
	}
	return nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// peft reads adapter_config.json and the BitsAndBytesConfig keys.
func (h *hfTraining) peft(t *TrainingSpec, mods map[string]loraModules, a Arch) error {
	const file = PathPEFT
	o, err := parseHFObject([]byte(t.PEFT), file)
	if err != nil {
		return err
	}
	// The quantisation keys may sit in a nested quantization_config (as a
	// model's config.json writes them); they are read as if at the top.
	if o.has("quantization_config") {
		q, err := parseHFObject(o.vals["quantization_config"], file+".quantization_config")
		if err != nil {
			return err
		}
		for _, k := range q.keys {
			if _, dup := o.vals[k]; dup {
				return fieldErr(file+".quantization_config."+k, nil, "is also given at the top; give it once")
			}
			o.keys = append(o.keys, k)
			o.vals[k] = q.vals[k]
		}
	}
	var (
		rank             int
		mset             loraModules
		targetsGiven     bool
		trainEmb         bool
		q4, q8           bool
		quantType        string
		doubleQuant      = true
		doubleQuantGiven bool
		compute          Precision
	)
	for _, k := range o.keys {
		if !o.has(k) {
			if _, ok := peftIgnored[k]; !ok && !contains(peftMapped, k) {
				return unknownHFKey(file, k, peftMapped, peftIgnored)
			}
			continue
		}
		switch k {
		case "quantization_config":
		case "peft_type":
			s, err := o.str(k)
			if err != nil {
				return err
			}
			if !strings.EqualFold(s, "LORA") {
				return fieldErr(file+"."+k, s, "must be LORA: wattscale estimates LoRA and QLoRA adapters")
			}
		case "r":
			if rank, err = o.int(k, 1, 1<<16); err != nil {
				return err
			}
		case "target_modules":
			if mset, err = peftTargets(o, k, mods, a); err != nil {
				return err
			}
			targetsGiven = true
		case "modules_to_save":
			var names []string
			if err := json.Unmarshal(o.vals[k], &names); err != nil {
				return fieldErr(file+"."+k, nil, "must be a list of module names, got %s", clip(o.vals[k]))
			}
			for _, n := range names {
				switch n {
				case "embed_tokens", "lm_head", "wte", "embed_in", "embed_out", "word_embeddings", "tok_embeddings", "shared":
					trainEmb = true
				case "classifier", "score", "pre_classifier", "pooler", "qa_outputs":
					// a small task head: trained in full, a negligible cost
				default:
					return fieldErr(file+"."+k, n, "is not a module wattscale can count; it reads embedding and LM-head modules (embed_tokens, lm_head, wte, embed_in, embed_out, word_embeddings) and task heads (classifier, score, pre_classifier, pooler, qa_outputs)")
				}
			}
		case "load_in_4bit", "_load_in_4bit", "load_in_8bit", "_load_in_8bit", "bnb_4bit_use_double_quant":
			b, err := o.bool(k)
			if err != nil {
				return err
			}
			switch k {
			case "load_in_4bit", "_load_in_4bit":
				q4 = q4 || b
			case "load_in_8bit", "_load_in_8bit":
				q8 = q8 || b
			default:
				doubleQuant, doubleQuantGiven = b, true
			}
		case "bnb_4bit_quant_type":
			if quantType, err = o.str(k); err != nil {
				return err
			}
			quantType = strings.ToLower(quantType)
			if quantType != "nf4" && quantType != "fp4" {
				return fieldErr(file+"."+k, quantType, "must be nf4 or fp4")
			}
		case "bnb_4bit_compute_dtype":
			s, err := o.str(k)
			if err != nil {
				return err
			}
			switch strings.TrimPrefix(strings.ToLower(s), "torch.") {
			case "bfloat16", "bf16":
				compute = BF16
			case "float16", "fp16", "half":
				compute = FP16
			case "float32", "fp32", "float":
				compute = FP32
			default:
				return fieldErr(file+"."+k, s, "must be bfloat16, float16 or float32")
			}
		case "quant_method":
			s, err := o.str(k)
			if err != nil {
				return err
			}
			if !strings.EqualFold(s, "bitsandbytes") {
				return fieldErr(file+"."+k, s, "must be bitsandbytes: wattscale models QLoRA's bitsandbytes kernels")
			}
		case "use_dora":
			if b, err := o.bool(k); err != nil || b {
				return fieldErr(file+"."+k, nil, "must be false: DoRA's extra magnitude step is not modelled")
			}
			h.add(file, k, o.vals[k], "", UseIgnored, "")
			continue
		case "layers_to_transform":
			return fieldErr(file+"."+k, nil, "must be null: adapters on some layers only are not modelled")
		case "rank_pattern", "alpha_pattern":
			var m map[string]json.RawMessage
			if json.Unmarshal(o.vals[k], &m) != nil {
				return fieldErr(file+"."+k, nil, "must be an object, got %s", clip(o.vals[k]))
			}
			if len(m) > 0 && k == "rank_pattern" {
				return fieldErr(file+"."+k, nil, "must be empty: one rank for every module is modelled (r)")
			}
			h.add(file, k, o.vals[k], "", UseIgnored, "")
			continue
		default:
			why, ok := peftIgnored[k]
			if !ok {
				return unknownHFKey(file, k, peftMapped, peftIgnored)
			}
			h.add(file, k, o.vals[k], "", UseIgnored, why)
			continue
		}
	}
	if q4 && q8 {
		return fieldErr(file+".load_in_8bit", nil, "cannot be true with load_in_4bit")
	}
	method := MethodLoRA
	if q4 || q8 {
		method = MethodQLoRA
	}
	// The method: an explicit training.method wins.
	explicitMethod := strings.ToLower(strings.TrimSpace(t.Method))
	methodKey := "peft_type"
	for _, k := range []string{"load_in_4bit", "_load_in_4bit", "load_in_8bit", "_load_in_8bit"} {
		if o.has(k) {
			methodKey = k
			break
		}
	}
	switch {
	case explicitMethod == "":
		t.Method = method
		h.add(file, methodKey, o.vals[methodKey], "training.method", UseUsed, map[string]string{MethodLoRA: "a LoRA adapter on a 16-bit base", MethodQLoRA: "a LoRA adapter on a quantised base"}[method])
	case explicitMethod != method:
		h.add(file, methodKey, o.vals[methodKey], "training.method", UseOverridden, "training.method is given")
	}
	final := strings.ToLower(t.Method)
	lora := func(key, field string, explicit bool, apply func()) {
		switch {
		case final != MethodLoRA && final != MethodQLoRA:
			h.add(file, key, o.vals[key], field, UseOverridden, "training.method is full")
		case explicit:
			h.add(file, key, o.vals[key], field, UseOverridden, field+" is given")
		default:
			if t.LoRA == nil {
				t.LoRA = &LoRASpec{}
			}
			apply()
			h.add(file, key, o.vals[key], field, UseUsed, "")
		}
	}
	l := t.LoRA
	if l == nil {
		l = &LoRASpec{}
	}
	if rank > 0 {
		lora("r", "training.lora.rank", l.Rank != 0, func() { t.LoRA.Rank = float64(rank) })
	}
	if targetsGiven {
		lora("target_modules", "training.lora.targets", l.Targets != "", func() { t.LoRA.Targets = strings.Join(mset.names(), ",") })
	}
	if trainEmb {
		lora("modules_to_save", "training.lora.train_embeddings", l.TrainEmbeddings, func() { t.LoRA.TrainEmbeddings = true })
	} else if o.has("modules_to_save") {
		h.add(file, "modules_to_save", o.vals["modules_to_save"], "", UseIgnored, "a small task head, trained in full")
	}
	if final == MethodQLoRA && method == MethodQLoRA {
		format, key := FormatNF4, "load_in_4bit"
		if q8 {
			format, key = FormatInt8, "load_in_8bit"
		}
		if !o.has(key) {
			key = "_" + key
		}
		lora(key, "training.lora.base_format", l.BaseFormat != "", func() { t.LoRA.BaseFormat = format })
		if q4 {
			if quantType == "fp4" {
				h.notes = append(h.notes, file+": bnb_4bit_quant_type fp4 is modelled as NF4 (the same 4-bit storage and bitsandbytes kernels)")
			}
			if doubleQuantGiven && !doubleQuant {
				h.notes = append(h.notes, file+": bnb_4bit_use_double_quant false: the base is modelled at NF4 with double quantisation (4.127 bits per weight); without it the quantisation constants add 0.37 bits more")
			}
		}
		if compute != "" {
			lora("bnb_4bit_compute_dtype", "training.lora.compute_dtype", l.ComputeDtype != "", func() { t.LoRA.ComputeDtype = compute })
		}
	} else {
		for _, k := range []string{"bnb_4bit_quant_type", "bnb_4bit_use_double_quant", "bnb_4bit_compute_dtype"} {
			if o.has(k) {
				h.add(file, k, o.vals[k], "", UseIgnored, "the base is not quantised")
			}
		}
	}
	for _, k := range []string{"bnb_4bit_quant_type", "bnb_4bit_use_double_quant", "quant_method"} {
		if o.has(k) && final == MethodQLoRA && method == MethodQLoRA {
			h.add(file, k, o.vals[k], "training.lora.base_format", UseUsed, "")
		}
	}
	return nil
}

// peftTargets reads target_modules: a list of module names, or
// "all-linear".
func peftTargets(o *hfObject, k string, mods map[string]loraModules, a Arch) (loraModules, error) {
	file := o.file
	var s string
	if json.Unmarshal(o.vals[k], &s) == nil {
		if strings.EqualFold(s, "all-linear") {
			return parseTargets(TargetsAttentionMLP, a)
		}
		return 0, fieldErr(file+"."+k, s, "must be a list of module names or \"all-linear\"; a regular expression is not read")
	}
	var names []string
	if err := json.Unmarshal(o.vals[k], &names); err != nil || len(names) == 0 {
		return 0, fieldErr(file+"."+k, nil, "must be a list of module names or \"all-linear\", got %s", clip(o.vals[k]))
	}
	if mods == nil {
		mods = llamaModules
	}
	var m loraModules
	for _, n := range names {
		leaf := n[strings.LastIndex(n, ".")+1:]
		x, ok := mods[leaf]
		if !ok {
			known := make([]string, 0, len(mods))
			for k := range mods {
				known = append(known, k)
			}
			sort.Strings(known)
			return 0, fieldErr(file+"."+k, n, "is not a linear layer of this model; its modules are %s", strings.Join(known, ", "))
		}
		m |= x
	}
	if m&modGate != 0 && !a.GLU {
		m &^= modGate
	}
	return m, nil
}
