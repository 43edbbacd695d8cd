package model_test

import (
	"math"
	"slices"
	"testing"

	"github.com/wattscale/wattscale/model"
)

// TestFitChecks: each failed check is found, with its numbers, and a fit
// that passes them all has none.
func TestFitChecks(t *testing.T) {
	good := func() model.Calibration {
		return model.Calibration{Kind: model.KindLogLinear,
			Law: &model.LawParams{AlphaC: model.Coefficient{Value: 0.05}, AlphaM: model.Coefficient{Value: 0.4}, AlphaEta: model.Coefficient{Value: -1.1}},
			Fit: &model.FitSummary{N: 40, Groups: 8, CVMethod: "grouped 5-fold", CVR2: 0.8, CVCoverage: 0.9}}
	}
	if ms := model.FitChecks(good()); len(ms) != 0 {
		t.Errorf("a good fit: %v", ms)
	}
	c := good()
	c.Fit = nil
	if ms := model.FitChecks(c); len(ms) != 0 {
		t.Errorf("no fit summary (a published calibration): %v", ms)
	}
	for _, tc := range []struct {
		name string
		edit func(*model.Calibration)
		code string
		arg  string
		want float64
	}{
		{"held-out R² below 0", func(c *model.Calibration) { c.Fit.CVR2 = -1.5 }, model.CodeFitHeldOutR2, "r2", -1.5},
		{"coverage 60 %", func(c *model.Calibration) { c.Fit.CVCoverage = 0.6 }, model.CodeFitCoverage, "coverage_pct", 60},
		{"no cross-validation", func(c *model.Calibration) { c.Fit.CVMethod = "" }, model.CodeFitNotHeldOut, "n", 40},
		{"α_C below 0", func(c *model.Calibration) { c.Law.AlphaC.Value = -0.2 }, model.CodeFitParamOutside, "value", -0.2},
		{"α_M below 0", func(c *model.Calibration) { c.Law.AlphaM.Value = -0.01 }, model.CodeFitParamOutside, "value", -0.01},
		{"α_η above 0", func(c *model.Calibration) { c.Law.AlphaEta.Value = 0.3 }, model.CodeFitParamOutside, "value", 0.3},
		{"α_η NaN", func(c *model.Calibration) { c.Law.AlphaEta.Value = math.NaN() }, model.CodeFitParamOutside, "value", math.NaN()},
	} {
		c := good()
		tc.edit(&c)
		ms := model.FitChecks(c)
		if len(ms) != 1 || ms[0].Code != tc.code {
			t.Errorf("%s: %v, want one %s", tc.name, ms, tc.code)
			continue
		}
		if got := ms[0].Args.Num(tc.arg); !(got == tc.want || math.IsNaN(got) && math.IsNaN(tc.want)) {
			t.Errorf("%s: %s = %v, want %v", tc.name, tc.arg, got, tc.want)
		}
		if txt := ms[0].Text(model.Technical); txt == "" || slices.Contains([]byte(txt), '{') {
			t.Errorf("%s: renders %q", tc.name, txt)
		}
	}
	// The law's sign checks are the law's: a roofline fit has none.
	c = good()
	c.Kind, c.Law.AlphaC.Value = model.KindRoofline, -1
	if ms := model.FitChecks(c); len(ms) != 0 {
		t.Errorf("a roofline calibration's law block is not checked: %v", ms)
	}
}
