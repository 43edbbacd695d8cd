package distill

import "github.com/wattscale/wattscale/model"

// The words of the planner's messages, by code (model.Texts, model.Message).

// CodeNoneFitsInference: no searched inference configuration fits in memory.
const CodeNoneFitsInference = "warn.none_fits_inference"

var _ = model.AddTexts(map[string]model.MessageText{
	CodeNoneFitsInference: {Tech: "no searched configuration fits in memory: allow more GPUs (max_count) or larger GPUs"},
})
