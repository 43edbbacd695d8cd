package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
)

func runEstimate(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("estimate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	extra := fs.String("calibrations", "", "also load the calibration JSON files in this directory (e.g. written by fit -o); a request names one with \"calibration\"")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	cat, err := catalog(*extra)
	if err != nil {
		return err
	}
	req, err := model.ParseRequest(stdin)
	if err != nil {
		return err
	}
	resp, err := cat.Estimate(req)
	if err != nil {
		return err
	}
	return writeJSON(stdout, resp)
}

// catalog is content.Catalog() plus the calibrations in dir ("" = none).
func catalog(dir string) (*model.Catalog, error) {
	if dir == "" {
		return content.Catalog()
	}
	cals, err := content.LoadCalibrations(content.Calibrations)
	if err != nil {
		return nil, err
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		if _, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("-calibrations: %w", err)
		}
		return nil, fmt.Errorf("-calibrations: no *.json file in %s", dir)
	}
	sort.Strings(names)
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, fmt.Errorf("-calibrations: %w", err)
		}
		c, err := model.ParseCalibration(b)
		if err != nil {
			return nil, fmt.Errorf("-calibrations: %s: %w", n, err)
		}
		cals = append(cals, c)
	}
	return content.WithPower(model.NewCatalog(model.NewHardware(model.DefaultGPUs()), model.DefaultPresets(), cals, content.DefaultCalibration))
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
