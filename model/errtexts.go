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

	{Code: CodeOverBudget, Tech: "asks for more work than one request may: {what:cat}; the budget is {budget:int} work units (a fine-tuning configuration tried is {per_config:int}, an inference configuration {per_inference:int}, each search {per_search:int} more, each stage estimated {per_stage:int}); narrow the search (fewer GPUs, a lower max_count, fewer power_limits_w) or split the request"},
	{Code: CodeBudgetConfigs, Tech: "{n:int} configurations ({parts:semilist})"},
	{Code: CodeBudgetConfigsAll, Tech: "{n:int} configurations ({parts:semilist}), candidates left out: every GPU of the table"},
	{Code: CodeBudgetGPU, Tech: "{gpu:gpu}: {counts:int} counts up to {max:int} × their layouts ({layouts:int} in all) × {limits:int} power limits = {n:int}"},
	{Code: CodeBudgetGPUInfer, Tech: "{gpu:gpu}: {counts:int} counts up to {max:int} × their layouts ({layouts:int} in all) = {n:int}"},
	{Code: CodeBudgetMoreGPUs, Tech: "{n:int} more GPUs"},
}
