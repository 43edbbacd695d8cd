package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model/fit"
)

// fakeSMI puts testdata/fake-nvidia-smi first on PATH.
func fakeSMI(t *testing.T) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "fake-nvidia-smi", "nvidia-smi"))
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
}

func runMeasure(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(""), &o, &e)
	return code, o.String(), e.String()
}

func TestDryRunStartsNothing(t *testing.T) {
	fakeSMI(t)
	log := filepath.Join(t.TempDir(), "calls")
	t.Setenv("WATTSCALE_FAKE_LOG", log)
	rapl := t.TempDir()
	zone := filepath.Join(rapl, "intel-rapl:0")
	os.MkdirAll(zone, 0o755)
	for name, body := range map[string]string{"name": "package-0", "energy_uj": "5", "max_energy_range_uj": "262143328850"} {
		os.WriteFile(filepath.Join(zone, name), []byte(body), 0o644)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	code, out, errOut := runMeasure(t, "-dry-run", "-gpus", "0,1", "-rapl", rapl, "-idle", "5s", "-model", "bert-base",
		"-seq-len", "128", "-batch", "16", "-precision", "bf16", "-strategy", "ddp", "--", "touch", marker)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{
		"nvidia-smi --query-gpu=index,timestamp,power.draw --format=csv,noheader,nounits -lms 500 -i 0,1",
		filepath.Join(zone, "energy_uj") + " (package-0), wraps at 262143328850 µJ",
		"Idle:       5s before the command (reported, not subtracted)",
		"Command:    touch " + marker,
		"model bert-base, 2 × the GPU nvidia-smi names, ddp, seq_len 128, batch 16, bf16, tokens from the stage markers",
		filepath.Join("out", "measurements.csv"),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(log); err == nil {
		t.Errorf("the dry run called nvidia-smi")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the dry run ran the command")
	}
}

func TestErrorsBeforeTheRun(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	tests := []struct {
		name  string
		setup func(t *testing.T)
		args  []string
		code  int
		want  string
	}{
		{"no nvidia-smi", func(t *testing.T) { t.Setenv("PATH", t.TempDir()) }, []string{"--", "touch", marker}, 1,
			"measure: nvidia-smi not found on PATH: no NVIDIA GPU or driver (use -dry-run to see what would be read)\n"},
		{"unknown preset", fakeSMI, []string{"-model", "bert-huge", "-seq-len", "128", "-batch", "8", "-precision", "fp16", "--", "touch", marker}, 1,
			"(flag -model or -config)"},
		{"gpu name not in the table", func(t *testing.T) { fakeSMI(t); t.Setenv("WATTSCALE_FAKE_NAME", "NVIDIA H100 80GB HBM3") },
			[]string{"-model", "bert-base", "-seq-len", "128", "-batch", "8", "-precision", "fp16", "--", "touch", marker}, 1,
			`hardware.gpu: is not a known accelerator; close matches: `},
		{"bad -gpus", fakeSMI, []string{"-gpus", "0,x", "--", "touch", marker}, 1, `-gpus "0,x": "x" is not a GPU index`},
		{"no command", fakeSMI, []string{"-o", "x"}, 2, "no command given"},
		{"bad interval", fakeSMI, []string{"-interval", "1ms", "--", "true"}, 1, "-interval 1ms: want 10ms to 60s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.setup(t)
			code, _, errOut := runMeasure(t, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut, tc.code, tc.want)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("the command ran")
			}
		})
	}
}

func TestMeasureWritesOutputsAndAppends(t *testing.T) {
	fakeSMI(t)
	t.Setenv("WATTSCALE_FAKE_POWER", "300")
	dir := t.TempDir()
	out, runs := filepath.Join(dir, "out"), filepath.Join(dir, "runs.csv")
	cmd := `echo "wattscale:stage train tokens=250000"; sleep 0.2; echo "wattscale:stage eval tokens=5000"; sleep 0.1; exit 4`
	for i := 0; i < 2; i++ {
		code, stdout, errOut := runMeasure(t, "-interval", "50ms", "-rapl", "none", "-o", out, "-append", runs, "-append-stage", "train",
			"-model", "bert-base", "-seq-len", "128", "-batch", "32", "-precision", "fp16", "--", "sh", "-c", cmd)
		if code != 4 {
			t.Fatalf("exit %d, want the command's 4; stderr %q", code, errOut)
		}
		if !strings.Contains(stdout, "wattscale:stage eval tokens=5000") || !strings.Contains(errOut, "exited with status 4") {
			t.Errorf("stdout %q, stderr %q: want the command's output and its status", stdout, errOut)
		}
	}
	for _, name := range []string{"power.csv", "stages.csv", "summary.json", "measurements.csv"} {
		if fi, err := os.Stat(filepath.Join(out, name)); err != nil || fi.Size() == 0 {
			t.Errorf("%s not written: %v", name, err)
		}
	}
	f, err := os.Open(runs)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := fit.ReadMeasurements(f, cat.Presets)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Stage != "train" || rows[0].Tokens != 250000 || rows[0].GPU != "a100-sxm4-80gb" || rows[0].Strategy != "single" {
		t.Errorf("appended rows = %+v, want two train rows of 250000 tokens on one a100-sxm4-80gb", rows)
	}
}
