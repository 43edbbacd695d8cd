package fit

import "github.com/wattscale/wattscale/model"

// The fits one calibration kind at a time, for the tests; programs call
// Calibrate.

func Roofline(in Inputs, name, version string) (model.Calibration, error) {
	res, err := rooflineFit(in, name, version)
	return res.cal, err
}

func Law(in Inputs, name, version string) (model.Calibration, *LawFit, error) {
	return logLinear(in, name, version, specLaw)
}

func Paper(in Inputs, name, version string) (model.Calibration, *LawFit, error) {
	return logLinear(in, name, version, specPaper)
}
