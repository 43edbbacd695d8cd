package model

import (
	"cmp"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Recommend searches GPU type × count × layout × power limit for the
// least-energy (or CO2e, cost, time) configuration that fits in memory and
// meets the deadline. Bad input is a *FieldError; a deadline nothing meets
// is an answer that says so.
func (c *Catalog) Recommend(req RecommendRequest) (RecommendResponse, error) {
	resp := RecommendResponse{Version: APIVersion, Search: NewSearch[Config]()}
	resp.Pareto = nil
	obj := strings.ToLower(strings.TrimSpace(req.Minimise))
	switch obj {
	case "":
		obj = MinEnergy
	case MinEnergy, MinCO2e, MinCost, MinTime:
	default:
		return resp, codeErr(CodeMinimise, "minimise", req.Minimise, nil)
	}
	resp.Minimise = obj
	if req.DeadlineS != 0 {
		if err := checkPositive("deadline_s", req.DeadlineS, MaxDeadlineS); err != nil {
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
		return resp, codeErr(CodeGlobalBatchMode, "global_batch", req.GlobalBatch, nil)
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
	resp.Assumptions = append(resp.Assumptions, MessageTexts(base.assume)...)

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
		resp.Assumptions = append(resp.Assumptions, "global batch held at the current configuration's "+strconv.Itoa(held)+" sequences per optimizer step (batch_per_gpu "+strconv.Itoa(cur.bat)+" × "+strconv.Itoa(cur.plan.Data)+" data-parallel ranks × gradient_accumulation "+strconv.Itoa(cur.accum)+") and "+ShortNum(base.tokens)+" tokens: each configuration's micro-batch is the largest that reproduces it and fits in memory, with accumulation making up the rest; set global_batch to \"free\" to let it vary")
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
	for _, w := range warns {
		resp.Warn(w)
	}
	if len(gpus) == 0 {
		return resp, codeErr(CodeNoGPUForPrecision, "candidates", nil, Args{{Name: "precision", Str: string(base.prec)}})
	}

	pts, searched, skipped, err := c.search(base, gpus, held)
	if err != nil {
		return resp, err
	}
	resp.Searched, resp.Feasible, resp.Skipped = searched, len(pts), skipped
	resp.Assumptions = append(resp.Assumptions,
		"searched "+strconv.Itoa(searched)+" configurations: GPU type × count (up to each candidate's max_count) × layout (single, ddp, fsdp, tp, tensor 2/4/8 × fsdp) × power limit; "+strconv.Itoa(len(pts))+" fit in memory (weights, gradients, optimizer state and activations without checkpointing)",
		"embodied CO2e: "+EmbodiedSource)
	if len(pts) == 0 {
		resp.Warn(Message{Code: CodeNoneFits, Args: Args{{Name: "batch", Str: "training.batch_per_gpu"}, {Name: "state_bytes", Str: "training.state_bytes_per_param"}}})
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
		func(i int) Message {
			return ConfigName(int(pts[i].count), pts[i].g.gpu.ID, strategyName(pts[i].strategy()))
		})
	best, fastest := &pts[bi], &pts[fi]
	resp.MeetsDeadline = warn.Code == ""
	if warn.Code != "" {
		resp.Warn(warn)
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
				m := Message{Code: CodeOtherGlobalBatch, Args: Args{{Name: "sequences", Num: float64(cf.SequencesPerStep)}, {Name: "current", Num: float64(cur.SequencesPerStep)}}}
				cf.Warnings, cf.WarningMessages = append(cf.Warnings, m.String()), append(cf.WarningMessages, m)
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
		return "tensor " + ShortNum(st.Tensor) + " × " + st.DataMode + " " + ShortNum(st.Data)
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
	// sort.Sort, not slices.SortFunc: a generic sort is compiled anew for
	// each element type (about 17 KB of code in calc.wasm for this one),
	// and package sort's is already linked (nor sort.Slice: sortable).
	// Ties on time and energy keep the lower index, whatever the algorithm.
	sort.Sort(sortable{len(keys), func(x, y int) bool {
		a, b := keys[x], keys[y]
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c < 0
		}
		if c := cmp.Compare(a.e, b.e); c != 0 {
			return c < 0
		}
		return a.i < b.i
	}, func(x, y int) { keys[x], keys[y] = keys[y], keys[x] }})
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
// deadline, best is the fastest and warning says so (CodeMissesDeadline),
// naming it by describe(fastest) (ConfigName: "4 × h100-sxm5-80gb,
// FSDP"); warning's Code is "" otherwise. The recommender and the
// planner's per-stage search both choose with it.
func PickBest(n int, deadline float64, score, energy, time func(i int) float64, describe func(i int) Message) (best, fastest int, warning Message) {
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
		return fastest, fastest, Message{Code: CodeMissesDeadline, Field: "deadline_s", Args: Args{{Name: "deadline_s", Num: deadline}, {Name: "fastest_s", Num: math.Round(time(fastest))}, {Name: "fastest", Msgs: []Message{describe(fastest)}}}}
	}
	return best, fastest, Message{}
}

// ConfigName names a searched configuration in a message: count × GPU,
// layout.
func ConfigName(count int, gpu, layout string) Message {
	return Message{Code: CodeConfigName, Args: Args{{Name: "count", Num: float64(count)}, {Name: "gpu", Str: gpu}, {Name: "layout", Str: layout}}}
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
