package content

import (
	"bytes"
	"io/fs"
	"strings"
	"testing"
)

// TestEmbeddedCalibrations checks that Catalog's file-by-file list of the
// embedded calibrations is exactly calibrations/*.json, byte for byte, in
// name order (a calibration added to the folder must be added to
// embeddedCalibrations and given its own go:embed line).
func TestEmbeddedCalibrations(t *testing.T) {
	names, err := fs.Glob(Calibrations, "calibrations/*.json")
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, e := range embeddedCalibrations {
		listed = append(listed, e.path)
	}
	if got, want := strings.Join(listed, "\n"), strings.Join(names, "\n"); got != want {
		t.Fatalf("embeddedCalibrations lists\n%s\nwant calibrations/*.json:\n%s\n(add each new file to embeddedCalibrations in content.go with its own //go:embed variable)", got, want)
	}
	for _, e := range embeddedCalibrations {
		raw, err := fs.ReadFile(Calibrations, e.path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(*e.raw, raw) {
			t.Errorf("%s: the go:embed variable holds %d bytes, the folder's file %d", e.path, len(*e.raw), len(raw))
		}
	}
	cat, err := Catalog()
	if err != nil {
		t.Fatalf("Catalog() error: %v", err)
	}
	files, err := ReadCalibrations(Calibrations, "calibrations")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(cat.Calibrations), len(files); got != want {
		t.Errorf("Catalog() has %d calibrations, ReadCalibrations %d", got, want)
	}
}
