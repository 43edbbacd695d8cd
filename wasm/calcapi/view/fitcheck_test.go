package view

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
)

// TestFailedCalibrationSaysSo: a calibration of the user's that failed its
// fit checks (here the shipped roofline, renamed, with a held-out R²
// below 0 in its fit summary) is used
// only when accepted, and the calculator then says so in the calibration
// list, the hint and the line under the figure, instead of "inside its
// fitted range".
func TestFailedCalibrationSaysSo(t *testing.T) {
	c, api := newCalc(t)
	p, err := api.Catalog.Calibration(api.Catalog.Default)
	if err != nil {
		t.Fatal(err)
	}
	def := *p
	fs := *def.Fit
	fs.CVR2, fs.CVCoverage, def.Name, def.Fit = -0.5, 0.9, "my-roofline", &fs
	if ms := model.FitChecks(def); len(ms) != 1 || ms[0].Code != model.CodeFitHeldOutR2 {
		t.Fatalf("checks %v, want the held-out R² alone", ms)
	}
	raw, _ := json.Marshal(def)
	add := func(accept string) string {
		out := api.AddCalibration([]byte(`{"calibrations":[` + string(raw) + `],"accept":[` + accept + `]}`))
		c.Refresh()
		return string(out)
	}
	if out := add(``); !strings.Contains(out, `"code":"fit.failed_checks"`) {
		t.Fatalf("not accepted: %s, want the failed-checks error", out)
	}
	if out := add(`"my-roofline"`); strings.Contains(out, `"error"`) {
		t.Fatalf("accepted: %s", out)
	}
	html := c.RenderOf(RenderInput{Form: with("cal", "my-roofline")}).HTML
	for _, want := range []string{
		"(roofline; yours, fitted in this browser, failed checks)",
		"Calibration my-roofline " + def.Version + " (roofline, yours, failed checks): your calibration failed its fit checks",
		"used although it failed its fit checks: ",
	} {
		if !strings.Contains(html, esc(want)) {
			t.Errorf("the calculator on a failed calibration lacks %q", want)
		}
	}
	if strings.Contains(html, "inside its fitted range") {
		t.Error("the calculator says a failed calibration's estimate is inside its fitted range")
	}
}
