package main

import (
	"flag"
	"io"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
)

// runRecommend reads a recommend request JSON on stdin and writes the
// least-energy (or CO2e, cost, time) configuration, the time–energy Pareto
// front and the saving over the current configuration. A bad request is an
// error naming the field.
func runRecommend(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("recommend", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	req, err := model.ParseRecommendRequest(stdin)
	if err != nil {
		return err
	}
	cat, err := content.Catalog()
	if err != nil {
		return err
	}
	res, err := cat.Recommend(req)
	if err != nil {
		return err
	}
	return writeJSON(stdout, res)
}
