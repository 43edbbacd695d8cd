package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model/fit"
	"github.com/wattscale/wattscale/model/validate"
)

func runValidate(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	runsPath := fs.String("runs", "", "validation table CSV (default: the embedded content/validation/runs.csv)")
	asJSON := fs.Bool("json", false, "write the full report as JSON instead of tables")
	holdout := fs.Bool("holdout", false, "leave-one-source-out: predict each source's runs with a calibration fitted without that source")
	cal := fs.String("calibration", "", "calibration to estimate with (default: the catalog default)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	raw := content.ValidationRuns
	if *runsPath != "" {
		b, err := os.ReadFile(*runsPath)
		if err != nil {
			return err
		}
		raw = b
	}
	runs, err := validate.ReadRuns(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	cat, err := content.Catalog()
	if err != nil {
		return err
	}
	var rep validate.Report
	if *holdout {
		if *cal != "" {
			return fmt.Errorf("-holdout refits the default calibration; it cannot be combined with -calibration")
		}
		base, err := cat.Calibration("")
		if err != nil {
			return err
		}
		scaling, err := fit.ReadScaling(strings.NewReader(string(content.PublishedScaling)))
		if err != nil {
			return err
		}
		if rep, err = fit.ScoreHoldout(cat, *base, runs, scaling); err != nil {
			return err
		}
	} else if rep, err = validate.Score(runs, validate.Options{Catalog: cat, Calibration: *cal}); err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	writeReport(stdout, rep)
	return nil
}

// writeReport prints the per-run table and the summaries.
func writeReport(w io.Writer, rep validate.Report) {
	fmt.Fprintf(w, "wattscale validation (%s; calibration %s; host factor %.2f; 6ND baseline MFU %.2f)\n\n", rep.Label, rep.Calibration, rep.HostFactor, rep.BaselineMFU)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "run\tkind\tscope\treported kWh\twattscale\tfold\tin interval\tgpu-hours\tfold\t6ND\tfold\tnote")
	for _, r := range rep.Rows {
		cells := []string{r.ID, r.SourceKind, r.Scope, fmt.Sprintf("%.4g", r.Reported)}
		for _, e := range validate.Estimators {
			p := r.Predict[e]
			if !p.Available {
				cells = append(cells, "–", "–")
			} else {
				cells = append(cells, fmt.Sprintf("%.4g", p.KWh), fmt.Sprintf("%.2f", p.Fold))
			}
			if e == validate.Wattscale {
				switch {
				case p.Covered == nil:
					cells = append(cells, "–")
				case *p.Covered:
					cells = append(cells, "yes")
				default:
					cells = append(cells, "no")
				}
			}
		}
		note := r.Excluded
		if note == "" && len(r.Inputs.Assumed) > 0 {
			note = fmt.Sprintf("%d assumed input(s)", len(r.Inputs.Assumed))
		}
		cells = append(cells, note)
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
	fmt.Fprintln(w)
	writeGroups(w, append([]validate.Group{rep.Headline, rep.Paired, rep.AllIndependent}, rep.Groups...))
	fmt.Fprintln(w)
	writeGroups(w, []validate.Group{rep.PEFT})
}

func writeGroups(w io.Writer, groups []validate.Group) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "subset\testimator\tanswered\tmedian fold\tp90 fold\t≤×1.5\t≤×2\t≤×2 of all runs\tgeo-mean ratio\tcoverage\tmedian width")
	for _, g := range groups {
		est := validate.Estimators
		if _, ok := g.Summaries[validate.AsFull]; ok {
			est = append(append([]string{}, est...), validate.AsFull)
		}
		for i, e := range est {
			s := g.Summaries[e]
			label := ""
			if i == 0 {
				label = g.By + ": " + g.Key
			}
			if s.N == 0 {
				fmt.Fprintf(tw, "%s\t%s\t0/%d\t\t\t\t\t\t\t\t\n", label, e, s.Runs)
				continue
			}
			cov, width := "–", "–"
			if s.Coverage != nil {
				cov = fmt.Sprintf("%.0f%%", 100**s.Coverage)
			}
			if s.MedianWidth != nil {
				width = fmt.Sprintf("×%.2f", *s.MedianWidth)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%.2f\t%.2f\t%.0f%%\t%.0f%%\t%.0f%%\t%.2f\t%s\t%s\n", label, e, s.N, s.Runs, s.MedianFold, s.P90Fold, 100*s.Within15, 100*s.Within2, 100*s.Within2AllRuns, s.GeoMeanRatio, cov, width)
		}
	}
	tw.Flush()
}
