package model

// SweepRequest varies a base request over GPU counts, strategies and
// per-GPU batch sizes: the data behind the energy-and-time-against-GPUs
// charts, computed in one call.
type SweepRequest struct {
	Base       Request  `json:"base"`
	Counts     []int    `json:"counts"`            // GPU counts, e.g. 1, 2, 4, 8
	Strategies []string `json:"strategies"`        // among single, ddp, fsdp, tp
	Batches    []int    `json:"batches,omitempty"` // per-GPU batch sizes; empty = the base's
}

// SweepPoint is one configuration of a sweep. Error is set (and the numbers
// zero) when that configuration is impossible, for example more tensor ranks
// than heads or optimizer state that does not fit.
type SweepPoint struct {
	Strategy       string     `json:"strategy"`
	GPUs           int        `json:"gpus"`
	BatchPerGPU    int        `json:"batch_per_gpu"`
	EnergyKWh      float64    `json:"energy_kwh"`
	EnergyInterval [2]float64 `json:"energy_interval_kwh"`
	TimeS          float64    `json:"time_s"`
	Efficiency     float64    `json:"efficiency"`
	CO2eKg         float64    `json:"co2e_kg"`
	Error          string     `json:"error,omitempty"`
	// ErrorCode and ErrorArgs are Error as data (FieldError's Code and
	// Args; "" for an error not yet coded): CodeMemoryState and
	// CodeMemoryStatePEFT are memory refusals, with need_gb and
	// capacity_gb.
	ErrorCode string `json:"error_code,omitempty"`
	ErrorArgs Args   `json:"error_args,omitempty"`
}

// fail sets p's error from err.
func (p *SweepPoint) fail(err error) {
	p.Error = errText(err)
	if fe := AsFieldError(err); fe != nil {
		p.ErrorCode, p.ErrorArgs = fe.Code, fe.Args
	}
}

// MaxSweepPoints bounds a sweep.
const MaxSweepPoints = 100000

// Sweep estimates every (strategy, count, batch) combination. The base
// request is validated first; its errors are returned. Strategy "single" is
// only evaluated at one GPU.
func (c *Catalog) Sweep(s SweepRequest) ([]SweepPoint, error) {
	base, err := c.resolve(s.Base)
	if err != nil {
		return nil, err
	}
	batches := s.Batches
	if len(batches) == 0 {
		batches = []int{base.bat}
	}
	if n := len(batches) * len(s.Counts) * len(s.Strategies); n > MaxSweepPoints {
		return nil, codeErr(CodeSweepTooMany, "counts", n, Args{{Name: "max", Num: MaxSweepPoints}})
	}
	for _, st := range s.Strategies {
		if st != Single && st != DDP && st != FSDP && st != TP {
			return nil, codeErr(CodeSweepStrategy, "strategies", st, nil)
		}
	}
	for _, n := range s.Counts {
		if n < 1 || n > 1<<20 {
			return nil, codeErr(CodeSweepWholes, "counts", n, Args{{Name: "max", Num: 1 << 20}})
		}
	}
	for _, b := range batches {
		if b < 1 || b > 1<<16 {
			return nil, codeErr(CodeSweepWholes, "batches", b, Args{{Name: "max", Num: 1 << 16}})
		}
	}
	out := make([]SweepPoint, 0, len(batches)*len(s.Counts)*len(s.Strategies))
	for _, st := range s.Strategies {
		for _, n := range s.Counts {
			if st == Single && n != 1 {
				continue
			}
			for _, b := range batches {
				p := SweepPoint{Strategy: st, GPUs: n, BatchPerGPU: b}
				r := *base
				r.assume, r.numbersOnly = nil, true
				r.count, r.bat = n, b
				if err := r.resolveStrategy(Strategy{Name: st}); err != nil {
					p.fail(err)
					out = append(out, p)
					continue
				}
				if err := r.checkState(); err != nil {
					p.fail(err)
					out = append(out, p)
					continue
				}
				e, err := c.core(&r)
				if err != nil {
					p.fail(err)
				} else {
					p.EnergyKWh, p.EnergyInterval, p.TimeS, p.Efficiency = e.kwh, e.interval, e.timeS, e.eta
					p.CO2eKg = e.kwh * r.site.PUE * r.site.CarbonGPerKWh / 1000
				}
				out = append(out, p)
			}
		}
	}
	return out, nil
}

func errText(err error) string {
	if fe := AsFieldError(err); fe != nil {
		return fe.Error()
	}
	return err.Error()
}

// coreResult is the part of an estimate a sweep needs.
type coreResult struct {
	kwh, timeS, eta float64
	interval        [2]float64
}

// core computes energy, time, η and the interval of one sweep point through
// the same code path as Estimate, so a chart and the headline figure agree.
func (c *Catalog) core(r *resolved) (coreResult, error) {
	resp, err := c.estimate(r)
	if err != nil {
		return coreResult{}, err
	}
	return coreResult{kwh: resp.EnergyKWh, timeS: resp.TimeS, eta: resp.Parallel.Efficiency, interval: resp.EnergyIntervalKWh}, nil
}
