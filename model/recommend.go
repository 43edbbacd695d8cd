package model

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
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
}

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
	// Request is the estimate request of this configuration: send it to
	// site estimate or POST /api/v1/estimate for the full breakdown.
	Request Request `json:"request"`
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
	Pareto      []Config `json:"pareto"`
	Current     *Config  `json:"current,omitempty"`
	Saving      *Saving  `json:"saving,omitempty"`
	Searched    int      `json:"searched"`
	Feasible    int      `json:"feasible"`
	Warnings    []string `json:"warnings"`
	Assumptions []string `json:"assumptions"`
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
	}
	var out RecommendRequest
	if err := DecodeExact(raw, &j); err != nil {
		return out, err
	}
	out.DeadlineS, out.Minimise = j.DeadlineS, j.Minimise
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

	gpus, warns, err := c.searchGPUs(req.Candidates, base.prec)
	if err != nil {
		return resp, err
	}
	resp.Warnings = append(resp.Warnings, warns...)
	if len(gpus) == 0 {
		return resp, fieldErr("candidates", nil, "has no GPU that supports %s training; choose another precision or other GPUs", base.prec)
	}

	pts, searched, err := c.search(base, gpus)
	if err != nil {
		return resp, err
	}
	resp.Searched, resp.Feasible = searched, len(pts)
	resp.Assumptions = append(resp.Assumptions,
		fmt.Sprintf("searched %d configurations: GPU type × count (up to each candidate's max_count) × layout (single, ddp, fsdp, tp, tensor 2/4/8 × fsdp) × power limit; %d fit in memory (weights, gradients, optimizer state and activations without checkpointing)", searched, len(pts)),
		"embodied CO2e: "+EmbodiedSource)
	if len(pts) == 0 {
		resp.Warnings = append(resp.Warnings, "no searched configuration fits in memory: allow more GPUs (max_count), larger GPUs, a smaller batch_per_gpu or a leaner optimizer (state_bytes_per_param)")
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
		fe := AsFieldError(err)
		if fe != nil && (strings.HasPrefix(fe.Field, "hardware") || strings.HasPrefix(fe.Field, "strategy")) {
			return PrefixField("current", err)
		}
		return err
	}
	r.Hardware.PowerLimitW = e.Inputs.PowerLimitW
	cur := Config{Hardware: ConfigHardware{GPU: e.Inputs.GPU, Count: e.Inputs.Count, PowerLimitW: e.Inputs.PowerLimitW},
		Strategy: strategyOf(e.Parallel), EnergyKWh: e.EnergyKWh, TimeS: e.TimeS, CO2eKg: e.CO2eKg, EmbodiedCO2eKg: e.EmbodiedCO2eKg,
		TotalCO2eKg: e.CO2eKg + e.EmbodiedCO2eKg, CostUSD: e.CostUSD, GPUHours: e.GPUHours,
		MeetsDeadline: req.DeadlineS == 0 || e.TimeS <= req.DeadlineS, Request: r}
	cur.Request.Strategy = cur.Strategy
	resp.Current = &cur
	if b := resp.Best; b != nil {
		resp.Saving = &Saving{EnergyKWh: cur.EnergyKWh - b.EnergyKWh, EnergyPct: 100 * (cur.EnergyKWh - b.EnergyKWh) / cur.EnergyKWh,
			TimeS: cur.TimeS - b.TimeS, CO2eKg: cur.CO2eKg - b.CO2eKg, EmbodiedCO2eKg: cur.EmbodiedCO2eKg - b.EmbodiedCO2eKg, CostUSD: cur.CostUSD - b.CostUSD}
	}
	return nil
}

func strategyOf(p Parallel) Strategy {
	if p.Strategy == Hybrid {
		return Strategy{Name: Hybrid, Tensor: float64(p.Tensor), Data: float64(p.Data), DataMode: p.DataMode}
	}
	return Strategy{Name: p.Strategy}
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

// search evaluates every configuration that fits; it returns them and how
// many were tried.
func (c *Catalog) search(base *resolved, gpus []searchGPU) ([]point, int, error) {
	capacity := 0
	for i := range gpus {
		capacity += len(gpus[i].counts) * (3 + len(hybridTensor)) * len(gpus[i].limits)
	}
	pts := make([]point, 0, capacity)
	searched := 0
	tc := base.timeCal
	lean := base.cal.Kind == KindRoofline
	for gi := range gpus {
		sg := &gpus[gi]
		r := *base
		r.gpu, r.peak = sg.gpu, sg.peak
		for _, n := range sg.counts {
			r.count = n
			for li, st := range layouts(n) {
				searched += len(sg.limits)
				// Tensor ranks must divide the heads; checked here so that
				// refused layouts cost no error message.
				if t := tensorOf(st, n); t > 1 && (t > r.arch.Heads || r.arch.Heads%t != 0) {
					continue
				}
				if r.resolveStrategy(st) != nil || !r.activationsFit() {
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
					pts = append(pts, point{g: sg, count: int32(n), layout: int32(li), limit: w, kwh: kwh, timeS: timeS})
				}
			}
		}
	}
	return pts, searched, nil
}

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
	co2e, emb := sc.co2e(p), sc.emb(p)
	return Config{
		Hardware: ConfigHardware{GPU: p.g.gpu.ID, Count: int(p.count), PowerLimitW: p.limit}, Strategy: st,
		EnergyKWh: p.kwh, TimeS: p.timeS, CO2eKg: co2e, EmbodiedCO2eKg: emb, TotalCO2eKg: co2e + emb, CostUSD: sc.cost(p),
		GPUHours: float64(p.count) * p.timeS / 3600, MeetsDeadline: deadline == 0 || p.timeS <= deadline, Request: req,
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
	slices.SortFunc(keys, func(a, b key) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.e, b.e)
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
