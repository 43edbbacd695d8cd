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

// lawWithPredictions fits the log-linear law of specification spec
// and returns, in row order, the prediction of every row the fit used
// (rows with a power limit below board power are left out). The held-out
// prediction of a row is the mean, over the cross-validation splits that
// held it out, of the ln predictions behind the calibration's
// cross-validated statistics (CVPooledRMSELn is their RMSE); NaN when no
// split held it out.
func lawWithPredictions(in Inputs, name, version string, sp spec) (model.Calibration, []Prediction, error) {
	cal, lf, err := logLinear(in, name, version, sp)
	if err != nil {
		return cal, nil, err
	}
	if len(lf.CV.HeldOut) != len(lf.Y) {
		return cal, nil, fmt.Errorf("fit: law predictions: %d held-out predictions for %d rows", len(lf.CV.HeldOut), len(lf.Y))
	}
	out := make([]Prediction, len(lf.Y))
	for i := range lf.Y {
		fitted, _ := lf.Full.Predict(lf.X[i])
		out[i] = Prediction{GPU: lf.GPUs[i], Group: lf.Groups[i], MeasuredKWh: math.Exp(lf.Y[i]), FittedKWh: math.Exp(fitted), HeldOutKWh: math.Exp(lf.CV.HeldOut[i])}
	}
	return cal, out, nil
}

// rooflineWithPredictions is rooflineFit, then the table stage on the runs in
// runsCSV (none: no table stage), together with the energy estimate of
// every row the roofline fit used (single GPU at default power): in
// sample, and held out as in lawWithPredictions. The predictions are
// those before the table stage, which does not change them (it sets the
// tensor-precision and communication constants).
func rooflineWithPredictions(in Inputs, name, version string, runsCSV []byte) (model.Calibration, []Prediction, error) {
	res, err := rooflineFit(in, name, version)
	if err != nil {
		return res.cal, nil, err
	}
	out := make([]Prediction, len(res.rows))
	for i, r := range res.rows {
		g, err := in.Hardware.Lookup(r.m.GPU)
		if err != nil {
			return res.cal, nil, err
		}
		out[i] = Prediction{GPU: g.ID, Group: r.group, MeasuredKWh: r.m.EnergyKWh, FittedKWh: math.Exp(res.lnPred[i]), HeldOutKWh: math.Exp(res.cv.HeldOut[i])}
	}
	cal, err := tableFromCSV(res.cal, in, runsCSV)
	return cal, out, err
}

// unitRoofline is the placeholder time model the law and roofline fits resolve rows
// with: FLOPs, bytes and η do not depend on it.
var unitRoofline = model.RooflineParams{UCompute: model.Coefficient{Value: 1}, UMemory: model.Coefficient{Value: 1}, Activity: model.Coefficient{Value: 1}}

// unitCatalog is the catalog the law fit (logLinear) resolves its rows with.
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
