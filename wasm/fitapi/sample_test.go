package fitapi

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/wasm/calcapi"
)

// fitOf fits csv as kind asks and returns the output.
func fitOf(t *testing.T, csv []byte, kind string) Output {
	t.Helper()
	in, _ := json.Marshal(Input{CSV: string(csv), Name: "wattscale-sample.csv", Kind: kind})
	var out Output
	if err := json.Unmarshal(Fit(in), &out); err != nil {
		t.Fatal(err)
	}
	if out.Error != nil {
		t.Fatalf("fitting the sample CSV (%s): %s", kind, out.Error.Text)
	}
	return out
}

// TestSampleCSVFits checks the calculator page's downloadable sample (the
// published law SampleLaw with 10 % noise, the law's own η in column eta),
// as the page describes it: a law fit gives α_C, α_M and α_η back within
// two of their standard errors and passes its checks, and the calculator
// takes it as the user's own; the roofline fit (another model) fails its
// checks, so the page offers it only behind an override, and the
// calculator refuses it without one.
func TestSampleCSVFits(t *testing.T) {
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	api := calcapi.New(cat)
	law, err := cat.Calibration(SampleLaw)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"alpha_c": law.Law.AlphaC.Value, "alpha_m": law.Law.AlphaM.Value, "alpha_eta": law.Law.AlphaEta.Value}
	out := fitOf(t, sample(t, cat, SampleSeed), "law")
	seen := 0
	for _, k := range out.Calibration.Fit.Coefficients {
		w, ok := want[k.Name]
		if !ok {
			continue
		}
		seen++
		z := (k.Value - w) / k.SE
		t.Logf("%s = %.4g ± %.2g, drawn from %.4g: %+.2f SE", k.Name, k.Value, k.SE, w, z)
		if !(math.Abs(z) <= 2) {
			t.Errorf("%s fitted %.4g ± %.2g, the law it was drawn from %.4g (%.1f SE)", k.Name, k.Value, k.SE, w, z)
		}
	}
	if seen != len(want) {
		t.Errorf("%d of the law's exponents among the fitted coefficients, want %d", seen, len(want))
	}
	if len(out.Checks) > 0 || strings.Contains(out.HTML, "fit-failed") {
		t.Errorf("the law fit of the sample fails its checks: %v", out.Checks)
	}
	cal, _ := json.Marshal(out.Calibration)
	var own calcapi.OwnOutput
	if err := json.Unmarshal(api.AddCalibration([]byte(`{"calibrations":[`+string(cal)+`]}`)), &own); err != nil {
		t.Fatal(err)
	}
	if own.Error != nil {
		t.Fatalf("AddCalibration: %s", own.Error.Text)
	}

	roof := fitOf(t, sample(t, cat, SampleSeed), "roofline")
	codes := map[string]bool{}
	for _, m := range roof.Checks {
		codes[m.Code] = true
	}
	if !codes[model.CodeFitHeldOutR2] {
		t.Errorf("the roofline fit of the sample (held-out R² %.3g): checks %v, want %s", roof.Calibration.Fit.CVR2, roof.Checks, model.CodeFitHeldOutR2)
	}
	for _, s := range []string{`class="fit-failed"`, `class="use-anyway"`, `data-failed="1" disabled`, `data-code="` + model.CodeFitHeldOutR2 + `"`} {
		if !strings.Contains(roof.HTML, s) {
			t.Errorf("the failed fit's report lacks %s", s)
		}
	}
	rc, _ := json.Marshal(roof.Calibration)
	own = calcapi.OwnOutput{}
	json.Unmarshal(api.AddCalibration([]byte(`{"calibrations":[`+string(rc)+`]}`)), &own)
	if own.Error == nil || own.Error.Code != calcapi.CodeFailedChecks || own.Error.Field != "calibration" {
		t.Fatalf("a failed fit without the override: %+v, want error %s", own.Error, calcapi.CodeFailedChecks)
	}
	own = calcapi.OwnOutput{}
	json.Unmarshal(api.AddCalibration([]byte(`{"calibrations":[`+string(rc)+`],"accept":["`+roof.Calibration.Name+`"]}`)), &own)
	if own.Error != nil {
		t.Fatalf("a failed fit with the override: %s", own.Error.Text)
	}
	marked := false
	for _, c := range own.Calibrations {
		if c.Name == roof.Calibration.Name {
			marked = c.Own && len(c.Checks) == len(roof.Checks)
		}
	}
	if !marked {
		t.Errorf("the accepted failed fit is not listed as the user's with its failed checks: %+v", own.Calibrations)
	}
}

// TestSampleStandardErrorsHonest: across 100 noise seeds of the sample,
// the law fit's standard errors are honest: each exponent is within one SE
// of the law it was drawn from in at least half the files (68 % expected)
// and within two SEs in at least 85 % (95 % expected). Cluster-robust SEs
// over a few workload groups run a little small; a pipeline whose η or
// proxies drifted from the estimate's would fail by far.
func TestSampleStandardErrorsHonest(t *testing.T) {
	if testing.Short() {
		t.Skip("100 fits")
	}
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	law, _ := cat.Calibration(SampleLaw)
	want := map[string]float64{"alpha_c": law.Law.AlphaC.Value, "alpha_m": law.Law.AlphaM.Value, "alpha_eta": law.Law.AlphaEta.Value}
	const n = 100
	in1, in2 := map[string]int{}, map[string]int{}
	for s := uint64(0); s < n; s++ {
		for _, k := range fitOf(t, sample(t, cat, 1000+s), "law").Calibration.Fit.Coefficients {
			if w, ok := want[k.Name]; ok {
				z := math.Abs(k.Value-w) / k.SE
				if z <= 1 {
					in1[k.Name]++
				}
				if z <= 2 {
					in2[k.Name]++
				}
			}
		}
	}
	t.Logf("of %d seeds, within 1 SE %v, within 2 SE %v", n, in1, in2)
	for name := range want {
		if in1[name] < n/2 || in2[name] < 85*n/100 {
			t.Errorf("%s: within 1 SE in %d, within 2 SE in %d of %d seeds", name, in1[name], in2[name], n)
		}
	}
}

// sample is SampleCSV of cat with seed.
func sample(t *testing.T, cat *model.Catalog, seed uint64) []byte {
	t.Helper()
	b, err := SampleCSV(cat, seed)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSampleCSVIsLabelledSynthetic checks that every row of the sample says
// it is synthetic and that the file is the same on every call.
func TestSampleCSVIsLabelledSynthetic(t *testing.T) {
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	csv := string(sample(t, cat, SampleSeed))
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	if len(lines) < 20 {
		t.Fatalf("sample has %d lines", len(lines))
	}
	for i, l := range lines[1:] {
		if !strings.HasSuffix(l, "not a measurement") {
			t.Errorf("row %d %q does not say it is synthetic", i+1, l)
		}
	}
	if again := string(sample(t, cat, SampleSeed)); again != csv {
		t.Error("SampleCSV differs between calls")
	}
}
