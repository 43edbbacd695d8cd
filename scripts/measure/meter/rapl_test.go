package meter

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// raplTree writes a fake powercap tree: zone directory → files.
func raplTree(t *testing.T, zones map[string]map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for zone, files := range zones {
		dir := filepath.Join(root, zone)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return root
}

// denyFS answers fs.ErrPermission for files named deny, as a non-root user
// reading energy_uj on Linux 5.10 and later gets.
type denyFS struct {
	fs.FS
	deny string
}

func (d denyFS) Open(name string) (fs.File, error) {
	if name == d.deny {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return d.FS.Open(name)
}

func TestFindDomains(t *testing.T) {
	root := raplTree(t, map[string]map[string]string{
		"intel-rapl:0":   {"name": "package-0", "energy_uj": "1000", "max_energy_range_uj": "262143328850"},
		"intel-rapl:0:0": {"name": "core", "energy_uj": "10", "max_energy_range_uj": "262143328850"},
		"intel-rapl:1":   {"name": "package-1", "energy_uj": "2000", "max_energy_range_uj": "262143328850"},
		"intel-rapl:2":   {"name": "psys", "energy_uj": "5", "max_energy_range_uj": "262143328850"},
		"intel-rapl:10":  {"name": "package-10", "energy_uj": "7"},
	})
	t.Run("readable", func(t *testing.T) {
		ds, notes := FindDomains(os.DirFS(root), root)
		var names []string
		for _, d := range ds {
			names = append(names, d.Name)
		}
		if got, want := strings.Join(names, ","), "package-0,package-1,package-10"; got != want {
			t.Errorf("domains = %s, want %s (sub-zones and psys left out, numeric order)", got, want)
		}
		if ds[0].MaxRangeUJ != 262143328850 {
			t.Errorf("MaxRangeUJ = %g, want 262143328850", ds[0].MaxRangeUJ)
		}
		joined := strings.Join(notes, "\n")
		for _, want := range []string{"intel-rapl:2 (psys) is not a CPU package", "intel-rapl:10: max_energy_range_uj unreadable"} {
			if !strings.Contains(joined, want) {
				t.Errorf("notes = %q, want one containing %q", joined, want)
			}
		}
	})
	t.Run("permission denied", func(t *testing.T) {
		ds, notes := FindDomains(denyFS{os.DirFS(root), "intel-rapl:1/energy_uj"}, root)
		for _, d := range ds {
			if d.Name == "package-1" {
				t.Errorf("package-1 listed although its counter is not readable")
			}
		}
		joined := strings.Join(notes, "\n")
		if !strings.Contains(joined, "permission denied") || !strings.Contains(joined, "root only") {
			t.Errorf("notes = %q, want a permission note naming root-only access", joined)
		}
	})
	t.Run("no powercap", func(t *testing.T) {
		ds, notes := FindDomains(os.DirFS(filepath.Join(root, "absent")), "absent")
		if len(ds) != 0 || len(notes) != 1 || notes[0] != "cpu: cannot read absent (no such file or directory): CPU energy not recorded" {
			t.Errorf("FindDomains(absent) = %v, %q; want no domains and one note", ds, notes)
		}
	})
}

func TestRAPLWrapAround(t *testing.T) {
	const max = 1_000_000 // µJ
	root := raplTree(t, map[string]map[string]string{
		"intel-rapl:0": {"name": "package-0", "energy_uj": "0", "max_energy_range_uj": strconv.Itoa(max)},
	})
	fsys := os.DirFS(root)
	ds, _ := FindDomains(fsys, root)
	if len(ds) != 1 {
		t.Fatalf("FindDomains = %v, want one package", ds)
	}
	// The counter as the kernel would show it at five reads: it wraps once
	// between the second and third.
	values := []int{998_000, 999_900, 100, 4_100, 504_100}
	var samples []CounterSample
	for i, v := range values {
		if err := os.WriteFile(filepath.Join(root, "intel-rapl:0", "energy_uj"), []byte(strconv.Itoa(v)), 0o644); err != nil {
			t.Fatal(err)
		}
		uj, err := ds[0].ReadUJ(fsys)
		samples = append(samples, CounterSample{T: float64(i), UJ: uj, OK: err == nil})
	}
	// A failed read between the 4th and 5th is skipped.
	samples = append(samples[:4], append([]CounterSample{{T: 3.5, OK: false}}, samples[4:]...)...)
	tt, joules, wraps, resets := Unwrap(samples, ds[0].MaxRangeUJ)
	// 1,900 + (100 + 1,000,000 − 999,900) + 4,000 + 500,000 µJ.
	want := (1_900.0 + 200 + 4_000 + 500_000) / 1e6
	if got := joules[len(joules)-1]; relErr(got, want) > 1e-12 {
		t.Errorf("unwrapped energy = %.9g J, want %.9g J", got, want)
	}
	if wraps != 1 || resets != 0 {
		t.Errorf("wraps, resets = %d, %d; want 1, 0", wraps, resets)
	}
	if len(tt) != len(values) {
		t.Errorf("%d readings kept, want %d (the failed one skipped)", len(tt), len(values))
	}
	// Without the range a decrease is a reset that counts nothing.
	_, joules, wraps, resets = Unwrap(samples, 0)
	if want := (1_900.0 + 4_000 + 500_000) / 1e6; relErr(joules[len(joules)-1], want) > 1e-12 || wraps != 0 || resets != 1 {
		t.Errorf("Unwrap without range = %g J, %d wraps, %d resets; want %g J, 0, 1", joules[len(joules)-1], wraps, resets, want)
	}
}
