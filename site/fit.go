package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/fit"
)

// dataDir is where third-party data are read from: $DATA_DIR, else ../shared/data.
func dataDir() string {
	if d := os.Getenv("DATA_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "shared", "data")
}

func runFit(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", filepath.Join(dataDir(), "zeus-bert-power.csv"), fmt.Sprintf("measurement CSV (project schema or the Zeus power trace); - for stdin; at most %d MiB, file or stdin (a larger one is an error naming the limit, never cut short)", fit.MaxCSVBytes>>20))
	kind := fs.String("kind", "law", "what to fit and print on stdout: law (the paper's law refitted, with hardware terms), paper (the paper's specification exactly: ln C, ln M, measured η, strategy, cluster-robust SEs by group), roofline, or both (law and roofline)")
	out := fs.String("o", "", "also write the calibration files into this directory (law and roofline both, or the paper calibration with -kind paper; with law or roofline on the Zeus trace, also the power-limit response fitted on its power-capped runs, into power/ under it)")
	name := fs.String("name", "", "calibration name prefix (default: derived from the data file)")
	cc := fs.String("codecarbon", "", "read -data as a CodeCarbon emissions.csv whose runs this JSON file describes: {\"request\": {...}} (one estimate request for every row) or {\"projects\": {\"NAME\": {...}}} (a request per project_name); each row's gpu_model and gpu_count must agree with its request")
	scope := fs.String("scope", model.CodeCarbonGPU, "with -codecarbon: the energy read, gpu (gpu_energy, the GPUs alone, what the calibrations describe) or total (energy_consumed: GPUs, CPU and RAM)")
	convert := fs.Bool("convert", false, "with -codecarbon: print the log's rows in the measurement schema on stdout and fit nothing (to merge several logs into one measurement CSV)")
	table := fs.Bool("table", true, "add the table stage to the roofline calibration: tensor-precision constants and the communication model fitted on content/validation/runs.csv")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var raw []byte
	var err error
	if *data == "-" {
		raw, err = model.ReadAtMost(stdin, fit.MaxCSVBytes)
	} else {
		raw, err = os.ReadFile(*data)
	}
	if err != nil {
		return fmt.Errorf("reading data: %w (set -data or DATA_DIR)", err)
	}
	if *cc != "" {
		if raw, err = codeCarbonCSV(raw, *cc, *scope, filepath.Base(*data)); err != nil {
			return err
		}
		if *convert {
			_, err := stdout.Write(raw)
			return err
		}
	} else if flagSet(fs, "scope") || *convert {
		return fmt.Errorf("-scope and -convert need -codecarbon (they read a CodeCarbon log)")
	}
	var kinds []string
	switch *kind {
	case fit.KindPaper:
		kinds = []string{fit.KindPaper}
	case fit.KindLaw, fit.KindRoofline, "both":
		// -o writes the project's pair (make fit), whatever is printed.
		if *kind != fit.KindLaw || *out != "" {
			kinds = append(kinds, fit.KindRoofline)
		}
		if *kind != fit.KindRoofline || *out != "" {
			kinds = append(kinds, fit.KindLaw)
		}
	default:
		return fmt.Errorf("-kind %q: want law, paper, roofline or both", *kind)
	}
	var runs []byte
	if *table {
		runs = content.ValidationRuns
	}
	res, err := fit.Calibrate(fit.Job{CSV: raw, FileName: filepath.Base(*data), Prefix: *name, Kinds: kinds, Power: *out != "" && *kind != fit.KindPaper && fit.IsZeusCSV(raw),
		Scaling: content.PublishedScaling, Runs: runs, Hardware: model.NewHardware(model.DefaultGPUs()), Presets: model.DefaultPresets()})
	if err != nil {
		return err
	}
	cals := res.Calibrations
	for _, c := range cals {
		writeDiagnostics(stderr, c)
	}
	if *out != "" {
		for _, c := range cals {
			var b bytes.Buffer
			if err := writeJSON(&b, c); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(*out, c.Name+".json"), b.Bytes(), 0o644); err != nil {
				return err
			}
		}
		if pc := res.Power; pc != nil {
			b, err := pc.MarshalIndent()
			if err != nil {
				return err
			}
			dir := filepath.Join(*out, "power")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, pc.Name+".json"), b, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "\n%s (power limit): %d capped runs; wrote %s\n", pc.Name, pc.CV[0].N, filepath.Join(dir, pc.Name+".json"))
		}
	}
	var printed []model.Calibration
	for _, c := range cals {
		if *kind == "both" || *kind == fit.KindPaper || (*kind == fit.KindLaw && c.Kind == model.KindLogLinear) || (*kind == fit.KindRoofline && c.Kind == model.KindRoofline) {
			printed = append(printed, c)
		}
	}
	if len(printed) == 1 {
		return writeJSON(stdout, printed[0])
	}
	return writeJSON(stdout, printed)
}

// writeDiagnostics prints a calibration's coefficient table and fit statistics.
func writeDiagnostics(w io.Writer, c model.Calibration) {
	fmt.Fprintf(w, "\n%s (%s, %s)\n", c.Name, c.Kind, c.Version)
	f := c.Fit
	if f == nil {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "term\testimate\tSE\t95% low\t95% high\t")
	for _, k := range f.Coefficients {
		fmt.Fprintf(tw, "%s\t%.4f\t%.4f\t%.4f\t%.4f\t\n", k.Name, k.Value, k.SE, k.CILow, k.CIHigh)
	}
	tw.Flush()
	fmt.Fprintf(w, "n %d, groups %d, R² %.4f, adj R² %.4f, RMSE %.4f ln", f.N, f.Groups, f.R2, f.AdjR2, f.RMSELn)
	if f.ResidualSDLn > 0 {
		fmt.Fprintf(w, ", residual SD %.4f ln", f.ResidualSDLn)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "held out (%s): R² %.4f, RMSE %.4f ln, median fold error %.3f, %.0f%% interval coverage %.3f\n",
		f.CVMethod, f.CVR2, f.CVRMSELn, f.CVMedianFold, c.Interval.Level*100, f.CVCoverage)
	if g := f.WithoutEta; g != nil {
		fmt.Fprintf(w, "without η: adj R² %.4f (Δ %+.4f), RMSE %.4f ln (with η %+.1f%%)\n", g.AdjR2, f.AdjR2-g.AdjR2, g.RMSELn, 100*(f.RMSELn-g.RMSELn)/g.RMSELn)
	}
	for _, n := range f.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, m := range model.FitChecks(c) {
		fmt.Fprintf(w, "failed check: %s\n", m)
	}
}

// codeCarbonCSV turns a CodeCarbon log into the measurement CSV the fit
// reads, its rows described by the requests in the JSON file reqFile.
func codeCarbonCSV(log []byte, reqFile, scope, name string) ([]byte, error) {
	b, err := os.ReadFile(reqFile)
	if err != nil {
		return nil, fmt.Errorf("-codecarbon: %w", err)
	}
	runs, err := model.ParseCodeCarbonRuns(b)
	if err != nil {
		return nil, fmt.Errorf("-codecarbon %s: %w", reqFile, err)
	}
	cat, err := content.Catalog()
	if err != nil {
		return nil, err
	}
	ms, err := cat.CodeCarbonMeasurements(bytes.NewReader(log), runs, scope, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var out bytes.Buffer
	if err := model.WriteMeasurements(&out, ms); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// flagSet reports whether the flag name was given.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
