package model

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// RecommendRequest asks for the configuration that runs a workload with the
// least energy (or CO2e, cost or time), optionally by a deadline. Field
// names are a public interface (APIVersion).
type RecommendRequest struct {
	// Workload is the estimate request's model, training and calibration;
	// hardware, strategy and site are chosen here, not in it.
	Workload Workload `json:"workload"`
	// Candidates are the GPU types (and how many of each can be had) to
	// search; left out, every accelerator of the table up to 64 each.
	Candidates []Candidate `json:"candidates"`
	DeadlineS  float64     `json:"deadline_s,omitempty"` // 0 = none
	Minimise   string      `json:"minimise,omitempty"`   // energy (default), co2e, cost or time
	Current    *Current    `json:"current,omitempty"`    // the user's own configuration, for the saving
	Site       SiteSpec    `json:"site"`
	// GlobalBatch says whether the sequences per optimizer step may
	// change: GlobalBatchHeld (default, "" too) keeps current's, choosing
	// each configuration's micro-batch and accumulation to reproduce it;
	// GlobalBatchFree keeps batch_per_gpu and gradient_accumulation and
	// lets the global batch follow the data-parallel degree.
	GlobalBatch string `json:"global_batch,omitempty"`
}

// Global-batch modes of a recommend request.
const (
	GlobalBatchHeld = "held"
	GlobalBatchFree = "free"
)

// Workload is what is trained: the model, the training run and the
// calibration of an estimate request.
type Workload struct {
	Model       ModelSpec    `json:"model"`
	Training    TrainingSpec `json:"training"`
	Calibration string       `json:"calibration,omitempty"`
}

// Candidate is one GPU type the search may use.
type Candidate struct {
	GPU      string  `json:"gpu"`
	MaxCount float64 `json:"max_count,omitempty"` // 0 = 64
	// PowerLimitsW are the limits to try; left out, 8 evenly spaced from
	// the board's lowest limit to its default.
	PowerLimitsW []float64 `json:"power_limits_w,omitempty"`
}

// Current is the user's configuration.
type Current struct {
	Hardware HardwareSpec `json:"hardware"`
	Strategy Strategy     `json:"strategy"`
}

// Objectives the recommender minimises.
const (
	MinEnergy = "energy"
	MinCO2e   = "co2e" // operational + embodied
	MinCost   = "cost"
	MinTime   = "time"
)

// Recommender limits and defaults.
const (
	DefaultMaxCount   = 64
	MaxCandidateCount = 4096
	MaxCandidates     = 64
	MaxPowerLimits    = 16
	DefaultLimitSteps = 8
)

// Config is one configuration with its figures.
type Config struct {
	Hardware       ConfigHardware `json:"hardware"`
	Strategy       Strategy       `json:"strategy"`
	EnergyKWh      float64        `json:"energy_kwh"`
	TimeS          float64        `json:"time_s"`
	CO2eKg         float64        `json:"co2e_kg"`          // operational: energy × PUE × grid
	EmbodiedCO2eKg float64        `json:"embodied_co2e_kg"` // manufacturing, per GPU-hour (embodied.go)
	TotalCO2eKg    float64        `json:"total_co2e_kg"`    // the two together (what "co2e" minimises)
	CostUSD        float64        `json:"cost_usd"`
	GPUHours       float64        `json:"gpu_hours"`
	MeetsDeadline  bool           `json:"meets_deadline"`
	// SequencesPerStep is the global batch, sequences per optimizer step:
	// BatchPerGPU × data-parallel ranks × GradientAccumulation.
	SequencesPerStep     int `json:"sequences_per_step"`
	BatchPerGPU          int `json:"batch_per_gpu"`
	GradientAccumulation int `json:"gradient_accumulation"`
	// Warnings are this configuration's own: a global batch other than
	// the current configuration's (global_batch free).
	Warnings []string `json:"warnings,omitempty"`
	// WarningMessages are Warnings as data (Message), in the same order.
	WarningMessages []Message `json:"warning_messages,omitempty"`
	// Memory is the per-GPU memory check (current configuration only).
	Memory *MemoryCheck `json:"memory,omitempty"`
	// Request is the estimate request of this configuration: send it to
	// site estimate or POST /api/v1/estimate for the full breakdown.
	Request Request `json:"request"`
}

// MemoryCheck is a configuration's per-GPU memory against its capacity.
type MemoryCheck struct {
	StateGB      float64 `json:"state_gb_per_gpu"`
	ActivationGB float64 `json:"activation_gb_per_gpu"`
	CapacityGB   float64 `json:"capacity_gb"`
	// Fits is whether state and activations (without checkpointing,
	// unless the request asks for it) fit in CapacityGB.
	Fits bool `json:"fits"`
}

// Skipped is a GPU count the search left out, with why: a code and its
// numbers (Reason renders them in words).
type Skipped struct {
	GPU   string `json:"gpu"`
	Count int    `json:"count"`
	// Code is SkipIndivisible (no layout's data-parallel degree divides
	// the global batch), SkipMemory (no layout fits at any micro-batch
	// that reproduces it) or SkipTokens (fewer tokens than one step).
	Code             string `json:"code"`
	SequencesPerStep int    `json:"sequences_per_step"`
	// DataRanks are the data-parallel degrees of the layouts tried.
	DataRanks []int `json:"data_parallel_ranks"`
	// NeedGB is the least per-GPU memory of a layout that divides the
	// global batch, at its smallest micro-batch (SkipMemory).
	NeedGB     float64 `json:"need_gb,omitempty"`
	CapacityGB float64 `json:"capacity_gb,omitempty"`
	Reason     string  `json:"reason"`
}

// Codes of Skipped.
const (
	SkipIndivisible = "global_batch_indivisible"
	SkipMemory      = "memory"
	SkipTokens      = "too_few_tokens"
)

// skipReason renders a skipped count's code and numbers in words.
func skipReason(s Skipped) string {
	ranks := make([]string, len(s.DataRanks))
	for i, d := range s.DataRanks {
		ranks[i] = strconv.Itoa(d)
	}
	at := strconv.Itoa(s.Count) + " × " + s.GPU
	switch s.Code {
	case SkipIndivisible:
		return at + ": no layout's data-parallel degree (" + strings.Join(ranks, ", ") + ") divides the " + strconv.Itoa(s.SequencesPerStep) + " sequences per optimizer step"
	case SkipMemory:
		return at + ": reproducing " + strconv.Itoa(s.SequencesPerStep) + " sequences per optimizer step needs at least " + strconv.FormatFloat(s.NeedGB, 'f', 1, 64) + " GB per GPU (state and activations at the smallest micro-batch), more than its " + strconv.FormatFloat(s.CapacityGB, 'f', 0, 64) + " GB"
	}
	return at + ": the tokens make less than one optimizer step of " + strconv.Itoa(s.SequencesPerStep) + " sequences"
}

// HeldFixed is what the search keeps from the user's recipe.
type HeldFixed struct {
	SequencesPerStep int     `json:"sequences_per_step"`
	Tokens           float64 `json:"tokens"`
}

// ConfigHardware is a configuration's hardware, every field present.
type ConfigHardware struct {
	GPU         string  `json:"gpu"`
	Count       int     `json:"count"`
	PowerLimitW float64 `json:"power_limit_w"`
}

// Saving is what switching from the current configuration to the best one
// saves (positive = less); negative time means the best is slower.
type Saving struct {
	EnergyKWh      float64 `json:"energy_kwh"`
	EnergyPct      float64 `json:"energy_pct"`
	TimeS          float64 `json:"time_s"`
	CO2eKg         float64 `json:"co2e_kg"`
	EmbodiedCO2eKg float64 `json:"embodied_co2e_kg"`
	CostUSD        float64 `json:"cost_usd"`
}

// MaxDeadlineS bounds a search's deadline_s, seconds (about 317 years):
// the recommender's and the planner's per-stage search alike.
const MaxDeadlineS = 1e10

// RecommendResponse is the recommender's answer.
type RecommendResponse struct {
	Version string `json:"version"`
	Search[Config]
}

// Search is a search's answer over configurations of type C: the
// recommender's (Config) and each stage's of the planner's per-stage
// search (distill.StageConfig), one type for both.
type Search[C any] struct {
	Minimise  string  `json:"minimise,omitempty"`
	DeadlineS float64 `json:"deadline_s,omitempty"`
	// Best is the configuration with the least of Minimise among those
	// that fit and meet the deadline; when none meets it, the fastest that
	// fits (MeetsDeadline false, and a warning says so). Null only when no
	// searched configuration fits in memory.
	Best          *C   `json:"best"`
	MeetsDeadline bool `json:"meets_deadline"`
	Fastest       *C   `json:"fastest"`
	// Pareto is the time–energy front of every configuration that fits,
	// sorted by time_s.
	Pareto   []C     `json:"pareto"`
	Current  *C      `json:"current,omitempty"`
	Saving   *Saving `json:"saving,omitempty"`
	Searched int     `json:"searched"`
	Feasible int     `json:"feasible"`
	// GlobalBatch is the mode searched (GlobalBatchHeld or
	// GlobalBatchFree; "" for an inference stage); Held what it kept fixed
	// (held, with a current configuration); Skipped the counts left out.
	GlobalBatch string     `json:"global_batch,omitempty"`
	Held        *HeldFixed `json:"held,omitempty"`
	Skipped     []Skipped  `json:"skipped"`
	Warnings    []string   `json:"warnings"`
	// WarningMessages are Warnings as data (Message), in the same order.
	WarningMessages []Message `json:"warning_messages"`
	Assumptions     []string  `json:"assumptions"`
}

// NewSearch is an empty answer: its lists empty, not null.
func NewSearch[C any]() Search[C] {
	return Search[C]{Pareto: []C{}, Skipped: []Skipped{}, Warnings: []string{}, WarningMessages: []Message{}, Assumptions: []string{}}
}

// Warn adds a warning to the answer, as words and as data.
func (s *Search[C]) Warn(m Message) {
	s.Warnings = append(s.Warnings, m.String())
	s.WarningMessages = append(s.WarningMessages, m)
}

// ParseRecommendRequest decodes a recommend request strictly; errors name
// the field's full path ("workload.training.tokens", "candidates[1].gpu").
func ParseRecommendRequest(r io.Reader) (RecommendRequest, error) {
	raw, err := ReadBody(r)
	if err != nil {
		return RecommendRequest{}, err
	}
	var j struct {
		Workload   json.RawMessage   `json:"workload"`
		Candidates []json.RawMessage `json:"candidates"`
		DeadlineS  float64           `json:"deadline_s"`
		Minimise   string            `json:"minimise"`
		Current    json.RawMessage   `json:"current"`
		Site       json.RawMessage   `json:"site"`
		// GlobalBatch: "held" or "free"
		GlobalBatch string `json:"global_batch"`
	}
	var out RecommendRequest
	if err := DecodeExact(raw, &j); err != nil {
		return out, err
	}
	out.DeadlineS, out.Minimise, out.GlobalBatch = j.DeadlineS, j.Minimise, j.GlobalBatch
	if isNull(j.Workload) {
		return out, codeErr(CodeWorkloadRequired, "workload", nil, Args{{Name: "example", Str: `{"model": ..., "training": ...}`}})
	}
	if err := DecodeExact(j.Workload, &out.Workload); err != nil {
		return out, PrefixField("workload", err)
	}
	if out.Candidates, err = DecodeCandidates(j.Candidates, "candidates"); err != nil {
		return out, err
	}
	if !isNull(j.Current) {
		var cur struct {
			Hardware json.RawMessage `json:"hardware"`
			Strategy json.RawMessage `json:"strategy"`
		}
		if err := DecodeExact(j.Current, &cur); err != nil {
			return out, PrefixField("current", err)
		}
		req, err := DecodeRequest(mustJSON(map[string]json.RawMessage{"hardware": orNull(cur.Hardware), "strategy": orNull(cur.Strategy)}), "current")
		if err != nil {
			return out, err
		}
		out.Current = &Current{Hardware: req.Hardware, Strategy: req.Strategy}
	}
	if !isNull(j.Site) {
		if err := DecodeExact(j.Site, &out.Site); err != nil {
			return out, PrefixField("site", err)
		}
	}
	return out, nil
}

// DecodeCandidates decodes a request's list of candidates strictly (nil
// stays nil); errors name the field under path ("candidates[1].gpu").
func DecodeCandidates(raw []json.RawMessage, path string) ([]Candidate, error) {
	if raw == nil {
		return nil, nil
	}
	out := make([]Candidate, len(raw))
	for i, c := range raw {
		if err := DecodeExact(c, &out[i]); err != nil {
			return nil, PrefixField(fmt.Sprintf("%s[%d]", path, i), err)
		}
	}
	return out, nil
}

func orNull(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage("null")
	}
	return r
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
