package main

import (
	"flag"
	"io"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/distill"
)

// runRecommend reads a recommend request JSON on stdin and writes the
// least-energy (or CO2e, cost, time) configuration, the time–energy Pareto
// front and the saving over the current configuration. With -plan it reads
// a per-stage request (a distillation plan with the search settings,
// distill.RecommendRequest) and answers for each GPU-bound stage. A bad
// request is an error naming the field.
func runRecommend(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("recommend", flag.ContinueOnError)
	fs.SetOutput(stderr)
	plan := fs.Bool("plan", false, "read a distillation plan request {\"plan\": ..., \"candidates\", \"deadline_s\", \"minimise\", \"stages\"} and recommend per stage")
	budget := budgetFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cat, err := catalog("")
	if err != nil {
		return err
	}
	cat.WorkBudget = *budget
	if *plan {
		return answer(stdin, stdout, cat, distill.ParseRecommendRequest, distill.Recommend)
	}
	return answer(stdin, stdout, cat, model.ParseRecommendRequest, (*model.Catalog).Recommend)
}
