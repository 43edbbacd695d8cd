package distill

import "github.com/wattscale/wattscale/model"

// The words of the planner's messages, by code (model.AddTexts, model.Message).

// CodeNoneFitsInference: no searched inference configuration fits in memory.
const CodeNoneFitsInference = "warn.none_fits_inference"

var distillTexts = []model.MessageText{
	{Code: CodeNoneFitsInference, Tech: "no searched configuration fits in memory: allow more GPUs (max_count) or larger GPUs"},
}

var _ = model.AddTexts(distillTexts)
