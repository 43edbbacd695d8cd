package distill

import "github.com/wattscale/wattscale/model"

// The words of the planner's messages, by code (model.AddTexts, model.Message).

// Codes of the planner's messages.
const (
	CodeNoneFitsInference   = "warn.none_fits_inference" // no searched inference configuration fits in memory
	CodeStageSingleNeedsOne = "stage.single_needs_one"   // count_field (path), count
)

var distillTexts = []model.MessageText{
	{Code: CodeNoneFitsInference, Tech: "no searched configuration fits in memory: allow more GPUs (max_count) or larger GPUs"},
	{Code: CodeStageSingleNeedsOne, Tech: "needs {count_field:path} 1 (got {count:int}); use tp or dp"},
}

var _ = model.AddTexts(distillTexts)
