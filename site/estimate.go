package main

import (
	"encoding/json"
	"flag"
	"io"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
)

func runEstimate(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("estimate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	cat, err := content.Catalog()
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

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
