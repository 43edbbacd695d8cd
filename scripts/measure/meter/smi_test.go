package meter

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeSMI puts the fake nvidia-smi (testdata/fake-nvidia-smi) first on PATH
// and returns the directory it was copied to.
func fakeSMI(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "testdata", "fake-nvidia-smi", "nvidia-smi"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "nvidia-smi"), src, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, k := range []string{"WATTSCALE_FAKE_POWER", "WATTSCALE_FAKE_TRACE", "WATTSCALE_FAKE_T0", "WATTSCALE_FAKE_NAME", "WATTSCALE_FAKE_FAIL", "WATTSCALE_FAKE_LOG"} {
		t.Setenv(k, "")
	}
	return dir
}

func TestParseReading(t *testing.T) {
	at := time.Date(2026, 1, 4, 14, 41, 13, 123e6, time.UTC)
	tests := []struct {
		line   string
		want   Reading
		errHas string
	}{
		{"0, 2026/01/04 14:41:13.123, 52.12", Reading{GPU: 0, Time: at, PowerW: 52.12, OK: true}, ""},
		{"3, 2026/01/04 14:41:13.123, 312.50 W", Reading{GPU: 3, Time: at, PowerW: 312.5, OK: true}, ""},
		{"1, 2026/01/04 14:41:13.123, [N/A]", Reading{GPU: 1, Time: at, Raw: "[N/A]"}, ""},
		{"1, 2026/01/04 14:41:13.123, [Not Supported]", Reading{GPU: 1, Time: at, Raw: "[Not Supported]"}, ""},
		{"1, 2026/01/04 14:41:13.123, -4", Reading{GPU: 1, Time: at, Raw: "-4"}, ""},
		{"1, 2026/01/04 14:41:13.123, NaN", Reading{GPU: 1, Time: at, Raw: "NaN"}, ""},
		{"0, 2026/01/04 14:41:13.123", Reading{}, "want 3 fields"},
		{"x, 2026/01/04 14:41:13.123, 5", Reading{}, "not a GPU index"},
		{"0, Sun Jan  4 14:41:13 2026, 5", Reading{}, "is not YYYY/MM/DD"},
	}
	for _, tc := range tests {
		got, err := ParseReading(tc.line, time.UTC)
		if tc.errHas != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errHas) {
				t.Errorf("ParseReading(%q) error = %v, want one containing %q", tc.line, err, tc.errHas)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseReading(%q) = %+v, %v; want %+v", tc.line, got, err, tc.want)
		}
	}
}

func TestLoopArgs(t *testing.T) {
	got := strings.Join(SMI{GPUs: []int{0, 2}, IntervalMS: 250}.LoopArgs(), " ")
	want := "--query-gpu=index,timestamp,power.draw --format=csv,noheader,nounits -lms 250 -i 0,2"
	if got != want {
		t.Errorf("LoopArgs = %q, want %q", got, want)
	}
}

// TestSamplerKnownTrace runs the fake nvidia-smi on a scripted trace and
// integrates what the sampler read: GPU 0 ramps 100 → 220 W over 6 s with
// one [N/A] reading; GPU 1 holds 60 W with one line missing. Both are
// piecewise linear, so the trapezoid rule is exact: (100+220)/2·6 = 960 J
// and 60·6 = 360 J.
func TestSamplerKnownTrace(t *testing.T) {
	fakeSMI(t)
	var trace strings.Builder
	for i := 0; i <= 12; i++ {
		x := 0.5 * float64(i)
		w0, w1 := fmt.Sprint(100+20*x), "60"
		if i == 4 {
			w0 = "NA"
		}
		if i == 7 {
			w1 = "SKIP"
		}
		fmt.Fprintf(&trace, "%g %s %s\n", x, w0, w1)
	}
	path := filepath.Join(t.TempDir(), "trace")
	if err := os.WriteFile(path, []byte(trace.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("WATTSCALE_FAKE_TRACE", path)
	t.Setenv("WATTSCALE_FAKE_T0", "1700000000")
	t.Setenv("TZ", "UTC")

	smi := SMI{IntervalMS: 500, Location: time.UTC}
	gpus, err := smi.List(context.Background())
	if err != nil || len(gpus) != 2 {
		t.Fatalf("List = %v, %v; want 2 GPUs", gpus, err)
	}
	base := time.Now().Round(0)
	st, err := smi.Start(func() time.Time { return time.Now().Round(0) })
	if err != nil {
		t.Fatal(err)
	}
	<-st.done // the scripted trace ends by itself
	readings, notes := st.Stop()
	if !strings.Contains(strings.Join(notes, "\n"), "shifted") {
		t.Errorf("notes = %q, want the clock-shift note (the trace is dated 2023)", notes)
	}
	want := []float64{960, 360}
	wantMissing := []int{1, 0}
	for g := range want {
		var ts, vs []float64
		missing, lines := 0, 0
		for _, r := range readings {
			if r.GPU != g {
				continue
			}
			lines++
			if !r.OK {
				missing++
				continue
			}
			ts, vs = append(ts, r.Time.Sub(base).Seconds()), append(vs, r.PowerW)
		}
		s, _ := NewSeries(ts, vs)
		if got := s.Integral(s.T[0], s.T[len(s.T)-1]); relErr(got, want[g]) > 1e-9 {
			t.Errorf("GPU %d energy = %.12g J, want %g J", g, got, want[g])
		}
		if missing != wantMissing[g] {
			t.Errorf("GPU %d: %d readings without a number, want %d", g, missing, wantMissing[g])
		}
		if g == 1 && lines != 12 {
			t.Errorf("GPU 1: %d lines, want 12 (one of 13 missing)", lines)
		}
	}
}

func TestListErrors(t *testing.T) {
	t.Run("no nvidia-smi", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		_, err := SMI{}.List(context.Background())
		if !errors.Is(err, ErrNoSMI) {
			t.Fatalf("List error = %v, want ErrNoSMI", err)
		}
		want := "measure: nvidia-smi not found on PATH: no NVIDIA GPU or driver (use -dry-run to see what would be read)"
		if err.Error() != want {
			t.Errorf("error = %q, want %q", err, want)
		}
	})
	t.Run("driver failure", func(t *testing.T) {
		fakeSMI(t)
		t.Setenv("WATTSCALE_FAKE_FAIL", "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.")
		_, err := SMI{}.List(context.Background())
		if err == nil || !strings.Contains(err.Error(), "couldn't communicate with the NVIDIA driver") || !strings.Contains(err.Error(), "exit status 9") {
			t.Errorf("List error = %v, want nvidia-smi's message and status", err)
		}
	})
	t.Run("selection", func(t *testing.T) {
		fakeSMI(t)
		t.Setenv("WATTSCALE_FAKE_POWER", "100 200")
		_, err := SMI{GPUs: []int{1, 3}}.List(context.Background())
		if want := "measure: -gpus: GPU 3 not found (nvidia-smi lists 0, 1)"; err == nil || err.Error() != want {
			t.Errorf("List error = %v, want %q", err, want)
		}
		got, err := SMI{GPUs: []int{1}}.List(context.Background())
		if err != nil || len(got) != 1 || got[0].Index != 1 || got[0].Name != "NVIDIA A100-SXM4-80GB" {
			t.Errorf("List(-gpus 1) = %v, %v; want GPU 1 only", got, err)
		}
	})
}

// TestStreamLongLine: a line of nvidia-smi's output one byte over maxLine
// is counted as unreadable with the limit in the notes, and the readings
// after it are kept (a bufio.Scanner stopped there without a word).
func TestStreamLongLine(t *testing.T) {
	st := &Stream{loc: time.UTC, now: time.Now, latest: map[int]time.Time{}, first: true, done: make(chan struct{})}
	out := strings.Repeat("x", maxLine+1) + "\n" + strings.Repeat("y", maxLine-1) + "\n"
	st.read(strings.NewReader(out))
	if st.bad != 2 || len(st.badLines) != 2 || !strings.Contains(st.badLines[0], fmt.Sprint(maxLine)) || strings.Contains(st.badLines[1], "longer") {
		t.Errorf("after a line over the limit and one under it: bad %d, %q", st.bad, st.badLines)
	}
	var l limited
	l.n = 10
	fmt.Fprint(&l, "0123456789abc")
	if s := l.String(); !strings.Contains(s, "3 more bytes not kept") {
		t.Errorf("stderr kept as %q, want the 3 bytes over its limit counted", s)
	}
}
