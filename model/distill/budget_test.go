package distill_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/distill"
)

// budgetOption is an option with an estimated teacher, student and eval.
func budgetOption(i int) distill.Option {
	zero := 0.0
	return distill.Option{Name: fmt.Sprintf("o%d", i), Regime: distill.RegimeKD, StagesKWh: &distill.StageValues{Preprocess: &zero},
		Teacher: &distill.InferenceSpec{Model: model.ModelSpec{Preset: "olmo-2-32b"}, Hardware: model.HardwareSpec{GPU: "h100-sxm5", Count: 1}, Tokens: 2.93e7, SeqLen: 1024, TopK: 100},
		Student: &model.Request{Model: model.ModelSpec{Preset: "olmo-2-1b"}, Training: model.TrainingSpec{Tokens: 6.62e8, SeqLen: 1024, BatchPerGPU: 8, Precision: model.BF16},
			Hardware: model.HardwareSpec{GPU: "h100-sxm5", Count: 1}, Strategy: model.Strategy{Name: model.Single}},
		Eval: &distill.InferenceSpec{Hardware: model.HardwareSpec{GPU: "h100-sxm5", Count: 1}, Tokens: 8.4e6, SeqLen: 1024, Prompts: 6873, PromptTokens: 512, MaxNewTokens: 1024},
	}
}

func budgetPlan(n int) distill.Plan {
	var p distill.Plan
	for i := range n {
		p.Options = append(p.Options, budgetOption(i))
	}
	return p
}

// TestPlanBudget: a plan whose estimated stages exceed the work budget is
// refused on options before any is estimated, naming the stages and the
// budget; one stage fewer passes.
func TestPlanBudget(t *testing.T) {
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	most := model.DefaultWorkBudget / model.WorkPerEstimatedStage / 3 // options of three estimated stages
	if _, err := distill.Evaluate(cat, budgetPlan(most)); err != nil {
		t.Errorf("%d options (%d estimated stages): %v", most, 3*most, err)
	}
	if 3*(most+1) > distill.MaxOptions*3 {
		t.Skip("the budget allows every plan")
	}
	_, err = distill.Evaluate(cat, budgetPlan(most+1))
	fe := model.AsFieldError(err)
	if fe == nil || fe.Field != "options" || !strings.Contains(fe.Message, fmt.Sprintf("%d stages given as configurations", 3*(most+1))) || !strings.Contains(fe.Message, fmt.Sprint(model.DefaultWorkBudget)) {
		t.Errorf("%d options: %v, want an error on options naming %d stages and the budget", most+1, err, 3*(most+1))
	}
}

// TestRecommendPlanBudget: a per-stage search over the budget is refused
// before any stage is searched, on the candidates that set the largest
// search (the request's, or a stage's own), naming the searches; within
// the budget it runs.
func TestRecommendPlanBudget(t *testing.T) {
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	p := budgetPlan(3)
	if _, err := distill.Recommend(cat, distill.RecommendRequest{Plan: p, Candidates: []model.Candidate{{GPU: "h100", MaxCount: 8}, {GPU: "a100", MaxCount: 8}}}); err != nil {
		t.Fatalf("three options over two GPUs up to 8: %v", err)
	}
	_, err = distill.Recommend(cat, distill.RecommendRequest{Plan: p})
	fe := model.AsFieldError(err)
	if fe == nil || fe.Field != "candidates" || !strings.Contains(fe.Message, "9 stage searches") || !strings.Contains(fe.Message, "options[0].student 8030 configurations") {
		t.Errorf("three options over the whole table: %v, want an error on candidates naming the searches", err)
	}
	var whole []model.Candidate
	for _, g := range cat.Hardware.GPUs {
		cd := model.Candidate{GPU: g.ID, MaxCount: 4096}
		if pr := model.PowerLimits(&g); pr.MinW < pr.DefaultW {
			for j := range model.MaxPowerLimits {
				cd.PowerLimitsW = append(cd.PowerLimitsW, float64(int(pr.MinW+(pr.DefaultW-pr.MinW)*float64(j)/float64(model.MaxPowerLimits-1))))
			}
		}
		whole = append(whole, cd)
	}
	req := distill.RecommendRequest{Plan: budgetPlan(1), Candidates: []model.Candidate{{GPU: "h100", MaxCount: 1}},
		Stages: []distill.StageSearch{{Option: "o0", Stage: "student", Candidates: whole}}}
	_, err = distill.Recommend(cat, req)
	if fe := model.AsFieldError(err); fe == nil || fe.Field != "stages[0].candidates" || !strings.Contains(fe.Message, "options[0].student") {
		t.Errorf("a student over the whole table up to 4096 with 16 limits: %v, want an error on stages[0].candidates", err)
	}
}
