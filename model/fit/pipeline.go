package fit

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/wattscale/wattscale/model"
)

// The calibration kinds Calibrate fits.
const (
	KindLaw      = "law"      // the paper's law with hardware dummies, η measured or modelled
	KindPaper    = "paper"    // the paper's specification exactly
	KindRoofline = "roofline" // the roofline fit, then the table stage when Job.Runs is given
)

// Job is one run of the calibration pipeline: a measurement CSV in, the
// calibrations of the kinds asked for out. The command line (`site fit`)
// and the browser refit (fit.wasm) both run it.
type Job struct {
	// CSV is the measurement file: the project's schema or the Zeus trace.
	CSV []byte
	// Rows, when CSV is nil, are measurements already read (cited as
	// FileName, or as the Zeus trace when ZeusRows is set).
	Rows     []model.Measurement
	ZeusRows bool
	// FileName is how the data are cited when they are not the Zeus trace.
	FileName string
	// Prefix overrides the calibration name prefix ("" = "user", or
	// "wattscale" for the Zeus trace).
	Prefix string
	// Kinds lists what to fit, in output order: KindLaw, KindPaper,
	// KindRoofline.
	Kinds []string
	// Scaling is the published speedup and energy figures
	// (the project's published-scaling.csv).
	Scaling []byte
	// ScalingPoints, when Scaling is nil, are those figures already read.
	ScalingPoints []ScalingPoint
	// Runs, when not empty, adds the table stage to the roofline
	// calibration on these validation runs (the validation table).
	Runs     []byte
	Hardware *model.Hardware
	Presets  []model.Preset
	Version  string // calibration version ("" = "1.0.0")
	// Predictions asks for every fitted row's in-sample and held-out
	// prediction (Result.Predictions).
	Predictions bool
	// Power also fits the power-limit response (CalibratePower) to the
	// rows run below their board's default limit (Result.Power), when
	// there are any.
	Power bool
}

// Result is what Calibrate fitted.
type Result struct {
	Calibrations []model.Calibration // one per Job.Kinds entry, in that order
	Rows         int                 // measurement rows read
	DataName     string              // how the calibrations cite the data
	// Predictions holds, when Job.Predictions is set, the predictions of
	// the rows each calibration was fitted on, parallel to Calibrations.
	Predictions [][]Prediction
	// Power is the power-limit calibration, when Job.Power is set.
	Power *model.PowerCalibration
}

// Calibrate reads job.CSV (or takes job.Rows) and fits the calibrations
// job.Kinds names. Names: PREFIX-roofline, PREFIX-law, PREFIX-paper (the Zeus trace:
// wattscale-roofline, wattscale-zeus-law, wattscale-zeus-paper).
func Calibrate(job Job) (Result, error) {
	var res Result
	if len(job.Kinds) == 0 && !job.Power {
		return res, fmt.Errorf("fit: no calibration kind asked for (want %s, %s or %s)", KindLaw, KindPaper, KindRoofline)
	}
	for _, k := range job.Kinds {
		if k != KindLaw && k != KindPaper && k != KindRoofline {
			return res, fmt.Errorf("kind %q: want %s, %s or %s", k, KindLaw, KindPaper, KindRoofline)
		}
	}
	rows, dataName, prefix, lawName := job.Rows, job.FileName, job.Prefix, ""
	if job.CSV != nil || rows == nil {
		if len(bytes.TrimSpace(job.CSV)) == 0 {
			return res, fmt.Errorf("the CSV is empty")
		}
		var err error
		if rows, err = ReadMeasurements(bytes.NewReader(job.CSV), job.Presets); err != nil {
			return res, err
		}
		dataName, prefix, lawName = naming(IsZeusCSV(job.CSV), job.FileName, job.Prefix)
	} else {
		dataName, prefix, lawName = naming(job.ZeusRows, job.FileName, job.Prefix)
	}
	res.Rows = len(rows)
	scaling := job.ScalingPoints
	if len(job.Kinds) > 0 && (job.Scaling != nil || scaling == nil) {
		var err error
		if scaling, err = ReadScaling(bytes.NewReader(job.Scaling)); err != nil {
			return res, err
		}
	}
	res.DataName = dataName
	version := job.Version
	if version == "" {
		version = "1.0.0"
	}
	in := Inputs{Rows: rows, DataName: dataName, Scaling: scaling, Hardware: job.Hardware, Presets: job.Presets}
	for _, k := range job.Kinds {
		var c model.Calibration
		var ps []Prediction
		var err error
		switch k {
		case KindRoofline:
			c, ps, err = rooflineWithPredictions(in, prefix+"-roofline", version, job.Runs)
		case KindLaw:
			c, ps, err = lawWithPredictions(in, lawName, version, specLaw)
		case KindPaper:
			c, ps, err = lawWithPredictions(in, strings.TrimSuffix(lawName, "-law")+"-paper", version, specPaper)
		}
		if err != nil {
			return res, err
		}
		res.Calibrations = append(res.Calibrations, c)
		if job.Predictions {
			res.Predictions = append(res.Predictions, ps)
		}
	}
	if job.Power && hasCapped(rows, job.Hardware) {
		pc, _, err := CalibratePower(rows, job.Hardware, dataName)
		if err != nil {
			return res, err
		}
		res.Power = &pc
	}
	return res, nil
}

// hasCapped reports whether any row ran below its board's default power
// limit (the rows PowerPoints pairs with an uncapped run).
func hasCapped(rows []model.Measurement, hw *model.Hardware) bool {
	for _, m := range rows {
		if g, err := hw.Lookup(m.GPU); err == nil && isCapped(m, g) {
			return true
		}
	}
	return false
}
