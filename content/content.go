// Package content holds wattscale's site content (Markdown pages under
// pages/, data files with their provenance) and the calibrations under
// calibrations/, which every front end (command line, browser, Worker)
// embeds. Calibrations is the embedded calibrations folder.
package content

import (
	"embed"
	"errors"
	"github.com/wattscale/wattscale/internal/errctx"
	"io/fs"
	"path"
	"sort"
	"strconv"

	"github.com/wattscale/wattscale/content/internal/calfile"
	"github.com/wattscale/wattscale/internal/jsonv"
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

//go:generate go run ./internal/gencal -content . -o calibrations_gen.go

// PowerCalibration is the embedded power-limit calibration: the value
// generated from PowerCalibrationJSON (calibrations_gen.go), checked as
// model.ParsePowerCalibration checks the file.
func PowerCalibration() (*model.PowerCalibration, error) {
	c := generatedPowerCalibration
	if err := c.Validate(); err != nil {
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

// CalibrationFile is one calibration file as read: its path in the file
// tree, its bytes (as published) and the calibration.
type CalibrationFile = calfile.File

// ReadCalibrations is the one calibration loader, for the embedded
// calibrations, a content tree (site build -content DIR) and a folder given
// with -calibrations DIR (os.DirFS(DIR), dir "."): it reads every *.json
// in dir of fsys, in name order. It is strict: a JSON syntax or type
// error names the file and its line, and a calibration whose name is not
// its file's name (without .json) is an error. Every bad file is
// reported. A folder with no *.json file is an error.
func ReadCalibrations(fsys fs.FS, dir string) ([]CalibrationFile, error) {
	return calfile.Read(fsys, dir)
}

// shippedFile is one calibration file in EncodeCalibrations' JSON.
type shippedFile struct {
	Path string `json:"path"`
	Raw  string `json:"raw"`
}

// EncodeCalibrations is how a built site hands its content tree's
// calibrations to the calculator's WebAssembly, which otherwise has the
// module's own compiled in (Calibrations): a JSON array of {"path",
// "raw"}, each file as published. The pages carry it and calc.js passes
// it on; DecodeCalibrations reads it.
func EncodeCalibrations(files []CalibrationFile) ([]byte, error) {
	out := []byte{'['}
	for i, f := range files {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(jsonv.AppendString(append(out, `{"path":`...), f.Path), `,"raw":`...)
		out = append(jsonv.AppendString(out, string(f.Raw)), '}')
	}
	return append(out, ']'), nil
}

// storeShippedFile is jsonv.Store for a shippedFile, without reflection,
// which calc.wasm does not link.
func storeShippedFile(t *jsonv.Value, path string, f *shippedFile) error {
	return jsonv.StoreObject(t, path, func(k string, v *jsonv.Value, p string) error {
		switch k {
		case "path":
			return jsonv.StoreString(v, p, &f.Path)
		case "raw":
			return jsonv.StoreString(v, p, &f.Raw)
		}
		return jsonv.UnknownField(v, p)
	})
}

// byPath sorts shipped files by path (sort.Sort, not sort.Slice, which
// would link package reflectlite into calc.wasm).
type byPath []shippedFile

func (s byPath) Len() int           { return len(s) }
func (s byPath) Less(i, j int) bool { return s[i].Path < s[j].Path }
func (s byPath) Swap(i, j int)      { s[i], s[j] = s[j], s[i] }

// DecodeCalibrations reads EncodeCalibrations' JSON with ReadCalibrations'
// rules: every file a *.json that parses and is named as its file, no path
// twice, at least one file; the files come back in path order. Every bad
// file is reported.
func DecodeCalibrations(b []byte) ([]CalibrationFile, error) {
	var in []shippedFile
	t, err := jsonv.Parse(b)
	if err == nil {
		err = jsonv.StoreSlice(&t, "", &in, storeShippedFile)
	}
	if err != nil {
		return nil, errctx.Wrap("shipped calibrations", err)
	}
	if len(in) == 0 {
		return nil, errors.New("shipped calibrations: no file")
	}
	sort.Sort(byPath(in))
	return calfile.Each(len(in), func(i int) (string, []byte, error) {
		f := in[i]
		switch {
		case path.Ext(f.Path) != ".json":
			return "", nil, errors.New("shipped calibrations: " + strconv.Quote(f.Path) + " is not a *.json file")
		case i > 0 && in[i-1].Path == f.Path:
			return "", nil, errors.New("shipped calibrations: " + f.Path + " appears twice")
		}
		return f.Path, []byte(f.Raw), nil
	})
}

// ShippedCatalog is NewCatalog over the calibrations of
// EncodeCalibrations' JSON: the catalog the calculator's WebAssembly uses
// when its page hands it the content tree's calibrations.
func ShippedCatalog(b []byte) (*model.Catalog, error) {
	files, err := DecodeCalibrations(b)
	if err != nil {
		return nil, err
	}
	return NewCatalog(Values(files))
}

// Values are the files' calibrations, in the same order.
func Values(files []CalibrationFile) []model.Calibration {
	out := make([]model.Calibration, len(files))
	for i, f := range files {
		out[i] = f.Calibration
	}
	return out
}

// LoadCalibrations reads the calibrations folder of a content tree (the
// embedded one: Calibrations) with ReadCalibrations.
func LoadCalibrations(fsys fs.FS) ([]model.Calibration, error) {
	files, err := ReadCalibrations(fsys, "calibrations")
	if err != nil {
		return nil, err
	}
	return Values(files), nil
}

// NewCatalog is the one catalog constructor: the built-in hardware table
// and presets, the calibrations, DefaultCalibration as the default, and
// the embedded power-limit calibration.
func NewCatalog(cals []model.Calibration) (*model.Catalog, error) {
	return WithPower(model.NewCatalog(model.NewHardware(model.DefaultGPUs()), model.DefaultPresets(), cals, DefaultCalibration))
}

// Catalog builds the catalog of the embedded calibrations: the values
// generated from calibrations/*.json (calibrations_gen.go, written by
// go generate ./content; TestGeneratedCalibrations keeps them equal to
// what ReadCalibrations parses), so that no program decodes JSON to build
// it. Decoding the files cost the calculator's WebAssembly a sixth of its
// start-up, and reading them through Calibrations, an fs.FS, would link
// io/fs's directory listing and package time's formatting into it.
func Catalog() (*model.Catalog, error) {
	// A copy of the slice: a catalog's calibrations are its own (the
	// values inside are shared and never changed).
	return NewCatalog(append([]model.Calibration(nil), generatedCalibrations...))
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
