package meter

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestSummarizeStagesAddUp builds a recording with irregular GPU traces
// (missing readings, one GPU silent for a while), a RAPL counter drawing a
// steady 50 W that wraps twice, and stage markers out of order with a
// repeated stage, and checks that the stages add up to the run for every GPU,
// the CPU and the time.
func TestSummarizeStagesAddUp(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	rec := &Recording{Base: time.Unix(1767225600, 0), IntervalS: 0.5, IdleS: -5, StartS: 0, EndS: 120, FirstStage: "prerun",
		GPUs: []GPUTrace{{Index: 0}, {Index: 3}}}
	for g := range rec.GPUs {
		for x := -5.2; x < 121; x += 0.4 + 0.2*rng.Float64() {
			ok := rng.Float64() > 0.05 && !(g == 1 && x > 40 && x < 43)
			rec.GPUs[g].Samples = append(rec.GPUs[g].Samples, PowerSample{T: x, W: 60 + 300*rng.Float64(), OK: ok, Raw: "[N/A]"})
		}
	}
	const maxUJ = 2_000_000_000 // wraps every 40 s at 50 W
	d := Domain{Name: "package-0", MaxRangeUJ: maxUJ}
	var cpu []CounterSample
	for x := -5.0; x <= 121; x += 0.5 {
		cpu = append(cpu, CounterSample{T: x, UJ: math.Mod(1.5e9+50e6*(x+5), maxUJ), OK: true})
	}
	rec.CPUs = []CPUTrace{{Domain: d, Samples: cpu}}
	stage := func(at float64, name string, tokens float64) Event {
		return Event{T: at, Marker: Marker{Stage: name, Tokens: tokens}}
	}
	rec.Events = []Event{stage(61.3, "eval", 10), stage(3.7, "teacher", 1e5), stage(22.05, "student", 4e5), stage(80.9, "student", 2e5), stage(119.99, "eval", 10)}

	s := Summarize(rec, map[string]float64{"teacher": 2e5})
	perGPU := make([]float64, len(s.GPUs))
	var cpuJ, dur, tokens float64
	for _, st := range s.Stages {
		for i, e := range st.PerGPUJ {
			perGPU[i] += e
		}
		cpuJ += st.CPUEnergyJ
		dur += st.DurationS
		tokens += st.Tokens
	}
	for i, g := range s.GPUs {
		if relErr(perGPU[i], g.EnergyJ) > 1e-9 {
			t.Errorf("GPU %d: stages add up to %.12g J, want the run's %.12g J", g.Index, perGPU[i], g.EnergyJ)
		}
	}
	if relErr(cpuJ, s.CPUEnergyJ) > 1e-9 || relErr(s.CPUEnergyJ, 50*120) > 1e-9 {
		t.Errorf("CPU: stages %g J, run %g J; want both 50 W × 120 s = 6000 J", cpuJ, s.CPUEnergyJ)
	}
	if s.CPUs[0].Wraps != 3 {
		t.Errorf("CPU wraps = %d, want 3 (the counter passes %d µJ three times over 126 s)", s.CPUs[0].Wraps, maxUJ)
	}
	if s.Idle == nil || relErr(s.Idle.CPUPowerW, 50) > 1e-9 {
		t.Errorf("idle = %+v, want 50 W CPU over 5 s", s.Idle)
	}
	if relErr(dur, 120) > 1e-12 || tokens != 2e5+6e5+20 || s.Tokens != tokens {
		t.Errorf("stages: %g s, %g tokens (run %g); want 120 s, %g tokens", dur, tokens, s.Tokens, 2e5+6e5+20)
	}
	want := []string{"prerun", "teacher", "student", "eval"}
	for i, st := range s.Stages {
		if i >= len(want) || st.Name != want[i] {
			t.Fatalf("stage %d = %s, want order %v", i, st.Name, want)
		}
	}
	if st := s.Stages[2]; st.Segments != 2 || relErr(st.DurationS, (61.3-22.05)+(119.99-80.9)) > 1e-12 {
		t.Errorf("student: %d segments over %g s, want 2 over %g s", st.Segments, st.DurationS, (61.3-22.05)+(119.99-80.9))
	}
	gap := false
	for _, w := range s.Warnings {
		gap = gap || (strings.HasPrefix(w, "gpu 3") && strings.Contains(w, "no reading for"))
	}
	if !gap {
		t.Errorf("warnings = %q, want GPU 3's 3-s silence reported", s.Warnings)
	}
}

// BenchmarkSummarize: eight GPUs sampled at 2 Hz for 10 hours (576,000
// readings) with 200 stage segments.
func BenchmarkSummarize(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	const hours = 10
	rec := &Recording{IntervalS: 0.5, EndS: hours * 3600, FirstStage: "prerun"}
	for g := 0; g < 8; g++ {
		tr := GPUTrace{Index: g}
		for x := 0.0; x <= rec.EndS; x += 0.5 {
			tr.Samples = append(tr.Samples, PowerSample{T: x, W: 100 + 500*rng.Float64(), OK: true})
		}
		rec.GPUs = append(rec.GPUs, tr)
	}
	for i := 0; i < 200; i++ {
		name := "train"
		if i%2 == 1 {
			name = "eval"
		}
		rec.Events = append(rec.Events, Event{T: float64(i) * rec.EndS / 200, Marker: Marker{Stage: name, Tokens: 1e6}})
	}
	for b.Loop() {
		Summarize(rec, nil)
	}
}
