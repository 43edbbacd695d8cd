package content_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/content"
)

// TestShippedCalibrationsRoundTrip: the embedded calibrations, encoded as
// a site hands them to the calculator and decoded as the calculator reads
// them, are the same files and calibrations, and their catalog estimates
// as the embedded one does.
func TestShippedCalibrationsRoundTrip(t *testing.T) {
	files, err := content.ReadCalibrations(content.Calibrations, "calibrations")
	if err != nil {
		t.Fatal(err)
	}
	b, err := content.EncodeCalibrations(files)
	if err != nil {
		t.Fatal(err)
	}
	got, err := content.DecodeCalibrations(b)
	if err != nil {
		t.Fatalf("DecodeCalibrations(EncodeCalibrations(embedded)): %v", err)
	}
	if !reflect.DeepEqual(got, files) {
		t.Errorf("round trip changed the files: got %d, want %d", len(got), len(files))
	}
	if _, err := content.ShippedCatalog(b); err != nil {
		t.Errorf("ShippedCatalog: %v", err)
	}
}

// TestShippedCalibrationsStrict: what the calculator is handed goes
// through ReadCalibrations' rules, each bad file named.
func TestShippedCalibrationsStrict(t *testing.T) {
	files, err := content.ReadCalibrations(content.Calibrations, "calibrations")
	if err != nil {
		t.Fatal(err)
	}
	good := string(files[0].Raw)
	enc := func(kv ...string) string {
		var out []map[string]string
		for i := 0; i < len(kv); i += 2 {
			out = append(out, map[string]string{"path": kv[i], "raw": kv[i+1]})
		}
		b, _ := json.Marshal(out)
		return string(b)
	}
	for _, c := range []struct{ name, in, want string }{
		{"not JSON", `{`, "shipped calibrations:"},
		{"no file", `[]`, "no file"},
		{"not a json file", enc("calibrations/x.txt", good), `"calibrations/x.txt" is not a *.json file`},
		{"twice", enc(files[0].Path, good, files[0].Path, good), files[0].Path + " appears twice"},
		{"name is not the file's", enc("calibrations/other.json", good), `calibrations/other.json:1: calibration name`},
		{"syntax error with its line", enc(files[0].Path, "{\n\"name\": \n}"), files[0].Path + ":3:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := content.DecodeCalibrations([]byte(c.in))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("DecodeCalibrations(%.60s) error %v, want one containing %q", c.in, err, c.want)
			}
		})
	}
}
