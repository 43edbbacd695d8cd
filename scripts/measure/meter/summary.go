package meter

import (
	"fmt"
	"math"
	"time"

	"github.com/wattscale/wattscale/model"
)

// Summary is the report of one recording: energy, time and tokens for the
// whole run and per stage, per GPU and CPU package, the idle baseline and
// what went wrong. Times are seconds since the command started; energies
// are joules. GPU energy is what the measurement schema's energy_kwh holds;
// CPU package energy is reported beside it, never added to it.
type Summary struct {
	Version     int            `json:"version"`
	Command     []string       `json:"command"`
	ExitCode    int            `json:"exit_code"`
	Start       string         `json:"start"` // RFC 3339, when the command started
	DurationS   float64        `json:"duration_s"`
	IntervalS   float64        `json:"interval_s"`
	Tokens      float64        `json:"tokens"` // sum of the stages' tokens (0 = none reported)
	GPUEnergyJ  float64        `json:"gpu_energy_j"`
	GPUEnergyKW float64        `json:"gpu_energy_kwh"`
	CPUEnergyJ  float64        `json:"cpu_energy_j"` // 0 when no package could be read (see cpus)
	GPUs        []GPUSummary   `json:"gpus"`
	CPUs        []CPUSummary   `json:"cpus"`
	Idle        *IdleSummary   `json:"idle,omitempty"`
	Stages      []StageSummary `json:"stages"`
	Warnings    []string       `json:"warnings"`
	// Config is the run's configuration as given (nil when none was).
	Config *model.Request `json:"config,omitempty"`
}

// GPUSummary is one GPU over the run.
type GPUSummary struct {
	Index      int     `json:"index"`
	Name       string  `json:"name"`
	Samples    int     `json:"samples"`  // readings with a number, idle baseline included
	Missing    int     `json:"missing"`  // readings without a number
	EnergyJ    float64 `json:"energy_j"` // over the command's run
	MeanPowerW float64 `json:"mean_power_w"`
}

// CPUSummary is one RAPL package over the run.
type CPUSummary struct {
	Domain     string  `json:"domain"`
	Samples    int     `json:"samples"`
	Wraps      int     `json:"wraps"` // counter wrap-arounds corrected
	EnergyJ    float64 `json:"energy_j"`
	MeanPowerW float64 `json:"mean_power_w"`
}

// IdleSummary is the idle baseline recorded before the command, reported
// only: no figure of the run has it subtracted.
type IdleSummary struct {
	DurationS  float64   `json:"duration_s"`
	GPUPowerW  float64   `json:"gpu_power_w"` // all GPUs together
	PerGPUW    []float64 `json:"per_gpu_w"`   // in the order of gpus
	CPUPowerW  float64   `json:"cpu_power_w"` // all packages together
	Subtracted bool      `json:"subtracted"`  // always false
}

// StageSummary is one stage: its segments added up.
type StageSummary struct {
	Name          string    `json:"name"`
	StartS        float64   `json:"start_s"` // start of its first segment
	EndS          float64   `json:"end_s"`   // end of its last segment
	DurationS     float64   `json:"duration_s"`
	Segments      int       `json:"segments"`
	Tokens        float64   `json:"tokens"`
	GPUEnergyJ    float64   `json:"gpu_energy_j"`
	PerGPUJ       []float64 `json:"per_gpu_j"`
	CPUEnergyJ    float64   `json:"cpu_energy_j"`
	GPUJPerToken  float64   `json:"gpu_j_per_token"` // 0 when no tokens
	MeanGPUPowerW float64   `json:"mean_gpu_power_w"`
}

// gapFactor: a stretch without a reading longer than this many sampling
// intervals is reported.
const gapFactor = 3

// Summarize integrates a recording. stageTokens, when not nil, sets the
// tokens of the named stages (replacing what markers reported).
func Summarize(rec *Recording, stageTokens map[string]float64) *Summary {
	start, end := rec.StartS, rec.EndS
	dur := end - start
	s := &Summary{Version: 1, Command: rec.Command, ExitCode: rec.ExitCode, DurationS: dur, IntervalS: rec.IntervalS,
		Start: rec.Base.Add(time.Duration(start * float64(time.Second))).Format(time.RFC3339Nano), Stages: []StageSummary{}, GPUs: []GPUSummary{}, CPUs: []CPUSummary{}}
	warn := func(format string, a ...any) { s.Warnings = append(s.Warnings, fmt.Sprintf(format, a...)) }
	s.Warnings = append(s.Warnings, rec.Notes...)
	switch {
	case rec.ExitCode < 0 && dur > 0:
		warn("measure: the command was ended by a signal: the recording covers an interrupted run")
	case rec.ExitCode > 0:
		warn("measure: the command exited with status %d: the recording covers a failed or interrupted run", rec.ExitCode)
	}
	limit := gapFactor * rec.IntervalS

	gpu := make([]*Series, len(rec.GPUs))
	for i, g := range rec.GPUs {
		var t, v []float64
		missing := 0
		for _, x := range g.Samples {
			if x.OK {
				t, v = append(t, x.T), append(v, x.W)
			} else {
				missing++
			}
		}
		ser, dups := NewSeries(t, v)
		gpu[i] = ser
		gs := GPUSummary{Index: g.Index, Name: g.Name, Samples: ser.Len(), Missing: missing}
		if ser.Len() == 0 {
			warn("gpu %d: no power reading with a number (%d without; does it support the power field? see -power-field): its energy is counted as 0", g.Index, missing)
		} else {
			gs.EnergyJ = ser.Integral(start, end)
		}
		if dur > 0 {
			gs.MeanPowerW = gs.EnergyJ / dur
		}
		if missing > 0 && ser.Len() > 0 {
			warn("gpu %d: %d readings without a number (e.g. %q) were bridged linearly", g.Index, missing, firstRaw(g.Samples))
		}
		if dups > 0 {
			warn("gpu %d: %d readings repeated an earlier timestamp and were dropped", g.Index, dups)
		}
		if ser.Len() > 0 {
			for _, gp := range ser.Gaps(rec.IdleS, end, limit) {
				warn("gpu %d: no reading for %.2f s (from %.2f s to %.2f s): bridged linearly", g.Index, gp.ToS-gp.FromS, gp.FromS-start, gp.ToS-start)
			}
		}
		s.GPUEnergyJ += gs.EnergyJ
		s.GPUs = append(s.GPUs, gs)
	}
	s.GPUEnergyKW = s.GPUEnergyJ / 3.6e6

	cpu := make([]*Series, len(rec.CPUs))
	for i, c := range rec.CPUs {
		t, j, wraps, resets := Unwrap(c.Samples, c.Domain.MaxRangeUJ)
		ser, _ := NewSeries(t, j)
		cpu[i] = ser
		cs := CPUSummary{Domain: c.Domain.Name, Samples: ser.Len(), Wraps: wraps}
		if ser.Len() > 0 {
			cs.EnergyJ = ser.At(end) - ser.At(start)
		}
		if dur > 0 {
			cs.MeanPowerW = cs.EnergyJ / dur
		}
		if resets > 0 {
			warn("cpu %s: the counter went down %d times with no known range: those steps count as 0", c.Domain.Name, resets)
		}
		if bad := len(c.Samples) - ser.Len(); bad > 0 {
			warn("cpu %s: %d readings failed and were bridged", c.Domain.Name, bad)
		}
		s.CPUEnergyJ += cs.EnergyJ
		s.CPUs = append(s.CPUs, cs)
	}

	if idle := start - rec.IdleS; idle > 0 {
		is := &IdleSummary{DurationS: idle, PerGPUW: []float64{}}
		for _, ser := range gpu {
			w := 0.0
			if ser.Len() > 0 {
				w = ser.Integral(rec.IdleS, start) / idle
			}
			is.PerGPUW = append(is.PerGPUW, w)
			is.GPUPowerW += w
		}
		for _, ser := range cpu {
			if ser.Len() > 0 {
				is.CPUPowerW += (ser.At(start) - ser.At(rec.IdleS)) / idle
			}
		}
		s.Idle = is
	}

	segs, order, tokens, untimed := Timeline(rec.Events, start, end, rec.FirstStage)
	s.Tokens = untimed
	occurred := map[string]bool{}
	for _, name := range order {
		occurred[name] = true
	}
	for name, n := range stageTokens {
		if !occurred[name] {
			warn("stage: -stage-tokens names %q, which did not occur", name)
			continue
		}
		tokens[name] = n
	}
	idx := map[string]int{}
	for _, name := range order {
		idx[name] = len(s.Stages)
		s.Stages = append(s.Stages, StageSummary{Name: name, Tokens: tokens[name], PerGPUJ: make([]float64, len(gpu)), StartS: math.NaN()})
	}
	for _, sg := range segs {
		st := &s.Stages[idx[sg.Stage]]
		if math.IsNaN(st.StartS) {
			st.StartS = sg.FromS - start
		}
		st.EndS = sg.ToS - start
		st.DurationS += sg.ToS - sg.FromS
		st.Segments++
		for i, ser := range gpu {
			e := ser.Integral(sg.FromS, sg.ToS)
			st.PerGPUJ[i] += e
			st.GPUEnergyJ += e
		}
		for _, ser := range cpu {
			if ser.Len() > 0 {
				st.CPUEnergyJ += ser.At(sg.ToS) - ser.At(sg.FromS)
			}
		}
	}
	for i := range s.Stages {
		st := &s.Stages[i]
		if math.IsNaN(st.StartS) { // a stage line at the very end: no time
			st.StartS, st.EndS = dur, dur
		}
		if st.Tokens > 0 {
			st.GPUJPerToken = st.GPUEnergyJ / st.Tokens
		}
		if st.DurationS > 0 {
			st.MeanGPUPowerW = st.GPUEnergyJ / st.DurationS
		}
		s.Tokens += st.Tokens
	}
	if s.Warnings == nil {
		s.Warnings = []string{}
	}
	return s
}

func firstRaw(xs []PowerSample) string {
	for _, x := range xs {
		if !x.OK {
			return x.Raw
		}
	}
	return ""
}
