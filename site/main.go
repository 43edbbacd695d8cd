// Command site is wattscale's command line. Its build and serve commands
// run the static-site generator, package gen (site/gen), on the content
// tree.
//
//	go run ./site estimate  < request.json    fine-tuning estimate (JSON in, JSON out)
//	go run ./site distill   < plan.json       distillation pipeline planner (JSON in, JSON out)
//	go run ./site recommend < req.json        least-energy configuration by a deadline (JSON in, JSON out)
//	go run ./site fit -data FILE.csv          fit calibrations to measurements
//	go run ./site build -o public             build the static site
//	go run ./site serve                       build it and serve it on localhost
//
// Run "go run ./site help" for every subcommand and its flags.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

// command is one subcommand: its name, a one-line summary and its entry point.
type command struct {
	name, summary string
	run           func(args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"estimate", "read a fine-tuning request JSON on stdin, write the estimate JSON", runEstimate},
		{"distill", "read a distillation plan JSON on stdin, write stages, N*, T*, Pareto set and advice", runDistill},
		{"recommend", "read a workload, candidates and a deadline on stdin, write the least-energy configuration and the Pareto front", runRecommend},
		{"fit", "fit calibrations to a measurement CSV (or the Zeus trace); print JSON and diagnostics", runFit},
		{"build", "build the static site (calculator, planner, report, methodology) into -o DIR", runBuild},
		{"serve", "build the site and serve it on localhost, printing the URL", runServe},
		{"validate", "score wattscale and two baseline estimators against published runs (content/validation)", runValidate},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run dispatches to a subcommand and returns the exit status: 0 on
// success, 1 on a user error (one line on stderr), 2 on a usage error.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands() {
		if c.name == args[0] {
			if err := c.run(args[1:], stdin, stdout, stderr); err != nil {
				if err == errUsage {
					return 2
				}
				fmt.Fprintf(stderr, "wattscale %s: %v\n", c.name, err)
				return 1
			}
			return 0
		}
	}
	fmt.Fprintf(stderr, "wattscale: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

var errUsage = fmt.Errorf("usage")

// parseFlags parses a command's flags (errUsage when they do not parse)
// and refuses positional arguments after them: the commands read their
// input from flags and standard input only, and an argument silently
// ignored (a file name meant as input, a flag after it) would give an
// answer to a question not asked.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q: %s takes flags only (and reads any request from standard input); see go run ./site %s -h", fs.Arg(0), fs.Name(), fs.Name())
	}
	return nil
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: go run ./site <command> [flags]")
	fmt.Fprintln(w)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
}
