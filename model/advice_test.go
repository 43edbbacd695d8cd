package model_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
)

// adviceCase is a request that already has what some advice would
// suggest, and the advice it must not get.
type adviceCase struct {
	name  string
	req   func(*model.Request)
	codes []string // the codes this case exercises (one must appear)
	bad   func(ms []model.Message) string
}

// walk calls f on every message of ms and of their nested messages.
func walk(ms []model.Message, f func(model.Message)) {
	for _, m := range ms {
		f(m)
		for _, a := range m.Args {
			walk(a.Msgs, f)
		}
	}
}

// messagesOf are an estimate's warnings, or an error's message with its
// advice.
func messagesOf(t *testing.T, cat *model.Catalog, req model.Request) []model.Message {
	t.Helper()
	resp, err := cat.Estimate(req)
	if err != nil {
		fe := model.AsFieldError(err)
		if fe == nil || fe.Code == "" {
			t.Fatalf("uncoded error: %v", err)
		}
		return []model.Message{{Code: fe.Code, Field: fe.Field, Args: fe.Args}}
	}
	return resp.WarningMessages
}

// TestAdviceNeverSuggestsWhatIsSelected walks every advice and warning
// code (issue 30: "advice never suggests what is already selected"): each
// is either exercised below by a request that already has what it would
// suggest, which must not get that suggestion, or listed as suggesting
// nothing a request can select, with why. A new advice.* or warn.* code
// fails the test until it is placed. (Errors, request.* and the like,
// suggest other values for an input that is wrong, never the one given.)
func TestAdviceNeverSuggestsWhatIsSelected(t *testing.T) {
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	base := func() model.Request {
		req := model.Request{}
		req.Model.Preset = "llama-2-70b"
		req.Training = model.TrainingSpec{Tokens: 1e8, SeqLen: 2048, BatchPerGPU: 1, Precision: model.BF16}
		req.Hardware = model.HardwareSpec{GPU: "h100-sxm5", Count: 8}
		req.Strategy = model.Strategy{Name: model.FSDP}
		return req
	}
	on, off := true, false
	has := func(code string) func([]model.Message) bool {
		return func(ms []model.Message) bool {
			found := false
			walk(ms, func(m model.Message) { found = found || m.Code == code })
			return found
		}
	}
	cases := []adviceCase{
		{"full 70B on 8 H100 with fsdp: no 'use fsdp'", func(r *model.Request) {}, []string{model.CodeAdviceShard}, func(ms []model.Message) string {
			var bad string
			walk(ms, func(m model.Message) {
				if a, _ := m.Args.Get("ways"); m.Code == model.CodeAdviceShard && slices.Contains(a.List, "fsdp") {
					bad = "suggests fsdp"
				}
			})
			return bad
		}},
		{"full 70B on 8 H100 with tp: more tensor ranks, not tensor parallelism", func(r *model.Request) { r.Strategy.Name = model.TP }, []string{model.CodeAdviceShard}, func(ms []model.Message) string {
			var bad string
			walk(ms, func(m model.Message) {
				if a, _ := m.Args.Get("ways"); m.Code == model.CodeAdviceShard && slices.Contains(a.List, "tensor parallelism") {
					bad = "suggests tensor parallelism"
				}
			})
			return bad
		}},
		{"full 70B at the least state bytes: no leaner optimizer", func(r *model.Request) {
			r.Training.StateBytesPerParam, r.Hardware.Count, r.Strategy.Name = 2, 1, model.Single
		}, []string{model.CodeMemoryState}, func(ms []model.Message) string {
			if has(model.CodeAdviceLeanOptimizer)(ms) || has(model.CodeAdviceLeanOptimizerFits)(ms) {
				return "suggests a leaner optimizer"
			}
			return ""
		}},
		{"lora 70B on one 24 GB GPU: no 'use lora'", func(r *model.Request) {
			r.Training.Method, r.Hardware = model.MethodLoRA, model.HardwareSpec{GPU: "rtx-4090", Count: 1}
			r.Strategy.Name = model.Single
		}, []string{model.CodeMemoryStatePEFT, model.CodeAdviceQLoRA}, func(ms []model.Message) string {
			if has(model.CodeAdvicePEFT)(ms) {
				return "suggests LoRA"
			}
			return ""
		}},
		{"qlora nf4 70B on one 24 GB GPU: no 'use qlora', no 'use nf4'", func(r *model.Request) {
			r.Training.Method, r.Training.LoRA = model.MethodQLoRA, &model.LoRASpec{BaseFormat: model.FormatNF4}
			r.Hardware, r.Strategy.Name = model.HardwareSpec{GPU: "rtx-4090", Count: 1}, model.Single
		}, []string{model.CodeMemoryStatePEFT}, func(ms []model.Message) string {
			if has(model.CodeAdviceQLoRA)(ms) || has(model.CodeAdviceNF4)(ms) || has(model.CodeAdvicePEFT)(ms) {
				return "suggests qlora, nf4 or lora"
			}
			return ""
		}},
		{"qlora int8: nf4 suggested", func(r *model.Request) {
			r.Training.Method, r.Training.LoRA = model.MethodQLoRA, &model.LoRASpec{BaseFormat: model.FormatInt8}
			r.Hardware, r.Strategy.Name = model.HardwareSpec{GPU: "rtx-4090", Count: 1}, model.Single
		}, []string{model.CodeAdviceNF4}, nil},
		{"state bytes that would fit beside the frozen base", func(r *model.Request) {
			r.Model.Preset, r.Training.Method = "llama-2-13b", model.MethodQLoRA
			r.Training.LoRA = &model.LoRASpec{Rank: 1024, Targets: "attention_mlp"}
			r.Hardware, r.Strategy.Name = model.HardwareSpec{GPU: "l4", Count: 1}, model.Single
		}, []string{model.CodeAdviceLeanStateFits}, func(ms []model.Message) string { return "" }},
		{"one GPU, one sequence, few steps: no 'fewer GPUs' or 'a smaller batch'", func(r *model.Request) {
			r.Model.Preset, r.Training.Tokens = "bert-base", 20*128
			r.Training.SeqLen, r.Hardware, r.Strategy.Name = 128, model.HardwareSpec{GPU: "h100-sxm5", Count: 1}, model.Single
		}, []string{model.CodeFewStepsLeast}, func(ms []model.Message) string {
			if has(model.CodeFewSteps)(ms) || has(model.CodeAdviceFewerGPUs)(ms) || has(model.CodeAdviceSmaller)(ms) {
				return "suggests fewer GPUs or a smaller batch"
			}
			return ""
		}},
		{"8 GPUs, batch 1, few steps: fewer GPUs only", func(r *model.Request) {
			r.Model.Preset, r.Training.Tokens, r.Training.SeqLen = "bert-base", 8*20*128, 128
			r.Strategy.Name = model.DDP
		}, []string{model.CodeFewSteps, model.CodeAdviceFewerGPUs}, func(ms []model.Message) string {
			if has(model.CodeAdviceSmaller)(ms) {
				return "suggests a smaller batch at batch 1"
			}
			return ""
		}},
		{"accumulation, few steps: less accumulation", func(r *model.Request) {
			r.Model.Preset, r.Training.Tokens, r.Training.SeqLen, r.Training.BatchPerGPU = "bert-base", 8*20*128*4*2, 128, 4
			r.Training.GradientAccumulation, r.Strategy.Name = 2, model.DDP
		}, []string{model.CodeFewStepsAccum, model.CodeAdviceLess, model.CodeAdviceSmaller}, nil},
		{"activations over memory, checkpointed, batch 1, optimised: no smaller batch, no fused kernels", func(r *model.Request) {
			r.Training.Method, r.Training.SeqLen, r.Training.Tokens = model.MethodLoRA, 65536, 1e9
			r.Training.GradientCheckpointing, r.Training.Stack = &on, model.StackOptimised
		}, []string{model.CodeMemoryCheckpointed, model.CodeAdvicePacking}, func(ms []model.Message) string {
			if has(model.CodeAdviceSmaller)(ms) || has(model.CodeAdviceFused)(ms) || has(model.CodeMemoryNoCheckpoint)(ms) {
				return "suggests a smaller batch, fused kernels or checkpointing"
			}
			return ""
		}},
		{"activations over memory, reference stack: fused kernels suggested", func(r *model.Request) {
			r.Training.Method, r.Training.SeqLen, r.Training.Tokens = model.MethodLoRA, 65536, 1e9
			r.Training.GradientCheckpointing = &on
		}, []string{model.CodeAdviceFused}, nil},
		{"activations over memory, no checkpointing: checkpointing suggested", func(r *model.Request) {
			r.Model.Preset, r.Training.SeqLen, r.Training.Tokens, r.Training.BatchPerGPU = "llama-2-7b", 32768, 1e9, 4
			r.Training.GradientCheckpointing = &off
		}, []string{model.CodeMemoryNoCheckpoint}, nil},
	}
	// Codes whose advice or warning suggests nothing a request can
	// select (or only what is not selected by construction), and why.
	nothing := map[string]string{
		model.CodeAdvicePEFT:              "only on full fine-tuning's refusal",
		model.CodeAdviceQLoRA:             "only on lora's refusal",
		model.CodeAdviceLeanOptimizer:     "only above the least state bytes (case above)",
		model.CodeAdviceLeanOptimizerFits: "the same, with the figure that fits",
		model.CodeAdvicePacking:           "packing is not a request field",
		model.CodeSeqBeyondPositions:      "states a limit",
		model.CodePowerBelowMin:           "states a limit",
		model.CodeLawBelowBound:           "states what is reported",
		model.CodeLawBelowIdle:            "states what is reported",
		model.CodeLawAboveBoard:           "states what is reported",
		model.CodeOutsideEnvelope:         "states the fitted range",
		model.CodeLowEfficiency:           "states a cost",
		model.CodeInterNode:               "states a limit of the model",
		model.CodeShortStep:               "a larger batch: the step is short at any batch the user has",
		model.CodeInputBound:              "states a measured rate",
		model.CodeQLoRAFP32:               "states a cost of the dtype chosen",
		model.CodeQLoRAROCm:               "states a cost of the GPU chosen",
		model.CodeQLoRAOldGPU:             "states a cost of the GPU chosen",
		model.CodeLeftOutPrecision:        "the recommender's: what it left out",
		model.CodeNoneFits:                "the recommender's: limits of the search, not of the request",
		model.CodeMissesDeadline:          "the recommender's: states the fastest",
		model.CodeOtherGlobalBatch:        "the recommender's: states a changed batch",
	}
	covered := map[string]bool{}
	for _, c := range cases {
		req := base()
		c.req(&req)
		ms := messagesOf(t, cat, req)
		var seen []string
		walk(ms, func(m model.Message) { seen = append(seen, m.Code) })
		for _, code := range c.codes {
			if !slices.Contains(seen, code) {
				t.Errorf("%s: no %s among %v: the case no longer exercises it", c.name, code, seen)
			}
			covered[code] = true
		}
		if c.bad != nil {
			if why := c.bad(ms); why != "" {
				t.Errorf("%s: %s: %v", c.name, why, ms)
			}
		}
	}
	for _, code := range model.Codes() {
		if !strings.HasPrefix(code, "advice.") && !strings.HasPrefix(code, "warn.") {
			continue
		}
		if !covered[code] && nothing[code] == "" {
			t.Errorf("%s: neither exercised against a request that already has its suggestion nor listed as suggesting nothing selectable", code)
		}
	}
}
