package meter

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// DefaultRAPLRoot is where Linux exposes RAPL energy counters (the powercap
// framework).
const DefaultRAPLRoot = "/sys/class/powercap"

// Domain is one RAPL power domain whose energy the recorder reads: a CPU
// package ("package-0"), a top-level intel-rapl:N zone. Sub-zones (core,
// uncore, dram) are inside the package figure or outside the CPU and psys
// covers the whole platform, so they are left out to avoid double counting.
type Domain struct {
	Name       string  // the zone's name file, e.g. "package-0"
	Dir        string  // zone directory relative to the root, e.g. "intel-rapl:0"
	MaxRangeUJ float64 // max_energy_range_uj: the counter wraps to 0 after it; 0 = unknown
}

var topZone = regexp.MustCompile(`^intel-rapl:[0-9]+$`)

// FindDomains lists the CPU package domains under root (an fs.FS of the
// powercap directory, called dir in the notes) whose energy counter can be
// read now. Zones it skips or cannot read are described in notes (a
// permission error says that energy_uj is root-only since Linux 5.10). No
// powercap directory at all is not an error: it gives no domains and a note.
func FindDomains(root fs.FS, dir string) (ds []Domain, notes []string) {
	entries, err := fs.ReadDir(root, ".")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, []string{fmt.Sprintf("cpu: cannot read %s (%v): CPU energy not recorded", dir, err)}
	}
	var dirs []string
	for _, e := range entries {
		if topZone.MatchString(e.Name()) {
			dirs = append(dirs, e.Name())
		}
	}
	sort.Slice(dirs, func(i, j int) bool { return zoneNum(dirs[i]) < zoneNum(dirs[j]) })
	for _, zone := range dirs {
		name, err := readTrim(root, path.Join(zone, "name"))
		if err != nil {
			notes = append(notes, fmt.Sprintf("cpu: %s: %v: zone skipped", zone, err))
			continue
		}
		if !strings.HasPrefix(name, "package") {
			notes = append(notes, fmt.Sprintf("cpu: %s (%s) is not a CPU package: not counted", zone, name))
			continue
		}
		d := Domain{Name: name, Dir: zone}
		if s, err := readTrim(root, path.Join(zone, "max_energy_range_uj")); err == nil {
			if x, err := strconv.ParseUint(s, 10, 64); err == nil && x > 0 {
				d.MaxRangeUJ = float64(x)
			}
		}
		if d.MaxRangeUJ == 0 {
			notes = append(notes, fmt.Sprintf("cpu: %s: max_energy_range_uj unreadable: a wrap-around of its counter cannot be corrected", zone))
		}
		if _, err := d.ReadUJ(root); err != nil {
			notes = append(notes, fmt.Sprintf("cpu: %s (%s): %v: CPU energy of this package not recorded", zone, name, err))
			continue
		}
		ds = append(ds, d)
	}
	if len(dirs) == 0 {
		notes = append(notes, fmt.Sprintf("cpu: no intel-rapl zones in %s: CPU energy not recorded", dir))
	}
	return ds, notes
}

func zoneNum(dir string) int {
	n, _ := strconv.Atoi(dir[strings.LastIndexByte(dir, ':')+1:])
	return n
}

// ReadUJ reads the domain's energy counter in µJ.
func (d Domain) ReadUJ(root fs.FS) (float64, error) {
	p := path.Join(d.Dir, "energy_uj")
	s, err := readTrim(root, p)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return 0, fmt.Errorf("%s: permission denied (energy_uj is readable by root only since Linux 5.10; run as root or make it readable)", p)
		}
		return 0, err
	}
	x, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a counter value", p, s)
	}
	return float64(x), nil
}

func readTrim(root fs.FS, name string) (string, error) {
	b, err := fs.ReadFile(root, name)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// CounterSample is one reading of an energy counter: Time in seconds on the
// recording's clock, the raw counter in µJ, OK false when the read failed.
type CounterSample struct {
	T  float64
	UJ float64
	OK bool
}

// Unwrap turns raw counter readings into cumulative joules since the first
// good reading. When the counter goes down it has wrapped: the step is
// (now + maxRangeUJ − before), the Linux powercap convention. With maxRangeUJ
// 0 (unknown) a decrease is counted as a reset and contributes nothing; resets
// says how many. Failed readings are skipped (the straight line between the
// neighbours bridges them).
func Unwrap(samples []CounterSample, maxRangeUJ float64) (t, joules []float64, wraps, resets int) {
	var prev, cum float64
	first := true
	for _, s := range samples {
		if !s.OK {
			continue
		}
		if !first {
			d := s.UJ - prev
			if d < 0 {
				if maxRangeUJ > 0 {
					d += maxRangeUJ
					wraps++
				} else {
					d = 0
					resets++
				}
			}
			cum += d
		}
		first = false
		prev = s.UJ
		t = append(t, s.T)
		joules = append(joules, cum/1e6)
	}
	return t, joules, wraps, resets
}
