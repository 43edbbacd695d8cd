// Package content holds wattscale's site content (Markdown pages under
// pages/, data files with their provenance) and the calibrations under
// calibrations/, which every front end (command line, browser, Worker)
// embeds. Calibrations is the embedded calibrations folder.
package content

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"

	"github.com/wattscale/wattscale/model"
)

//go:embed calibrations/*.json
var Calibrations embed.FS

// PowerCalibrationJSON is content/calibrations/power/wattscale-power-limit.json:
// the power-limit response fitted on the Zeus power-capped runs (kept out
// of calibrations/*.json: it is not an energy calibration a request names).
//
//go:embed calibrations/power/wattscale-power-limit.json
var PowerCalibrationJSON []byte

// PowerCalibration parses the embedded power-limit calibration.
func PowerCalibration() (*model.PowerCalibration, error) {
	c, err := model.ParsePowerCalibration(PowerCalibrationJSON)
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// PublishedScaling is content/data/published-scaling.csv: the roofline
// paper's published speedup and energy-per-token figures.
//
//go:embed data/published-scaling.csv
var PublishedScaling []byte

// ValidationRuns is content/validation/runs.csv: published training runs
// with their reported energy, the table wattscale is validated against
// (read it with validate.ReadRuns; the columns are documented in
// content/validation/README.md).
//
//go:embed validation/runs.csv
var ValidationRuns []byte

// DefaultCalibration is the calibration an estimate uses when the request
// names none.
const DefaultCalibration = "wattscale-roofline"

// LoadCalibrations parses every *.json in fsys's calibrations folder, in name order.
func LoadCalibrations(fsys fs.FS) ([]model.Calibration, error) {
	names, err := fs.Glob(fsys, "calibrations/*.json")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []model.Calibration
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		c, err := model.ParseCalibration(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// Catalog builds the catalog from the embedded calibrations, the built-in
// hardware table and presets.
func Catalog() (*model.Catalog, error) {
	cals, err := LoadCalibrations(Calibrations)
	if err != nil {
		return nil, err
	}
	return WithPower(model.NewCatalog(model.NewHardware(model.DefaultGPUs()), model.DefaultPresets(), cals, DefaultCalibration))
}

// WithPower sets the embedded power-limit calibration on a catalog just
// built (pass NewCatalog's results straight through).
func WithPower(cat *model.Catalog, err error) (*model.Catalog, error) {
	if err != nil {
		return nil, err
	}
	if cat.Power, err = PowerCalibration(); err != nil {
		return nil, err
	}
	return cat, nil
}
