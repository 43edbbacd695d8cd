package main

import (
	"flag"
	"io"

	"github.com/wattscale/wattscale/model/distill"
)

// runDistill reads a distillation plan JSON on stdin and writes the result
// JSON: stage accounting, N*, the amortisation curve, T*, the Pareto set and
// advice. A bad plan is an error naming the field.
func runDistill(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("distill", flag.ContinueOnError)
	fs.SetOutput(stderr)
	budget := budgetFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cat, err := catalog("")
	if err != nil {
		return err
	}
	cat.WorkBudget = *budget
	return answer(stdin, stdout, cat, distill.ParsePlan, distill.Evaluate)
}
