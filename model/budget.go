package model

import (
	"sort"
	"strconv"
)

// Work budgets. A request's work is known before any of it is done: a
// search tries a fixed set of configurations (GPU type × count × layout ×
// power limit) that the request's candidates set, and a plan estimates the
// stages it gives as configurations. A request whose work exceeds the
// catalog's budget is refused with a *FieldError that names the fields
// setting its size, the work they ask for and the budget, so that no
// request can hold the Worker's isolate (whose one thread also serves every
// other request) for long: the budget was chosen so that the heaviest
// allowed request takes at most about 50 ms of CPU in workerd
// (wasm/worker's TestWorkerdBudget and BenchmarkWorkerdBudget measure it).
// Work is counted in units of about one training configuration's cost:
const (
	// DefaultWorkBudget is the work one request may ask for unless the
	// catalog sets another (Catalog.WorkBudget; the command line's -budget).
	DefaultWorkBudget = 15000
	// WorkPerConfig is a fine-tuning configuration tried by a search.
	WorkPerConfig = 1
	// WorkPerInferenceConfig is an inference configuration (a teacher or
	// evaluation stage) tried by a search: an inference estimate costs
	// about five times a fine-tuning one in the search's lean path.
	WorkPerInferenceConfig = 5
	// WorkPerSearch is a search's own cost besides its configurations:
	// the current configuration's estimate and the answer's configurations.
	WorkPerSearch = 500
	// WorkPerEstimatedStage is a plan stage given as a configuration
	// (teacher, student or eval), estimated once, with its share of the
	// plan's answer.
	WorkPerEstimatedStage = 250
)

// Budget returns the catalog's work budget: WorkBudget, DefaultWorkBudget
// when it is 0 (or c is nil), or 0 for no limit when it is negative.
func (c *Catalog) Budget() int {
	switch {
	case c == nil || c.WorkBudget == 0:
		return DefaultWorkBudget
	case c.WorkBudget < 0:
		return 0
	}
	return c.WorkBudget
}

// SearchSize returns the number of configurations a search over cands
// tries (nil = every accelerator of the table up to DefaultMaxCount each),
// and the largest contributions in words ("h100-sxm5: 20 counts up to
// 4096, 6 layouts, 16 power limits: 1,920"). Per candidate it is the sum
// over its counts of the layouts at that count, times its power limits;
// inference is true for a teacher or evaluation stage (one layout on one
// GPU, tp and dp on more; the board's default limit only). A GPU without
// precision prec counts nothing (the search leaves it out; "" counts every
// GPU). A candidate that names no accelerator, or a max_count out of
// range, counts as the default (the search itself refuses it).
func (c *Catalog) SearchSize(cands []Candidate, inference bool, prec Precision) (int, []Message) {
	if cands == nil {
		for i := range c.Hardware.GPUs {
			cands = append(cands, Candidate{GPU: c.Hardware.GPUs[i].ID})
		}
	}
	type part struct {
		n    int
		text Message
	}
	var parts []part
	total := 0
	for _, cd := range cands {
		maxN := DefaultMaxCount
		if cd.MaxCount >= 1 && cd.MaxCount <= MaxCandidateCount {
			maxN = int(cd.MaxCount)
		}
		base := searchCounts
		if inference {
			base = inferenceCounts
		}
		var counts []int
		for _, n := range base {
			if n < maxN {
				counts = append(counts, n)
			}
		}
		counts = append(counts, maxN)
		nCounts, nLayouts := len(counts), 0
		for _, n := range counts {
			switch {
			case inference && n == 1:
				nLayouts++
			case inference:
				nLayouts += 2
			default:
				nLayouts += len(layouts(n))
			}
		}
		limits := 1
		g, err := c.Hardware.Lookup(cd.GPU)
		if err == nil && prec != "" {
			if _, perr := g.PeakFLOPS(prec); perr != nil {
				continue
			}
		}
		switch {
		case inference:
		case len(cd.PowerLimitsW) > 0:
			limits = len(cd.PowerLimitsW)
		case err == nil:
			limits = len(defaultLimits(g))
		default:
			limits = DefaultLimitSteps
		}
		n := nLayouts * limits
		total += n
		name := cd.GPU
		if err == nil {
			name = g.ID
		}
		text := Message{Code: CodeBudgetGPU, Args: Args{{Name: "gpu", Str: name}, {Name: "counts", Num: float64(nCounts)}, {Name: "max", Num: float64(maxN)},
			{Name: "layouts", Num: float64(nLayouts)}, {Name: "limits", Num: float64(limits)}, {Name: "n", Num: float64(n)}}}
		if inference {
			text.Code = CodeBudgetGPUInfer
		}
		parts = append(parts, part{n, text})
	}
	sort.Stable(sortable{len(parts), func(i, j int) bool { return parts[i].n > parts[j].n }, func(i, j int) { parts[i], parts[j] = parts[j], parts[i] }})
	var top []Message
	for _, p := range parts[:min(3, len(parts))] {
		top = append(top, p.text)
	}
	if len(parts) > 3 {
		top = append(top, Message{Code: CodeBudgetMoreGPUs, Args: Args{{Name: "n", Num: float64(len(parts) - 3)}}})
	}
	return total, top
}

// inferenceCounts are the GPU counts an inference stage is tried on (up
// to a candidate's max_count, which is always tried too).
var inferenceCounts = []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096}

// InferenceCounts returns the GPU counts an inference stage of a plan is
// tried on with max_count maxN (package distill's search; SearchSize).
func InferenceCounts(maxN int) []int {
	var out []int
	for _, n := range inferenceCounts {
		if n < maxN {
			out = append(out, n)
		}
	}
	return append(out, maxN)
}

// OverBudget is the error for a request whose work exceeds budget: field
// names what sets its size, what says how (the configurations, with the
// largest parts), work and budget the figures.
func OverBudget(field string, what Message, work, budget int) *FieldError {
	fe := codeErr(CodeOverBudget, field, nil, Args{{Name: "what", Msgs: []Message{what}}, {Name: "budget", Num: float64(budget)},
		{Name: "per_config", Num: WorkPerConfig}, {Name: "per_inference", Num: WorkPerInferenceConfig},
		{Name: "per_search", Num: WorkPerSearch}, {Name: "per_stage", Num: WorkPerEstimatedStage}})
	return fe.withValue(strconv.Itoa(work) + " work units")
}

// checkSearchBudget refuses a recommend request whose search exceeds the
// catalog's budget, before searching.
func (c *Catalog) checkSearchBudget(cands []Candidate, prec Precision) error {
	budget := c.Budget()
	if budget == 0 {
		return nil
	}
	n, top := c.SearchSize(cands, false, prec)
	if work := WorkPerSearch + n*WorkPerConfig; work > budget {
		field := "candidates"
		what := Message{Code: CodeBudgetConfigs, Args: Args{{Name: "n", Num: float64(n)}, {Name: "parts", Msgs: top}}}
		if cands == nil {
			what.Code = CodeBudgetConfigsAll
		}
		return OverBudget(field, what, work, budget)
	}
	return nil
}
