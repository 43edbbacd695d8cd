package calcapi

import (
	"github.com/wattscale/wattscale/model"
)

// Absence says why a sweep point is missing from the calculator's charts,
// from the point's error code and numbers (model.SweepPoint.ErrorCode),
// never from its words: a memory refusal ("does not fit in 80 GB: …") or
// a layout the model or the run does not allow ("not possible here: …").
type Absence struct {
	Memory     bool    // the layout's state does not fit one GPU
	CapacityGB float64 // the GPU's memory, for a memory refusal
	// Why is the reason in the page's words, without the lead-in.
	Why string
}

// Codes of the charts' short reasons, by the sweep error's code.
var absentCodes = map[string]string{
	model.CodeMemoryState:     "chart.memory_state",
	model.CodeMemoryStatePEFT: "chart.memory_state_peft",
	model.CodeTensorHeads:     "chart.tensor_heads",
	model.CodeTensorOverHeads: "chart.tensor_over_heads",
}

var chartTexts = []model.MessageText{
	{Code: "chart.memory_state", Tech: "weights, gradients and optimizer state need {need_gb:.1f} GB per GPU, more than the {capacity_gb:.0f} GB of {gpu:agpu}"},
	{Code: "chart.memory_state_peft", Tech: "is too small for {method}: the frozen base weights at {format} need {frozen_gb:.1f} GB per GPU and the trained parameters' weights, gradients and optimizer state {trained_gb:.2f} GB, {need_gb:.1f} GB in all, more than the {capacity_gb:.0f} GB of {gpu:agpu}"},
	{Code: "chart.tensor_heads", Tech: "the GPU count must divide the model's {heads} attention heads"},
	{Code: "chart.tensor_over_heads", Tech: "exceeds the model's {heads} attention heads: tensor parallelism splits heads across ranks"},
}

var _ = model.AddTexts(chartTexts)

// AbsenceOf is why p is missing from the charts (p nil: no point at all),
// in the page's words.
func AbsenceOf(p *model.SweepPoint) Absence { return absence(p, pageNamer) }

func absence(p *model.SweepPoint, n model.Namer) Absence {
	if p == nil {
		return Absence{Why: "no point"}
	}
	a := Absence{Memory: p.ErrorCode == model.CodeMemoryState || p.ErrorCode == model.CodeMemoryStatePEFT}
	if a.Memory {
		a.CapacityGB = p.ErrorArgs.Num("capacity_gb")
	}
	if c, ok := absentCodes[p.ErrorCode]; ok {
		a.Why = model.Message{Code: c, Args: p.ErrorArgs}.Text(n)
	} else {
		a.Why = p.Error
	}
	return a
}

// Lead is the reason's lead-in: "does not fit in 80 GB" or "not possible
// here"; with plural, "do not fit in 80 GB".
func (a Absence) Lead(plural bool) string {
	if !a.Memory {
		return "not possible here"
	}
	verb := "does"
	if plural {
		verb = "do"
	}
	return verb + " not fit in " + model.ShortNum(a.CapacityGB) + " GB"
}

// String is the whole reason: "does not fit in 80 GB: weights, …".
func (a Absence) String() string { return a.Lead(false) + ": " + a.Why }

// Detail is what follows "not possible at k of n GPU counts: ": the
// reason of a refusal that is not about memory, the whole String of one
// that is.
func (a Absence) Detail() string {
	if a.Memory {
		return a.String()
	}
	return a.Why
}
