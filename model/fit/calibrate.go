package fit

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/fit/stats"
)

// Inputs is what a calibration is fitted from.
type Inputs struct {
	Rows     []model.Measurement // measured runs
	DataName string              // how to cite Rows in the provenance
	Scaling  []ScalingPoint      // published speedup/energy points
	Hardware *model.Hardware
	Presets  []model.Preset
	// Level is the prediction-interval level (default 0.9).
	Level float64
}

func (in *Inputs) level() float64 {
	if in.Level > 0 && in.Level < 1 {
		return in.Level
	}
	return 0.9
}

// bootstrap builds a catalog whose default roofline calibration carries the
// fitted speedups and α_η and placeholder roofline constants, so that rows can
// be resolved (FLOPs, bytes and η do not depend on the constants).
func bootstrap(in *Inputs, sp model.Speedups, alpha map[model.Interconnect]model.Coefficient, p model.RooflineParams) (*model.Catalog, model.Calibration, error) {
	c := model.Calibration{
		Name: "fit-candidate", Version: "0", Kind: model.KindRoofline,
		Roofline: &p, AlphaEta: alpha, Speedup: sp,
		Interval: model.Interval{SigmaLn: 0.3, Level: in.level()},
	}
	cat, err := model.NewCatalog(in.Hardware, in.Presets, []model.Calibration{c}, c.Name)
	return cat, c, err
}

// rooflineResult is a roofline fit with the rows it used, their in-sample
// ln predictions and the cross-validation behind its interval.
type rooflineResult struct {
	cal    model.Calibration
	rows   []rooflineRow
	lnPred []float64
	cv     stats.CVResult
}

// rooflineFit fits the roofline calibration: speedup curves and α_η from
// the published scaling points, the time model (u_compute, u_memory,
// start-up seconds) and the activity factor from the single-GPU rows at
// default power, and the interval from group-disjoint cross-validation of
// the energy estimate (stats.GroupCV).
func rooflineFit(in Inputs, name, version string) (rooflineResult, error) {
	var res rooflineResult
	sp, err := FitSpeedups(in.Scaling)
	if err != nil {
		return res, err
	}
	alpha, err := FitAlphaEta(in.Scaling)
	if err != nil {
		return res, err
	}
	cat, _, err := bootstrap(&in, sp, alpha, unitRoofline)
	if err != nil {
		return res, err
	}
	rows, notes, err := prepareRoofline(in.Rows, cat)
	if err != nil {
		return res, err
	}
	if err := distinctRows(rows); err != nil {
		return res, err
	}
	rf, err := fitRooflineRows(rows)
	if err != nil {
		return res, err
	}
	notes = append(notes, rf.Notes...)

	// In-sample and cross-validated energy errors: one catalog per set of
	// constants, then an estimate per row.
	catalogFor := func(p model.RooflineParams) (*model.Catalog, error) {
		c, _, err := bootstrap(&in, sp, alpha, p)
		return c, err
	}
	predict := func(c *model.Catalog, r rooflineRow) (float64, error) {
		resp, err := c.Estimate(r.m.Request())
		if err != nil {
			return 0, err
		}
		return resp.EnergyKWh, nil
	}
	fitted, err := catalogFor(rf.Params)
	if err != nil {
		return res, err
	}
	var lnMeas, lnPred []float64
	for _, r := range rows {
		e, err := predict(fitted, r)
		if err != nil {
			return res, err
		}
		lnMeas, lnPred = append(lnMeas, math.Log(r.m.EnergyKWh)), append(lnPred, math.Log(e))
	}
	r2, rmse := stats.R2RMSE(lnMeas, lnPred)
	groups := make([]string, len(rows))
	for i, r := range rows {
		groups[i] = r.group
	}
	cv, err := stats.GroupCV(groups, in.level(), func(train, test []int) (pred []float64, sigma float64, err error) {
		sub := make([]rooflineRow, len(train))
		for i, j := range train {
			sub[i] = rows[j]
		}
		f, err := fitRooflineRows(sub)
		if err != nil {
			return nil, 0, err
		}
		fc, err := catalogFor(f.Params)
		if err != nil {
			return nil, 0, err
		}
		var sq float64
		for _, r := range sub {
			e, err := predict(fc, r)
			if err != nil {
				return nil, 0, err
			}
			d := math.Log(e / r.m.EnergyKWh)
			sq += d * d
		}
		for _, j := range test {
			e, err := predict(fc, rows[j])
			if err != nil {
				return nil, 0, err
			}
			pred = append(pred, math.Log(e))
		}
		return pred, math.Sqrt(sq / float64(len(sub))), nil
	}, lnMeas)
	if err != nil {
		return res, err
	}
	sigma := math.Max(cv.RMSELn, 0.1)

	p := rf.Params
	cal := model.Calibration{
		Name: name, Version: version, Kind: model.KindRoofline,
		Title:       "wattscale roofline calibration",
		Description: "Roofline time-and-power model: t₁ = C/(peak·u_compute) + M/(bandwidth·u_memory), P = P_idle + activity·(P_board − P_idle), E_N = E₁ + P_wait·t₁·(1/η − 1) + N·P_wait·warm-up + N·P_idle·overhead_s where η comes from the communication model (P_wait: the waiting power, model.WaitPowerShare of the busy power; warm-up: the first steps' extra time, model.WarmupS, inside the training window), E_N = E₁·η^α_η + N·P_wait·warm-up + N·P_idle·overhead_s where it comes from the speedup curves fitted to the roofline paper's published scaling points.",
		Citation:    "wattscale; speedup and α_η from Zoubeirou a Mayaki 2026 (arXiv 2606.23546) published scaling tables; waiting power of parallel GPUs from execution-idle cluster telemetry (arXiv 2604.04745); time and power from " + in.DataName,
		Provenance: model.Provenance{
			Data:      in.DataName + "; the published matched-scaling figures of Zoubeirou a Mayaki 2026 (arXiv 2606.23546)",
			Method:    "relative-error least squares of measured time on C/peak and M/bandwidth (single GPU, default power limit); activity = mean (P − P_idle)/(P_board − P_idle); speedup curves by non-linear least squares; α_η by OLS through the origin of ln(energy ratio) on ln η; interval σ = group-disjoint cross-validated RMSE of ln energy",
			Generated: "make fit in the source repository (go run ./site fit on the Zeus trace)",
		},
		Roofline: &p, AlphaEta: alpha, Speedup: sp,
		Interval: model.Interval{SigmaLn: sigma, Level: in.level(), Method: "cross-validated RMSE of ln energy (" + cv.Method + ")"},
		Envelope: envelopeOf(in, rows, true),
		Fit: &model.FitSummary{
			N: len(rows), Groups: cv.Groups, R2: r2, AdjR2: stats.AdjR2(r2, len(rows), 4), RMSELn: rmse,
			CVR2: cv.R2, CVRMSELn: cv.RMSELn, CVPooledRMSELn: cv.PooledRMSELn, CVCoverage: cv.Coverage, CVMedianFold: cv.MedianFold, CVMethod: cv.Method,
			Coefficients: []model.NamedCoef{
				{Name: "u_compute", Coefficient: p.UCompute}, {Name: "u_memory", Coefficient: p.UMemory},
				{Name: "activity", Coefficient: p.Activity}, {Name: "overhead_s", Coefficient: p.OverheadS}, {Name: "step_s", Coefficient: p.StepS},
				{Name: "alpha_eta (pcie)", Coefficient: alpha[model.PCIe]}, {Name: "alpha_eta (nvlink)", Coefficient: alpha[model.NVLink]},
			},
			Notes: append(notes, fmt.Sprintf("time model RMSE %.3f in ln seconds over %d rows", rf.TimeRMSELn, rf.Used)),
		},
	}
	sanitize(cal.Fit)
	res.cal, res.rows, res.lnPred, res.cv = cal, rows, lnPred, cv
	return res, cal.Validate()
}

// envelopeOf is the region rows cover: ranges of layers, hidden size,
// sequence length, batch, parameters and GPU count, and the accelerators.
// withScaling widens the GPU counts to the published scaling points (and
// one GPU), which the roofline calibration's speedup curves were fitted on.
func envelopeOf(in Inputs, rows []rooflineRow, withScaling bool) model.Envelope {
	e := model.Envelope{WidenPerEFold: 0.1, WidenHardware: 0.35}
	first := true
	hw := map[string]bool{}
	grow := func(r *[2]float64, x float64) {
		if first || x < r[0] {
			r[0] = x
		}
		if first || x > r[1] {
			r[1] = x
		}
	}
	for _, r := range rows {
		a := r.m.Arch
		grow(&e.Layers, float64(a.Layers))
		grow(&e.Hidden, float64(a.Hidden))
		grow(&e.SeqLen, float64(r.m.SeqLen))
		grow(&e.Batch, float64(r.m.BatchPerGPU))
		grow(&e.Params, a.Params())
		grow(&e.GPUs, float64(r.m.Count))
		first = false
		if g, err := in.Hardware.Lookup(r.m.GPU); err == nil {
			hw[g.ID] = true
		}
	}
	if withScaling {
		e.GPUs[0] = math.Min(e.GPUs[0], 1)
		for _, p := range in.Scaling {
			e.GPUs[1] = math.Max(e.GPUs[1], p.N)
		}
	}
	for h := range hw {
		e.Hardware = append(e.Hardware, h)
	}
	sort.Strings(e.Hardware)
	return e
}

// distinctRows refuses rows that are all one configuration with one
// energy: there is nothing for the time and power model to separate.
func distinctRows(rows []rooflineRow) error {
	if len(rows) == 0 {
		return nil
	}
	r0 := rows[0]
	for _, r := range rows[1:] {
		if r.xComp != r0.xComp || r.xMem != r0.xMem || r.steps != r0.steps || r.m.EnergyKWh != r0.m.EnergyKWh || r.m.DurationS != r0.m.DurationS || r.m.GPU != r0.m.GPU {
			return nil
		}
	}
	return fmt.Errorf("fit: degenerate data: all %d single-GPU rows at default power are the same configuration with the same energy and time, so the roofline model has nothing to fit; give runs that differ in shape, tokens, batch, sequence length or GPU", len(rows))
}

// names joins for messages.
func names(xs []string) string { return strings.Join(xs, ", ") }

// sanitize replaces non-finite statistics (an R² with no variance, a t with
// a zero SE) by 0 so the summary encodes as JSON; notes say so.
func sanitize(s *model.FitSummary) {
	if s == nil {
		return
	}
	fix := func(x *float64) {
		if math.IsNaN(*x) || math.IsInf(*x, 0) {
			*x = 0
		}
	}
	for _, x := range []*float64{&s.R2, &s.AdjR2, &s.RMSELn, &s.ResidualSDLn, &s.RMSEKWh, &s.CVR2, &s.CVRMSELn, &s.CVCoverage, &s.CVMedianFold} {
		fix(x)
	}
	for i := range s.Coefficients {
		c := &s.Coefficients[i]
		for _, x := range []*float64{&c.Value, &c.SE, &c.CILow, &c.CIHigh, &c.T, &c.P} {
			fix(x)
		}
	}
	sanitize(s.WithoutEta)
}
