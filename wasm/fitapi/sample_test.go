package fitapi

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/wasm/calcapi"
)

// TestSampleCSVFits checks the calculator page's downloadable sample (the
// published law with 10 % noise): the refit reads it and recovers the law's
// compute exponent within its 95 % interval, and the fitted calibration is
// accepted by the calculator as the user's own.
func TestSampleCSVFits(t *testing.T) {
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	api := calcapi.New(cat)
	csv := api.SampleCSV()
	in, _ := json.Marshal(Input{CSV: string(csv), Name: "wattscale-sample.csv", Kind: "law"})
	var out Output
	if err := json.Unmarshal(Fit(in), &out); err != nil {
		t.Fatal(err)
	}
	if out.Error != nil {
		t.Fatalf("fitting the sample CSV: %s", out.Error.Text)
	}
	law, err := cat.Calibration(calcapi.SampleLaw)
	if err != nil {
		t.Fatal(err)
	}
	want := law.Law.AlphaC.Value
	seen := false
	for _, k := range out.Calibration.Fit.Coefficients {
		t.Logf("%s = %.4g [%.4g, %.4g]", k.Name, k.Value, k.CILow, k.CIHigh)
		if k.Name == "alpha_c" || k.Name == "α_C" {
			seen = true
			if !(k.CILow <= want && want <= k.CIHigh) && math.Abs(k.Value-want) > 0.05 {
				t.Errorf("alpha_c fitted %.4g [%.4g, %.4g], published %.4g", k.Value, k.CILow, k.CIHigh, want)
			}
		}
	}
	if !seen {
		t.Errorf("no alpha_c among the fitted coefficients")
	}
	cal, _ := json.Marshal(out.Calibration)
	var own calcapi.OwnOutput
	if err := json.Unmarshal(api.AddCalibration([]byte(`{"calibrations":[`+string(cal)+`]}`)), &own); err != nil {
		t.Fatal(err)
	}
	if own.Error != nil {
		t.Fatalf("AddCalibration: %s", own.Error.Text)
	}
}
