package meter

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/fit"
)

// TestRecordFakeGPUs records a short command under the fake nvidia-smi (two
// GPUs at a constant 100 W and 250 W) and a fake RAPL tree. With constant
// power every integral is power × time whatever the sampling instants, so
// the GPU energies, the idle power and each stage's energy are known
// exactly from the recorded times.
func TestRecordFakeGPUs(t *testing.T) {
	fakeSMI(t)
	t.Setenv("WATTSCALE_FAKE_POWER", "100 250")
	rapl := raplTree(t, map[string]map[string]string{
		"intel-rapl:0": {"name": "package-0", "energy_uj": "123456", "max_energy_range_uj": "262143328850"},
	})
	stageFile := filepath.Join(t.TempDir(), "stages")
	script := `echo "wattscale:stage teacher tokens=1000"; sleep 0.3
echo "INFO:train: wattscale:stage student tokens=4000" >&2; sleep 0.3
echo "wattscale:tokens 500"
echo "wattscale:stage eval" >> "$WATTSCALE_STAGE_FILE"; sleep 0.2
echo "wattscale:stage ???"
echo done`
	var stdout, stderr bytes.Buffer
	rec, err := Record(context.Background(), Options{
		Command: []string{"sh", "-c", script}, SMI: SMI{IntervalMS: 100}, RAPL: os.DirFS(rapl),
		Idle: 300 * time.Millisecond, StageFile: stageFile, Stdout: &stdout, Stderr: &stderr,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "wattscale:stage teacher tokens=1000\n") || !strings.HasSuffix(stdout.String(), "done\n") {
		t.Errorf("stdout passed through = %q, want the command's lines", stdout.String())
	}
	if !strings.Contains(stderr.String(), "INFO:train: wattscale:stage student") {
		t.Errorf("stderr passed through = %q, want the command's line", stderr.String())
	}
	s := Summarize(rec, nil)
	dur := rec.EndS - rec.StartS
	if dur < 0.8 || dur > 15 {
		t.Errorf("run took %.3f s, want about 0.8 s", dur)
	}
	power := []float64{100, 250}
	for i, g := range s.GPUs {
		if want := power[i] * dur; relErr(g.EnergyJ, want) > 1e-9 {
			t.Errorf("GPU %d energy = %.12g J, want %g W × %.6f s = %.12g J", g.Index, g.EnergyJ, power[i], dur, want)
		}
	}
	if s.Idle == nil || relErr(s.Idle.PerGPUW[0], 100) > 1e-9 || relErr(s.Idle.PerGPUW[1], 250) > 1e-9 || s.Idle.DurationS < 0.3 || s.Idle.Subtracted {
		t.Errorf("idle = %+v, want 100 W and 250 W over ≥ 0.3 s, not subtracted", s.Idle)
	}
	if relErr(s.GPUEnergyJ, 350*dur) > 1e-9 {
		t.Errorf("GPU energy = %g J, want %g J (not reduced by the idle baseline)", s.GPUEnergyJ, 350*dur)
	}
	var names []string
	var sumE, sumT float64
	for _, st := range s.Stages {
		names = append(names, st.Name)
		sumE += st.GPUEnergyJ
		sumT += st.DurationS
		if want := 350 * st.DurationS; relErr(st.GPUEnergyJ, want) > 1e-9 {
			t.Errorf("stage %s energy = %g J, want 350 W × %g s", st.Name, st.GPUEnergyJ, st.DurationS)
		}
	}
	if got := strings.Join(names, ","); got != "prerun,teacher,student,eval" && got != "teacher,student,eval" {
		t.Errorf("stages = %s, want teacher,student,eval (after a short prerun)", got)
	}
	if relErr(sumE, s.GPUEnergyJ) > 1e-9 || relErr(sumT, s.DurationS) > 1e-9 {
		t.Errorf("stages add up to %g J over %g s, want the run's %g J over %g s", sumE, sumT, s.GPUEnergyJ, s.DurationS)
	}
	byName := map[string]StageSummary{}
	for _, st := range s.Stages {
		byName[st.Name] = st
	}
	if byName["teacher"].Tokens != 1000 || byName["student"].Tokens != 4500 || byName["eval"].Tokens != 0 || s.Tokens != 5500 {
		t.Errorf("tokens teacher %g, student %g, eval %g, run %g; want 1000, 4500, 0, 5500",
			byName["teacher"].Tokens, byName["student"].Tokens, byName["eval"].Tokens, s.Tokens)
	}
	// Loose bounds: stage lines are timestamped when read, late under load.
	if d := byName["student"].DurationS; d < 0.15 || d > 5 {
		t.Errorf("student took %g s, want about 0.3 s", d)
	}
	if d := byName["eval"].DurationS; d <= 0 {
		t.Errorf("eval (from the stage file) took %g s, want about 0.2 s", d)
	}
	if len(s.CPUs) != 1 || s.CPUs[0].Samples < 3 || s.CPUs[0].EnergyJ != 0 {
		t.Errorf("cpu = %+v, want package-0 read several times with no energy (its counter stood still)", s.CPUs)
	}
	if !strings.Contains(strings.Join(s.Warnings, "\n"), `line "wattscale:stage ???" ignored`) {
		t.Errorf("warnings = %q, want the malformed marker reported", s.Warnings)
	}

	// The rows it makes are what the fitter reads.
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := Template(model.Request{Model: model.ModelSpec{Preset: "bert-base"},
		Training: model.TrainingSpec{SeqLen: 128, BatchPerGPU: 8, Precision: model.FP16},
		Hardware: model.HardwareSpec{GPU: "NVIDIA A100-SXM4-80GB", Count: 2}, Strategy: model.Strategy{Name: model.DDP}}, cat)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Rows(tpl, s, "test", "", cat.Presets)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := model.WriteMeasurements(&b, rows); err != nil {
		t.Fatal(err)
	}
	back, err := fit.ReadMeasurements(&b, cat.Presets)
	if err != nil {
		t.Fatalf("fit.ReadMeasurements of the recorder's rows: %v", err)
	}
	if len(back) != 3 || back[0].Stage != "" || back[1].Stage != "teacher" || back[2].Stage != "student" {
		t.Fatalf("rows = %+v, want the run, teacher and student (eval has no tokens)", back)
	}
	if relErr(back[0].EnergyKWh, s.GPUEnergyJ/3.6e6) > 1e-12 || back[0].Tokens != 5500 || back[0].GPU != "a100-sxm4-80gb" || back[0].Count != 2 {
		t.Errorf("whole-run row = %+v, want %g kWh, 5500 tokens, 2 × a100-sxm4-80gb", back[0], s.GPUEnergyJ/3.6e6)
	}

	var p bytes.Buffer
	if err := WritePower(&p, rec); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&p).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range recs[1:] {
		seen[r[1]+"/"+r[5]] = true
	}
	for _, want := range []string{"gpu0/idle", "gpu1/student", "package-0/teacher"} {
		if !seen[want] {
			t.Errorf("power.csv has no %s sample (device/stage seen: %v)", want, seen)
		}
	}
}

func TestRecordErrors(t *testing.T) {
	t.Run("command not found", func(t *testing.T) {
		fakeSMI(t)
		_, err := Record(context.Background(), Options{Command: []string{"wattscale-no-such-command"}})
		if err == nil || !strings.Contains(err.Error(), "executable file not found") {
			t.Errorf("Record error = %v, want the command not found", err)
		}
	})
	t.Run("no nvidia-smi", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir()+":/usr/bin:/bin")
		if _, err := os.Stat("/usr/bin/nvidia-smi"); err == nil {
			t.Skip("a real nvidia-smi is installed in /usr/bin")
		}
		_, err := Record(context.Background(), Options{Command: []string{"true"}})
		if err != ErrNoSMI {
			t.Errorf("Record error = %v, want ErrNoSMI", err)
		}
	})
	t.Run("failing command is recorded", func(t *testing.T) {
		fakeSMI(t)
		rec, err := Record(context.Background(), Options{Command: []string{"sh", "-c", "exit 3"}, SMI: SMI{IntervalMS: 50}})
		if err != nil || rec.ExitCode != 3 {
			t.Fatalf("Record = %v, %v; want exit code 3 recorded", rec, err)
		}
		s := Summarize(rec, nil)
		if !strings.Contains(strings.Join(s.Warnings, "\n"), "exited with status 3") {
			t.Errorf("warnings = %q, want the exit status", s.Warnings)
		}
		if s.Idle != nil {
			t.Errorf("idle = %+v without an idle baseline, want none", s.Idle)
		}
	})
}

// cancelOnWrite cancels a context at the command's first output.
type cancelOnWrite struct{ cancel context.CancelFunc }

func (c cancelOnWrite) Write(p []byte) (int, error) { c.cancel(); return len(p), nil }

func TestRecordCancelledEndsTheCommand(t *testing.T) {
	fakeSMI(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	rec, err := Record(ctx, Options{Command: []string{"sh", "-c", "echo started; exec sleep 30"}, SMI: SMI{IntervalMS: 50},
		Grace: 200 * time.Millisecond, Stdout: cancelOnWrite{cancel}})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("a cancelled recording took %v, want well under the command's 30 s", took)
	}
	if rec.ExitCode != -1 {
		t.Errorf("exit code = %d, want -1 (ended by SIGTERM)", rec.ExitCode)
	}
	if s := Summarize(rec, nil); !strings.Contains(strings.Join(s.Warnings, "\n"), "ended by a signal") || s.GPUEnergyJ <= 0 {
		t.Errorf("summary: %g J, warnings %q; want the energy so far and the interruption", s.GPUEnergyJ, s.Warnings)
	}
}

func TestRecordCancelledDuringIdle(t *testing.T) {
	fakeSMI(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	marker := filepath.Join(t.TempDir(), "ran")
	rec, err := Record(ctx, Options{Command: []string{"touch", marker}, SMI: SMI{IntervalMS: 50}, Idle: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran after the recording was cancelled during the idle baseline")
	}
	s := Summarize(rec, nil)
	if got := strings.Join(s.Warnings, "\n"); !strings.Contains(got, "the command was not run") || strings.Contains(got, "ended by a signal") {
		t.Errorf("warnings = %q, want only that the command was not run", got)
	}
}
