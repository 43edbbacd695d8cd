package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/model"
)

// Run is one published training run of content/validation/runs.csv: what
// was trained, on what, the energy the source reports and where it says so.
// Numbers that the source does not state are 0.
type Run struct {
	Line        int // line in runs.csv, for messages
	ID          string
	Phase       string // pretrain, finetune or distill
	Model       string
	Params      float64
	SeqLen      float64
	BatchPerGPU float64
	Tokens      float64
	Precision   string
	GPU         string // canonical accelerator id
	Count       float64
	Strategy    string
	Tensor      float64
	EnergyKWh   float64
	Scope       string // gpu, node or facility: what the energy covers
	TimeS       float64
	SourceKind  string // metered, nvml or tdp_estimate
	Source      string
	Citation    string
	Notes       string
}

// runColumns is runs.csv's header; every column must be present, in any order.
var runColumns = []string{"id", "phase", "model", "params", "layers", "hidden", "heads", "ffn", "vocab", "seq_len",
	"batch_per_gpu", "tokens", "precision", "gpu", "count", "strategy", "tensor", "energy_kwh", "energy_scope",
	"time_s", "source_kind", "source", "citation", "notes"}

// The closed vocabularies of runs.csv, with what each value means on the page.
var (
	runPhases  = map[string]string{"pretrain": "pre-training", "finetune": "fine-tuning", "distill": "distillation"}
	runScopes  = map[string]string{"gpu": "the accelerators only", "node": "whole nodes with CPUs and memory", "facility": "nodes times the data centre's PUE"}
	runSources = map[string]string{"metered": "metered at the wall or the power distribution unit", "nvml": "GPU power counters integrated over the run", "tdp_estimate": "GPU-hours times rated power, as the source computes it"}
)

// parseRuns reads runs.csv. Errors start with the line number; the caller
// prefixes the file name.
func parseRuns(raw []byte, hw *model.Hardware) ([]Run, error) {
	cr := csv.NewReader(bytes.NewReader(raw))
	head, err := cr.Read()
	if err != nil {
		return nil, csvErr(err, 1)
	}
	col := map[string]int{}
	for i, h := range head {
		h = strings.TrimSpace(h)
		if !slices.Contains(runColumns, h) {
			return nil, fmt.Errorf("1: unknown column %q (known: %s)", h, strings.Join(runColumns, ", "))
		}
		col[h] = i
	}
	for _, c := range runColumns {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("1: missing column %q", c)
		}
	}
	var runs []Run
	ids := map[string]int{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			line, _ := cr.FieldPos(0)
			return nil, csvErr(err, line)
		}
		line, _ := cr.FieldPos(0)
		get := func(c string) string { return strings.TrimSpace(rec[col[c]]) }
		fail := func(c, format string, args ...any) error {
			return fmt.Errorf("%d: column %s: %s", line, c, fmt.Sprintf(format, args...))
		}
		r := Run{Line: line, ID: get("id"), Phase: get("phase"), Model: get("model"), Precision: get("precision"),
			Strategy: get("strategy"), Scope: get("energy_scope"), SourceKind: get("source_kind"),
			Source: get("source"), Citation: get("citation"), Notes: get("notes")}
		if r.ID == "" {
			return nil, fail("id", "empty")
		}
		if prev, ok := ids[r.ID]; ok {
			return nil, fail("id", "%q repeats line %d", r.ID, prev)
		}
		ids[r.ID] = line
		for c, vocab := range map[string]map[string]string{"phase": runPhases, "energy_scope": runScopes, "source_kind": runSources} {
			if _, ok := vocab[get(c)]; !ok {
				return nil, fail(c, "%q is not one of %s", get(c), strings.Join(sortedKeys(vocab), ", "))
			}
		}
		for _, f := range []struct {
			c   string
			dst *float64
		}{{"params", &r.Params}, {"seq_len", &r.SeqLen}, {"batch_per_gpu", &r.BatchPerGPU}, {"tokens", &r.Tokens},
			{"count", &r.Count}, {"tensor", &r.Tensor}, {"energy_kwh", &r.EnergyKWh}, {"time_s", &r.TimeS},
			{"layers", new(float64)}, {"hidden", new(float64)}, {"heads", new(float64)}, {"ffn", new(float64)}, {"vocab", new(float64)}} {
			s := get(f.c)
			if s == "" {
				continue
			}
			x, err := strconv.ParseFloat(s, 64)
			if err != nil || !(x > 0) || math.IsInf(x, 0) {
				return nil, fail(f.c, "%q is not a positive number", s)
			}
			*f.dst = x
		}
		if r.EnergyKWh == 0 {
			return nil, fail("energy_kwh", "empty: every run needs its published energy")
		}
		if r.Citation == "" && r.Source == "" {
			return nil, fail("citation", "empty: every run needs a source")
		}
		if g := get("gpu"); g != "" {
			gpu, err := hw.Lookup(g)
			if err != nil {
				return nil, fail("gpu", "%v", err)
			}
			r.GPU = gpu.ID
		}
		if r.Strategy != "" && !slices.Contains(model.Strategies, r.Strategy) {
			return nil, fail("strategy", "%q is not one of %s", r.Strategy, strings.Join(model.Strategies, ", "))
		}
		if r.Precision != "" && !slices.Contains(precisionNames(), r.Precision) {
			return nil, fail("precision", "%q is not one of %s", r.Precision, strings.Join(precisionNames(), ", "))
		}
		runs = append(runs, r)
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("2: no runs")
	}
	return runs, nil
}

func precisionNames() []string {
	var out []string
	for _, p := range model.Precisions {
		out = append(out, string(p))
	}
	return out
}

// sortedKeys is a map's keys in order: every loop over a map that writes
// output goes through it, so that builds are byte-identical.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// ValidationTable is the validation page's table of published runs,
// grouped by phase, with the counts the page's summary quotes.
type ValidationTable struct {
	Groups  []RunGroup
	Total   int
	Scopes  []Term // the energy scopes, with how many runs use each
	Sources []Term // the kinds of source, with counts
}

// RunGroup is the runs of one phase.
type RunGroup struct {
	ID, Title string
	Rows      []RunRow
}

// RunRow is a run formatted for the table.
type RunRow struct {
	ID, Model, Setup, Energy, Scope, SourceKind, Source, Citation, Notes string
}

// Term is a vocabulary entry with its meaning and count.
type Term struct {
	Name, Meaning string
	Count         int
}

// validationTable formats the runs for the validation page: grouped by
// phase (fine-tuning first: what the calculator estimates), each group in
// file order.
func validationTable(runs []Run) ValidationTable {
	t := ValidationTable{Total: len(runs)}
	for _, ph := range []string{"finetune", "distill", "pretrain"} {
		g := RunGroup{ID: "runs-" + ph, Title: capitalise(runPhases[ph])}
		for _, r := range runs {
			if r.Phase != ph {
				continue
			}
			g.Rows = append(g.Rows, RunRow{ID: r.ID, Model: r.Model, Setup: runSetup(r), Energy: fmtKWh(r.EnergyKWh),
				Scope: r.Scope, SourceKind: r.SourceKind, Source: r.Source, Citation: r.Citation, Notes: r.Notes})
		}
		if len(g.Rows) > 0 {
			t.Groups = append(t.Groups, g)
		}
	}
	count := func(vocab map[string]string, key func(Run) string) []Term {
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
	t.Scopes = count(runScopes, func(r Run) string { return r.Scope })
	t.Sources = count(runSources, func(r Run) string { return r.SourceKind })
	return t
}

// runSetup summarises what a run stated about its configuration.
func runSetup(r Run) string {
	var parts []string
	if r.Params > 0 {
		parts = append(parts, fmtCount(r.Params)+" params")
	}
	if r.Tokens > 0 {
		parts = append(parts, fmtCount(r.Tokens)+" tokens")
	}
	hw := r.GPU
	if hw == "" {
		hw = "GPU not stated"
	}
	if r.Count > 0 {
		hw = strconv.FormatFloat(r.Count, 'f', -1, 64) + " × " + hw
	}
	parts = append(parts, hw)
	if r.Strategy != "" {
		s := r.Strategy
		if r.Tensor > 0 {
			s += fmt.Sprintf(" (TP %g)", r.Tensor)
		}
		parts = append(parts, s)
	}
	if r.Precision != "" {
		parts = append(parts, r.Precision)
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
