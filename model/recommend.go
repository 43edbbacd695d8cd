package model

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
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

// searchCounts are the GPU counts tried (up to a candidate's max_count,
// which is always tried too).
var searchCounts = []int{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256, 512, 1024, 2048, 4096}

// hybridTensor are the tensor degrees of the hybrid tensor × fsdp layouts tried.
var hybridTensor = []int{2, 4, 8}

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
	switch s.Code {
	case SkipIndivisible:
		return fmt.Sprintf("%d × %s: no layout's data-parallel degree (%s) divides the %d sequences per optimizer step", s.Count, s.GPU, strings.Join(ranks, ", "), s.SequencesPerStep)
	case SkipMemory:
		return fmt.Sprintf("%d × %s: reproducing %d sequences per optimizer step needs at least %.1f GB per GPU (state and activations at the smallest micro-batch), more than its %.0f GB", s.Count, s.GPU, s.SequencesPerStep, s.NeedGB, s.CapacityGB)
	}
	return fmt.Sprintf("%d × %s: the tokens make less than one optimizer step of %d sequences", s.Count, s.GPU, s.SequencesPerStep)
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

// RecommendResponse is the recommender's answer.
type RecommendResponse struct {
	Version   string  `json:"version"`
	Minimise  string  `json:"minimise"`
	DeadlineS float64 `json:"deadline_s,omitempty"`
	// Best is the configuration with the least of Minimise among those
	// that fit and meet the deadline; when none meets it, the fastest that
	// fits (MeetsDeadline false, and a warning says so). Null only when no
	// searched configuration fits in memory.
	Best          *Config `json:"best"`
	MeetsDeadline bool    `json:"meets_deadline"`
	Fastest       *Config `json:"fastest"`
	// Pareto is the time–energy front of every configuration that fits,
	// sorted by time_s.
	Pareto   []Config `json:"pareto"`
	Current  *Config  `json:"current,omitempty"`
	Saving   *Saving  `json:"saving,omitempty"`
	Searched int      `json:"searched"`
	Feasible int      `json:"feasible"`
	// GlobalBatch is the mode searched (GlobalBatchHeld or
	// GlobalBatchFree); Held what it kept fixed (held, with a current
	// configuration); Skipped the counts left out.
	GlobalBatch string     `json:"global_batch"`
	Held        *HeldFixed `json:"held,omitempty"`
	Skipped     []Skipped  `json:"skipped"`
	Warnings    []string   `json:"warnings"`
	Assumptions []string   `json:"assumptions"`
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
		return out, fieldErr("workload", nil, "is required: {\"model\": ..., \"training\": ...}")
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

// searchGPU is one candidate GPU, resolved.
type searchGPU struct {
	gpu    *GPU
	peak   float64
	counts []int
	limits []float64
	field  string // candidates[i] for messages
}

// point is one evaluated configuration, kept small (the search holds
// thousands): its layout is an index into layouts(count), and CO2e and cost
// follow from energy and time (siteCosts).
type point struct {
	g                 *searchGPU
	count, layout     int32
	bat, accum        int32 // micro-batch and accumulation chosen (held global batch) or the workload's
	limit, kwh, timeS float64
}

// siteCosts turns a point's energy and time into CO2e, embodied CO2e and
// cost, with the same operations as Estimate.
type siteCosts struct {
	pue, carbon, usd, embodied float64
}

func (sc siteCosts) co2e(p *point) float64 { return p.kwh * sc.pue * sc.carbon / 1000 }
func (sc siteCosts) emb(p *point) float64 {
	return sc.embodied * (float64(p.count) * p.timeS / 3600)
}
func (sc siteCosts) cost(p *point) float64 { return p.kwh * sc.pue * sc.usd }

// strategy is the point's layout.
func (p *point) strategy() Strategy { return layouts(int(p.count))[p.layout] }

// Recommend searches GPU type × count × layout × power limit for the
// least-energy (or CO2e, cost, time) configuration that fits in memory and
// meets the deadline. Bad input is a *FieldError; a deadline nothing meets
// is an answer that says so.
func (c *Catalog) Recommend(req RecommendRequest) (RecommendResponse, error) {
	resp := RecommendResponse{Version: APIVersion, Warnings: []string{}, Assumptions: []string{}}
	obj := strings.ToLower(strings.TrimSpace(req.Minimise))
	switch obj {
	case "":
		obj = MinEnergy
	case MinEnergy, MinCO2e, MinCost, MinTime:
	default:
		return resp, fieldErr("minimise", req.Minimise, "must be one of energy, co2e, cost, time")
	}
	resp.Minimise = obj
	if req.DeadlineS != 0 {
		if err := checkPositive("deadline_s", req.DeadlineS, 1e10); err != nil {
			return resp, err
		}
	}
	resp.DeadlineS = req.DeadlineS
	mode := strings.ToLower(strings.TrimSpace(req.GlobalBatch))
	switch mode {
	case "":
		mode = GlobalBatchHeld
	case GlobalBatchHeld, GlobalBatchFree:
	default:
		return resp, fieldErr("global_batch", req.GlobalBatch, "must be \"held\" (keep the current configuration's sequences per optimizer step) or \"free\" (keep batch_per_gpu and gradient_accumulation; the global batch follows the GPU count)")
	}

	// The workload, resolved once on a GPU that supports every precision;
	// each candidate then swaps its own GPU in.
	wreq := Request{Model: req.Workload.Model, Training: req.Workload.Training, Calibration: req.Workload.Calibration,
		Hardware: HardwareSpec{GPU: "h100-sxm5", Count: 1}, Strategy: Strategy{Name: Single}, Site: req.Site}
	base, err := c.resolveInputs(wreq)
	if err != nil {
		fe := AsFieldError(err)
		if fe != nil && (strings.HasPrefix(fe.Field, "model") || strings.HasPrefix(fe.Field, "training") || fe.Field == "calibration") {
			return resp, PrefixField("workload", err)
		}
		return resp, err
	}
	resp.Assumptions = append(resp.Assumptions, base.assume...)

	// The global batch held: the current configuration's sequences per
	// optimizer step (its memory is checked later, by its estimate).
	held := 0
	if mode == GlobalBatchHeld && req.Current != nil {
		cr := Request{Model: req.Workload.Model, Training: req.Workload.Training, Calibration: req.Workload.Calibration,
			Hardware: req.Current.Hardware, Strategy: req.Current.Strategy, Site: req.Site}
		cur, err := c.resolveInputs(cr)
		if err != nil {
			return resp, currentErr(err)
		}
		held = cur.bat * cur.plan.Data * cur.accum
		resp.Held = &HeldFixed{SequencesPerStep: held, Tokens: base.tokens}
		resp.Assumptions = append(resp.Assumptions, fmt.Sprintf("global batch held at the current configuration's %d sequences per optimizer step (batch_per_gpu %d × %d data-parallel ranks × gradient_accumulation %d) and %s tokens: each configuration's micro-batch is the largest that reproduces it and fits in memory, with accumulation making up the rest; set global_batch to \"free\" to let it vary", held, cur.bat, cur.plan.Data, cur.accum, ShortNum(base.tokens)))
	} else if mode == GlobalBatchHeld {
		mode = GlobalBatchFree
		resp.Assumptions = append(resp.Assumptions, "no current configuration, so no global batch to hold: each configuration keeps batch_per_gpu and gradient_accumulation, and its sequences per optimizer step follow its data-parallel degree")
	} else {
		resp.Assumptions = append(resp.Assumptions, "global_batch free: each configuration keeps batch_per_gpu and gradient_accumulation, so its sequences per optimizer step follow its data-parallel degree (a different optimisation run where they differ from the current configuration's)")
	}
	resp.GlobalBatch = mode

	gpus, warns, err := c.searchGPUs(req.Candidates, base.prec)
	if err != nil {
		return resp, err
	}
	if err := c.checkSearchBudget(req.Candidates, base.prec); err != nil {
		return resp, err
	}
	resp.Warnings = append(resp.Warnings, warns...)
	if len(gpus) == 0 {
		return resp, fieldErr("candidates", nil, "has no GPU that supports %s training; choose another precision or other GPUs", base.prec)
	}

	pts, searched, skipped, err := c.search(base, gpus, held)
	if err != nil {
		return resp, err
	}
	resp.Searched, resp.Feasible, resp.Skipped = searched, len(pts), skipped
	resp.Assumptions = append(resp.Assumptions,
		fmt.Sprintf("searched %d configurations: GPU type × count (up to each candidate's max_count) × layout (single, ddp, fsdp, tp, tensor 2/4/8 × fsdp) × power limit; %d fit in memory (weights, gradients, optimizer state and activations without checkpointing)", searched, len(pts)),
		"embodied CO2e: "+EmbodiedSource)
	if len(pts) == 0 {
		resp.Warnings = append(resp.Warnings, "no searched configuration fits in memory: allow more GPUs (max_count), larger GPUs, a smaller batch_per_gpu, a global batch the data-parallel degrees divide, or a leaner optimizer (state_bytes_per_param)")
		resp.Pareto = []Config{}
		return resp, c.addCurrent(&resp, req, base)
	}

	sc := siteCosts{pue: base.site.PUE, carbon: base.site.CarbonGPerKWh, usd: base.site.USDPerKWh, embodied: EmbodiedKgPerGPUHour()}
	score := func(p *point) float64 {
		switch obj {
		case MinCO2e:
			return sc.co2e(p) + sc.emb(p)
		case MinCost:
			return sc.cost(p)
		case MinTime:
			return p.timeS
		}
		return p.kwh
	}
	bi, fi, warn := PickBest(len(pts), req.DeadlineS, func(i int) float64 { return score(&pts[i]) },
		func(i int) float64 { return pts[i].kwh }, func(i int) float64 { return pts[i].timeS },
		func(i int) string {
			return fmt.Sprintf("%s × %s, %s", ShortNum(float64(pts[i].count)), pts[i].g.gpu.ID, strategyName(pts[i].strategy()))
		})
	best, fastest := &pts[bi], &pts[fi]
	resp.MeetsDeadline = warn == ""
	if warn != "" {
		resp.Warnings = append(resp.Warnings, warn)
	}
	bc := c.config(wreq, sc, best, req.DeadlineS)
	resp.Best = &bc
	fc := c.config(wreq, sc, fastest, req.DeadlineS)
	resp.Fastest = &fc
	for _, i := range ParetoFront(len(pts), func(i int) float64 { return pts[i].timeS }, func(i int) float64 { return pts[i].kwh }) {
		resp.Pareto = append(resp.Pareto, c.config(wreq, sc, &pts[i], req.DeadlineS))
	}
	return resp, c.addCurrent(&resp, req, base)
}

// addCurrent estimates the user's configuration and the saving.
func (c *Catalog) addCurrent(resp *RecommendResponse, req RecommendRequest, base *resolved) error {
	if req.Current == nil {
		return nil
	}
	r := Request{Model: req.Workload.Model, Training: req.Workload.Training, Calibration: req.Workload.Calibration,
		Hardware: req.Current.Hardware, Strategy: req.Current.Strategy, Site: req.Site}
	e, err := c.Estimate(r)
	if err != nil {
		return currentErr(err)
	}
	r.Hardware.PowerLimitW = e.Inputs.PowerLimitW
	cur := Config{Hardware: ConfigHardware{GPU: e.Inputs.GPU, Count: e.Inputs.Count, PowerLimitW: e.Inputs.PowerLimitW},
		Strategy: strategyOf(e.Parallel), EnergyKWh: e.EnergyKWh, TimeS: e.TimeS, CO2eKg: e.CO2eKg, EmbodiedCO2eKg: e.EmbodiedCO2eKg,
		TotalCO2eKg: e.CO2eKg + e.EmbodiedCO2eKg, CostUSD: e.CostUSD, GPUHours: e.GPUHours,
		MeetsDeadline: req.DeadlineS == 0 || e.TimeS <= req.DeadlineS, Request: r,
		BatchPerGPU: e.Inputs.BatchPerGPU, GradientAccumulation: e.Inputs.GradientAccumulation,
		SequencesPerStep: e.Inputs.BatchPerGPU * e.Parallel.Data * e.Inputs.GradientAccumulation}
	m := e.Memory
	cur.Memory = &MemoryCheck{StateGB: m.StateGBPerGPU, ActivationGB: m.ActivationGBPerGPU, CapacityGB: m.CapacityGB,
		Fits: m.StateGBPerGPU+m.ActivationGBPerGPU <= m.CapacityGB}
	cur.Request.Strategy = cur.Strategy
	resp.Current = &cur
	if resp.GlobalBatch == GlobalBatchFree {
		// every configuration whose global batch differs says so
		for _, cf := range append([]*Config{resp.Best, resp.Fastest}, pointers(resp.Pareto)...) {
			if cf != nil && cf.SequencesPerStep != cur.SequencesPerStep && len(cf.Warnings) == 0 {
				cf.Warnings = append(cf.Warnings, fmt.Sprintf("%d sequences per optimizer step, not the current configuration's %d: a different optimisation run (learning rate and convergence may differ), so its energy is not like for like", cf.SequencesPerStep, cur.SequencesPerStep))
			}
		}
	}
	if b := resp.Best; b != nil {
		resp.Saving = &Saving{EnergyKWh: cur.EnergyKWh - b.EnergyKWh, EnergyPct: 100 * (cur.EnergyKWh - b.EnergyKWh) / cur.EnergyKWh,
			TimeS: cur.TimeS - b.TimeS, CO2eKg: cur.CO2eKg - b.CO2eKg, EmbodiedCO2eKg: cur.EmbodiedCO2eKg - b.EmbodiedCO2eKg, CostUSD: cur.CostUSD - b.CostUSD}
	}
	return nil
}

// currentErr places an error of the current configuration's hardware or
// strategy under current.
func currentErr(err error) error {
	fe := AsFieldError(err)
	if fe != nil && (strings.HasPrefix(fe.Field, "hardware") || strings.HasPrefix(fe.Field, "strategy")) {
		return PrefixField("current", err)
	}
	return err
}

func strategyOf(p Parallel) Strategy {
	if p.Strategy == Hybrid {
		return Strategy{Name: Hybrid, Tensor: float64(p.Tensor), Data: float64(p.Data), DataMode: p.DataMode, Context: float64(p.Context)}
	}
	return Strategy{Name: p.Strategy}
}

func pointers(cs []Config) []*Config {
	out := make([]*Config, len(cs))
	for i := range cs {
		out[i] = &cs[i]
	}
	return out
}

// searchGPUs resolves the candidates (nil = every GPU in the table).
func (c *Catalog) searchGPUs(cands []Candidate, prec Precision) ([]searchGPU, []string, error) {
	var warns []string
	if cands == nil {
		for i := range c.Hardware.GPUs {
			cands = append(cands, Candidate{GPU: c.Hardware.GPUs[i].ID})
		}
	} else if len(cands) == 0 {
		return nil, nil, fieldErr("candidates", nil, "is empty: list at least one GPU ({\"gpu\": \"h100-sxm5\", \"max_count\": 8}) or leave it out to search every GPU")
	}
	if len(cands) > MaxCandidates {
		return nil, nil, fieldErr("candidates", len(cands), "must list at most %d GPUs", MaxCandidates)
	}
	seen := map[string]string{}
	var out []searchGPU
	var unsupported []string
	for i, cd := range cands {
		f := fmt.Sprintf("candidates[%d]", i)
		if strings.TrimSpace(cd.GPU) == "" {
			return nil, nil, fieldErr(f+".gpu", nil, "is required, for example \"h100-sxm5\"")
		}
		g, err := c.Hardware.Lookup(cd.GPU)
		if err != nil {
			fe := AsFieldError(err)
			return nil, nil, &FieldError{Field: f + ".gpu", Value: fe.Value, Message: fe.Message}
		}
		if prev, dup := seen[g.ID]; dup {
			return nil, nil, fieldErr(f+".gpu", cd.GPU, "names %s again (already %s)", g.ID, prev)
		}
		seen[g.ID] = f
		maxN := DefaultMaxCount
		if cd.MaxCount != 0 {
			if err := checkCount(f+".max_count", cd.MaxCount, 1, MaxCandidateCount); err != nil {
				return nil, nil, err
			}
			maxN = int(cd.MaxCount)
		}
		if len(cd.PowerLimitsW) > MaxPowerLimits {
			return nil, nil, fieldErr(f+".power_limits_w", len(cd.PowerLimitsW), "must list at most %d limits", MaxPowerLimits)
		}
		var limits []float64
		for j, w := range cd.PowerLimitsW {
			v, below, err := checkPowerLimit(fmt.Sprintf("%s.power_limits_w[%d]", f, j), w, g)
			if err != nil {
				return nil, nil, err
			}
			if below {
				warns = append(warns, belowMinWarning(g, v))
			}
			limits = append(limits, v)
		}
		if limits == nil {
			limits = defaultLimits(g)
		}
		peak, err := g.PeakFLOPS(prec)
		if err != nil {
			unsupported = append(unsupported, g.ID)
			continue
		}
		var counts []int
		for _, n := range searchCounts {
			if n < maxN {
				counts = append(counts, n)
			}
		}
		counts = append(counts, maxN)
		out = append(out, searchGPU{gpu: g, peak: peak, counts: counts, limits: limits, field: f})
	}
	if len(unsupported) > 0 {
		warns = append(warns, fmt.Sprintf("left out, without %s in hardware: %s", prec, strings.Join(unsupported, ", ")))
	}
	return out, warns, nil
}

// defaultLimits are DefaultLimitSteps limits evenly spaced from the
// board's lowest limit to its default (the default alone where the limit
// cannot be set).
func defaultLimits(g *GPU) []float64 {
	pr := PowerLimits(g)
	if pr.MinW >= pr.DefaultW {
		return []float64{pr.DefaultW}
	}
	out := make([]float64, DefaultLimitSteps)
	for i := range out {
		out[i] = math.Round(pr.MinW + (pr.DefaultW-pr.MinW)*float64(i)/float64(DefaultLimitSteps-1))
	}
	return out
}

// layouts returns the layouts tried at n GPUs.
func layouts(n int) []Strategy {
	if n == 1 {
		return []Strategy{{Name: Single}}
	}
	out := []Strategy{{Name: DDP}, {Name: FSDP}, {Name: TP}}
	for _, t := range hybridTensor {
		if n%t == 0 && n/t > 1 {
			out = append(out, Strategy{Name: Hybrid, Tensor: float64(t), Data: float64(n / t), DataMode: FSDP})
		}
	}
	return out
}

// search evaluates every configuration that fits; it returns them, how
// many were tried and the counts left out. held > 0 is the global batch to
// keep (sequences per optimizer step): each layout's micro-batch is the
// largest that divides held ÷ its data-parallel degree and fits in memory,
// the accumulation the rest; held 0 keeps the workload's batch_per_gpu and
// gradient_accumulation.
func (c *Catalog) search(base *resolved, gpus []searchGPU, held int) ([]point, int, []Skipped, error) {
	capacity := 0
	for i := range gpus {
		capacity += len(gpus[i].counts) * (3 + len(hybridTensor)) * len(gpus[i].limits)
	}
	pts := make([]point, 0, capacity)
	var skipped []Skipped
	searched := 0
	tc := base.timeCal
	lean := base.cal.Kind == KindRoofline
	for gi := range gpus {
		sg := &gpus[gi]
		r := *base
		r.gpu, r.peak = sg.gpu, sg.peak
		for _, n := range sg.counts {
			r.count = n
			before := len(pts)
			sk := Skipped{GPU: sg.gpu.ID, Count: n, SequencesPerStep: held, CapacityGB: sg.gpu.MemoryGB, Code: SkipIndivisible}
			if held == 0 {
				sk.Code = ""
			}
			for li, st := range layouts(n) {
				searched += len(sg.limits)
				// Tensor ranks must divide the heads; checked here so that
				// refused layouts cost no error message.
				if t := tensorOf(st, n); t > 1 && (t > r.arch.Heads || r.arch.Heads%t != 0) {
					continue
				}
				r.bat, r.accum = base.bat, base.accum
				if r.resolveStrategy(st) != nil {
					continue
				}
				d := r.plan.Data
				if !slices.Contains(sk.DataRanks, d) {
					sk.DataRanks = append(sk.DataRanks, d)
				}
				if held > 0 && !r.holdBatch(held, &sk) {
					continue
				}
				if held == 0 && !r.activationsFit() {
					need := (r.stateBytesPerGPU() + r.actMemPerGPU()) / 1e9
					if sk.Code == "" || sk.NeedGB > need {
						sk.Code, sk.NeedGB, sk.SequencesPerStep = SkipMemory, need, r.bat*d*r.accum
					}
					continue
				}
				if r.tokens < float64(r.seq)*float64(r.bat)*float64(d) {
					if sk.Code == "" || sk.Code == SkipIndivisible {
						sk.Code = SkipTokens
					}
					continue
				}
				var pre leanPre
				if lean {
					pre = r.leanPrepare(tc)
				}
				for _, w := range sg.limits {
					r.limitW = w
					var kwh, timeS float64
					if lean {
						var err error
						if kwh, timeS, err = c.leanEstimate(&r, tc, &pre); err != nil {
							continue
						}
					} else {
						r.assume = nil
						e, err := c.estimate(&r)
						if err != nil {
							continue
						}
						kwh, timeS = e.EnergyKWh, e.TimeS
					}
					pts = append(pts, point{g: sg, count: int32(n), layout: int32(li), bat: int32(r.bat), accum: int32(r.accum), limit: w, kwh: kwh, timeS: timeS})
				}
			}
			if len(pts) == before && sk.Code != "" && len(sk.DataRanks) > 0 {
				sk.Reason = skipReason(sk)
				skipped = append(skipped, sk)
			}
		}
	}
	if skipped == nil {
		skipped = []Skipped{}
	}
	return pts, searched, skipped, nil
}

// holdBatch sets r's micro-batch and accumulation to reproduce held
// sequences per optimizer step on its data-parallel ranks: the largest
// micro-batch that divides held ÷ ranks and fits in memory. It reports
// false, noting why in sk, when none does.
func (r *resolved) holdBatch(held int, sk *Skipped) bool {
	d := r.plan.Data
	if held%d != 0 {
		return false // sk.Code stays SkipIndivisible unless another layout says more
	}
	per := held / d
	r.bat, r.accum = 1, per
	capB := r.gpu.MemoryGB*1e9 - r.stateBytesPerGPU()
	act1 := r.actMemPerGPU() // at one sequence
	need := (r.stateBytesPerGPU() + act1) / 1e9
	if act1 > capB {
		if sk.Code != SkipMemory || sk.NeedGB > need {
			sk.Code, sk.NeedGB = SkipMemory, need
		}
		return false
	}
	top := per
	if act1 > 0 {
		top = min(per, int(capB/act1))
	}
	for b := top; b >= 1; b-- {
		if per%b == 0 && per/b <= maxAccum {
			r.bat, r.accum = b, per/b
			if r.activationsFit() {
				return true
			}
		}
	}
	if sk.Code != SkipMemory || sk.NeedGB > need {
		sk.Code, sk.NeedGB = SkipMemory, need
	}
	return false
}

// maxAccum is the most micro-batches per optimizer step the search sets
// (the request field's bound).
const maxAccum = 1 << 16

// tensorOf is the tensor-parallel degree of layout st at n GPUs.
func tensorOf(st Strategy, n int) int {
	switch st.Name {
	case TP:
		return n
	case Hybrid:
		return int(st.Tensor)
	}
	return 1
}

// activationsFit reports whether activations (without checkpointing) and
// state fit in one GPU's memory: the condition under which the estimate
// warns that the run needs checkpointing (it implies checkState).
func (r *resolved) activationsFit() bool {
	return r.stateBytesPerGPU()+r.actMemPerGPU() <= r.gpu.MemoryGB*1e9
}

// leanPre holds what does not change with the power limit.
type leanPre struct {
	tComp, tMem, tStep, pAvg float64
	// fixed: the layout's speedup curves do not depend on the step time
	// (no communication-aware model for this interconnect), so sp, eta and
	// factor are computed once.
	fixed           bool
	sp, eta, factor float64
	err             error
}

func (r *resolved) leanPrepare(tc *Calibration) leanPre {
	rp := tc.Roofline
	flopsTok, bytesTok := r.counts()
	C, M := flopsTok*r.tokens, bytesTok*r.tokens
	bw := r.gpu.BandwidthGBs * 1e9
	uComp, uMem, activity := rp.ForPrecision(r.prec)
	uComp = r.peftShare(r.expertShare(r.stack.uCompute(r.prec, uComp), flopsTok), flopsTok)
	tComp := C / (r.peak * uComp)
	pre := leanPre{
		tComp: tComp,
		tMem:  r.stack.exposedMem(tComp, M/(bw*uMem)),
		tStep: rp.StepS.Value * r.tokens / (float64(r.bat) * float64(r.seq)),
		pAvg:  r.gpu.BusyPowerW(activity),
		// without the speedup curves (not fixed), the factor is 1 on one
		// GPU and unused on more (parallelJ charges the waiting power)
		factor: 1,
	}
	if !tc.Comm.Applies(r.gpu.Interconnect) {
		pre.fixed = true
		pre.sp, pre.eta, _, pre.err = r.parallel(tc, 0)
		alpha, _ := tc.AlphaEtaFor(r.gpu.Interconnect)
		pre.factor = r.etaFactor(alpha, pre.eta)
	}
	return pre
}

// leanEstimate is the energy and time of Catalog.estimate for a roofline
// calibration, without the response around them (same operations in the
// same order, so the numbers are identical: TestRecommendMatchesEstimate).
func (c *Catalog) leanEstimate(r *resolved, tc *Calibration, pre *leanPre) (kwh, timeS float64, err error) {
	g := r.gpu
	limTime, limPower, _, err := c.powerFactors(g, r.limitW, pre.pAvg)
	if err != nil {
		return 0, 0, err
	}
	tComp, tMem, tStep, pAvg := pre.tComp*limTime, pre.tMem*limTime, pre.tStep*limTime, pre.pAvg*limPower
	t1 := tComp + tMem + tStep
	sp, factor := pre.sp, pre.factor
	var eta float64
	if pre.fixed {
		if pre.err != nil {
			return 0, 0, pre.err
		}
	} else if sp, eta, _, err = r.parallel(tc, t1); err != nil {
		return 0, 0, err
	}
	overheadS := tc.Roofline.OverheadS.Value
	e0J := float64(r.count) * g.IdlePowerW * overheadS
	compJ, memJ := pAvg*tComp, pAvg*(tMem+tStep)
	parJ, _ := r.parallelJ(!pre.fixed, factor, compJ+memJ, pre.pAvg, pAvg, t1, eta)
	totalJ := compJ + memJ + parJ + e0J
	timeS = t1/sp + overheadS
	kwh = totalJ / 3.6e6
	if !finite(kwh, timeS) || kwh <= 0 || timeS <= 0 {
		return 0, 0, fmt.Errorf("not finite")
	}
	return kwh, timeS, nil
}

// config turns a point into a Config with its estimate request.
func (c *Catalog) config(wreq Request, sc siteCosts, p *point, deadline float64) Config {
	st := p.strategy()
	req := wreq
	req.Hardware, req.Strategy = HardwareSpec{GPU: p.g.gpu.ID, Count: float64(p.count), PowerLimitW: p.limit}, st
	req.Training.BatchPerGPU = float64(p.bat)
	req.Training.GradientAccumulation = 0
	if p.accum > 1 {
		req.Training.GradientAccumulation = float64(p.accum)
	}
	data := int(p.count) / tensorOf(st, int(p.count))
	co2e, emb := sc.co2e(p), sc.emb(p)
	return Config{
		Hardware: ConfigHardware{GPU: p.g.gpu.ID, Count: int(p.count), PowerLimitW: p.limit}, Strategy: st,
		EnergyKWh: p.kwh, TimeS: p.timeS, CO2eKg: co2e, EmbodiedCO2eKg: emb, TotalCO2eKg: co2e + emb, CostUSD: sc.cost(p),
		GPUHours: float64(p.count) * p.timeS / 3600, MeetsDeadline: deadline == 0 || p.timeS <= deadline, Request: req,
		SequencesPerStep: int(p.bat) * data * int(p.accum), BatchPerGPU: int(p.bat), GradientAccumulation: int(p.accum),
	}
}

// strategyName is how messages name a layout.
func strategyName(st Strategy) string {
	if st.Name == Hybrid {
		return fmt.Sprintf("tensor %s × %s %s", ShortNum(st.Tensor), st.DataMode, ShortNum(st.Data))
	}
	return st.Name
}

// ParetoFront returns the indices of the n points that no other point
// beats on both time and energy, sorted by time (ties: less energy first).
// The recommender and the planner's per-stage search both use it.
func ParetoFront(n int, time, energy func(i int) float64) []int {
	type key struct {
		t, e float64
		i    int
	}
	keys := make([]key, n)
	for i := range keys {
		keys[i] = key{time(i), energy(i), i}
	}
	// sort.Slice, not slices.SortFunc: a generic sort is compiled anew for
	// each element type (about 17 KB of code in calc.wasm for this one),
	// and package sort's is already linked. Ties on time and energy keep
	// the lower index, whatever the algorithm.
	sort.Slice(keys, func(x, y int) bool {
		a, b := keys[x], keys[y]
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c < 0
		}
		if c := cmp.Compare(a.e, b.e); c != 0 {
			return c < 0
		}
		return a.i < b.i
	})
	var out []int
	bestE := math.Inf(1)
	for _, k := range keys {
		if k.e < bestE {
			out = append(out, k.i)
			bestE = k.e
		}
	}
	return out
}

// PickBest chooses among n searched configurations (n > 0), described by
// index: the fastest (least time, then least energy) and the best, which
// has the least score among those that meet the deadline (deadline ≤ 0:
// all do), ties broken by energy and then time. When none meets the
// deadline, best is the fastest and warning says so, naming it by
// describe(fastest) ("4 × h100-sxm5-80gb, FSDP"); warning is "" otherwise.
// The recommender and the planner's per-stage search both choose with it.
func PickBest(n int, deadline float64, score, energy, time func(i int) float64, describe func(i int) string) (best, fastest int, warning string) {
	best, fastest = -1, -1
	for i := 0; i < n; i++ {
		if fastest < 0 || time(i) < time(fastest) || (time(i) == time(fastest) && energy(i) < energy(fastest)) {
			fastest = i
		}
		if deadline > 0 && time(i) > deadline {
			continue
		}
		if best < 0 || betterThan(score(i), energy(i), time(i), score(best), energy(best), time(best)) {
			best = i
		}
	}
	if best < 0 {
		return fastest, fastest, fmt.Sprintf("no searched configuration meets the deadline of %s s; the fastest takes %s s (%s): best is the fastest option",
			ShortNum(deadline), ShortNum(math.Round(time(fastest))), describe(fastest))
	}
	return best, fastest, ""
}

func betterThan(sa, ea, ta, sb, eb, tb float64) bool {
	if sa != sb {
		return sa < sb
	}
	if ea != eb {
		return ea < eb
	}
	return ta < tb
}
