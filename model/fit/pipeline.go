package fit

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/wattscale/wattscale/model"
)

// The calibration kinds Calibrate fits.
const (
	KindLaw      = "law"      // Law: the paper's law with hardware dummies, η measured or modelled
	KindPaper    = "paper"    // Paper: the paper's specification exactly
	KindRoofline = "roofline" // RooflineWithTable: the roofline time-and-power model
)

// Job is one run of the calibration pipeline: a measurement CSV in, the
// calibrations of the kinds asked for out. The command line (`site fit`)
// and the browser refit (fit.wasm) both run it.
type Job struct {
	// CSV is the measurement file: the project's schema or the Zeus trace.
	CSV []byte
	// FileName is how the data are cited when they are not the Zeus trace.
	FileName string
	// Prefix overrides the calibration name prefix ("" = "user", or
	// "wattscale" for the Zeus trace).
	Prefix string
	// Kinds lists what to fit, in output order: KindLaw, KindPaper,
	// KindRoofline.
	Kinds []string
	// Scaling is the published speedup and energy figures
	// (content/data/published-scaling.csv).
	Scaling []byte
	// Runs, when not empty, adds the table stage to the roofline
	// calibration on these validation runs (content/validation/runs.csv).
	Runs     []byte
	Hardware *model.Hardware
	Presets  []model.Preset
	Version  string // calibration version ("" = "1.0.0")
}

// Result is what Calibrate fitted.
type Result struct {
	Calibrations []model.Calibration // one per Job.Kinds entry, in that order
	Rows         int                 // measurement rows read
	DataName     string              // how the calibrations cite the data
}

// Calibrate reads job.CSV and fits the calibrations job.Kinds names. Names
// follow Naming: PREFIX-roofline, PREFIX-law, PREFIX-paper (the Zeus trace:
// wattscale-roofline, wattscale-zeus-law, wattscale-zeus-paper).
func Calibrate(job Job) (Result, error) {
	var res Result
	if len(job.Kinds) == 0 {
		return res, fmt.Errorf("fit: no calibration kind asked for (want %s, %s or %s)", KindLaw, KindPaper, KindRoofline)
	}
	for _, k := range job.Kinds {
		if k != KindLaw && k != KindPaper && k != KindRoofline {
			return res, fmt.Errorf("kind %q: want %s, %s or %s", k, KindLaw, KindPaper, KindRoofline)
		}
	}
	if len(bytes.TrimSpace(job.CSV)) == 0 {
		return res, fmt.Errorf("the CSV is empty")
	}
	rows, err := ReadMeasurements(bytes.NewReader(job.CSV), job.Presets)
	if err != nil {
		return res, err
	}
	res.Rows = len(rows)
	scaling, err := ReadScaling(bytes.NewReader(job.Scaling))
	if err != nil {
		return res, err
	}
	dataName, prefix, lawName := Naming(job.CSV, job.FileName, job.Prefix)
	res.DataName = dataName
	version := job.Version
	if version == "" {
		version = "1.0.0"
	}
	in := Inputs{Rows: rows, DataName: dataName, Scaling: scaling, Hardware: job.Hardware, Presets: job.Presets}
	for _, k := range job.Kinds {
		var c model.Calibration
		switch k {
		case KindRoofline:
			c, err = RooflineWithTable(in, prefix+"-roofline", version, job.Runs)
		case KindLaw:
			c, _, err = Law(in, lawName, version)
		case KindPaper:
			c, _, err = Paper(in, strings.TrimSuffix(lawName, "-law")+"-paper", version)
		}
		if err != nil {
			return res, err
		}
		res.Calibrations = append(res.Calibrations, c)
	}
	return res, nil
}
