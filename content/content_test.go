package content

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/wattscale/wattscale/model"
)

// TestGeneratedCalibrations checks that the calibrations Catalog and
// PowerCalibration use without decoding JSON (calibrations_gen.go) are
// what the published files parse to: calibrations/*.json as
// ReadCalibrations reads them, in name order, and the power-limit file.
func TestGeneratedCalibrations(t *testing.T) {
	const regenerate = "calibrations_gen.go is out of date with the JSON files: run go generate ./content"
	files, err := ReadCalibrations(Calibrations, "calibrations")
	if err != nil {
		t.Fatal(err)
	}
	want := Values(files)
	if got := len(generatedCalibrations); got != len(want) {
		t.Fatalf("calibrations_gen.go holds %d calibrations, calibrations/*.json %d; %s", got, len(want), regenerate)
	}
	for i := range want {
		if !reflect.DeepEqual(generatedCalibrations[i], want[i]) {
			g, _ := json.Marshal(generatedCalibrations[i])
			w, _ := json.Marshal(want[i])
			t.Errorf("generated calibration %d (%s) differs from %s:\ngot  %s\nwant %s\n%s", i, generatedCalibrations[i].Name, files[i].Path, g, w, regenerate)
		}
	}
	pw, err := model.ParsePowerCalibration(PowerCalibrationJSON)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(generatedPowerCalibration, pw) {
		t.Errorf("generated power-limit calibration differs from calibrations/power/wattscale-power-limit.json; %s", regenerate)
	}
	cat, err := Catalog()
	if err != nil {
		t.Fatalf("Catalog() error: %v", err)
	}
	if !reflect.DeepEqual(cat.Calibrations, want) {
		t.Errorf("Catalog() calibrations differ from ReadCalibrations'")
	}
	if p, err := PowerCalibration(); err != nil || !reflect.DeepEqual(*p, pw) {
		t.Errorf("PowerCalibration() = %v, %v; want the parsed file", p, err)
	}
	// A catalog's slice is its own: appending to one does not reach the next.
	cat.Calibrations = append(cat.Calibrations[:1], model.Calibration{Name: "changed"})
	if again, _ := Catalog(); again.Calibrations[1].Name == "changed" {
		t.Errorf("Catalog() shares its calibrations slice between calls")
	}
}

// TestUtilisationsPhysical: every shipped roofline calibration's achieved
// fractions of peak and activity factors lie in (0, 1], their 95 %
// intervals included (issue 35: a fraction of peak past 1 is no hardware).
func TestUtilisationsPhysical(t *testing.T) {
	cals, err := ReadCalibrations(Calibrations, "calibrations")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range cals {
		name, r := f.Calibration.Name, f.Calibration.Roofline
		if r == nil {
			continue
		}
		coefs := map[string]model.Coefficient{"u_compute": r.UCompute, "u_memory": r.UMemory, "activity": r.Activity}
		if tp := r.Tensor; tp != nil {
			coefs["tensor.u_compute"], coefs["tensor.u_memory"], coefs["tensor.activity"] = tp.UCompute, tp.UMemory, tp.Activity
		}
		for k, v := range coefs {
			low := 0.0
			if k == "activity" || k == "tensor.activity" {
				low = -1e-12 // an activity factor may be 0 (idle power)
			}
			if !(v.Value > low && v.Value <= 1) || v.CIHigh > 1 || (v.CILow != 0 && !(v.CILow > low)) {
				t.Errorf("%s %s = %g, 95 %% interval [%g, %g]; want within (0, 1]", name, k, v.Value, v.CILow, v.CIHigh)
			}
		}
	}
}
