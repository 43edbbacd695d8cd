package calcapi

import (
	"encoding/json"
	"testing"
)

// BenchmarkEstimateInteraction is one calculator interaction as the page
// sends it: the form and the default chart sweep (73 points).
func BenchmarkEstimateInteraction(b *testing.B) {
	a := newAPI(b)
	counts := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 20, 24, 28, 32, 40, 48, 56, 64}
	in, _ := json.Marshal(EstimateInput{Form: DefaultForm(), Sweep: &SweepSpec{Counts: counts, Strategies: []string{"single", "ddp", "fsdp", "tp"}}})
	b.ReportAllocs()
	for b.Loop() {
		a.Estimate(in)
	}
}

// BenchmarkSweep1000 is a 1,000-point chart sweep in one call.
func BenchmarkSweep1000(b *testing.B) {
	a := newAPI(b)
	var counts []int
	for n := 1; n <= 333; n++ {
		counts = append(counts, n)
	}
	in, _ := json.Marshal(EstimateInput{Form: DefaultForm(), Sweep: &SweepSpec{Counts: counts, Strategies: []string{"single", "ddp", "fsdp", "tp"}}})
	var out EstimateOutput
	if err := json.Unmarshal(a.Estimate(in), &out); err != nil || len(out.Sweep) != 1000 {
		b.Fatalf("sweep has %d points, want 1000 (%v)", len(out.Sweep), err)
	}
	b.ReportAllocs()
	for b.Loop() {
		a.Estimate(in)
	}
}

// BenchmarkDistillInteraction is one planner interaction (the paper's 1B plan).
func BenchmarkDistillInteraction(b *testing.B) {
	a := newAPI(b)
	in, _ := json.Marshal(PlanInput{Form: DefaultPlanForm()})
	b.ReportAllocs()
	for b.Loop() {
		a.Distill(in)
	}
}

// BenchmarkPlanRecommendInteraction is one update of the planner's
// "cheaper hardware per stage" panel: the custom plan with one estimated
// LoRA student, searched over every GPU of the table up to 64 each.
func BenchmarkPlanRecommendInteraction(b *testing.B) {
	a := newAPI(b)
	in, _ := json.Marshal(PlanInput{Form: estimatedStudentForm(map[string]string{"method": "lora"})})
	b.ReportAllocs()
	for b.Loop() {
		a.DistillRecommend(in)
	}
}

// BenchmarkRecommendInteraction is one update of the calculator's
// "cheaper ways to run this" panel on its default form, for comparison.
func BenchmarkRecommendInteraction(b *testing.B) {
	a := newAPI(b)
	in, _ := json.Marshal(RecommendInput{Form: DefaultForm()})
	b.ReportAllocs()
	for b.Loop() {
		a.Recommend(in)
	}
}
