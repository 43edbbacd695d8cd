package model

// ShortStepS is the modelled GPU time per step, in seconds, below which a
// one-GPU estimate warns that the run may be bound by the host rather than
// the GPU. The estimate assumes the GPU is kept busy; every step also
// costs host work it does not model (the Python loop, data loading and
// collation, the optimizer's kernel launches, logging), which stays hidden
// only while the GPU's own work per step is long. Published single-GPU runs
// with steps this short ran several times slower than their GPU work:
// TeenyTinyLlama 160M and 460M on one A100 (Corrêa et al. 2024, arXiv
// 2401.16640; CodeCarbon logs in the authors' repository) took 0.30 and
// 0.42 s per step where the model's GPU time is 0.055 and 0.085 s, while
// runs of the same models with 0.4 s and more of GPU work per step
// (Tucano, 8 GPUs, 32 sequences each) came within ×1.3. Not fitted: the
// threshold marks where that evidence starts, and the estimate's numbers
// do not change.
const ShortStepS = 0.1

// ShortStepSource cites the evidence behind ShortStepS.
const ShortStepSource = "TeenyTinyLlama 160M and 460M on one A100 (Corrêa et al. 2024, arXiv 2401.16640) took 0.30 and 0.42 s per step against 0.055 and 0.085 s of modelled GPU work"

// shortStepWarning is the warning of a one-GPU estimate whose modelled GPU
// time per step, perStep seconds, is below ShortStepS.
func shortStepWarning(perStep float64) Message {
	return Message{Code: CodeShortStep, Args: Args{{Name: "step_s", Num: perStep}, {Name: "source", Str: ShortStepSource}, {Name: "batch", Str: "training.batch_per_gpu"}}}
}
