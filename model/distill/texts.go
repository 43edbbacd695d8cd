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

var distillTexts = []model.MessageText{
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
