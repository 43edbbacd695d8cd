package model

// The words of model's messages, by code: the one table Message.Text
// renders (MessageText says how a text names its values). A code's words
// may change; its values keep their names and units.

// Codes of range errors (Bounds.Check): min and max.
const (
	CodeRangeWhole  = "range.whole"
	CodeRangeOpen   = "range.open"
	CodeRangeClosed = "range.closed"
)

// Codes of an estimate's warnings.
const (
	CodeSeqBeyondPositions = "warn.seq_beyond_positions" // seq, max (tokens), file (path)
	CodePowerBelowMin      = "warn.power_below_min"      // w, min_w (W), gpu, source
	CodeLawBelowBound      = "warn.law_below_bound"      // calibration, law_kwh, bound_kwh
	CodeLawBelowIdle       = "warn.law_below_idle"       // calibration, w, idle_w
	CodeLawAboveBoard      = "warn.law_above_board"      // calibration, w, board_w
	CodeOutsideEnvelope    = "warn.outside_envelope"     // calibration, dims ([]Message: CodeEnvelopeRange, CodeEnvelopeGPU)
	CodeEnvelopeRange      = "envelope.range"            // dim, x, low, high
	CodeEnvelopeGPU        = "envelope.gpu"              // gpu, among ([]string)
	CodeMemoryCheckpointed = "warn.memory_checkpointed"  // act_gb, state_gb, capacity_gb, gpu, batch (path), ways ([]Message: what may still make it fit)
	CodeMemoryNoCheckpoint = "warn.memory_no_checkpoint" // act_gb, state_gb, capacity_gb, gpu, checkpointing (path)
	CodeLowEfficiency      = "warn.low_efficiency"       // eta, extra_pct
	CodeInterNode          = "warn.inter_node"           // per_node
	CodeShortStep          = "warn.short_step"           // step_s, source, batch (path)
	CodeInputBound         = "warn.input_bound"          // what, rate, factor
	CodeFewSteps           = "warn.few_steps"            // steps, batch (path), ways ([]Message: what gives more steps)
	CodeFewStepsAccum      = "warn.few_steps_accum"      // steps, batch, accumulation (paths), ways
	CodeFewStepsLeast      = "warn.few_steps_least"      // steps: one GPU, one sequence per step, no accumulation
	CodeQLoRAFP32          = "warn.qlora_fp32"           // dtype
	CodeQLoRAROCm          = "warn.qlora_rocm"           // gpu
	CodeQLoRAOldGPU        = "warn.qlora_old_gpu"        // gpu
)

// Codes of a memory refusal (the layout's weights, gradients and optimizer
// state do not fit one GPU), on hardware.count: need_gb, capacity_gb, gpu,
// params, layout (in words), bytes_per_param, advice ([]Message of the
// CodeAdvice codes); for lora and qlora also method, format, frozen_gb,
// trained_gb, trainable.
const (
	CodeMemoryState     = "memory.state"
	CodeMemoryStatePEFT = "memory.state_peft"
)

// Codes of a layout the model or the run does not allow.
const (
	CodeTensorOverHeads = "layout.tensor_over_heads" // tensor, heads
	CodeTensorHeads     = "layout.tensor_heads"      // tensor, heads: the ranks must divide the heads
	CodeTooFewSteps     = "layout.too_few_steps"     // steps, what, tokens, tokens_per_step, data, most_gpus
)

// Codes of advice in a memory refusal.
const (
	CodeAdviceShard             = "advice.shard"               // ways ([]string: fsdp, tensor parallelism, more tensor ranks)
	CodeAdvicePEFT              = "advice.peft"                // method (path)
	CodeAdviceLeanOptimizer     = "advice.lean_optimizer"      // state_bytes (path)
	CodeAdviceFewerGPUs         = "advice.fewer_gpus"          // (none)
	CodeAdviceSmaller           = "advice.smaller"             // field (path)
	CodeAdviceLess              = "advice.less"                // field (path)
	CodeAdvicePacking           = "advice.packing"             // (none)
	CodeAdviceFused             = "advice.fused"               // stack, compile (paths)
	CodeAdviceLeanOptimizerFits = "advice.lean_optimizer_fits" // state_bytes (path), fit (bytes per parameter)
	CodeAdviceQLoRA             = "advice.qlora"               // method (path)
	CodeAdviceNF4               = "advice.nf4"                 // base_format (path)
	CodeAdviceLeanStateFits     = "advice.lean_state_fits"     // state_bytes (path), fit
)

// Codes of the recommender's warnings.
const (
	CodeLeftOutPrecision = "warn.left_out_precision" // precision, gpus ([]string of ids)
	CodeNoneFits         = "warn.none_fits"          // batch, state_bytes (paths)
	CodeMissesDeadline   = "warn.misses_deadline"    // deadline_s, fastest (Message: CodeConfigName)
	CodeConfigName       = "config.name"             // count, gpu, layout
	CodeOtherGlobalBatch = "warn.other_global_batch" // sequences, current
)

// Codes of an estimate's assumptions.
const (
	CodeNote                     = "note" // text: a sentence not yet given a code of its own
	CodeAssumeCompileOptimised   = "assume.compile_optimised"
	CodeAssumeCompile            = "assume.compile"
	CodeAssumeForeach            = "assume.foreach" // fused (path), bytes, source
	CodeAssumeEager              = "assume.attention_eager"
	CodeAssumeFlash3             = "assume.attention_flash3"
	CodeAssumePEFTTime           = "assume.peft_time"
	CodeAssumeAccum              = "assume.accumulation"
	CodeAssumeDDP                = "assume.ddp_overlap"
	CodeAssumeCurveWorkload      = "assume.curve_workload"
	CodeAssumeAlphaFallback      = "assume.alpha_fallback"
	CodeAssumeWarmup             = "assume.warmup"
	CodeAssumeHostWait           = "assume.host_wait" // host_ms, base_ms, block_ms, layers, work_ms, step_ms, power_pct, source
	CodeAssumeWaiting            = "assume.waiting"
	CodeAssumeHybridDummy        = "assume.hybrid_dummy"
	CodeAssumeNoDummy            = "assume.no_dummy"
	CodeAssumeLawScaled          = "assume.law_scaled"
	CodeAssumeLawPerToken        = "assume.law_per_token"
	CodeAssumeMoE                = "assume.moe"
	CodeAssumeDatasetUnused      = "assume.dataset_tokens_unused"
	CodeAssumeSystemPower        = "assume.system_power"
	CodeAssumePrecision          = "assume.precision"
	CodeAssumeTokensFromSteps    = "assume.tokens_from_steps"
	CodeAssumeEpochFromExamples  = "assume.epoch_from_examples"
	CodeAssumePUE                = "assume.pue"
	CodeAssumeCarbon             = "assume.carbon"
	CodeAssumePrice              = "assume.price"
	CodeAssumeQLoRACheckpointing = "assume.qlora_checkpointing"
	CodeAssumeLoRARank           = "assume.lora_rank"
	CodeAssumeQLoRARank          = "assume.qlora_rank"
	CodeAssumeLoRATargets        = "assume.lora_targets"
	CodeAssumeQLoRATargets       = "assume.qlora_targets"
	CodeAssumeQLoRAState         = "assume.qlora_state"
	CodeAssumeQLoRAFormat        = "assume.qlora_format"
	CodeAssumeQLoRADtype         = "assume.qlora_dtype"
	CodeAssumeStackRaised        = "assume.stack_raised"
	CodeAssumeStackKept          = "assume.stack_kept"
)

// Codes of request errors.
const (
	CodeTokensTwice          = "request.tokens_twice"
	CodeTokensRequired       = "request.tokens_required"
	CodeSeqBeyondLearned     = "request.seq_beyond_learned_positions" // max, file (path)
	CodeGPURequired          = "request.gpu_required"
	CodeGPUUnknown           = "request.gpu_unknown"      // near (GPU ids)
	CodeSingleNeedsOne       = "request.single_needs_one" // count_field (path), count
	CodeLayoutProduct        = "request.layout_product"   // count_field (path), count
	CodeTargetsNoGate        = "request.targets_no_gate"  // glu (path)
	CodeLoRAOnlyPEFT         = "request.lora_only_peft"   // method (path)
	CodeBaseFormatOnlyQLoRA  = "request.base_format_only_qlora"
	CodeDtypeOnlyQLoRA       = "request.compute_dtype_only_qlora"
	CodeQLoRAUnsupportedGPU  = "request.qlora_gpu"             // gpu
	CodePrecisionUnsupported = "request.precision_unsupported" // gpu, supported
	CodePowerFixed           = "request.power_fixed"           // default_w, gpu
	CodePowerBelowIdle       = "request.power_below_idle"      // idle_w, gpu, min_w, default_w
	CodePowerRange           = "request.power_range"           // min_w, default_w, gpu
)

// Codes of the notes on the Hugging Face files an estimate read.
const (
	CodeNoteImport           = "note.hf_import"            // file (path), used ([]Message: CodeNoteImportKey), rest ([]Message)
	CodeNoteImportKey        = "note.hf_import_key"        // key, value, field (path)
	CodeNoteImportOverridden = "note.hf_import_overridden" // keys
	CodeNoteImportIgnored    = "note.hf_import_ignored"    // keys
	CodeNoteHFModel          = "note.hf_model"             // file (path), name, type, family, exact, counted (parameters)
	CodeNoteMultimodal       = "note.hf_multimodal"        // file (path), type
	CodeNoteFFNRule          = "note.hf_ffn_rule"          // file (path), ffn, family
)

// Codes of errors in the Hugging Face files and of the searches' candidates.
const (
	CodeCountForMaxSteps   = "request.count_for_max_steps" // file (path)
	CodeHFShape            = "request.hf_shape"            // field (path), problem ([]Message: the shape's error)
	CodeHFAttention        = "request.hf_attention"        // attention (path)
	CodeHFOptim            = "request.hf_optim"            // state_bytes (path), near
	CodeHFEpochsNeedTokens = "request.hf_epochs_need_tokens"
	CodeGPUAgain           = "request.gpu_again" // gpu, already (path)
)

// Codes of a request's keys.
const (
	CodeUnknownKey       = "request.unknown_key"
	CodeUnknownKeyCase   = "request.unknown_key_case" // name: the field it differs from in case only
	CodeUnknownHybridKey = "request.unknown_hybrid_key"
	CodeKeyTwice         = "request.key_twice"
)

// Codes of an error placed in a plan: problem ([]Message: the error), at
// (the plan's path).
const (
	CodeForStage  = "context.for_stage"
	CodeSearching = "context.searching"
)

// modelTexts are the words of model's codes.
var modelTexts = []MessageText{
	{Code: CodeRangeWhole, Tech: "must be a whole number from {min:.-1f} to {max:.-1f}"},
	{Code: CodeRangeOpen, Tech: "must be a finite number greater than {min} and at most {max}"},
	{Code: CodeRangeClosed, Tech: "must be a finite number in [{min}, {max}]",
		Plain: "must be a finite number from {min} to {max}"},

	{Code: CodeSeqBeyondPositions, Tech: "{field:path} {seq:int} exceeds the model's max_position_embeddings {max:int} ({file:path}): it was trained on shorter sequences; its rotary positions need rope_scaling to reach this length"},
	{Code: CodePowerBelowMin, Tech: "power limit {w:short} W is below the {min_w:short} W estimated as {gpu:agpu}'s lowest limit ({source}): the board may refuse it, and the interval is widened"},
	{Code: CodeLawBelowBound, Tech: "the {calibration} law gives {law_kwh:.3g} kWh, below the roofline energy bound of {bound_kwh:.3g} kWh for this configuration; the bound is reported"},
	{Code: CodeLawBelowIdle, Tech: "the {calibration} law's energy over the roofline time implies {w:.0f} W, below the {idle_w:.0f} W the GPUs draw idle: the law and the time model disagree for this configuration"},
	{Code: CodeLawAboveBoard, Tech: "the {calibration} law's energy over the roofline time implies {w:.0f} W, above the {board_w:.0f} W board power of the GPUs: the law and the time model disagree for this configuration"},
	{Code: CodeOutsideEnvelope, Tech: "outside the envelope of calibration {calibration} ({dims:semilist}); the interval is widened"},
	{Code: CodeEnvelopeRange, Tech: "{dim} {x:short} not in [{low:short}, {high:short}]",
		Plain: "{dim} {x:short} outside {low:short} to {high:short}"},
	{Code: CodeEnvelopeGPU, Tech: "gpu {gpu:gpu} not among {among:list}"},
	{Code: CodeMemoryCheckpointed, Tech: "activations ({act_gb:.1f} GB, with checkpointing) plus state ({state_gb:.1f} GB) exceed the {capacity_gb:.0f} GB of {gpu:agpu}; {ways:orlist} may still make it fit"},
	{Code: CodeMemoryNoCheckpoint, Tech: "activations ({act_gb:.1f} GB) plus state ({state_gb:.1f} GB) exceed the {capacity_gb:.0f} GB of {gpu:agpu} without activation checkpointing; checkpointing ({checkpointing:path}), packing or fused kernels may still make it fit, and recomputation adds about a third to compute"},
	{Code: CodeLowEfficiency, Tech: "parallel efficiency η = {eta:.2f}: more GPUs make this run faster but raise its energy by {extra_pct:.0f}%"},
	{Code: CodeInterNode, Tech: "more than {per_node:int} GPUs: the speedup curves were fitted within one node (N ≤ {per_node:int}); inter-node links are not modelled"},
	{Code: CodeShortStep, Tech: "one GPU at {step_s:.3g} s of modelled GPU work per step: at steps this short the host's work beyond launching the step's kernels (data loading, logging, evaluation), which the estimate does not model, can dominate; {source}, so read the time and energy as a lower bound (a larger {batch:key} lengthens the step)"},
	{Code: CodeInputBound, Tech: "{what} at {rate:short} tokens/s per GPU, as estimated, needs cached teacher log-probs moved that fast; the distillation study's harness moved them at 370–870 tokens/s per GPU (Lambert & Luccioni 2026, harness logs), host-bound, so a pipeline like it can take up to {factor:.0f}× the estimated time and energy: read this estimate as the GPU-bound lower bound"},
	{Code: CodeFewSteps, Tech: "only {steps:short} optimizer steps: the parallel speedup assumes many repeated steps, so with this few the estimate is rough (use {ways:orlist})"},
	{Code: CodeFewStepsAccum, Tech: "only {steps:short} optimizer steps: the parallel speedup assumes many repeated steps, so with this few the estimate is rough (use {ways:orlist})"},
	{Code: CodeFewStepsLeast, Tech: "only {steps:short} optimizer steps, at one GPU and one sequence per step already: so short a run is estimated roughly (start-up and warm-up weigh more than the model assumes)"},
	{Code: CodeQLoRAFP32, Tech: "QLoRA with compute dtype {dtype}: bitsandbytes supports it but dequantises to fp32, which doubles the dequantised traffic and forgoes the 16-bit tensor-core rate; the QLoRA recipe computes in bf16"},
	{Code: CodeQLoRAROCm, Tech: "QLoRA on {gpu:gpu}: bitsandbytes' ROCm backend is younger than its CUDA kernels; its speed on AMD GPUs is less well documented"},
	{Code: CodeQLoRAOldGPU, Tech: "QLoRA on {gpu:gpu}: bitsandbytes' fast 8-bit and 4-bit paths target Turing and newer GPUs (compute capability 7.5+); on older GPUs expect slower dequantisation than modelled"},

	{Code: CodeMemoryState, Tech: "is too small: weights, gradients and optimizer state need {need_gb:.1f} GB per GPU ({bytes_per_param:short} bytes per parameter, {params:.3g} parameters, {layout}), more than the {capacity_gb:.0f} GB of {gpu:agpu}; {advice:orlist}",
		Brief: "is too small: weights, gradients and optimizer state need {need_gb:.1f} GB per GPU, more than the {capacity_gb:.0f} GB of {gpu:agpu}"},
	{Code: CodeMemoryStatePEFT, Tech: "is too small for {method}: the frozen base weights at {format} need {frozen_gb:.1f} GB per GPU ({params:.3g} parameters, {layout}) and the trained parameters' weights, gradients and optimizer state {trained_gb:.2f} GB ({trainable:.3g} parameters at {bytes_per_param:short} bytes), {need_gb:.1f} GB in all, more than the {capacity_gb:.0f} GB of {gpu:agpu}; {advice:list}",
		Brief: "is too small for {method}: {need_gb:.1f} GB per GPU needed, more than the {capacity_gb:.0f} GB of {gpu:agpu}"},
	{Code: CodeAdviceShard, Tech: "use {ways:or}, more GPUs, a larger GPU"},
	{Code: CodeAdvicePEFT, Tech: "lora or qlora ({method:path})"},
	{Code: CodeAdviceLeanOptimizer, Tech: "a leaner optimizer ({state_bytes:path})"},
	{Code: CodeAdviceFewerGPUs, Tech: "fewer GPUs"},
	{Code: CodeAdviceSmaller, Tech: "a smaller {field:key}"},
	{Code: CodeAdviceLess, Tech: "less {field:key}"},
	{Code: CodeAdvicePacking, Tech: "packing sequences"},
	{Code: CodeAdviceFused, Tech: "fused kernels ({stack:path} optimised, or {compile:path})"},
	{Code: CodeAdviceLeanOptimizerFits, Tech: "a leaner optimizer ({state_bytes:path} at most {fit:short} fits: about 8 for Adafactor with fp32 master weights, 4 on pure bf16 weights)"},
	{Code: CodeAdviceQLoRA, Tech: "or qlora ({method:path})"},
	{Code: CodeAdviceNF4, Tech: "or nf4 ({base_format:path})"},
	{Code: CodeAdviceLeanStateFits, Tech: "or a leaner optimizer state: {state_bytes:path} at most {fit:short} fits (12 for bf16 adapters with 32-bit AdamW, about 6 with 8-bit AdamW)"},

	{Code: CodeTensorOverHeads, Tech: "exceeds the model's {heads:int} attention heads: tensor parallelism splits heads across ranks"},
	{Code: CodeTensorHeads, Tech: "must divide the model's {heads:int} attention heads"},
	{Code: CodeTooFewSteps, Tech: "leaves the run {steps:short} {what} ({tokens:short} tokens, {tokens_per_step:int} tokens per step on each of {data:int} data-parallel ranks); at least one step needs at most {most_gpus:short} GPUs, or fewer tokens per step",
		Brief: "leaves the run {steps:short} {what}: use at most {most_gpus:short} GPUs, or fewer tokens per step"},

	{Code: CodeLeftOutPrecision, Tech: "left out, without {precision} in hardware: {gpus:gpulist}"},
	{Code: CodeNoneFits, Tech: "no searched configuration fits in memory: allow more GPUs (max_count), larger GPUs, a smaller {batch:key}, a global batch the data-parallel degrees divide, or a leaner optimizer ({state_bytes:key})"},
	{Code: CodeMissesDeadline, Tech: "no searched configuration meets the deadline of {deadline_s:short} s; the fastest takes {fastest_s:short} s ({fastest}): best is the fastest option"},
	{Code: CodeConfigName, Tech: "{count:short} × {gpu:gpu}, {layout}"},
	{Code: CodeOtherGlobalBatch, Tech: "{sequences:int} sequences per optimizer step, not the current configuration's {current:int}: a different optimisation run (learning rate and convergence may differ), so its energy is not like for like"},
	{Code: CodeNote, Tech: "{text}"},
	{Code: CodeFitNotHeldOut, Tech: "it was not checked on runs it did not see ({n:int} rows in {groups:int} workload groups are too few to hold any out); measure more configurations"},
	{Code: CodeFitHeldOutR2, Tech: "on runs it did not see it predicts worse than their mean does (held-out R² {r2:.3g}, below 0): this model does not describe these data; try another kind of fit, or measure more varied configurations"},
	{Code: CodeFitCoverage, Tech: "its interval covers only {coverage_pct:.0f}% of the runs it did not see (at least {min_pct:.0f}% needed): the uncertainty it would show is too narrow"},
	{Code: CodeFitParamOutside, Tech: "{name} = {value:.3g} is outside its physical range ({range}): it would mean {why}; the data cannot separate this effect, so vary it more or fix it"},
	{Code: CodeFitFailedChecks, Tech: "calibration {name:q} failed its fit checks: {checks:semilist}"},
	{Code: CodeAssumeCompileOptimised, Tech: "{compile:path} with the optimised stack: its fused kernels already overlap the element-wise traffic, so compile adds nothing"},
	{Code: CodeAssumeForeach, Tech: "{fused:path} off: AdamW's foreach implementation streams {bytes:.3g} more bytes per trained parameter and optimizer step than the fused one, at the memory bandwidth; from {source}"},
	{Code: CodeAssumeCompile, Tech: "{compile:path}: element-wise memory traffic fused into the kernels around the matmuls, so a step takes the larger of its compute and memory times instead of their sum; from {source}"},
	{Code: CodeAssumeEager, Tech: "{attention:path} eager: the attention matmuls take {cost:.3g}× their fused time (scores written to and read from device memory; 8× on an A100, scaled by this GPU's arithmetic over its bandwidth); from {source}"},
	{Code: CodeAssumeFlash3, Tech: "{attention:path} flash3: the attention matmuls run {speedup}× faster than with FlashAttention-2; from {source}"},
	{Code: CodeAssumePEFTTime, Tech: peftAssumption},
	{Code: CodeAssumeAccum, Tech: AccumAssumption},
	{Code: CodeAssumeDDP, Tech: DDPAssumption},
	{Code: CodeAssumeCurveWorkload, Tech: "parallel efficiency from the {interconnect} speedup curves, measured at {curve_tokens:count} tokens per GPU per step and hidden size {curve_hidden:count} ({source}), moved to this run's {tokens:count} tokens and hidden size {hidden:count}: the curves' overhead is scaled by the ratio of communication to compute (data parallel: measured tokens per step ÷ this run's; tensor parallel: measured hidden ÷ this run's; each bounded to ×1/64–×64)"},
	{Code: CodeAssumeAlphaFallback, Tech: AlphaEtaFallbackNote},
	{Code: CodeAssumeWarmup, Tech: WarmupAssumption},
	{Code: CodeAssumeHostWait, Tech: "the host launches a step's kernels in {host_ms:.3g} ms ({base_ms:.3g} ms plus {block_ms:.3g} ms for each of {layers:int} blocks) against {work_ms:.3g} ms of GPU work per step, so a step takes √(GPU² + host²) = {step_ms:.3g} ms; the GPUs wait the difference at {power_pct:.0f} % of their busy power (breakdown_kwh.host_wait); from {source}"},
	{Code: CodeAssumeWaiting, Tech: WaitAssumption},
	{Code: CodeAssumeHybridDummy, Tech: "hybrid layouts use the law's TP dummy"},
	{Code: CodeAssumeNoDummy, Tech: "the law has no {strategy} dummy; Ψ = 1 used"},
	{Code: CodeAssumeLawScaled, Tech: "the {calibration} law is fitted to full fine-tuning; its energy is scaled by the roofline time of {method} over that of full fine-tuning ({ratio:.3g})"},
	{Code: CodeAssumeLawPerToken, Tech: "energy from the {calibration} law applied per token (reference {ref_tokens:.3g} tokens: {ref_note}); time from the {time_calibration} roofline model; breakdown shares from the roofline model"},
	{Code: CodeAssumeMoE, Tech: "mixture of experts: FLOPs count the {per_token:int} of {experts:int} experts each token is routed to; memory, weight traffic and communication all {experts:int}; the experts' matmuls run at {rate:.2f} of a dense matmul's rate ({source})"},
	{Code: CodeAssumeDatasetUnused, Tech: "{dataset_tokens:path} is not used: max_steps of {file:path} sets the run, as in the Trainer"},
	{Code: CodeAssumeSystemPower, Tech: "{gpu:gpu} power is measured system power per chip ({power_w} W: host, memory and network included, the only training power Google publishes for its TPUs), so energy_kwh includes the host's share here"},
	{Code: CodeAssumePrecision, Tech: "{field:path} not given: {precision}, what a typical mixed-precision recipe uses on {gpu:agpu} ({rule})"},
	{Code: CodeAssumeTokensFromSteps, Tech: "{field:path} {tokens:short} from max_steps {steps:int} ({file:path}): {steps:int} optimizer steps × {accum:int} micro-batches × {batch:int} sequences × {seq:int} tokens × {data:int} data-parallel ranks, every sequence full (packed or padded to {seq_len:key})"},
	{Code: CodeAssumeEpochFromExamples, Tech: "an epoch is {field:path} × {seq_len:key} = {examples} × {seq} = {tokens} tokens: each example counted at the full sequence length (padded, or packed)"},
	{Code: CodeAssumePUE, Tech: "PUE {pue:.2f}: Uptime Institute 2024 global average ({field:path} not given)"},
	{Code: CodeAssumeCarbon, Tech: "grid intensity {carbon} gCO2e/kWh: IEA world average ({field:path} not given)"},
	{Code: CodeAssumePrice, Tech: "electricity price {usd:.2f} USD/kWh: an assumed tariff ({field:path} not given)"},
	{Code: CodeAssumeQLoRACheckpointing, Tech: "gradient checkpointing on: the QLoRA recipe (Dettmers et al. 2023; PEFT's prepare_model_for_kbit_training) enables it ({field:path} not given)"},
	{Code: CodeAssumeLoRARank, Tech: "LoRA rank {rank}: the PEFT library's default recipe ({field:path} not given)"},
	{Code: CodeAssumeQLoRARank, Tech: "LoRA rank {rank}: the QLoRA paper's (Dettmers et al. 2023, section 5) recipe ({field:path} not given)"},
	{Code: CodeAssumeLoRATargets, Tech: "LoRA targets {targets}: W_q and W_v, the LoRA paper's choice (Hu et al. 2021, section 7.1) and PEFT's default for Llama ({field:path} not given)"},
	{Code: CodeAssumeQLoRATargets, Tech: "LoRA targets {targets}: every linear layer of each block, the QLoRA recipe (Dettmers et al. 2023, section 4) ({field:path} not given)"},
	{Code: CodeAssumeQLoRAState, Tech: QLoRAStateAssumption},
	{Code: CodeAssumeQLoRAFormat, Tech: "QLoRA base weights in 4-bit NF4 with double quantisation, the QLoRA default ({field:path} not given)"},
	{Code: CodeAssumeQLoRADtype, Tech: "matmuls run in the QLoRA compute dtype {dtype} ({field:path})"},
	{Code: CodeAssumeStackRaised, Tech: "{field:path} optimised: {u_pct:.0f}% of the {precision} tensor-core peak before parallel losses (the calibration's {ref_pct:.0f}%), and element-wise memory traffic overlapped with the matmuls (fused kernels), from {source}"},
	{Code: CodeAssumeStackKept, Tech: "{field:path} optimised: element-wise memory traffic overlapped with the matmuls (fused kernels); the calibration's {ref_pct:.0f}% of peak for {precision} is kept ({source})"},
	{Code: CodeTokensTwice, Tech: "give tokens, or dataset_tokens with epochs, not both",
		Plain: "give tokens, or tokens per epoch with epochs, not both"},
	{Code: CodeTokensRequired, Tech: "is required (or dataset_tokens with epochs)",
		Plain: "is needed: the tokens the run processes, for example 2e8 or 200M"},
	{Code: CodeSeqBeyondLearned, Tech: "exceeds the {max:int} positions of the model (max_position_embeddings of {file:path}; its learned positions go no further)"},
	{Code: CodeGPURequired, Tech: "is required, for example \"a100-sxm4-80gb\"",
		Plain: "is required: choose a GPU from the list"},
	{Code: CodeGPUUnknown, Tech: "is not a known accelerator; close matches: {near:gpulist} (GET /api/v1/hardware lists all)",
		Plain: "is not a known accelerator; close matches: {near:gpulist}; the list under the field shows every one"},
	{Code: CodeSingleNeedsOne, Tech: "needs {count_field:path} 1 (got {count:int}); use ddp, fsdp, tp or a hybrid layout"},
	{Code: CodeLayoutProduct, Tech: "must multiply to {count_field:path} ({count:int})"},
	{Code: CodeTargetsNoGate, Tech: "names gate, but the model has no gated MLP ({glu:path} is false): its MLP has only up and down projections"},
	{Code: CodeLoRAOnlyPEFT, Tech: "applies only to {method:path} lora or qlora (method is full)"},
	{Code: CodeBaseFormatOnlyQLoRA, Tech: "applies only to {method:path} qlora (lora keeps the base in 16 bits)"},
	{Code: CodeDtypeOnlyQLoRA, Tech: "applies only to {method:path} qlora (lora computes in {precision:path})"},
	{Code: CodeQLoRAUnsupportedGPU, Tech: "needs the bitsandbytes quantisation kernels, which run on NVIDIA (CUDA) and AMD (ROCm) GPUs, not on {gpu:gpu}; use lora"},
	{Code: CodePrecisionUnsupported, Tech: "is not supported in hardware by {gpu:gpu}; it supports {supported}"},
	{Code: CodePowerFixed, Tech: "must be {default_w:short} W for {gpu:agpu}, which has no user-settable power limit (or leave it out)"},
	{Code: CodePowerBelowIdle, Tech: "must be above the {idle_w:short} W {gpu:agpu} draws idle (no board accepts a limit below its idle power; its estimated lowest limit is {min_w:short} W, its default {default_w:short} W)",
		Brief: "must be above the {idle_w:short} W {gpu:agpu} draws idle, at least {min_w:short} W"},
	{Code: CodePowerRange, Tech: "must be from {min_w:short} to {default_w:short} W for {gpu:agpu} (its range of power limits; leave it out for the default {default_w:short} W)"},

	{Code: CodeNoteImport, Tech: "{file:path}: {used:list}{rest:cat}"},
	{Code: CodeNoteImportKey, Tech: "{key} {value} → {field:path}"},
	{Code: CodeNoteImportOverridden, Tech: "; the request's own fields win over {keys:list}"},
	{Code: CodeNoteImportIgnored, Tech: "; ignored (no bearing on the estimate): {keys:list}"},
	{Code: CodeNoteHFModel, Tech: "{file:path} is {name} (model_type {type}, read as {family}): it implies {exact:params} parameters with biases, norms and position embeddings; the estimate counts {counted:params}, the matmul weights and embeddings"},
	{Code: CodeNoteMultimodal, Tech: "{file:path} is a multimodal model (model_type {type}): its language model, text_config, is estimated; the vision encoder is not counted"},
	{Code: CodeNoteFFNRule, Tech: "{file:path}: FFN {ffn:int} = 4 × hidden, {family}'s rule when the config leaves it out"},
	{Code: CodeCountForMaxSteps, Tech: "is needed to turn max_steps of {file:path} into tokens (over the data-parallel ranks)"},
	{Code: CodeHFShape, Tech: "gives a shape wattscale cannot use: {field:path} {problem}"},
	{Code: CodeHFAttention, Tech: "is not an attention implementation wattscale models (eager, sdpa, flash_attention_2, flash_attention_3); give {attention:path}"},
	{Code: CodeHFOptim, Tech: "is not an optimizer wattscale knows the state of (give {state_bytes:path}); close matches: {near:list}"},
	{Code: CodeHFEpochsNeedTokens, Tech: "is required with num_train_epochs of {file:path}: the tokens of one epoch (or {examples:path}, the examples of one epoch at {seq_len:key} tokens each)"},
	{Code: CodeGPUAgain, Tech: "names {gpu:gpu} again (already {already:path})"},
	{Code: CodeUnknownKey, Tech: "is not a known field"},
	{Code: CodeUnknownKeyCase, Tech: "is not a known field; keys are case-sensitive, did you mean {name:q}?"},
	{Code: CodeUnknownHybridKey, Tech: "is not a known field; a hybrid strategy has tensor, data, data_mode and context"},
	{Code: CodeKeyTwice, Tech: "is given twice; give each field once"},
	{Code: CodeForStage, Tech: "{problem} (for {at:path})"},
	{Code: CodeSearching, Tech: "{problem} (searching {at:path})"},
}
