package fit

import (
	"fmt"
	"math"

	"github.com/wattscale/wattscale/model"
)

// Prediction is one measured run beside a fit's predictions of its energy:
// in sample (the fit on every row) and held out (the fit on the folds that
// leave the run's workload group out, exactly as the fit's cross-validation
// scores it). Energies are in kWh.
type Prediction struct {
	GPU         string // canonical accelerator id
	Group       string // workload group
	MeasuredKWh float64
	FittedKWh   float64
	HeldOutKWh  float64
}

// LawPredictions fits the paper's law as Law does and returns, in row
// order, the prediction of every row the fit used (rows with a power limit
// below board power are left out, as in Law). The held-out predictions are
// those behind the calibration's cross-validated statistics (CVRMSELn).
func LawPredictions(in Inputs) ([]Prediction, error) {
	_, lf, err := Law(in, "law-predictions", "0")
	if err != nil {
		return nil, err
	}
	cat, err := unitCatalog(&in)
	if err != nil {
		return nil, err
	}
	rows, _, err := lawRows(in, cat)
	if err != nil {
		return nil, err
	}
	if len(rows) != len(lf.Y) {
		return nil, fmt.Errorf("fit: law predictions: %d rows, fit used %d", len(rows), len(lf.Y))
	}
	held := make([]float64, len(lf.Y))
	_, err = crossValidate(lf.Groups, in.level(), func(train, test []int) ([]float64, float64, error) {
		r, keep, err := splitOLS(lf.X, lf.Y, lf.Columns, train)
		if err != nil {
			return nil, 0, err
		}
		p := make([]float64, len(test))
		for i, j := range test {
			p[i], _ = r.Predict(subCols([][]float64{lf.X[j]}, keep)[0])
			held[j] = p[i]
		}
		return p, r.Sigma, nil
	}, lf.Y)
	if err != nil {
		return nil, err
	}
	out := make([]Prediction, len(rows))
	for i, r := range rows {
		fitted, _ := lf.Full.Predict(lf.X[i])
		out[i] = Prediction{GPU: r.gpu, Group: r.group, MeasuredKWh: math.Exp(lf.Y[i]), FittedKWh: math.Exp(fitted), HeldOutKWh: math.Exp(held[i])}
	}
	return out, nil
}

// RooflinePredictions fits the roofline calibration's time-and-power model
// as Roofline does and returns, in row order, the energy estimate of every
// row the fit used (single GPU at default power): in sample, and held out
// by the same leave-group-out folds that give the calibration's
// cross-validated statistics.
func RooflinePredictions(in Inputs) ([]Prediction, error) {
	sp, err := FitSpeedups(in.Scaling)
	if err != nil {
		return nil, err
	}
	alpha, err := FitAlphaEta(in.Scaling)
	if err != nil {
		return nil, err
	}
	cat, _, err := bootstrap(&in, sp, alpha, unitRoofline)
	if err != nil {
		return nil, err
	}
	rows, _, err := prepareRoofline(in.Rows, cat)
	if err != nil {
		return nil, err
	}
	rf, err := fitRooflineRows(rows)
	if err != nil {
		return nil, err
	}
	predict := func(p model.RooflineParams, r rooflineRow) (float64, error) {
		c, _, err := bootstrap(&in, sp, alpha, p)
		if err != nil {
			return 0, err
		}
		resp, err := c.Estimate(r.m.Request())
		if err != nil {
			return 0, err
		}
		return resp.EnergyKWh, nil
	}
	out := make([]Prediction, len(rows))
	lnMeas := make([]float64, len(rows))
	groups := make([]string, len(rows))
	for i, r := range rows {
		e, err := predict(rf.Params, r)
		if err != nil {
			return nil, err
		}
		g, err := in.Hardware.Lookup(r.m.GPU)
		if err != nil {
			return nil, err
		}
		out[i] = Prediction{GPU: g.ID, Group: r.group, MeasuredKWh: r.m.EnergyKWh, FittedKWh: e}
		lnMeas[i], groups[i] = math.Log(r.m.EnergyKWh), r.group
	}
	_, err = crossValidate(groups, in.level(), func(train, test []int) ([]float64, float64, error) {
		sub := make([]rooflineRow, len(train))
		for i, j := range train {
			sub[i] = rows[j]
		}
		f, err := fitRooflineRows(sub)
		if err != nil {
			return nil, 0, err
		}
		var sq float64
		for _, r := range sub {
			e, err := predict(f.Params, r)
			if err != nil {
				return nil, 0, err
			}
			d := math.Log(e / r.m.EnergyKWh)
			sq += d * d
		}
		p := make([]float64, len(test))
		for i, j := range test {
			e, err := predict(f.Params, rows[j])
			if err != nil {
				return nil, 0, err
			}
			p[i] = math.Log(e)
			out[j].HeldOutKWh = e
		}
		return p, math.Sqrt(sq / float64(len(sub))), nil
	}, lnMeas)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// unitRoofline is the placeholder time model Law and Roofline resolve rows
// with: FLOPs, bytes and η do not depend on it.
var unitRoofline = model.RooflineParams{UCompute: model.Coefficient{Value: 1}, UMemory: model.Coefficient{Value: 1}, Activity: model.Coefficient{Value: 1}}

// unitCatalog is the catalog Law resolves its rows with.
func unitCatalog(in *Inputs) (*model.Catalog, error) {
	sp, err := FitSpeedups(in.Scaling)
	if err != nil {
		return nil, err
	}
	alpha, err := FitAlphaEta(in.Scaling)
	if err != nil {
		return nil, err
	}
	cat, _, err := bootstrap(in, sp, alpha, unitRoofline)
	return cat, err
}
