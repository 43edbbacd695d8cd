package model

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
)

// searchCounts are the GPU counts tried (up to a candidate's max_count,
// which is always tried too).
var searchCounts = []int{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256, 512, 1024, 2048, 4096}

// hybridTensor are the tensor degrees of the hybrid tensor × fsdp layouts tried.
var hybridTensor = []int{2, 4, 8}

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

// searchGPUs resolves the candidates (nil = every GPU in the table).
// CandidateGPU is a checked search candidate: its GPU, the most of it to
// search and its field ("candidates[2]").
type CandidateGPU struct {
	GPU      *GPU
	MaxCount int
	Field    string
	Candidate
}

// CheckCandidates checks a search's candidates, named at path
// ("candidates", "stages[0].candidates"), with the rules the recommender
// and the planner's per-stage search share: nil means every GPU of h; an
// empty list, more than MaxCandidates, a GPU missing, unknown or named
// twice and a max_count out of range are errors.
func CheckCandidates(h *Hardware, cands []Candidate, path string) ([]CandidateGPU, error) {
	if cands == nil {
		for i := range h.GPUs {
			cands = append(cands, Candidate{GPU: h.GPUs[i].ID})
		}
	} else if len(cands) == 0 {
		return nil, codeErr(CodeCandidatesEmpty, path, nil, Args{{Name: "example", Str: `{"gpu": "h100-sxm5", "max_count": 8}`}})
	}
	if len(cands) > MaxCandidates {
		return nil, codeErr(CodeCandidatesTooMany, path, len(cands), Args{{Name: "max", Num: MaxCandidates}})
	}
	seen := map[string]string{}
	out := make([]CandidateGPU, 0, len(cands))
	for i, cd := range cands {
		f := path + "[" + strconv.Itoa(i) + "]"
		if strings.TrimSpace(cd.GPU) == "" {
			return nil, codeErr(CodeCandidateGPURequired, f+".gpu", nil, nil)
		}
		g, err := h.Lookup(cd.GPU)
		if err != nil {
			return nil, AsFieldError(err).At(f + ".gpu")
		}
		if prev, dup := seen[g.ID]; dup {
			return nil, codeErr(CodeGPUAgain, f+".gpu", cd.GPU, Args{{Name: "gpu", Str: g.ID}, {Name: "already", Str: prev}})
		}
		seen[g.ID] = f
		maxN := DefaultMaxCount
		if cd.MaxCount != 0 {
			if err := checkCount(f+".max_count", cd.MaxCount, 1, MaxCandidateCount); err != nil {
				return nil, err
			}
			maxN = int(cd.MaxCount)
		}
		out = append(out, CandidateGPU{GPU: g, MaxCount: maxN, Field: f, Candidate: cd})
	}
	return out, nil
}

func (c *Catalog) searchGPUs(cands []Candidate, prec Precision) ([]searchGPU, []Message, error) {
	var warns []Message
	checked, err := CheckCandidates(c.Hardware, cands, "candidates")
	if err != nil {
		return nil, nil, err
	}
	var out []searchGPU
	var unsupported []string
	for _, cg := range checked {
		g, f, maxN, cd := cg.GPU, cg.Field, cg.MaxCount, cg.Candidate
		if len(cd.PowerLimitsW) > MaxPowerLimits {
			return nil, nil, codeErr(CodePowerLimitsTooMany, f+".power_limits_w", len(cd.PowerLimitsW), Args{{Name: "max", Num: MaxPowerLimits}})
		}
		var limits []float64
		for j, w := range cd.PowerLimitsW {
			v, below, err := checkPowerLimit(f+".power_limits_w["+strconv.Itoa(j)+"]", w, g)
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
		warns = append(warns, Message{Code: CodeLeftOutPrecision, Args: Args{{Name: "precision", Str: string(prec)}, {Name: "gpus", List: unsupported}}})
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
				var core rooflineCore
				var run rooflineRun
				if lean {
					core = r.rooflineCore()
				}
				for _, w := range sg.limits {
					r.limitW = w
					var kwh, timeS float64
					if lean {
						var err error
						if kwh, timeS, err = c.leanEstimate(&r, &core, &run); err != nil {
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

// leanEstimate is the energy and time of Catalog.estimate for a roofline
// calibration, without the response around them: rooflineRun on the
// layout's rooflineCore, the estimate's own arithmetic.
func (c *Catalog) leanEstimate(r *resolved, k *rooflineCore, run *rooflineRun) (kwh, timeS float64, err error) {
	if err := c.rooflineRun(r, k, run); err != nil {
		return 0, 0, err
	}
	kwh, timeS = run.totalJ/3.6e6, run.timeS
	if !finite(kwh, timeS) || kwh <= 0 || timeS <= 0 {
		return 0, 0, errors.New("not finite") // internal: the caller drops the configuration, never shown
	}
	return kwh, timeS, nil
}
