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
	var hf [3]string
	fs.StringVar(&hf[0], "hf-config", "", "a Hugging Face config.json: the request's model.hf_config")
	fs.StringVar(&hf[1], "hf-args", "", "the trainer's arguments as JSON (TrainingArguments names): the request's training.hf_args")
	fs.StringVar(&hf[2], "peft", "", "a PEFT adapter_config.json (with the BitsAndBytesConfig keys of a QLoRA run): the request's training.peft")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cat, err := catalog(*extra)
	if err != nil {
		return err
	}
	parse := model.ParseRequest
	if hf != [3]string{} {
		parse = func(r io.Reader) (model.Request, error) {
			req, err := model.ParseRequest(r)
			if err != nil {
				return req, err
			}
			return withHFFiles(req, hf)
		}
	}
	return answer(stdin, stdout, cat, parse, (*model.Catalog).Estimate)
}

// withHFFiles puts the Hugging Face files named by -hf-config, -hf-args
// and -peft ("" = none) into the request read from standard input, which
// must not carry them itself.
func withHFFiles(req model.Request, files [3]string) (model.Request, error) {
	dst := []struct {
		flag, path string
		obj        *model.RawObject
	}{{"-hf-config", model.PathHFConfig, &req.Model.HFConfig}, {"-hf-args", model.PathHFArgs, &req.Training.HFArgs}, {"-peft", model.PathPEFT, &req.Training.PEFT}}
	for i, name := range files {
		if name == "" {
			continue
		}
		d := dst[i]
		if *d.obj != "" {
			return req, &model.FieldError{Field: d.path, Message: "is given both in the request and by " + d.flag + "; give it once"}
		}
		f, err := os.Open(name)
		if err != nil {
			return req, fmt.Errorf("%s: %w", d.flag, err)
		}
		raw, err := model.ReadBody(f)
		f.Close()
		if err != nil {
			return req, model.PrefixField(d.path, err)
		}
		*d.obj = model.RawObject(raw)
	}
	return req, nil
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
// read by the same strict loader, reading Hugging Face files.
func catalog(dir string) (*model.Catalog, error) {
	cat, err := catalogOnly(dir)
	if err != nil {
		return nil, err
	}
	cat.ReadHFFiles()
	return cat, nil
}

func catalogOnly(dir string) (*model.Catalog, error) {
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
