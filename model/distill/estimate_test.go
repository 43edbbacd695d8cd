package distill_test

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/distill"
)

var update = flag.Bool("update", false, "rewrite golden files")

const h100 = "h100-sxm5"

// teacherPlan is an SFT baseline and one option whose teacher stage is
// estimated from spec (other stages measured).
func teacherPlan(regime string, spec distill.InferenceSpec) distill.Plan {
	return distill.Plan{
		Options: []distill.Option{
			{Name: "sft", Regime: "sft", StagesKWh: &distill.StageValues{Preprocess: f(0), Student: f(6), Eval: f(0)}},
			{Name: "d", Regime: regime, Teacher: &spec, StagesKWh: &distill.StageValues{Preprocess: f(0), Student: f(5), Eval: f(0)}},
		},
		Site: model.SiteSpec{PUE: 1, CarbonGPerKWh: 100, USDPerKWh: 0.1},
	}
}

func stageOf(t testing.TB, r distill.Result, opt, stage string) distill.StageResult {
	t.Helper()
	for _, s := range option(t, r, opt).Stages {
		if s.Stage == stage {
			return s
		}
	}
	t.Fatalf("%s has no %s stage", opt, stage)
	return distill.StageResult{}
}

func logitSpec(tokens, batch float64) distill.InferenceSpec {
	return distill.InferenceSpec{Model: model.ModelSpec{Preset: "olmo-2-32b"}, Hardware: model.HardwareSpec{GPU: h100, Count: 1},
		Tokens: tokens, SeqLen: 1024, Batch: batch}
}

func genSpec(batch, newTokens float64) distill.InferenceSpec {
	return distill.InferenceSpec{Model: model.ModelSpec{Preset: "olmo-2-32b"}, Hardware: model.HardwareSpec{GPU: h100, Count: 1},
		Prompts: 4096, PromptTokens: 256, MaxNewTokens: newTokens, Batch: batch}
}

func TestInferencePhysics(t *testing.T) {
	cat := catalog(t)
	cal, err := cat.Calibration("")
	if err != nil {
		t.Fatal(err)
	}
	g, _ := cat.Hardware.Lookup(h100)
	rp := cal.Roofline
	pBusy := g.IdlePowerW + rp.Activity.Value*(g.BoardPowerW-g.IdlePowerW)
	startS := rp.OverheadS.Value + model.WarmupS // a stage's whole start-up
	e0 := g.IdlePowerW * startS / 3.6e6
	teacher := func(regime string, s distill.InferenceSpec) distill.StageResult {
		t.Helper()
		return stageOf(t, evaluate(t, cat, teacherPlan(regime, s)), "d", distill.StageTeacher)
	}

	// Logit caching is linear in tokens apart from the fixed start-up, and compute-bound.
	one, two := teacher("kd", logitSpec(1024*4*1000, 4)), teacher("kd", logitSpec(2*1024*4*1000, 4))
	if got, want := two.EnergyKWh, 2*one.EnergyKWh-e0; relErr(got, want) > 1e-9 {
		t.Errorf("logit caching of 2T tokens = %.9g kWh, want 2·E(T) − E₀ = %.9g", got, want)
	}
	if !strings.Contains(one.Detail, "compute-bound") {
		t.Errorf("logit caching detail %q: want compute-bound", one.Detail)
	}
	// Its energy is at least the ideal compute time at busy power: 2·N FLOPs per token at peak.
	preset, _ := model.FindPreset(cat.Presets, "olmo-2-32b")
	if lb := 2 * preset.Arch.NonEmbeddingParams() * one.Tokens / (g.BF16TFLOPS * 1e12) * pBusy / 3.6e6; one.EnergyKWh < lb {
		t.Errorf("logit caching %.4g kWh below the compute bound %.4g kWh", one.EnergyKWh, lb)
	}

	// Generation: J/token falls as the batch grows; at batch 1 it is memory-bound and
	// costs at least one read of the weights at peak bandwidth per token.
	prev := math.Inf(1)
	for _, b := range []float64{1, 2, 4, 8, 16} {
		s := teacher("synthetic", genSpec(b, 512))
		if !(s.JPerToken < prev) {
			t.Errorf("generation at batch %g: %.4g J/token, not below %.4g at half the batch", b, s.JPerToken, prev)
		}
		prev = s.JPerToken
		if b == 1 {
			if !strings.Contains(s.Detail, "memory-bound") {
				t.Errorf("batch-1 generation detail %q: want memory-bound", s.Detail)
			}
			if lb := preset.Arch.NonEmbeddingParams() * 2 / (g.BandwidthGBs * 1e9) * pBusy; s.JPerToken < lb {
				t.Errorf("batch-1 generation %.4g J/token below one weight read per token %.4g J", s.JPerToken, lb)
			}
		}
	}
	// Longer generations cost more per prompt, and at least proportionally.
	short, long := teacher("synthetic", genSpec(8, 256)), teacher("synthetic", genSpec(8, 1024))
	if !((long.EnergyKWh - e0) >= 4*(short.EnergyKWh-e0)*(1-1e-12)) {
		t.Errorf("max_new_tokens 1024 uses %.4g kWh, less than 4× the %.4g kWh of 256", long.EnergyKWh, short.EnergyKWh)
	}
	// A smaller teacher costs less.
	small := genSpec(8, 512)
	small.Model = model.ModelSpec{Preset: "olmo-2-7b"}
	if s, l := teacher("synthetic", small), teacher("synthetic", genSpec(8, 512)); !(s.EnergyKWh < l.EnergyKWh) {
		t.Errorf("olmo-2-7b generation %.4g kWh not below olmo-2-32b's %.4g", s.EnergyKWh, l.EnergyKWh)
	}
	// Two replicas halve the time at the energy of one plus the second GPU's start-up;
	// tensor parallelism is faster than one GPU and never cheaper.
	base := teacher("synthetic", genSpec(8, 512))
	dp := genSpec(8, 512)
	dp.Hardware.Count, dp.Strategy = 2, "dp"
	d := teacher("synthetic", dp)
	if relErr(d.EnergyKWh, base.EnergyKWh+e0) > 1e-9 || relErr(d.TimeS-startS, (base.TimeS-startS)/2) > 1e-9 {
		t.Errorf("dp on 2 GPUs: %.6g kWh, %.6g s; want %.6g kWh, %.6g s", d.EnergyKWh, d.TimeS, base.EnergyKWh+e0, (base.TimeS-startS)/2+startS)
	}
	tp := dp
	tp.Strategy = "tp"
	if p := teacher("synthetic", tp); !(p.EnergyKWh >= base.EnergyKWh+e0) || !(p.TimeS < base.TimeS) {
		t.Errorf("tp on 2 GPUs: %.6g kWh, %.6g s; one GPU %.6g kWh, %.6g s", p.EnergyKWh, p.TimeS, base.EnergyKWh, base.TimeS)
	}
	// A lower achieved fraction of peak raises a compute-bound stage's energy.
	slow := logitSpec(1024*4*1000, 4)
	slow.UCompute = 0.4
	if s := teacher("kd", slow); !(s.EnergyKWh > 1.5*one.EnergyKWh) {
		t.Errorf("u_compute 0.4: %.4g kWh, want well above %.4g at the calibration's u_compute", s.EnergyKWh, one.EnergyKWh)
	}
}

func TestPreprocessPrerunStudent(t *testing.T) {
	cat := catalog(t)
	cal, _ := cat.Calibration("")
	g, _ := cat.Hardware.Lookup(h100)
	rp := cal.Roofline
	req := model.Request{Model: model.ModelSpec{Preset: "olmo-2-1b"}, Training: model.TrainingSpec{Tokens: 3e7, SeqLen: 1024, BatchPerGPU: 8, Precision: model.BF16},
		Hardware: model.HardwareSpec{GPU: h100, Count: 1}, Strategy: model.Strategy{Name: model.Single}}
	p := distill.Plan{Options: []distill.Option{{Name: "sft", Regime: "sft",
		Prerun:     &distill.PrerunSpec{Hardware: model.HardwareSpec{GPU: h100, Count: 2}, IdleS: 60, BurnInS: 30},
		Preprocess: &distill.PreprocessSpec{Tokens: 2e7, TokensPerS: 1e6, CPUPowerW: 200, Hardware: model.HardwareSpec{GPU: h100, Count: 2}},
		Student:    &req, StagesKWh: &distill.StageValues{Eval: f(0.3)}}},
		Site: model.SiteSpec{PUE: 1.1, CarbonGPerKWh: 200, USDPerKWh: 0.2}}
	r := evaluate(t, cat, p)
	pre := stageOf(t, r, "sft", distill.StagePreprocess)
	if want := (2e7/1e6 + rp.OverheadS.Value + model.WarmupS) * (200 + 2*g.IdlePowerW) / 3.6e6; relErr(pre.EnergyKWh, want) > 1e-12 {
		t.Errorf("preprocess = %.6g kWh, want %.6g", pre.EnergyKWh, want)
	}
	pr := stageOf(t, r, "sft", distill.StagePrerun)
	busy := g.IdlePowerW + rp.Activity.Value*(g.BoardPowerW-g.IdlePowerW)
	if want := 2 * (60*g.IdlePowerW + 30*busy) / 3.6e6; relErr(pr.EnergyKWh, want) > 1e-12 {
		t.Errorf("prerun = %.6g kWh, want %.6g", pr.EnergyKWh, want)
	}
	// The student stage is the fine-tuning estimate with the plan's site.
	req.Site = p.Site
	ft, err := cat.Estimate(req)
	if err != nil {
		t.Fatal(err)
	}
	st := stageOf(t, r, "sft", distill.StageStudent)
	if st.EnergyKWh != ft.EnergyKWh || st.TimeS != ft.TimeS || st.Tokens != 3e7 {
		t.Errorf("student stage %.6g kWh, %.6g s, %g tokens; fine-tuning estimate %.6g kWh, %.6g s", st.EnergyKWh, st.TimeS, st.Tokens, ft.EnergyKWh, ft.TimeS)
	}
	if o := option(t, r, "sft"); o.TimeS != 0 {
		t.Errorf("option time %.6g s although the eval stage is measured (no time)", o.TimeS)
	}
}

// Processed-token counts of the paper's stages, as the study's harness logs
// imply them (github.com/StellarLuminosity/Energy, commit 091a5534, stage
// logs and experiment summaries): published stage kWh × 3.6e6 ÷ the joules
// per token the harness measured for the same kind of stage (GPU + CPU).
//
//	stage                   J/token  harness log                                    published kWh  tokens
//	SFT student 1B          0.03424  off_logs sft_32b_to_1b_tulu_3500 (18,493 tok/s)   6.30         6.62e8
//	SFT student 13B         0.2580   logs sft_32b_to_13b_tulu_nosft (2,585 tok/s)     33.15         4.63e8
//	KD student 1B           0.2583   logs kd_olmo2_32b_to_1b_nosft step 50,800 (GPU)   5.20         7.26e7
//	KD student 13B          1.2534   logs kd_olmo2_32b_to_13b_nosft step 22,200 (GPU) 30.05         8.63e7
//	synthetic student 1B    0.03424  as SFT 1B (same training step)                    5.35         5.62e8
//	synthetic student 13B   0.2580   as SFT 13B                                       28.65         4.00e8
//	generation (32B)        3.923    off_logs synthetic_{tulu_1024,math,codeforces}   10.60         9.73e6 new tokens
//	logit caching (32B)     1.35     logit_caching_temp2 power log, 5.27 kWh, over     11.00         2.93e7
//	                                 one pass of the 1.40e7-token training set
//
// KD students: the stages log a running count of processed tokens every
// 200 steps (kd_main.py keeps one total per stage, no per-epoch reset).
// The 1B nosft stage's last log (step 50,800: 72,620,078 tokens,
// 18,756,813 J of GPU energy in 86,083 s) is the paper's 1B KD stage
// (5.20 kWh published, 5.21 kWh logged), so its count is taken as it is.
// Its experiment_summary.json says 14,045,252 tokens: exactly the count of
// the step-9,800 log, one epoch of the training set, which is what the
// teacher caches once. The 13B nosft stage's logs stop at 24 h (step
// 22,200: 31,684,186 tokens, 39,713,773 J), 11.03 of the published
// 30.05 kWh; its count is scaled by the published energy at the logged
// GPU joules per token (the CPU's share is not in those logs, so this is
// an upper bound).
//
// Generation: the three logs generated 14.11 M tokens for 15.38 kWh; the
// harness's mean response is 768 new tokens (TULU: 5.375 M tokens from its
// 7,000 prompts) at batch 8 (configs: batch_size 8), so 9.73e6 new tokens
// are 12,670 prompts × 768. The 1B counts are in
// content/examples/plan-paper-estimated.json; the 13B ones below.
var paper13BTokens = map[string]float64{"sft-1b": 4.63e8, "kd-1b": 8.63e7, "synthetic-1b": 4.00e8}

// TestPaperSetupComparison estimates the paper's stages from the processed-
// token counts above and compares them with the published measured stage
// energies. The stages whose GPU was kept busy (SFT and synthetic-SFT
// students, synthetic generation) must land within ×2 of the published
// figure. The stages that move cached top-k log-probs (logit caching, KD
// students) were host-bound in the harness (370–870 tokens/s at a few per
// cent of peak); the physics cannot match them, so the test asserts that
// the estimate stays below the measured energy and that the planner warns.
// The whole table is also a golden file, so any change shows up for review.
func TestPaperSetupComparison(t *testing.T) {
	rows, warnings := paperComparison(t)
	for _, r := range rows {
		q := r.kwh / r.published
		switch r.check {
		case within2:
			if !(q >= 0.5 && q <= 2) {
				t.Errorf("%s: estimated %.3g kWh = %.3g × published %.2f kWh, want within ×2", r.stage, r.kwh, q, r.published)
			}
		case hostBound:
			if !(q > 0 && q < 1) {
				t.Errorf("%s: estimated %.3g kWh = %.3g × published %.2f kWh, want a GPU-bound lower bound (below 1)", r.stage, r.kwh, q, r.published)
			}
			if !hasWarning(warnings, r.option, r.warn) {
				t.Errorf("%s: no %q warning for option %s among %q", r.stage, r.warn, r.option, warnings)
			}
		}
	}
	got := formatComparison(rows)
	path := filepath.Join("testdata", "paper-comparison.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./model/distill -update)", err)
	}
	if got != string(want) {
		t.Errorf("paper comparison differs from %s (run with -update if intended):\n%s\nwant:\n%s", path, got, want)
	}
	t.Logf("\n%s", got)
}

// Checks of a comparison row.
const (
	shown     = iota // shown, not asserted (host or benchmark stages)
	within2          // GPU-bound: within ×2 of the published energy
	hostBound        // host-bound in the harness: below it, with a warning
)

type comparisonRow struct {
	stage, pipeline string
	published       float64
	est             string // why there is no estimate, or ""
	kwh             float64
	check           int
	option, warn    string // hostBound: the option and the warning expected
}

func hasWarning(ws []string, option, sub string) bool {
	for _, w := range ws {
		if strings.HasPrefix(w, option+" ") && strings.Contains(w, sub) {
			return true
		}
	}
	return false
}

// paperComparison evaluates content/examples/plan-paper-estimated.json
// (1B students, Adafactor on bf16 weights and gradient checkpointing, as
// the harness ran them) and its 13B variant (the same 4 bytes per
// parameter, which fits one H100 as in the paper; with AdamW's 16 it does
// not) and returns estimated
// against published stage energies and the plans' warnings (prefixed with
// their size).
func paperComparison(t *testing.T) ([]comparisonRow, []string) {
	cat := catalog(t)
	fh, err := os.Open("../../content/examples/plan-paper-estimated.json")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	p1, err := distill.ParsePlan(fh)
	if err != nil {
		t.Fatal(err)
	}
	r1 := evaluate(t, cat, p1)
	to13 := func(stateBytes float64) distill.Plan {
		var p distill.Plan
		p.Site, p.Baseline = p1.Site, "sft-1b"
		for _, o := range p1.Options {
			s := *o.Student
			s.Model.Preset = "olmo-2-13b"
			s.Training.Tokens = paper13BTokens[o.Name]
			s.Training.StateBytesPerParam = stateBytes
			o.Student = &s
			p.Options = append(p.Options, o)
		}
		return p
	}
	// With AdamW's 16 bytes per parameter the 13B student does not fit one H100.
	_, err16 := distill.Evaluate(cat, to13(0))
	r13 := evaluate(t, cat, to13(4))
	refused := "refused"
	if fe := model.AsFieldError(err16); fe != nil {
		refused = "refused: " + fe.Field + " " + strings.SplitN(fe.Message, " (", 2)[0]
	}
	get := func(r distill.Result, opt, stage string) float64 { return stageOf(t, r, opt, stage).EnergyKWh }
	const cacheWarn = "cached teacher log-probs"
	rows := []comparisonRow{
		{"preprocess (CPU tokenisation; not modelled from logs)", "all (1B)", 0.37, "", get(r1, "sft-1b", "preprocess"), shown, "", ""},
		{"teacher: logit caching, 2.93e7 tokens", "KD", 11.00, "", get(r1, "kd-1b", "teacher"), hostBound, "kd-1b", cacheWarn},
		{"teacher: generation, 12,670 × 768 new tokens, batch 8", "synthetic", 10.60, "", get(r1, "synthetic-1b", "teacher"), within2, "", ""},
		{"student 1B, 6.62e8 tokens", "SFT", 6.30, "", get(r1, "sft-1b", "student"), within2, "", ""},
		{"student 1B, 7.26e7 tokens", "KD", 5.20, "", get(r1, "kd-1b", "student"), hostBound, "kd-1b", cacheWarn},
		{"student 1B, 5.62e8 tokens", "synthetic", 5.35, "", get(r1, "synthetic-1b", "student"), within2, "", ""},
		{"student 13B, AdamW (16 bytes/param)", "SFT", 33.15, refused, 0, shown, "", ""},
		{"student 13B, 4 bytes/param, 4.63e8 tokens", "SFT", 33.15, "", get(r13, "sft-1b", "student"), within2, "", ""},
		{"student 13B, 4 bytes/param, 8.63e7 tokens", "KD", 30.05, "", get(r13, "kd-1b", "student"), hostBound, "13b:kd-1b", cacheWarn},
		{"student 13B, 4 bytes/param, 4.00e8 tokens", "synthetic", 28.65, "", get(r13, "synthetic-1b", "student"), within2, "", ""},
		{"eval 1B (benchmark harness)", "all", 0.33, "", get(r1, "sft-1b", "eval"), shown, "", ""},
		{"eval 13B (benchmark harness)", "all", 1.08, "", get(r13, "sft-1b", "eval"), shown, "", ""},
	}
	var warnings []string
	warnings = append(warnings, r1.Warnings...)
	for _, w := range r13.Warnings {
		warnings = append(warnings, "13b:"+w)
	}
	return rows, warnings
}

// formatComparison prints the rows at 3 significant digits.
func formatComparison(rows []comparisonRow) string {
	var b strings.Builder
	b.WriteString("Estimated (physics, calibration defaults) vs published (Lambert & Luccioni 2026, stage table) stage energies, kWh;\n")
	b.WriteString("paper setup: teacher olmo-2-32b, students olmo-2-1b/13b, one H100 SXM, bf16, seq 1024, students' micro-batch 4 with\n")
	b.WriteString("16 accumulated per optimizer step (the harness's configs/base.yaml), gradient checkpointing (always on in its sft_main.py\n")
	b.WriteString("and kd_main.py) and Adafactor on bf16 weights (4 bytes/param, the optimizer of the stage logs below); tokens are the processed-token\n")
	b.WriteString("counts the study's harness logs imply (estimate_test.go); check: x2 = GPU-bound, must be within x2; host = host-bound\n")
	b.WriteString("in the harness, must be below with a warning; - = shown only\n\n")
	b.WriteString("| stage | pipeline | published | estimated | estimated/published | check |\n|---|---|---|---|---|---|\n")
	for _, r := range rows {
		est, ratio := r.est, "—"
		if est == "" {
			est = fmt.Sprintf("%#.3g", r.kwh)
			ratio = fmt.Sprintf("%#.3g", r.kwh/r.published)
		}
		check := [...]string{"-", "x2", "host"}[r.check]
		fmt.Fprintf(&b, "| %s | %s | %.2f | %s | %s | %s |\n", r.stage, r.pipeline, r.published, est, ratio, check)
	}
	return b.String()
}
