package fit

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/fit/stats"
)

// PowerPoint is one power-capped run expressed relative to the same
// configuration (GPU, workload, batch) at the board's default limit: the
// quantities the power-limit response is fitted to.
type PowerPoint struct {
	GPU         string  // hardware-table id
	Workload    string  // dataset of the Zeus trace
	Batch       int     // per-GPU batch
	LimitW      float64 // the power limit, W
	UncappedW   float64 // measured average draw at the default limit, W
	U           float64 // LimitW / UncappedW
	TimeRatio   float64 // time at the limit ÷ time at the default limit
	EnergyRatio float64 // energy at the limit ÷ energy at the default limit
}

// PowerPoints pairs every capped measurement (limit below the board power
// of the hardware table) with the uncapped run of the same GPU, workload
// (Group's dataset) and batch. A configuration without an uncapped run is
// an error.
func PowerPoints(ms []model.Measurement, hw *model.Hardware) ([]PowerPoint, error) {
	type key struct {
		gpu, group string
		batch      int
	}
	ref := map[key]model.Measurement{}
	var capped []model.Measurement
	for _, m := range ms {
		g, err := hw.Lookup(m.GPU)
		if err != nil {
			return nil, err
		}
		k := key{g.ID, m.Group, m.BatchPerGPU}
		if !isCapped(m, g) {
			ref[k] = m
			continue
		}
		capped = append(capped, m)
	}
	out := make([]PowerPoint, 0, len(capped))
	for _, m := range capped {
		g, _ := hw.Lookup(m.GPU)
		k := key{g.ID, m.Group, m.BatchPerGPU}
		r, ok := ref[k]
		if !ok {
			return nil, fmt.Errorf("fit: no run at the default power limit for %s %s batch %d", g.ID, m.Group, m.BatchPerGPU)
		}
		p0 := r.EnergyKWh * 3.6e6 / r.DurationS
		wl := m.Group
		if i := strings.IndexByte(wl, '/'); i >= 0 {
			wl = wl[i+1:]
		}
		out = append(out, PowerPoint{GPU: g.ID, Workload: wl, Batch: m.BatchPerGPU, LimitW: m.PowerLimitW, UncappedW: p0,
			U: m.PowerLimitW / p0, TimeRatio: m.DurationS / r.DurationS, EnergyRatio: m.EnergyKWh / r.EnergyKWh})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("fit: no power-capped rows")
	}
	return out, nil
}

// isCapped reports whether m ran on g below the board's default power
// limit.
func isCapped(m model.Measurement, g *model.GPU) bool {
	return m.PowerLimitW != 0 && m.PowerLimitW < g.BoardPowerW
}

// powerTheta0 and the bounds of (static share, exponent, clock-bound
// share, tracking).
var (
	powerTheta0 = []float64{0.3, 2.5, 0.8, 0.97}
	powerLower  = []float64{0, 1, 0.05, 0.8}
	powerUpper  = []float64{0.95, 6, 1, 1.1}
)

// FitPower fits the power-limit response (model.PowerParams) to pts by
// nonlinear least squares on ln(time ratio) and ln(energy ratio) together.
func FitPower(pts []PowerPoint) (model.PowerParams, error) {
	n := len(pts)
	if n < 5 {
		return model.PowerParams{}, fmt.Errorf("fit: power response needs at least 5 capped runs, got %d", n)
	}
	xs := make([]float64, 2*n)
	ys := make([]float64, 2*n)
	for i, p := range pts {
		xs[i], xs[n+i] = float64(i), float64(n+i)
		ys[i], ys[n+i] = math.Log(p.TimeRatio), math.Log(p.EnergyRatio)
	}
	f := func(x float64, th []float64) float64 {
		i := int(x)
		pp := paramsOf(th)
		if i < n {
			t, _ := pp.Factors(pts[i].U)
			return math.Log(t)
		}
		t, q := pp.Factors(pts[i-n].U)
		return math.Log(t * q)
	}
	res, err := stats.NLS(f, xs, ys, powerTheta0, powerLower, powerUpper)
	if err != nil {
		return model.PowerParams{}, err
	}
	pp := paramsOf(res.Theta)
	se := res.SE
	set := func(c *model.Coefficient, j int) {
		if j < len(se) && !math.IsNaN(se[j]) && !math.IsInf(se[j], 0) {
			c.SE = se[j]
			c.CILow, c.CIHigh = c.Value-1.96*se[j], c.Value+1.96*se[j]
		}
	}
	set(&pp.Static, 0)
	set(&pp.Exponent, 1)
	set(&pp.ClockBound, 2)
	set(&pp.Tracking, 3)
	return pp, nil
}

func paramsOf(th []float64) model.PowerParams {
	return model.PowerParams{
		Static: model.Coefficient{Value: th[0]}, Exponent: model.Coefficient{Value: th[1]},
		ClockBound: model.Coefficient{Value: th[2]}, Tracking: model.Coefficient{Value: th[3]},
	}
}

// PowerCV cross-validates the power response, holding out each value of
// key (one workload, or one GPU) in turn: the fit on the others predicts
// its time and energy ratios. The baseline ignores the limit (ratio 1).
// It also returns the pooled ln residuals of the held-out energy.
func PowerCV(pts []PowerPoint, scheme string, key func(PowerPoint) string) (model.PowerCV, error) {
	groups := map[string][]int{}
	for i, p := range pts {
		groups[key(p)] = append(groups[key(p)], i)
	}
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	sort.Strings(names)
	if len(names) < 2 {
		return model.PowerCV{}, fmt.Errorf("fit: %s cross-validation needs at least 2 groups, got %d", scheme, len(names))
	}
	var fe, ft, be, bt []float64
	var sse, sst float64
	for _, g := range names {
		held := map[int]bool{}
		for _, i := range groups[g] {
			held[i] = true
		}
		var train []PowerPoint
		for i, p := range pts {
			if !held[i] {
				train = append(train, p)
			}
		}
		pp, err := FitPower(train)
		if err != nil {
			return model.PowerCV{}, fmt.Errorf("fit: %s fold %s: %w", scheme, g, err)
		}
		for _, i := range groups[g] {
			p := pts[i]
			t, q := pp.Factors(p.U)
			de := math.Log(t*q) - math.Log(p.EnergyRatio)
			dt := math.Log(t) - math.Log(p.TimeRatio)
			fe, ft = append(fe, math.Exp(math.Abs(de))), append(ft, math.Exp(math.Abs(dt)))
			be, bt = append(be, math.Exp(math.Abs(math.Log(p.EnergyRatio)))), append(bt, math.Exp(math.Abs(math.Log(p.TimeRatio))))
			sse += de * de
			sst += dt * dt
		}
	}
	n := float64(len(fe))
	return model.PowerCV{
		Scheme: scheme, Folds: len(names), N: len(fe),
		MedianFoldEnergy: medianOf(fe), MedianFoldTime: medianOf(ft),
		BaselineFoldEnergy: medianOf(be), BaselineFoldTime: medianOf(bt),
		RMSELnEnergy: math.Sqrt(sse / n), RMSELnTime: math.Sqrt(sst / n),
	}, nil
}

// medianOf is the median of xs (left unsorted).
func medianOf(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return stats.Median(s)
}

// PowerWidenPerEFold is the ln SD added per e-fold a limit lies below the
// lowest limit ÷ draw in the data: an assumption (the response steepens
// there and the data cannot say how much), stated in the calibration.
const PowerWidenPerEFold = 0.5

// CalibratePower fits the power-limit response to the capped rows of ms
// and cross-validates it by workload and by GPU. The interval inside the
// data's GPUs is the by-workload held-out RMSE (the larger of time and
// energy); a GPU outside them adds, in quadrature, what holding a GPU out
// adds to it.
func CalibratePower(ms []model.Measurement, hw *model.Hardware, dataName string) (model.PowerCalibration, []PowerPoint, error) {
	pts, err := PowerPoints(ms, hw)
	if err != nil {
		return model.PowerCalibration{}, nil, err
	}
	pp, err := FitPower(pts)
	if err != nil {
		return model.PowerCalibration{}, nil, err
	}
	byWL, err := PowerCV(pts, "by workload", func(p PowerPoint) string { return p.Workload })
	if err != nil {
		return model.PowerCalibration{}, nil, err
	}
	byGPU, err := PowerCV(pts, "by GPU", func(p PowerPoint) string { return p.GPU })
	if err != nil {
		return model.PowerCalibration{}, nil, err
	}
	hwSet := map[string]bool{}
	minU := math.Inf(1)
	for _, p := range pts {
		hwSet[p.GPU] = true
		minU = math.Min(minU, p.U)
	}
	var hws []string
	for h := range hwSet {
		hws = append(hws, h)
	}
	sort.Strings(hws)
	sig := math.Max(byWL.RMSELnEnergy, byWL.RMSELnTime)
	sigGPU := math.Max(byGPU.RMSELnEnergy, byGPU.RMSELnTime)
	widen := math.Sqrt(math.Max(0, sigGPU*sigGPU-sig*sig))
	c := model.PowerCalibration{
		Name: "wattscale-power-limit", Version: "1",
		Title:       "Power-limit (DVFS) response fitted on the Zeus power-capped runs",
		Description: "How a board power limit below a run's uncapped draw stretches its time and changes its energy, as a function of limit ÷ uncapped draw.",
		Citation:    "wattscale power-limit fit to " + dataName,
		Provenance: model.Provenance{
			Data: dataName + ": the runs at a power limit below board power, each paired with the same GPU, workload and batch at the default limit",
			Method: "nonlinear least squares (projected Levenberg–Marquardt) on ln(time ratio) and ln(energy ratio) together; " +
				"cross-validated holding out each workload and each GPU; interval = held-out RMSE by workload, widened for other GPUs by what holding a GPU out adds, " +
				fmt.Sprintf("and by %.2g per e-fold below the lowest limit ÷ draw in the data (an assumption)", PowerWidenPerEFold),
			Generated: "go test ./model/fit -run TestPowerCalibrationFile -update (reads $DATA_DIR/zeus-bert-power.csv)",
			Notes:     "Carried to other GPUs through limit ÷ uncapped draw, with the draw from the roofline model; each board's range of limits is in model.PowerLimits.",
		},
		Params: pp, Hardware: hws, MinU: minU,
		SigmaLnTime: byWL.RMSELnTime, SigmaLnEnergy: byWL.RMSELnEnergy,
		WidenHardware: widen, WidenPerEFold: PowerWidenPerEFold,
		CV: []model.PowerCV{byWL, byGPU}, N: len(pts),
	}
	return c, pts, c.Validate()
}
