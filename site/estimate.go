package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"

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

// catalog is content.Catalog() plus the calibrations in dir ("" = none),
// read by the same strict loader.
func catalog(dir string) (*model.Catalog, error) {
	if dir == "" {
		return content.Catalog()
	}
	cals, err := content.LoadCalibrations(content.Calibrations)
	if err != nil {
		return nil, err
	}
	files, err := content.ReadCalibrations(os.DirFS(dir), ".")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("-calibrations: stat %s: %w", dir, fs.ErrNotExist)
		}
		return nil, fmt.Errorf("-calibrations %s: %w", dir, err)
	}
	return content.NewCatalog(append(cals, content.Values(files)...))
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
