package model

// The words of model's request errors, by code: the part of the table of
// words (TextOf) that says what a request may hold. texts.go has the
// warnings, assumptions and the errors that name other fields or GPUs.
// Each code's values are listed beside it; an {example} is a JSON example
// of what to give, passed as a value because the table's braces name
// values.

// Codes of a model shape's errors (Arch.Validate) and of the preset.
const (
	CodePresetUnknown        = "shape.preset_unknown"      // near ([]string of presets)
	CodeHeadDim              = "shape.head_dim"            // max
	CodeHeadsDivideHidden    = "shape.heads_divide_hidden" // hidden
	CodeKVHeads              = "shape.kv_heads"            // heads
	CodeExpertsPerTokenAlone = "shape.experts_per_token_alone"
	CodeExperts              = "shape.experts"           // max
	CodeExpertsPerToken      = "shape.experts_per_token" // experts
)

// Codes of a sweep's and the recommender's own fields.
const (
	CodeSweepTooMany         = "sweep.too_many" // max (points)
	CodeSweepStrategy        = "sweep.strategy"
	CodeSweepWholes          = "sweep.wholes" // max
	CodeMinimise             = "request.minimise"
	CodeGlobalBatchMode      = "request.global_batch"
	CodeNoGPUForPrecision    = "request.no_gpu_for_precision" // precision
	CodeCandidatesEmpty      = "request.candidates_empty"     // example
	CodeCandidatesTooMany    = "request.candidates_too_many"  // max
	CodeCandidateGPURequired = "request.candidate_gpu_required"
	CodePowerLimitsTooMany   = "request.power_limits_too_many" // max
	CodeWorkloadRequired     = "request.workload_required"     // example
)

// Codes of the training settings' errors.
const (
	CodeStack             = "request.stack" // stacks ([]string)
	CodePowerUncalibrated = "request.power_uncalibrated"
	CodeTooLong           = "request.too_long" // max (characters)
	CodeLoRARankZero      = "request.lora_rank_zero"
	CodeLoRARank          = "request.lora_rank"    // hidden
	CodeLoRATargets       = "request.lora_targets" // part
	CodeMethod            = "request.method"
	CodeBaseFormat        = "request.base_format"
	CodeQLoRADtypeFP8     = "request.qlora_dtype_fp8"
	CodeQLoRADtype        = "request.qlora_dtype"
)

// Codes of a request over the work budget (OverBudget): what ([]Message:
// one of the CodeBudget… codes), budget, per_config, per_inference,
// per_search, per_stage (work units).
const (
	CodeOverBudget       = "budget.over"
	CodeBudgetConfigs    = "budget.configs"       // n, parts ([]Message: CodeBudgetGPU…)
	CodeBudgetConfigsAll = "budget.configs_all"   // n, parts: candidates left out
	CodeBudgetGPU        = "budget.gpu"           // gpu, counts, max, layouts, limits, n
	CodeBudgetGPUInfer   = "budget.gpu_inference" // gpu, counts, max, layouts, n
	CodeBudgetMoreGPUs   = "budget.more_gpus"     // n
)

// Codes of the request's model, length, strategy and site errors.
const (
	CodeExamplesTwice      = "request.examples_twice"    // tokens, examples (paths)
	CodeTokensBelowSeq     = "request.tokens_below_seq"  // seq (tokens)
	CodeMaxStepsTokens     = "request.max_steps_tokens"  // tokens, data (ranks), max (tokens)
	CodeStrategyRequired   = "request.strategy_required" // example
	CodeDataMode           = "request.data_mode"
	CodeStrategy           = "request.strategy"
	CodeStrategyShape      = "request.strategy_shape" // example
	CodePresetAndHF        = "request.preset_and_hf"
	CodePresetAndShape     = "request.preset_and_shape"
	CodeModelRequired      = "request.model_required"
	CodeHead               = "request.head"
	CodeCalibrationUnknown = "request.calibration_unknown" // known ([]string)
	CodeNotFinite          = "request.not_finite"
	CodeAttention          = "request.attention"     // among ([]string)
	CodeFlashNone          = "request.flash_none"    // name (the GPU's name)
	CodeFlash3Hopper       = "request.flash3_hopper" // name
	CodeFlash2Ampere       = "request.flash2_ampere" // name
	CodePrecision          = "request.precision"     // among (the precisions, in words)
	CodeGPUInvisible       = "request.gpu_invisible" // char (U+…), at (byte)
	CodeGPUBlank           = "request.gpu_blank"
)

// Codes of a request body's errors: JSON that does not decode.
const (
	CodeBodyUnread    = "body.unread"    // reason (the reader's error)
	CodeBodyTooLarge  = "body.too_large" // max (bytes)
	CodeBodyDataAfter = "body.data_after"
	CodeBodyEmpty     = "body.empty"
	CodeBodyNotJSON   = "body.not_json"
	CodeBodyTruncated = "body.truncated"
	CodeBodySyntax    = "body.syntax"         // offset (bytes), detail (encoding/json's words)
	CodeJSONBeyond    = "json.beyond_float64" // the number as the error's value
	CodeJSONWhole     = "json.whole_in_range"
	CodeJSONKind      = "json.kind" // kind (number, string, object, …)
)

// Codes of errors in the Hugging Face files (config.json, the Trainer's
// arguments, adapter_config.json): on the file's key, the value given as
// the error's value where the words end "got …".
const (
	CodeHFNotRead         = "hf.not_read"
	CodeHFObject          = "hf.object"
	CodeHFNumber          = "hf.number"
	CodeHFFinite          = "hf.finite"
	CodeHFBool            = "hf.bool"
	CodeHFString          = "hf.string"
	CodeHFModelTypeNeeded = "hf.model_type_required" // types
	CodeHFModelType       = "hf.model_type"          // types
	CodeHFArchitectures   = "hf.architectures"
	CodeHFClass           = "hf.class"                    // family, type, classes ([]string)
	CodeHFKeyNeeded       = "hf.key_required"             // type, field (the shape's key)
	CodeHFFFNNeeded       = "hf.ffn_required"             // type
	CodeHFNoExperts       = "hf.no_experts"               // type
	CodeHFExpertsPerTok   = "hf.experts_per_tok_required" // type
	CodeHFMLPOnlyLayers   = "hf.mlp_only_layers"
	CodeHFSharedExpert    = "hf.shared_expert"
	CodeHFUnknownKey      = "hf.unknown_key" // near ([]string)
	CodeHFMaxLength       = "hf.max_length"
	CodeHFFP16BF16        = "hf.fp16_bf16"
	CodeHFUnmodelled      = "hf.unmodelled"
	CodeHFModuleNames     = "hf.module_names"
	CodeHFSaveModule      = "hf.save_module" // name, embedding, heads (module names)
	CodeHFPEFTType        = "hf.peft_type"
	CodeHFQuantType       = "hf.quant_type"
	CodeHFComputeDtype    = "hf.compute_dtype"
	CodeHFQuantMethod     = "hf.quant_method"
	CodeHFAlsoAtTop       = "hf.also_at_top"
	CodeHF4bit8bit        = "hf.4bit_8bit"
	CodeHFTargetsRegex    = "hf.targets_regex"
	CodeHFTargetsList     = "hf.targets_list"
	CodeHFTargetModule    = "hf.target_module" // name, modules ([]string)
)

// Codes of a calibration's errors (Calibration.Validate; errors of type
// *MessageError, about no request field): name is the calibration's.
const (
	CodeCalNameVersion = "cal.name_version"
	CodeCalRange       = "cal.range"      // name, what (its key), x
	CodeCalBlock       = "cal.block"      // name, kind, block
	CodeCalKind        = "cal.kind"       // name, kind
	CodeCalNoCurves    = "cal.no_curves"  // name, interconnect
	CodeCalComm        = "cal.comm"       // name, problem ([]Message: CodeComm…)
	CodeCalSpeedup     = "cal.speedup"    // name, interconnect, layout, problem ([]Message: CodeLaw…)
	CodeLawSaturating  = "law.saturating" // s_inf, k
	CodeLawAmdahl      = "law.amdahl"     // p, sigma, gamma
	CodeLawForm        = "law.form"       // form, saturating, amdahl
	CodeCommExposed    = "comm.exposed"   // exposed, exposed_tp
	CodeCommLatency    = "comm.latency"   // latency_s
	CodeCommClass      = "comm.class"     // class

	// A calibration built without Validate has no curves for the GPU's
	// interconnect class (Speedups.Efficiency).
	CodeSpeedupNoCurves = "speedup.no_curves" // interconnect

	CodePowerCalName     = "power_cal.name"
	CodePowerCalRange    = "power_cal.range"    // name, what, x, range (interval notation)
	CodePowerCalInterval = "power_cal.interval" // name
)

// Codes of a measurement CSV's errors (ParseMeasurements; inside the
// line's csvx.LineError): column is the column's name, text the cell.
const (
	CodeMeasEmpty    = "meas.empty" // columns ([]string: the required)
	CodeMeasRows     = "meas.rows"  // max
	CodeMeasNoRows   = "meas.no_rows"
	CodeColEmpty     = "col.empty"      // column
	CodeColNotFinite = "col.not_finite" // column, text
	CodeColOutside   = "col.outside"    // column, text, lo, hi
	CodeColNotWhole  = "col.not_whole"  // column, text
	CodeColModel     = "col.model"      // problem ([]Message)
	CodeColShapeHint = "col.shape_hint" // problem ([]Message)
	CodeColGLU       = "col.glu"        // text
	CodeColHead      = "col.head"       // text
	CodeColTensor    = "col.tensor"     // tensor, count
	CodeColDataMode  = "col.data_mode"  // text
	CodeColStrategy  = "col.strategy"   // text
	CodeColSingle    = "col.single"     // count
	CodeColPrecision = "col.precision"  // text, among
	CodeColPositive  = "col.positive"   // column
	CodeColEta       = "col.eta"        // text
	CodeColEtaSingle = "col.eta_single" // text
)

// Codes of a CodeCarbon import's errors: the runs' requests (cc.top and
// the fit.* refusals of what the measurement schema cannot hold are about
// request fields) and the emissions.csv rows (text is the cell).
const (
	CodeCCTop           = "cc.top"   // detail (encoding/json's words)
	CodeCCScope         = "cc.scope" // scopes ([]string)
	CodeCCBoth          = "cc.both"
	CodeCCNeither       = "cc.neither"
	CodeCCProject       = "cc.project"       // name, known ([]string)
	CodeCCPositive      = "cc.positive"      // text
	CodeCCGPUEmpty      = "cc.gpu_empty"     // count, name (the GPU's)
	CodeCCGPUOther      = "cc.gpu_other"     // log, name, id
	CodeCCCountWhole    = "cc.count_whole"   // text
	CodeCCCountModel    = "cc.count_model"   // text, n, name
	CodeCCCountRequest  = "cc.count_request" // text, name, count
	CodeCCNoRows        = "cc.no_rows"       // emissions.csv has its header alone
	CodeFitMethod       = "fit.method"
	CodeFitRecompute    = "fit.recompute"
	CodeFitAccumulation = "fit.accumulation"
	CodeFitContext      = "fit.context"
	CodeFitStack        = "fit.stack"
	CodeFitShape        = "fit.shape"
)

// errTexts are the words of the codes above.
var errTexts = []MessageText{
	{Code: CodePresetUnknown, Tech: "is not a known preset; close matches: {near:list}"},
	{Code: CodeHeadDim, Tech: "must be 0 (hidden ÷ heads) or a whole number from 1 to {max:int}",
		Plain: "must be 0 (the hidden size ÷ the attention heads) or a whole number from 1 to {max:int}"},
	{Code: CodeHeadsDivideHidden, Tech: "must divide hidden ({hidden:int}) exactly, or give head_dim",
		Plain: "must divide the hidden size ({hidden:int}) exactly, or give the head dimension"},
	{Code: CodeKVHeads, Tech: "must be 0 (same as heads) or divide heads ({heads:int})",
		Plain: "must be 0 (same as the attention heads) or divide the attention heads ({heads:int})"},
	{Code: CodeExpertsPerTokenAlone, Tech: "needs experts (the number of experts of each block); leave both out for a dense model",
		Plain: "needs the number of experts of each block; leave both out for a dense model"},
	{Code: CodeExperts, Tech: "must be 0 (dense) or a whole number from 2 to {max:int}"},
	{Code: CodeExpertsPerToken, Tech: "must be a whole number from 1 to experts ({experts:int}): the experts each token is routed to",
		Plain: "must be a whole number from 1 to the number of experts ({experts:int}): the experts each token is routed to"},

	{Code: CodeSweepTooMany, Tech: "× strategies × batches must be at most {max:int} points"},
	{Code: CodeSweepStrategy, Tech: "must be among single, ddp, fsdp, tp"},
	{Code: CodeSweepWholes, Tech: "must be whole numbers from 1 to {max:int}"},
	{Code: CodeMinimise, Tech: "must be one of energy, co2e, cost, time"},
	{Code: CodeGlobalBatchMode, Tech: "must be \"held\" (keep the current configuration's sequences per optimizer step) or \"free\" (keep batch_per_gpu and gradient_accumulation; the global batch follows the GPU count)",
		Plain: "must be \"held\" (keep the current configuration's sequences per optimizer step) or \"free\" (keep the batch per GPU and the gradient accumulation; the global batch follows the GPU count)"},
	{Code: CodeNoGPUForPrecision, Tech: "has no GPU that supports {precision} training; choose another precision or other GPUs"},
	{Code: CodeCandidatesEmpty, Tech: "is empty: list at least one GPU ({example}) or leave it out to search every GPU",
		Plain: "is empty: list at least one GPU, or leave it out to search every GPU"},
	{Code: CodeCandidatesTooMany, Tech: "must list at most {max:int} GPUs"},
	{Code: CodeCandidateGPURequired, Tech: "is required, for example \"h100-sxm5\"",
		Plain: "is required: choose a GPU from the list"},
	{Code: CodePowerLimitsTooMany, Tech: "must list at most {max:int} limits"},
	{Code: CodeWorkloadRequired, Tech: "is required: {example}",
		Plain: "is required: the model and the training run to plan for"},

	{Code: CodeStack, Tech: "must be one of {stacks:list}"},
	{Code: CodePowerUncalibrated, Tech: "cannot be modelled: no power-limit calibration is loaded"},
	{Code: CodeTooLong, Tech: "must be at most {max:int} characters"},
	{Code: CodeLoRARankZero, Tech: "must be a whole number from 1 to the model's hidden size; leave it out for the method's default"},
	{Code: CodeLoRARank, Tech: "must be a whole number from 1 to the model's hidden size ({hidden:int})"},
	{Code: CodeLoRATargets, Tech: "must be qv, attention, attention_mlp or a comma-separated list of q, k, v, o, gate, up, down; {part:q} is none of these"},
	{Code: CodeMethod, Tech: "must be one of full, lora, qlora"},
	{Code: CodeBaseFormat, Tech: "must be nf4 (4-bit NormalFloat with double quantisation) or int8"},
	{Code: CodeQLoRADtypeFP8, Tech: "cannot be the QLoRA compute dtype: bitsandbytes dequantises the base weights to fp16, bf16 or fp32"},
	{Code: CodeQLoRADtype, Tech: "must be fp16, bf16 or fp32 for qlora"},

	{Code: CodeExamplesTwice, Tech: "give {tokens:key} or {examples:key}, not both"},
	{Code: CodeTokensBelowSeq, Tech: "must cover at least one sequence ({seq:int} tokens)"},
	{Code: CodeMaxStepsTokens, Tech: "gives {tokens:short} tokens (steps × accumulation × batch × seq_len × {data:int} data-parallel ranks), beyond the accepted {max:short}",
		Plain: "gives {tokens:short} tokens (steps × accumulation × batch × sequence length × {data:int} data-parallel ranks), beyond the accepted {max:short}"},
	{Code: CodeStrategyRequired, Tech: "is required: one of single, ddp, fsdp, tp, or {example}",
		Plain: "is required: one of single, ddp, fsdp, tp, or a hybrid layout"},
	{Code: CodeDataMode, Tech: "must be \"ddp\" or \"fsdp\""},
	{Code: CodeStrategy, Tech: "must be one of single, ddp, fsdp, tp, or a hybrid object",
		Plain: "must be one of single, ddp, fsdp, tp, or a hybrid layout"},
	{Code: CodeStrategyShape, Tech: "must be one of single, ddp, fsdp, tp or an object {example}",
		Plain: "must be one of single, ddp, fsdp, tp or a hybrid layout"},
	{Code: CodePresetAndHF, Tech: "give either preset or hf_config, not both"},
	{Code: CodePresetAndShape, Tech: "give either preset or a shape (layers, hidden, heads, ffn, vocab), not both"},
	{Code: CodeModelRequired, Tech: "give a preset (for example \"bert-base\"), a shape with layers, hidden, heads, ffn and vocab, or hf_config (a config.json)"},
	{Code: CodeHead, Tech: "must be \"lm\" or \"classifier\""},
	{Code: CodeCalibrationUnknown, Tech: "is not a known calibration; known: {known:list}"},
	{Code: CodeNotFinite, Tech: "gives a result that is not a finite number; check that the values are within physical ranges"},

	{Code: CodeAttention, Tech: "must be one of {among:list}"},
	{Code: CodeFlashNone, Tech: "{name} has no FlashAttention kernels; use sdpa or eager"},
	{Code: CodeFlash3Hopper, Tech: "FlashAttention-3 runs on Hopper GPUs (H100, H200), not on the {name}; use sdpa or eager"},
	{Code: CodeFlash2Ampere, Tech: "FlashAttention-2 needs an Ampere or newer GPU, not the {name}; use sdpa or eager"},
	{Code: CodePrecision, Tech: "must be one of {among}"},
	{Code: CodeGPUInvisible, Tech: "must not hold control or invisible characters; found {char} at byte {at:int}"},
	{Code: CodeGPUBlank, Tech: "must name an accelerator, for example h100-sxm5 or a100-sxm4-80gb",
		Plain: "must name an accelerator: choose a GPU from the list"},

	{Code: CodeBodyUnread, Tech: "could not be read: {reason}"},
	{Code: CodeBodyTooLarge, Tech: "must be at most {max:int} bytes, got more"},
	{Code: CodeBodyDataAfter, Tech: "must hold exactly one JSON object; found data after it"},
	{Code: CodeBodyEmpty, Tech: "is empty; send a JSON object"},
	{Code: CodeBodyNotJSON, Tech: "is not valid JSON"},
	{Code: CodeBodyTruncated, Tech: "is not valid JSON: it ends too early"},
	{Code: CodeBodySyntax, Tech: "is not valid JSON at byte {offset:int}: {detail}"},
	{Code: CodeJSONBeyond, Tech: "must be a finite number; this one is beyond ±1.8e308"},
	{Code: CodeJSONWhole, Tech: "must be a whole number in range"},
	{Code: CodeJSONKind, Tech: "must be a JSON {kind}"},

	{Code: CodeHFNotRead, Tech: "is not read by this program (the calculator takes the shape and training fields); the command line (go run ./site estimate) and the API read Hugging Face files",
		Plain: "is not read by the calculator (it takes the shape and training fields); the command line and the API read Hugging Face files"},
	{Code: CodeHFObject, Tech: "must be a JSON object (the file's contents)"},
	{Code: CodeHFNumber, Tech: "must be a JSON number"},
	{Code: CodeHFFinite, Tech: "must be a finite number"},
	{Code: CodeHFBool, Tech: "must be true or false"},
	{Code: CodeHFString, Tech: "must be a string"},
	{Code: CodeHFModelTypeNeeded, Tech: "is required: the config's model family (one of {types:list})"},
	{Code: CodeHFModelType, Tech: "is not a model family wattscale reads; it reads {types:list}"},
	{Code: CodeHFArchitectures, Tech: "must be a list of class names"},
	{Code: CodeHFClass, Tech: "is not a model class of {family} (model_type {type}); the classes read for it are {classes:list}"},
	{Code: CodeHFKeyNeeded, Tech: "is required for model_type {type} ({field})"},
	{Code: CodeHFFFNNeeded, Tech: "is required for model_type {type} (the feed-forward width)"},
	{Code: CodeHFNoExperts, Tech: "sets experts, which model_type {type} does not have; wattscale reads experts for mixtral, qwen2_moe and qwen3_moe"},
	{Code: CodeHFExpertsPerTok, Tech: "is required for model_type {type}, with num_local_experts or num_experts (the experts of each layer)"},
	{Code: CodeHFMLPOnlyLayers, Tech: "must be empty, and decoder_sparse_step 1: wattscale models every layer as a mixture of experts"},
	{Code: CodeHFSharedExpert, Tech: "must be a multiple of moe_intermediate_size: wattscale counts the shared expert as that many always-chosen experts"},
	{Code: CodeHFUnknownKey, Tech: "is not a known key; close matches: {near:list}"},
	{Code: CodeHFMaxLength, Tech: "differs from max_seq_length; give one sequence length",
		Plain: "differs from the Trainer's max sequence length; give one sequence length"},
	{Code: CodeHFFP16BF16, Tech: "cannot be true with bf16 (the Trainer refuses both)"},
	{Code: CodeHFUnmodelled, Tech: "must be null, false or empty: what it turns on (DoRA, adapters on some layers, per-module ranks) is not modelled"},
	{Code: CodeHFModuleNames, Tech: "must be a list of module names"},
	{Code: CodeHFSaveModule, Tech: "holds {name:q}, not a module wattscale can count; it reads the embedding and LM-head modules ({embedding}) and task heads ({heads})"},
	{Code: CodeHFPEFTType, Tech: "must be LORA: wattscale estimates LoRA and QLoRA adapters"},
	{Code: CodeHFQuantType, Tech: "must be nf4 or fp4"},
	{Code: CodeHFComputeDtype, Tech: "must be bfloat16, float16 or float32"},
	{Code: CodeHFQuantMethod, Tech: "must be bitsandbytes: wattscale models QLoRA's bitsandbytes kernels"},
	{Code: CodeHFAlsoAtTop, Tech: "is also given at the top; give it once"},
	{Code: CodeHF4bit8bit, Tech: "cannot be true with load_in_4bit"},
	{Code: CodeHFTargetsRegex, Tech: "must be a list of module names or \"all-linear\"; a regular expression is not read"},
	{Code: CodeHFTargetsList, Tech: "must be a list of module names or \"all-linear\""},
	{Code: CodeHFTargetModule, Tech: "holds {name:q}, not a linear layer of this model; its modules are {modules:list}"},

	{Code: CodeCalNameVersion, Tech: "calibration: name and version are required"},
	{Code: CodeCalRange, Tech: "calibration {name}: {what} out of range: {x}"},
	{Code: CodeCalBlock, Tech: "calibration {name}: kind {kind} needs a {block} block"},
	{Code: CodeCalKind, Tech: "calibration {name}: unknown kind {kind:q}"},
	{Code: CodeCalNoCurves, Tech: "calibration {name}: no speedup curves for {interconnect}"},
	{Code: CodeSpeedupNoCurves, Tech: "no speedup curves for interconnect {interconnect:q}"},
	{Code: CodeCalComm, Tech: "calibration {name}: {problem}"},
	{Code: CodeCalSpeedup, Tech: "calibration {name}: speedup {interconnect}/{layout}: {problem}"},
	{Code: CodeLawSaturating, Tech: "saturating law needs s_inf > 0 and k > 0, got s_inf={s_inf} k={k}"},
	{Code: CodeLawAmdahl, Tech: "amdahl law needs 0 <= p <= 1, sigma >= 0, gamma >= 0, got p={p} sigma={sigma} gamma={gamma}"},
	{Code: CodeLawForm, Tech: "unknown speedup form {form:q} (want {saturating:q} or {amdahl:q})"},
	{Code: CodeCommExposed, Tech: "comm: exposed shares must be in [0, 10], got {exposed} and {exposed_tp}"},
	{Code: CodeCommLatency, Tech: "comm: latency_s must be in [0, 1] seconds, got {latency_s}"},
	{Code: CodeCommClass, Tech: "comm: unknown interconnect class {class:q}"},
	{Code: CodePowerCalName, Tech: "power calibration: name is empty"},
	{Code: CodeCCTop, Tech: "must be a JSON object with \"request\" (one request for every row) or \"projects\" (a request per project_name): {detail}"},
	{Code: CodeCCScope, Tech: "must be one of {scopes:list} (gpu_energy, or energy_consumed: GPUs, CPU and RAM)"},
	{Code: CodeCCBoth, Tech: "cannot be given with request: give one request for every row, or one per project_name"},
	{Code: CodeCCNeither, Tech: "must hold \"request\" (one request for every row) or \"projects\" (a request per project_name)"},
	{Code: CodeCCProject, Tech: "{name:q} has no request; the requests name {known:list}"},
	{Code: CodeCCPositive, Tech: "must be a positive number, got {text:q}"},
	{Code: CodeCCGPUEmpty, Tech: "is empty (CodeCarbon saw no GPU) but the request names {count:int} {name}"},
	{Code: CodeCCGPUOther, Tech: "the log's GPU {log:q} is not the request's {name} ({id})"},
	{Code: CodeCCCountWhole, Tech: "must be a whole number of GPUs, got {text:q}"},
	{Code: CodeCCCountModel, Tech: "is {text} but gpu_model says {n:int} × {name}"},
	{Code: CodeCCNoRows, Tech: "codecarbon: the log has a header and no rows"},
	{Code: CodeCCCountRequest, Tech: "the log saw {text} {name} GPUs, the request names {count:int} (CodeCarbon counts every GPU it sees, so its energy would include idle ones)"},
	{Code: CodeFitMethod, Tech: "cannot be fitted: the measurement schema describes full fine-tuning"},
	{Code: CodeFitRecompute, Tech: "cannot be fitted: the measurement schema has no recompute"},
	{Code: CodeFitAccumulation, Tech: "cannot be fitted: the measurement schema has no accumulation"},
	{Code: CodeFitContext, Tech: "cannot be fitted: the measurement schema has no context parallelism"},
	{Code: CodeFitStack, Tech: "attention, compile and stack must be left at their defaults to be fitted: the calibration is fitted as the default stack"},
	{Code: CodeFitShape, Tech: "a shape with experts, head_dim or tied embeddings cannot be fitted outside a preset: the measurement schema has no columns for them"},
	{Code: CodeMeasEmpty, Tech: "measurements: empty file; the first line must be a header with {columns:list}"},
	{Code: CodeMeasRows, Tech: "more than {max:int} rows"},
	{Code: CodeMeasNoRows, Tech: "measurements: no data rows after the header"},
	{Code: CodeColEmpty, Tech: "column {column}: empty"},
	{Code: CodeColNotFinite, Tech: "column {column}: {text:q} is not a finite number"},
	{Code: CodeColOutside, Tech: "column {column}: {text} is outside [{lo}, {hi}]"},
	{Code: CodeColNotWhole, Tech: "column {column}: {text} is not a whole number"},
	{Code: CodeColModel, Tech: "column model: {problem}"},
	{Code: CodeColShapeHint, Tech: "{problem} (give a model preset or the shape columns)"},
	{Code: CodeColGLU, Tech: "column glu: {text:q} is not true or false"},
	{Code: CodeColHead, Tech: "column head: {text:q} is not lm or classifier"},
	{Code: CodeColTensor, Tech: "column tensor: {tensor:int} does not divide count {count:int}"},
	{Code: CodeColDataMode, Tech: "column data_mode: {text:q} is not ddp or fsdp"},
	{Code: CodeColStrategy, Tech: "column strategy: {text:q} is not one of single, ddp, fsdp, tp, hybrid"},
	{Code: CodeColSingle, Tech: "column strategy: single with count {count:int}"},
	{Code: CodeColPrecision, Tech: "column precision: {text:q} is not one of {among}"},
	{Code: CodeColPositive, Tech: "column {column}: must be greater than 0"},
	{Code: CodeColEta, Tech: "column eta: {text:q} is not a number in (0, 2] (the measured parallel efficiency T₁/(N·T_N))"},
	{Code: CodeColEtaSingle, Tech: "column eta: {text} on one GPU; a single-GPU run has η = 1 by definition (leave it empty)"},
	{Code: CodePowerCalRange, Tech: "power calibration {name}: {what} {x} not in {range}"},
	{Code: CodePowerCalInterval, Tech: "power calibration {name}: interval figures must be finite and non-negative"},

	{Code: CodeOverBudget, Tech: "asks for more work than one request may: {what:cat}; the budget is {budget:int} work units (a fine-tuning configuration tried is {per_config:int}, an inference configuration {per_inference:int}, each search {per_search:int} more, each stage estimated {per_stage:int}); narrow the search (fewer GPUs, a lower max_count, fewer power_limits_w) or split the request"},
	{Code: CodeBudgetConfigs, Tech: "{n:int} configurations ({parts:semilist})"},
	{Code: CodeBudgetConfigsAll, Tech: "{n:int} configurations ({parts:semilist}), candidates left out: every GPU of the table"},
	{Code: CodeBudgetGPU, Tech: "{gpu:gpu}: {counts:int} counts up to {max:int} × their layouts ({layouts:int} in all) × {limits:int} power limits = {n:int}"},
	{Code: CodeBudgetGPUInfer, Tech: "{gpu:gpu}: {counts:int} counts up to {max:int} × their layouts ({layouts:int} in all) = {n:int}"},
	{Code: CodeBudgetMoreGPUs, Tech: "{n:int} more GPUs"},
}
