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
