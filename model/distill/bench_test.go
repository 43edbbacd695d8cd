package distill_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/wattscale/wattscale/model/distill"
)

// BenchmarkPlan evaluates one measured plan (a baseline and a KD option)
// with its 50-point amortisation curve, Pareto set and advice.
func BenchmarkPlan(b *testing.B) {
	p := distill.Plan{Baseline: "sft-1b", Options: []distill.Option{
		{Name: "sft-1b", Regime: "sft", Quality: f(0.69), StagesKWh: &distill.StageValues{Preprocess: f(0.37), Student: f(6.30), Eval: f(0.33)}},
		{Name: "kd-1b", Regime: "kd", Quality: f(0.70), StagesKWh: &distill.StageValues{Preprocess: f(0.37), Teacher: f(11.00), Student: f(5.20), Eval: f(0.33)}},
	}}
	p.Site.PUE, p.Site.CarbonGPerKWh = 1, 170
	b.ReportAllocs()
	for b.Loop() {
		if _, err := distill.Evaluate(nil, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseAndPlan adds JSON decoding of the same plan.
func BenchmarkParseAndPlan(b *testing.B) {
	body := []byte(`{"baseline": "sft-1b", "options": [
	 {"name": "sft-1b", "regime": "sft", "stages_kwh": {"preprocess": 0.37, "student": 6.30, "eval": 0.33}, "quality": 0.69},
	 {"name": "kd-1b", "regime": "kd", "stages_kwh": {"preprocess": 0.37, "teacher": 11.00, "student": 5.20, "eval": 0.33}, "quality": 0.70}],
	 "site": {"pue": 1.0, "carbon_g_per_kwh": 170}}`)
	b.ReportAllocs()
	for b.Loop() {
		p, err := distill.ParsePlan(bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := distill.Evaluate(nil, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanEstimated evaluates the paper-setup plan with every stage
// estimated (three options, each with a fine-tuning estimate).
func BenchmarkPlanEstimated(b *testing.B) {
	cat := catalog(b)
	raw, err := os.ReadFile("../../content/examples/plan-paper-estimated.json")
	if err != nil {
		b.Fatal(err)
	}
	p, err := distill.ParsePlan(bytes.NewReader(raw))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := distill.Evaluate(cat, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecommendPlan runs the per-stage recommender on the paper-setup
// plan with every candidate of the hardware table: three student stages
// through model.Catalog.Recommend, three teacher-side inference stages
// (two teachers, three evaluations) searched over GPU × count × layout.
func BenchmarkRecommendPlan(b *testing.B) {
	cat := catalog(b)
	p := paperEstimatedPlan(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := distill.Recommend(cat, distill.RecommendRequest{Plan: p}); err != nil {
			b.Fatal(err)
		}
	}
}
