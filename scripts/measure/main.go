// Command measure runs a command, records the energy of the GPUs it runs on
// (and of the CPU packages) per stage, and writes it in wattscale's
// measurement schema, ready for `go run ./site fit`.
//
//	go run ./scripts/measure [flags] -- COMMAND ARGS...
//	go run ./scripts/measure -model bert-base -gpu a100-sxm4-80gb -seq-len 128 -batch 32 \
//	    -precision fp16 -tokens 2e7 -idle 10s -o out -- python train.py
//	go run ./scripts/measure -dry-run -- python train.py     # what it would run and read
//
// The command marks stages by printing "wattscale:stage NAME [tokens=N]"
// (see package meter for the protocol). Outputs in -o: power.csv (raw
// samples), stages.csv, summary.json and measurements.csv (the whole run and
// each stage with tokens). Run "go run ./scripts/measure -h" for the flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/scripts/measure/meter"
)

func main() {
	// Ctrl-C reaches the measured command through the terminal; the
	// recorder then waits for it to exit (SIGTERM after a grace period) and
	// writes what it recorded. During the idle baseline it skips the command.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// flags holds the command line.
type flags struct {
	out, appendTo, appendStage string
	interval, idle             time.Duration
	gpus, field, rapl          string
	stageFile, firstStage      string
	stageTokens                string
	config                     string
	source, group              string
	dryRun                     bool
	// run configuration, overriding -config
	model, gpu, strategy, precision string
	count, seqLen, batch, tokens    float64
	set                             map[string]bool
}

func parseFlags(args []string, stderr io.Writer) (*flags, []string, error) {
	f := &flags{}
	fs := flag.NewFlagSet("measure", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: go run ./scripts/measure [flags] -- COMMAND ARGS...")
		fmt.Fprintln(stderr, "\nRuns COMMAND, samples GPU board power (nvidia-smi) and CPU package energy (RAPL),")
		fmt.Fprintln(stderr, "splits them by the stage markers it prints (\"wattscale:stage NAME [tokens=N]\"),")
		fmt.Fprintln(stderr, "and writes power.csv, stages.csv, summary.json and measurements.csv.")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	fs.StringVar(&f.out, "o", "out", "output directory")
	fs.StringVar(&f.appendTo, "append", "", "also append the run's row to this measurement CSV (created with the header when missing): the file to fit")
	fs.StringVar(&f.appendStage, "append-stage", "", "append this stage's row instead of the whole run's")
	fs.DurationVar(&f.interval, "interval", 500*time.Millisecond, "sampling interval (10ms to 60s)")
	fs.DurationVar(&f.idle, "idle", 0, "record an idle baseline this long before the command (reported, not subtracted)")
	fs.StringVar(&f.gpus, "gpus", "", "GPU indices to sample, e.g. 0,1 (default all that nvidia-smi lists)")
	fs.StringVar(&f.field, "power-field", "power.draw", "nvidia-smi power field: power.draw, power.draw.instant or power.draw.average")
	fs.StringVar(&f.rapl, "rapl", meter.DefaultRAPLRoot, "powercap directory with the RAPL counters; none = no CPU energy")
	fs.StringVar(&f.stageFile, "stage-file", "", "also read stage markers from this file or named pipe (its path is given to the command as $"+meter.StageFileEnv+")")
	fs.StringVar(&f.firstStage, "first-stage", "prerun", "name of the time before the first stage marker")
	fs.StringVar(&f.stageTokens, "stage-tokens", "", "tokens per stage, e.g. teacher=1e6,student=2e7 (replaces the markers' counts)")
	fs.StringVar(&f.config, "config", "", "run configuration: a JSON estimate request (model, training, hardware, strategy)")
	fs.StringVar(&f.source, "source", "", "source column of the rows (default: \"wattscale measure\" and the start time)")
	fs.StringVar(&f.group, "group", "", "group column of the rows (workload label for grouped cross-validation)")
	fs.BoolVar(&f.dryRun, "dry-run", false, "say what would be run, read and written, and exit")
	fs.StringVar(&f.model, "model", "", "model preset (e.g. bert-base, llama-2-7b)")
	fs.StringVar(&f.gpu, "gpu", "", "accelerator id (default: from nvidia-smi's GPU name)")
	fs.Float64Var(&f.count, "count", 0, "GPUs the run uses (default: the GPUs sampled)")
	fs.StringVar(&f.strategy, "strategy", "", "single, ddp, fsdp, tp, or a hybrid object {\"tensor\":2,\"data\":4,\"data_mode\":\"fsdp\"} (default single on one GPU)")
	fs.Float64Var(&f.seqLen, "seq-len", 0, "tokens per sequence")
	fs.Float64Var(&f.batch, "batch", 0, "sequences per GPU per step")
	fs.Float64Var(&f.tokens, "tokens", 0, "tokens processed by the whole run (default: the sum of the stage markers' tokens)")
	fs.StringVar(&f.precision, "precision", "", "fp32, tf32, fp16, bf16 or fp8")
	if err := fs.Parse(args); err != nil {
		return nil, nil, err
	}
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	return f, fs.Args(), nil
}

var errUsage = errors.New("usage")

// run is the command; it returns the exit status: the measured command's
// status when it failed, 1 for a recorder error, 2 for a usage error.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f, cmdArgs, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	status, err := measure(ctx, f, cmdArgs, stdin, stdout, stderr)
	if err != nil {
		if err == errUsage {
			return 2
		}
		fmt.Fprintln(stderr, err)
		return 1
	}
	return status
}

func measure(ctx context.Context, f *flags, cmdArgs []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if len(cmdArgs) == 0 {
		fmt.Fprintln(stderr, "measure: no command given; usage: go run ./scripts/measure [flags] -- COMMAND ARGS...")
		return 0, errUsage
	}
	if f.interval < 10*time.Millisecond || f.interval > time.Minute {
		return 0, fmt.Errorf("measure: -interval %v: want 10ms to 60s", f.interval)
	}
	if f.interval%time.Millisecond != 0 {
		return 0, fmt.Errorf("measure: -interval %v: want whole milliseconds", f.interval)
	}
	if f.idle < 0 {
		return 0, fmt.Errorf("measure: -idle %v: want 0 or more", f.idle)
	}
	gpus, err := parseGPUs(f.gpus)
	if err != nil {
		return 0, err
	}
	stageTokens, err := parseStageTokens(f.stageTokens)
	if err != nil {
		return 0, err
	}
	switch f.field {
	case "power.draw", "power.draw.instant", "power.draw.average":
	default:
		return 0, fmt.Errorf("measure: -power-field %q: want power.draw, power.draw.instant or power.draw.average", f.field)
	}
	req, given, err := request(f)
	if err != nil {
		return 0, err
	}
	cat, err := content.Catalog()
	if err != nil {
		return 0, err
	}
	smi := meter.SMI{GPUs: gpus, IntervalMS: int(f.interval / time.Millisecond), Field: f.field}
	var rapl fs.FS
	if f.rapl != "none" && f.rapl != "" {
		rapl = os.DirFS(f.rapl)
	}
	if f.dryRun {
		return 0, dryRun(stdout, f, cmdArgs, smi, rapl, req, given, cat)
	}

	// Fail before the run, not after it: the GPUs and the configuration.
	listed, err := smi.List(ctx)
	if err != nil {
		return 0, err
	}
	var tpl model.Measurement
	if given {
		fillDefaults(&req, f, listed)
		if tpl, err = meter.Template(req, cat); err != nil {
			return 0, configError(err)
		}
		if tpl.Count != len(listed) {
			fmt.Fprintf(stderr, "measure: warning: the configuration says %d GPUs but %d are sampled\n", tpl.Count, len(listed))
		}
	} else {
		fmt.Fprintln(stderr, "measure: no run configuration (-config or -model, -gpu, ...): power and stages are recorded, measurements.csv is not written")
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return 0, fmt.Errorf("measure: -o: %w", err)
	}
	rec, err := meter.Record(ctx, meter.Options{Command: cmdArgs, SMI: smi, RAPL: rapl, RAPLDir: f.rapl, Idle: f.idle, StageFile: f.stageFile,
		FirstStage: f.firstStage, Stdin: stdin, Stdout: stdout, Stderr: stderr})
	if err != nil {
		return 0, err
	}
	sum := meter.Summarize(rec, stageTokens)
	if given {
		sum.Config = &req
	}
	written := []string{}
	write := func(name string, fn func(io.Writer) error) error {
		p := filepath.Join(f.out, name)
		fh, err := os.Create(p)
		if err != nil {
			return fmt.Errorf("measure: %w", err)
		}
		if err := fn(fh); err != nil {
			fh.Close()
			return fmt.Errorf("measure: writing %s: %w", p, err)
		}
		written = append(written, p)
		return fh.Close()
	}
	var rowsErr error
	if given {
		source := f.source
		if source == "" {
			source = "wattscale measure " + sum.Start
		}
		var rows []model.Measurement
		rows, rowsErr = meter.Rows(tpl, sum, source, f.group, cat.Presets)
		if rowsErr == nil {
			if err := write("measurements.csv", func(w io.Writer) error { return model.WriteMeasurements(w, rows) }); err != nil {
				return 0, err
			}
			if f.appendTo != "" {
				pick, err := pickRow(rows, f.appendStage)
				if err != nil {
					rowsErr = err
				} else if err := meter.AppendRows(f.appendTo, []model.Measurement{pick}); err != nil {
					rowsErr = err
				} else {
					written = append(written, f.appendTo+" (appended)")
				}
			}
		}
	}
	for _, w := range []struct {
		name string
		fn   func(io.Writer) error
	}{
		{"power.csv", func(w io.Writer) error { return meter.WritePower(w, rec) }},
		{"stages.csv", func(w io.Writer) error { return meter.WriteStages(w, sum) }},
		{"summary.json", func(w io.Writer) error { return meter.WriteJSON(w, sum) }},
	} {
		if err := write(w.name, w.fn); err != nil {
			return 0, err
		}
	}
	report(stderr, sum, written)
	if rowsErr != nil {
		return 0, rowsErr
	}
	if rec.ExitCode != 0 {
		if rec.ExitCode < 0 {
			return 1, nil
		}
		return rec.ExitCode, nil
	}
	return 0, nil
}

func pickRow(rows []model.Measurement, stage string) (model.Measurement, error) {
	var have []string
	for _, r := range rows {
		if r.Stage == stage {
			return r, nil
		}
		have = append(have, strconv.Quote(r.Stage))
	}
	return model.Measurement{}, fmt.Errorf("measure: -append-stage %q: no row for that stage (rows: %s; a stage needs tokens to have a row)", stage, strings.Join(have, ", "))
}

func parseGPUs(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []int
	for _, p := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("measure: -gpus %q: %q is not a GPU index", s, p)
		}
		out = append(out, n)
	}
	return out, nil
}

func parseStageTokens(s string) (map[string]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	out := map[string]float64{}
	for _, p := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		x, err := strconv.ParseFloat(v, 64)
		if !ok || k == "" || err != nil || math.IsNaN(x) || x < 0 || x > 1e16 {
			return nil, fmt.Errorf("measure: -stage-tokens %q: %q is not NAME=TOKENS", s, p)
		}
		out[k] = x
	}
	return out, nil
}

// request reads -config and lays the configuration flags over it. given
// says whether any configuration was given at all.
func request(f *flags) (model.Request, bool, error) {
	var req model.Request
	given := false
	if f.config != "" {
		fh, err := os.Open(f.config)
		if err != nil {
			return req, false, fmt.Errorf("measure: -config: %w", err)
		}
		defer fh.Close()
		if req, err = model.ParseRequest(fh); err != nil {
			return req, false, fmt.Errorf("measure: -config %s: %w", f.config, err)
		}
		given = true
	}
	for _, n := range []string{"model", "gpu", "count", "strategy", "seq-len", "batch", "tokens", "precision"} {
		given = given || f.set[n]
	}
	if f.set["model"] {
		req.Model = model.ModelSpec{Preset: f.model, Head: req.Model.Head}
	}
	if f.set["gpu"] {
		req.Hardware.GPU = f.gpu
	}
	if f.set["count"] {
		req.Hardware.Count = f.count
	}
	if f.set["strategy"] {
		var s model.Strategy
		v := strings.TrimSpace(f.strategy)
		if !strings.HasPrefix(v, "{") {
			v = strconv.Quote(v)
		}
		if err := s.UnmarshalJSON([]byte(v)); err != nil {
			return req, false, fmt.Errorf("measure: -strategy: %w", err)
		}
		req.Strategy = s
	}
	if f.set["seq-len"] {
		req.Training.SeqLen = f.seqLen
	}
	if f.set["batch"] {
		req.Training.BatchPerGPU = f.batch
	}
	if f.set["tokens"] {
		req.Training.Tokens, req.Training.DatasetTokens, req.Training.Epochs = f.tokens, 0, 0
	}
	if f.set["precision"] {
		req.Training.Precision = model.Precision(strings.ToLower(f.precision))
	}
	return req, given, nil
}

// fillDefaults sets what the GPUs sampled tell: their count, their model,
// and single-GPU strategy on one GPU.
func fillDefaults(req *model.Request, f *flags, listed []meter.GPUInfo) {
	if req.Hardware.Count == 0 {
		req.Hardware.Count = float64(len(listed))
		if len(listed) == 0 {
			req.Hardware.Count = 1
		}
	}
	if req.Hardware.GPU == "" && len(listed) > 0 {
		req.Hardware.GPU = listed[0].Name
	}
	if req.Strategy.Name == "" && req.Hardware.Count == 1 {
		req.Strategy.Name = model.Single
	}
}

// flagOf maps a request field to the flag that sets it.
var flagOf = map[string]string{"model": "-model", "model.preset": "-model", "hardware.gpu": "-gpu", "hardware.count": "-count",
	"strategy": "-strategy", "training.seq_len": "-seq-len", "training.batch_per_gpu": "-batch", "training.tokens": "-tokens",
	"training.precision": "-precision"}

func configError(err error) error {
	if fe := model.AsFieldError(err); fe != nil {
		if fl, ok := flagOf[fe.Field]; ok || strings.HasPrefix(fe.Field, "strategy.") {
			if !ok {
				fl = "-strategy"
			}
			return fmt.Errorf("measure: run configuration: %v (flag %s or -config)", err, fl)
		}
	}
	return fmt.Errorf("measure: run configuration: %w", err)
}

// dryRun says what a run would start, read and write, starting nothing.
func dryRun(w io.Writer, f *flags, cmdArgs []string, smi meter.SMI, rapl fs.FS, req model.Request, given bool, cat *model.Catalog) error {
	fmt.Fprintln(w, "measure: dry run: nothing is started")
	if bin, err := smi.Bin(); err != nil {
		fmt.Fprintf(w, "GPU power:  nvidia-smi not found on PATH: a run would stop with an error\n")
	} else {
		fmt.Fprintf(w, "GPU power:  %s\n", bin)
	}
	fmt.Fprintf(w, "  list:     nvidia-smi %s\n", strings.Join(smi.ListArgs(), " "))
	fmt.Fprintf(w, "  sample:   nvidia-smi %s\n", strings.Join(smi.LoopArgs(), " "))
	if rapl == nil {
		fmt.Fprintln(w, "CPU energy: off (-rapl none)")
	} else {
		ds, notes := meter.FindDomains(rapl, f.rapl)
		fmt.Fprintf(w, "CPU energy: RAPL under %s\n", f.rapl)
		for _, d := range ds {
			fmt.Fprintf(w, "  read:     %s (%s), wraps at %.0f µJ\n", filepath.Join(f.rapl, d.Dir, "energy_uj"), d.Name, d.MaxRangeUJ)
		}
		for _, n := range notes {
			fmt.Fprintf(w, "  note:     %s\n", n)
		}
	}
	if f.idle > 0 {
		fmt.Fprintf(w, "Idle:       %v before the command (reported, not subtracted)\n", f.idle)
	}
	stages := "lines \"" + meter.StageMarker + " NAME [tokens=N] [t=UNIX_SECONDS]\" on the command's stdout and stderr"
	if f.stageFile != "" {
		stages += " and in " + f.stageFile
	}
	fmt.Fprintf(w, "Stages:     %s; before the first: %q\n", stages, f.firstStage)
	fmt.Fprintf(w, "Command:    %s\n", strings.Join(cmdArgs, " "))
	if _, err := exec.LookPath(cmdArgs[0]); err != nil {
		fmt.Fprintf(w, "  note:     %v\n", err)
	}
	if given {
		fillDefaults(&req, f, make([]meter.GPUInfo, max(1, len(smi.GPUs))))
		gpu := req.Hardware.GPU
		if gpu == "" {
			// Checked with a stand-in; a run takes the name nvidia-smi gives.
			gpu, req.Hardware.GPU = "the GPU nvidia-smi names", "a100-sxm4-80gb"
		}
		if tpl, err := meter.Template(req, cat); err != nil {
			fmt.Fprintf(w, "Run:        %v\n", configError(err))
		} else {
			tok := "from the stage markers"
			if tpl.Tokens > 0 {
				tok = strconv.FormatFloat(tpl.Tokens, 'g', -1, 64)
			}
			if gpu == req.Hardware.GPU {
				gpu = tpl.GPU
			}
			fmt.Fprintf(w, "Run:        model %s, %d × %s, %s, seq_len %d, batch %d, %s, tokens %s\n",
				nameOf(tpl), tpl.Count, gpu, tpl.Strategy, tpl.SeqLen, tpl.BatchPerGPU, tpl.Precision, tok)
		}
	} else {
		fmt.Fprintln(w, "Run:        no configuration: measurements.csv would not be written")
	}
	outs := []string{"power.csv", "stages.csv", "summary.json"}
	if given {
		outs = append(outs, "measurements.csv")
	}
	for i := range outs {
		outs[i] = filepath.Join(f.out, outs[i])
	}
	if f.appendTo != "" {
		outs = append(outs, f.appendTo+" (appended)")
	}
	fmt.Fprintf(w, "Writes:     %s\n", strings.Join(outs, ", "))
	return nil
}

func nameOf(m model.Measurement) string {
	if m.Model != "" {
		return m.Model
	}
	a := m.Arch
	return fmt.Sprintf("L%d d%d", a.Layers, a.Hidden)
}

// report prints the stage table and the warnings.
func report(w io.Writer, s *meter.Summary, written []string) {
	fmt.Fprintf(w, "\nmeasure: %d GPU(s), %d CPU package(s), %.2f s, exit status %d\n", len(s.GPUs), len(s.CPUs), s.DurationS, s.ExitCode)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "stage\ttime s\ttokens\tGPU J\tCPU J\tGPU J/token\tmean GPU W\t")
	for _, st := range s.Stages {
		fmt.Fprintf(tw, "%s\t%.2f\t%.4g\t%.1f\t%.1f\t%.4g\t%.1f\t\n", st.Name, st.DurationS, st.Tokens, st.GPUEnergyJ, st.CPUEnergyJ, st.GPUJPerToken, st.MeanGPUPowerW)
	}
	jpt, mean := 0.0, 0.0
	if s.Tokens > 0 {
		jpt = s.GPUEnergyJ / s.Tokens
	}
	if s.DurationS > 0 {
		mean = s.GPUEnergyJ / s.DurationS
	}
	fmt.Fprintf(tw, "total\t%.2f\t%.4g\t%.1f\t%.1f\t%.4g\t%.1f\t\n", s.DurationS, s.Tokens, s.GPUEnergyJ, s.CPUEnergyJ, jpt, mean)
	tw.Flush()
	if s.Idle != nil {
		fmt.Fprintf(w, "idle baseline: %.2f s, GPUs %.1f W, CPU %.1f W (reported, not subtracted)\n", s.Idle.DurationS, s.Idle.GPUPowerW, s.Idle.CPUPowerW)
	}
	for _, x := range s.Warnings {
		fmt.Fprintf(w, "warning: %s\n", x)
	}
	fmt.Fprintf(w, "wrote %s\n", strings.Join(written, ", "))
}
