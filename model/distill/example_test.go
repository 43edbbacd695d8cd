package distill_test

import (
	"fmt"
	"strings"

	"github.com/wattscale/wattscale/model/distill"
)

// Evaluate a measured plan: is KD from a 32B teacher worth it against
// training a 1B student directly, and how many students must share the
// cached logits before it pays? (The stage energies are the paper's.)
func ExampleEvaluate() {
	plan, err := distill.ParsePlan(strings.NewReader(`{"baseline": "sft-1b",
	 "options": [
	   {"name": "sft-1b", "regime": "sft", "stages_kwh": {"preprocess": 0.37, "student": 6.30, "eval": 0.33}, "quality": 0.69},
	   {"name": "kd-1b", "regime": "kd", "stages_kwh": {"preprocess": 0.37, "teacher": 11.00, "student": 5.20, "eval": 0.33}, "quality": 0.70}],
	 "site": {"pue": 1.0, "carbon_g_per_kwh": 170, "usd_per_kwh": 0.15}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := distill.Evaluate(nil, plan) // no estimated stages: no catalog needed
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range r.Options {
		fmt.Printf("%s: %.2f kWh, %.2f kg CO2e", o.Name, o.TotalKWh, o.CO2eKg)
		if o.NStar != nil {
			fmt.Printf(", N* = %.1f, Ē(1) = %.2f, Ē(50) = %.2f kWh per student", *o.NStar, o.Curve[0].KWhPerStudent, o.Curve[49].KWhPerStudent)
		}
		fmt.Println()
	}
	fmt.Println(r.Advice[0])
	// Output:
	// sft-1b: 7.00 kWh, 1.19 kg CO2e
	// kd-1b: 16.90 kWh, 2.87 kg CO2e, N* = 10.0, Ē(1) = 16.20, Ē(50) = 5.42 kWh per student
	// At N = 1, kd-1b costs 2.41× sft-1b (16.90 vs 7.00 kWh); its teacher stage is 65 % of it (design rule 1: count the teacher).
}

// NStar solves Ē(N) = E_teacher/N + E_student_distill = E_student_SFT.
func ExampleNStar() {
	n, ok := distill.NStar(11.00, 33.15, 30.05) // KD 13B, the paper's stage table
	fmt.Printf("%.2f %v\n", n, ok)
	_, ok = distill.NStar(11.00, 5.00, 5.20) // the distilled student is not cheaper
	fmt.Println(ok)
	// Output:
	// 3.55 true
	// false
}

// TStar is the number of served tokens that repays extra training energy.
func ExampleTStar() {
	t, ok := distill.TStar(16.90, 2.0, 0.4) // kWh, J/token of the reference and of the student
	fmt.Printf("%.3g %v\n", t, ok)
	// Output:
	// 3.8e+07 true
}
