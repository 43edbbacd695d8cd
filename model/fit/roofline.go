package fit

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/fit/stats"
)

// rooflineRow is a measurement with the roofline quantities of its
// configuration: single-GPU ideal compute and memory times, and the GPU's
// idle and board power.
type rooflineRow struct {
	m             model.Measurement
	xComp, xMem   float64 // C/peak and M/bandwidth, seconds
	steps         float64 // optimizer steps of one GPU doing the run
	idleW, boardW float64
	group         string
}

// RooflineFit is the result of fitting the roofline time-and-power model.
type RooflineFit struct {
	Params model.RooflineParams
	Used   int      // rows used (single GPU, default power limit)
	Notes  []string // what was dropped or fixed, and why
	// Time regression diagnostics (relative-error weighted least squares).
	TimeRMSELn float64
}

// prepareRoofline computes each row's roofline quantities by resolving it
// through the catalog (so the fit sees exactly what Estimate sees).
func prepareRoofline(rows []model.Measurement, cat *model.Catalog) ([]rooflineRow, []string, error) {
	var out []rooflineRow
	var notes []string
	skipped := map[string]int{}
	for i, m := range rows {
		g, err := cat.Hardware.Lookup(m.GPU)
		if err != nil {
			return nil, nil, fmt.Errorf("row %d: %w", i+1, err)
		}
		if m.Count != 1 {
			skipped["more than one GPU (the time model is fitted on single-GPU rows)"]++
			continue
		}
		if m.PowerLimitW > 0 && m.PowerLimitW < g.BoardPowerW {
			skipped["a power limit below board power"]++
			continue
		}
		resp, err := cat.Estimate(m.Request())
		if err != nil {
			return nil, nil, fmt.Errorf("row %d: %w", i+1, err)
		}
		rf := resp.Roofline
		out = append(out, rooflineRow{m: m, xComp: rf.FLOPs / (rf.PeakTFLOPS * 1e12), xMem: rf.Bytes / (g.BandwidthGBs * 1e9),
			idleW: g.IdlePowerW, boardW: g.BoardPowerW, group: m.WorkloadGroup(), steps: m.Tokens / float64(m.BatchPerGPU*m.SeqLen)})
	}
	keys := make([]string, 0, len(skipped))
	for k := range skipped {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		notes = append(notes, fmt.Sprintf("%d rows left out of the roofline fit: %s", skipped[k], k))
	}
	return out, notes, nil
}

// fitRooflineRows fits t = t₀ + a·C/peak + b·M/BW by least squares in
// relative error (each row divided by its measured time), dropping a term
// whose coefficient comes out non-positive, and the activity factor as the
// mean of (P − P_idle)/(P_board − P_idle).
func fitRooflineRows(rows []rooflineRow) (RooflineFit, error) {
	var f RooflineFit
	if len(rows) < 4 {
		return f, fmt.Errorf("fit: roofline needs at least 4 single-GPU rows at default power, got %d", len(rows))
	}
	terms := []string{"t0", "compute", "memory", "step"}
	idx := map[string]int{"t0": 0, "compute": 1, "memory": 2, "step": 3}
	// t₀ is not fitted: per-epoch or per-run data cannot separate start-up
	// time from the other terms (it took up to 800 s of misfit on the Zeus
	// trace); overhead_s is the documented prior startupPriorS.
	active := []bool{false, true, true, true}
	var coef, se map[string]float64
	for iter := 0; iter < 4; iter++ {
		var X [][]float64
		y := make([]float64, len(rows))
		var names []string
		for _, t := range terms {
			if active[idx[t]] {
				names = append(names, t)
			}
		}
		for i, r := range rows {
			t := r.m.DurationS
			full := map[string]float64{"t0": 1 / t, "compute": r.xComp / t, "memory": r.xMem / t, "step": r.steps / t}
			row := make([]float64, len(names))
			for j, n := range names {
				row[j] = full[n]
			}
			X = append(X, row)
			y[i] = 1
		}
		res, err := stats.OLS(X, y, names, nil)
		if err != nil {
			return f, fmt.Errorf("fit: roofline time regression: %w", err)
		}
		coef, se = map[string]float64{}, map[string]float64{}
		drop := -1
		for j, n := range names {
			coef[n], se[n] = res.Coef[j], res.SE[j]
			if res.Coef[j] <= 0 && drop < 0 {
				drop = idx[n]
			}
		}
		if drop < 0 {
			break
		}
		active[drop] = false
		f.Notes = append(f.Notes, fmt.Sprintf("the %s term came out non-positive (%.3g) and was dropped (fixed at its bound)", terms[drop], coef[terms[drop]]))
		if !active[1] && !active[2] {
			return f, fmt.Errorf("fit: roofline time regression: neither compute nor memory term is positive")
		}
	}
	p := &f.Params
	if a := coef["compute"]; a > 0 {
		p.UCompute = ratioCoef(a, se["compute"])
	} else {
		p.UCompute = model.Coefficient{Value: 1}
	}
	if b := coef["memory"]; b > 0 {
		p.UMemory = ratioCoef(b, se["memory"])
	} else {
		p.UMemory = model.Coefficient{Value: 1}
	}
	// A fraction of peak is at most 1, its interval included: an interval
	// reaching past the peak is truncated there, and the notes say so.
	for _, u := range []struct {
		name string
		c    *model.Coefficient
	}{{"u_compute", &p.UCompute}, {"u_memory", &p.UMemory}} {
		if u.c.Value > 1 {
			f.Notes = append(f.Notes, fmt.Sprintf("%s came out %.3g > 1 and is capped at 1", u.name, u.c.Value))
			u.c.Value = 1
		}
		if u.c.CIHigh > 1 || (u.c.CIHigh == 0 && u.c.SE > 0) {
			f.Notes = append(f.Notes, fmt.Sprintf("%s's 95 %% interval reaches %s from its slope, past the peak no hardware exceeds; it is truncated at 1", u.name, ciHighText(u.c.CIHigh)))
			u.c.CIHigh = 1
		}
	}
	p.OverheadS = model.Coefficient{Value: startupPriorS}
	p.StepS = model.Coefficient{Value: math.Max(0, coef["step"]), SE: se["step"]}
	// Activity factor from average power.
	var acts []float64
	var sq float64
	for _, r := range rows {
		pw := r.m.EnergyKWh * 3.6e6 / r.m.DurationS
		a := (pw - r.idleW) / (r.boardW - r.idleW)
		acts = append(acts, math.Max(0, math.Min(1, a)))
		e := math.Log(rowTime(p, r) / r.m.DurationS)
		sq += e * e
	}
	mean, sd := meanSD(acts)
	p.Activity = model.Coefficient{Value: mean, SE: sd / math.Sqrt(float64(len(acts)))}
	p.Activity.CILow, p.Activity.CIHigh = math.Max(0, mean-1.96*p.Activity.SE), math.Min(1, mean+1.96*p.Activity.SE)
	f.Used = len(rows)
	f.TimeRMSELn = math.Sqrt(sq / float64(len(rows)))
	return f, nil
}

// ciHighText writes an interval's upper end, "no bound" when the slope's
// interval reaches zero (the ratio's interval is then unbounded).
func ciHighText(x float64) string {
	if x == 0 {
		return "no bound"
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// startupPriorS is the fixed start-up time charged once per run at idle
// power (CUDA context, model load, data loader start): an assumption, not a
// fit; it makes E₀ = N·P_idle·startupPriorS. With the first steps'
// warm-up inside the training window (model.WarmupS) a run's start-up
// totals 120 s.
const startupPriorS = 120 - model.WarmupS

// ratioCoef turns a fitted slope a = 1/u into u with a delta-method SE and a
// 95 % interval from the slope's interval.
func ratioCoef(a, seA float64) model.Coefficient {
	c := model.Coefficient{Value: 1 / a, SE: seA / (a * a)}
	if hi := a - 1.96*seA; hi > 0 {
		c.CIHigh = 1 / hi
	}
	c.CILow = 1 / (a + 1.96*seA)
	return c
}

// rowTime is the model's single-GPU time for a row under params p.
func rowTime(p *model.RooflineParams, r rooflineRow) float64 {
	return p.OverheadS.Value + model.WarmupS + r.xComp/p.UCompute.Value + r.xMem/p.UMemory.Value + r.steps*p.StepS.Value
}

func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	if len(xs) > 1 {
		sd = math.Sqrt(sd / float64(len(xs)-1))
	}
	return
}
