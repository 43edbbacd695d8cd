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
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cat, err := catalog(*extra)
	if err != nil {
		return err
	}
	return answer(stdin, stdout, cat, model.ParseRequest, (*model.Catalog).Estimate)
}

// answer reads one JSON request from stdin with parse, answers it with
// cat and writes the answer to stdout as indented JSON: the body of each
// command that takes a request (estimate, distill, recommend).
func answer[Req, Res any](stdin io.Reader, stdout io.Writer, cat *model.Catalog, parse func(io.Reader) (Req, error), do func(*model.Catalog, Req) (Res, error)) error {
	req, err := parse(stdin)
	if err != nil {
		return err
	}
	res, err := do(cat, req)
	if err != nil {
		return err
	}
	return writeJSON(stdout, res)
}

// budgetFlag adds -budget, the work one request may ask for: the API's
// budget unless raised (model.Catalog.WorkBudget).
func budgetFlag(fs *flag.FlagSet) *int {
	return fs.Int("budget", model.DefaultWorkBudget, fmt.Sprintf("the most work units the request may ask for, as the API allows (%d; a fine-tuning configuration searched is %d, an inference configuration %d, each search %d more, each plan stage estimated %d); -1 for no limit", model.DefaultWorkBudget, model.WorkPerConfig, model.WorkPerInferenceConfig, model.WorkPerSearch, model.WorkPerEstimatedStage))
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
