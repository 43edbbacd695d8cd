package distill

import "github.com/wattscale/wattscale/model"

// The words of the planner's messages, by code (model.AddTexts, model.Message).

// Codes of the planner's messages.
const (
	CodeNoneFitsInference   = "warn.none_fits_inference" // no searched inference configuration fits in memory
	CodeStageSingleNeedsOne = "stage.single_needs_one"   // count_field (path), count
	CodeSplitDiffers        = "plan.split_differs"       // option, kwh, baseline, baseline_kwh
	CodeNoQuality           = "plan.no_quality"
	CodeMissingQuality      = "plan.missing_quality" // options
	CodeTotalOnly           = "plan.total_only"      // option, kwh
	CodeStageWarning        = "plan.stage_warning"   // option, stage, warning ([]Message)
	CodeStudentLarger       = "plan.student_larger"  // option, student, teacher (parameters)
	CodeStudentWarning      = "plan.student_warning" // option, warning ([]Message)
	CodeHighUCompute        = "stage.high_u_compute" // u, calibration, factor
)

// Codes of what a plan over the work budget asks for (model.OverBudget's
// what).
const (
	CodeBudgetStages       = "plan.budget_stages"        // n, options
	CodeBudgetSearches     = "plan.budget_searches"      // n, parts ([]Message: CodeBudgetSearch, CodeBudgetMoreSearches), plan (work units)
	CodeBudgetSearch       = "plan.budget_search"        // stage (path), n, candidates (path), work
	CodeBudgetMoreSearches = "plan.budget_more_searches" // n
)

// Codes of a plan's errors: its options, their stages and the per-stage
// searches (the value given is the error's value).
const (
	CodeHeadLM              = "stage.head_lm"
	CodeStageStrategyNeeded = "stage.strategy_required" // n (GPUs)
	CodeStageTPHeads        = "stage.tp_heads"          // heads
	CodeStageStrategy       = "stage.strategy"
	CodeStageMemory         = "stage.memory"    // model, weights_gb, what, seq_gb, usable_pct, capacity_gb, gpu
	CodeStageBatchFit       = "stage.batch_fit" // most, free_gb, what, seq_gb
	CodeKDPrompts           = "stage.kd_prompts"
	CodeSyntheticTokens     = "stage.synthetic_tokens"
	CodeTopKOnlyKD          = "stage.top_k_kd"
	CodeEvalWork            = "stage.eval_work"
	CodeIdleNeeded          = "stage.idle_required"
	CodeSiteOnce            = "stage.site_once"
	CodeKWhRange            = "stage.kwh_range" // min, max (kWh)
	CodeNoOptions           = "plan.no_options"
	CodeTooManyOptions      = "plan.too_many_options" // max
	CodeTokensRange         = "plan.tokens_range"     // max
	CodeNameRequired        = "plan.name_required"
	CodeNameTaken           = "plan.name_taken"
	CodeRegimePreset        = "plan.regime_preset" // preset, regime
	CodeRegimeRequired      = "plan.regime_required"
	CodeRegime              = "plan.regime"
	CodeQuality             = "plan.quality"
	CodeStudentsSFT         = "plan.students_sft"
	CodeBaselineSFT         = "plan.baseline_sft"
	CodeShareSFT            = "plan.share_sft"
	CodeTotalPreset         = "plan.total_preset" // preset
	CodeTotalAndStages      = "plan.total_and_stages"
	CodeShareNeedsSplit     = "plan.share_needs_split"
	CodeStageWays           = "plan.stage_ways" // n, ways ([]string)
	CodeSFTNoTeacher        = "plan.sft_no_teacher"
	CodeTeacherShared       = "plan.teacher_shared"   // with (option name)
	CodeTeacherRequired     = "plan.teacher_required" // regime
	CodeStageRequired       = "plan.stage_required"   // stage
	CodeStageTokensMeasured = "plan.stage_tokens_measured"
	CodeOptionUnknown       = "plan.option_unknown"   // known (names, in words)
	CodeBaselineNotSFT      = "plan.baseline_not_sft" // name, regime
	CodeShareSelf           = "plan.share_self"
	CodeShareRegime         = "plan.share_regime"         // regime, name, other (regime), other_work, work
	CodeShareChain          = "plan.share_chain"          // name, with
	CodeShareTotal          = "plan.share_total"          // name
	CodeStudentsOnProducer  = "plan.students_on_producer" // name
	CodeStudentsAtLeast     = "plan.students_at_least"    // min, sharers
	CodeNoCatalog           = "plan.no_catalog"
	CodeRequired            = "plan.required"
	CodeEvalModel           = "plan.eval_model"
	CodeOptionNull          = "plan.option_null"
	CodePlanPresetUnknown   = "plan.preset_unknown" // known ([]string)
	CodePlanRequired        = "plan.plan_required"
	CodeTooManyStages       = "plan.too_many_stages" // max
	CodeSearchStage         = "plan.search_stage"
	CodeSearchOption        = "plan.search_option" // known ([]string)
	CodeStageAgain          = "plan.stage_again"   // stage, option
)

var distillTexts = []model.MessageText{
	{Code: CodeHeadLM, Tech: "must be \"lm\": an inference stage computes the language-model head"},
	{Code: CodeStageStrategyNeeded, Tech: "is required for {n:int} GPUs: tp (weights split over them) or dp (a replica on each)"},
	{Code: CodeStageTPHeads, Tech: "must divide the model's {heads:int} attention heads for tensor parallelism"},
	{Code: CodeStageStrategy, Tech: "must be single, tp or dp"},
	{Code: CodeStageMemory, Tech: "is too small: {model} weights need {weights_gb:.1f} GB per GPU and one sequence's {what} {seq_gb:.2f} GB, more than {usable_pct:.0f} % of the {capacity_gb:.0f} GB of {gpu:agpu}; use more GPUs with tp, or a larger GPU"},
	{Code: CodeStageBatchFit, Tech: "does not fit: at most {most:.0f} sequences fit in the {free_gb:.1f} GB left per GPU after the weights ({what} {seq_gb:.2f} GB per sequence)"},
	{Code: CodeKDPrompts, Tech: "is for synthetic generation; a kd teacher caches logits over tokens (tokens, seq_len, top_k)",
		Plain: "is for synthetic generation; a kd teacher caches logits over tokens (tokens, sequence length, top k)"},
	{Code: CodeSyntheticTokens, Tech: "is for logit caching; a synthetic-data teacher generates (prompts, prompt_tokens, max_new_tokens)",
		Plain: "is for logit caching; a synthetic-data teacher generates (prompts, prompt tokens, new tokens)"},
	{Code: CodeTopKOnlyKD, Tech: "applies to a kd teacher only"},
	{Code: CodeEvalWork, Tech: "give the benchmark tokens scored (tokens, seq_len) and/or generated (prompts, prompt_tokens, max_new_tokens)",
		Plain: "give the benchmark tokens scored (tokens, sequence length) and/or generated (prompts, prompt tokens, new tokens)"},
	{Code: CodeIdleNeeded, Tech: "give idle_s and/or burn_in_s, seconds",
		Plain: "give the idle and/or burn-in seconds"},
	{Code: CodeSiteOnce, Tech: "set the site once, in the plan's site"},
	{Code: CodeKWhRange, Tech: "must be 0 or from {min:short} to {max:short} kWh: a stage that used less than 3.6 J was not measured"},
	{Code: CodeNoOptions, Tech: "must list at least one option (pipeline)"},
	{Code: CodeTooManyOptions, Tech: "must hold at most {max:int} options"},
	{Code: CodeTokensRange, Tech: "must be 0 (unknown) or a number of tokens from 1 to {max:short}"},
	{Code: CodeNameRequired, Tech: "is required (or a preset, whose name is used)"},
	{Code: CodeNameTaken, Tech: "is used by another option; names must be unique"},
	{Code: CodeRegimePreset, Tech: "contradicts preset {preset}, whose regime is {regime}"},
	{Code: CodeRegimeRequired, Tech: "is required: sft, kd or synthetic"},
	{Code: CodeRegime, Tech: "must be sft (direct fine-tuning), kd (logit distillation) or synthetic (synthetic-data SFT)"},
	{Code: CodeQuality, Tech: "must be a score from 0 to 1 (the student's benchmark score ÷ the teacher's; 0.7 for 70 %)"},
	{Code: CodeStudentsSFT, Tech: "applies to kd and synthetic options: it counts the students sharing a teacher stage"},
	{Code: CodeBaselineSFT, Tech: "applies to kd and synthetic options: an sft option is itself a baseline"},
	{Code: CodeShareSFT, Tech: "applies to kd and synthetic options: an sft pipeline has no teacher stage"},
	{Code: CodeTotalPreset, Tech: "conflicts with preset {preset}, which gives the energy"},
	{Code: CodeTotalAndStages, Tech: "conflicts with a total given without a stage split (total_kwh or a total-only preset); give stages or a total, not both"},
	{Code: CodeShareNeedsSplit, Tech: "needs a stage split: this option gives only a total"},
	{Code: CodeStageWays, Tech: "is given {n:int} ways ({ways:list}); give each stage once: measured, estimated or from a preset"},
	{Code: CodeSFTNoTeacher, Tech: "is not part of an sft pipeline: direct SFT has no teacher; use regime kd or synthetic"},
	{Code: CodeTeacherShared, Tech: "conflicts with share_teacher_with {with:q}: a shared teacher stage is counted in the option that produces it"},
	{Code: CodeTeacherRequired, Tech: "is required for a {regime} pipeline: give it measured (stages_kwh.teacher), estimated (teacher) or reuse another option's (share_teacher_with)"},
	{Code: CodeStageRequired, Tech: "is required: give the {stage} stage measured (stages_kwh.{stage}, kWh; 0 if it did not run) or estimated ({stage})"},
	{Code: CodeStageTokensMeasured, Tech: "applies to measured stages only; an estimated stage counts its own tokens"},
	{Code: CodeOptionUnknown, Tech: "names no option in the plan; known: {known}"},
	{Code: CodeBaselineNotSFT, Tech: "must name a direct-SFT option (regime sft); {name} is {regime}"},
	{Code: CodeShareSelf, Tech: "names this option itself"},
	{Code: CodeShareRegime, Tech: "must name a {regime} option: {name} is {other}, and {other_work} outputs are not {work} outputs"},
	{Code: CodeShareChain, Tech: "must name the option that produces the teacher stage; {name} itself shares {with}'s"},
	{Code: CodeShareTotal, Tech: "names {name}, which gives only a total, no teacher stage"},
	{Code: CodeStudentsOnProducer, Tech: "set students on {name}, which produces the teacher stage this option shares"},
	{Code: CodeStudentsAtLeast, Tech: "must be at least {min:int}: {sharers:int} option(s) in the plan share this teacher stage"},
	{Code: CodeNoCatalog, Tech: "cannot be estimated without the hardware and calibration catalog; give it measured"},
	{Code: CodeRequired, Tech: "is required"},
	{Code: CodeEvalModel, Tech: "is required when the student stage is not estimated (it defaults to the student's model)"},
	{Code: CodeOptionNull, Tech: "must be an option object, not null"},
	{Code: CodePlanPresetUnknown, Tech: "is not a known preset; known: {known:list}"},
	{Code: CodePlanRequired, Tech: "is required: the distillation plan, as site distill reads it"},
	{Code: CodeTooManyStages, Tech: "must list at most {max:int} stages"},
	{Code: CodeSearchStage, Tech: "must be teacher, student or eval (the stages the recommender searches)"},
	{Code: CodeSearchOption, Tech: "is not an option of the plan; its options: {known:list}"},
	{Code: CodeStageAgain, Tech: "sets the {stage} stage of {option} again"},

	{Code: CodeNoneFitsInference, Tech: "no searched configuration fits in memory: allow more GPUs (max_count) or larger GPUs"},
	{Code: CodeStageSingleNeedsOne, Tech: "needs {count_field:path} 1 (got {count:int}); use tp or dp"},
	{Code: CodeSplitDiffers, Tech: "{option}: preprocessing and evaluation ({kwh:kwh} kWh) differ from {baseline}'s ({baseline_kwh:kwh} kWh); N* compares the student stages only"},
	{Code: CodeNoQuality, Tech: "no option has a quality value: the energy–quality plane is empty"},
	{Code: CodeMissingQuality, Tech: "no quality value for {options:list}: left off the energy–quality plane"},
	{Code: CodeTotalOnly, Tech: "{option}: the paper published only the total for this pipeline ({kwh:.2f} kWh), no stage split"},
	{Code: CodeStageWarning, Tech: "{option} {stage}: {warning}"},
	{Code: CodeStudentLarger, Tech: "{option}: the student ({student:short} parameters) is larger than the teacher ({teacher:short} parameters); distillation usually runs the other way"},
	{Code: CodeStudentWarning, Tech: "{option} student: {warning}"},
	{Code: CodeBudgetStages, Tech: "{n:int} stages given as configurations to estimate (teacher, student, eval) in {options:int} options"},
	{Code: CodeBudgetSearches, Tech: "{n:int} stage searches ({parts:semilist}) and {plan:int} for the plan's estimated stages"},
	{Code: CodeBudgetSearch, Tech: "{stage:path} {n:int} configurations ({candidates:path}) = {work:int}"},
	{Code: CodeBudgetMoreSearches, Tech: "{n:int} more searches"},
	{Code: CodeHighUCompute, Tech: "mostly compute time at u_compute {u:.2f} from calibration {calibration}, above the 0.3–0.5 of peak that large transformer workloads usually achieve; at u_compute 0.4 this stage would take about {factor:.1f}× the energy (set u_compute to override)"},
}

var _ = model.AddTexts(distillTexts)
