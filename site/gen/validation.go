package gen

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/model/validate"
)

// The closed vocabularies of runs.csv, with what each value means on the page.
var (
	runPhases  = map[string]string{"pretrain": "pre-training", "finetune": "fine-tuning", "distill": "distillation"}
	runMethods = map[string]string{"full": "every weight trained (pre-training included)", "lora": "low-rank adapters on a frozen 16-bit base (Hu et al. 2021)", "qlora": "low-rank adapters on a frozen 4-bit base (Dettmers et al. 2023)"}
	runStacks  = map[string]string{"optimised": "a stack tuned for throughput (MLPerf submissions): estimated with training.stack optimised", "reference": "the source does not describe a tuned stack: the calibration as fitted"}
	runScopes  = map[string]string{"gpu": "the accelerators only", "node": "whole nodes with CPUs and memory", "facility": "nodes times the data centre's PUE"}
	runSources = map[string]string{"metered": "metered at the wall or the power distribution unit", "nvml": "GPU power counters integrated over the run", "tdp_estimate": "GPU-hours times rated power, as the source computes it"}
)

// sortedKeys is a map's keys in order: every loop over a map that writes
// output goes through it, so that builds are byte-identical.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// ValidationTable is the validation page's table of published runs,
// grouped by phase, with the counts the page's summary quotes and, when
// the site has a validation page, the scores of every run.
type ValidationTable struct {
	Groups  []RunGroup
	Total   int
	Scopes  []Term // the energy scopes, with how many runs use each
	Sources []Term // the kinds of source, with counts
	// Scores is the scoring of the table (nil when no page shows it).
	Scores *ValidationScores
}

// RunGroup is the runs of one phase.
type RunGroup struct {
	ID, Title string
	Rows      []RunRow
}

// RunRow is a run formatted for the table, with its scores when the table
// was scored.
type RunRow struct {
	ID, Model, Setup, Energy, Scope, SourceKind, Source, Citation, Notes string
	Result                                                               *RunResult
}

// RunResult is one run's scoring, formatted: each estimator's prediction
// in the run's own scope, and what was assumed to predict it.
type RunResult struct {
	Scored   bool   // counts in the headline summaries
	Excluded string // why not, when not: the scorer's reason up to its first colon
	Why      string // the rest of the scorer's reason (wattscale's refusal, the data problem)
	Fed      bool   // one of the runs the shipped calibration's table stage was fitted on
	Compared string // "" for energy; else what the figure is (accelerator-hours × stated power)
	Preds    []PredCell
	Assumed  []string // inputs the source does not state, with the rule that filled each
}

// PredCell is one estimator's prediction for one run.
type PredCell struct {
	Estimator string // column heading, for the phone layout's labels
	Value     string // predicted energy in the run's scope; "" when not available
	Interval  string // wattscale's interval, "lo – hi"
	Covered   string // "inside" or "outside" the interval; "" without one
	Fold      string // fold error with its direction: "×1.38 high"
	Bad       bool   // fold error above 2
	Reason    string // why there is no prediction
}

// Term is a vocabulary entry with its meaning and count.
type Term struct {
	Name, Meaning string
	Count         int
}

// validationTable formats the runs for the validation page: grouped by
// phase (fine-tuning first: what the calculator estimates), each group in
// file order. With scores (sc non-nil) every row carries its results.
func validationTable(runs []validate.Run, sc *ValidationScores) ValidationTable {
	t := ValidationTable{Total: len(runs), Scores: sc}
	for _, ph := range []string{"finetune", "distill", "pretrain"} {
		g := RunGroup{ID: "runs-" + ph, Title: capitalise(runPhases[ph])}
		for _, r := range runs {
			if r.Phase != ph {
				continue
			}
			row := RunRow{ID: r.ID, Model: r.Model, Setup: runSetup(r), Energy: fmtKWh(r.EnergyKWh),
				Scope: r.Scope, SourceKind: r.SourceKind, Source: r.Source, Citation: r.Citation, Notes: r.Notes}
			if sc != nil {
				row.Result = sc.rows[r.ID]
			}
			g.Rows = append(g.Rows, row)
		}
		if len(g.Rows) > 0 {
			t.Groups = append(t.Groups, g)
		}
	}
	count := func(vocab map[string]string, key func(validate.Run) string) []Term {
		var out []Term
		for _, k := range sortedKeys(vocab) {
			n := 0
			for _, r := range runs {
				if key(r) == k {
					n++
				}
			}
			out = append(out, Term{k, vocab[k], n})
		}
		return out
	}
	t.Scopes = count(runScopes, func(r validate.Run) string { return r.Scope })
	t.Sources = count(runSources, func(r validate.Run) string { return r.SourceKind })
	return t
}

// runSetup summarises what a run stated about its configuration.
func runSetup(r validate.Run) string {
	var parts []string
	if r.Params > 0 {
		parts = append(parts, fmtCount(r.Params)+" params")
	}
	if r.Tokens > 0 {
		parts = append(parts, fmtCount(r.Tokens)+" tokens")
	}
	hw := r.GPU
	if r.Count > 0 {
		hw = strconv.Itoa(r.Count) + " × " + hw
	} else {
		hw += " (count not reported)"
	}
	parts = append(parts, hw)
	if r.Strategy != "" {
		s := r.Strategy
		if r.Tensor > 0 {
			s += fmt.Sprintf(" (TP %d)", r.Tensor)
		}
		parts = append(parts, s)
	}
	if r.Precision != "" {
		parts = append(parts, string(r.Precision))
	}
	if r.TimeS > 0 {
		parts = append(parts, fmtDuration(r.TimeS))
	}
	return strings.Join(parts, ", ")
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
