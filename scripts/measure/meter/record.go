package meter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Options say what to record.
type Options struct {
	Command []string // the measured command and its arguments
	SMI     SMI      // how GPU power is read
	// RAPL is the powercap directory to read CPU package energy from; nil =
	// no CPU energy. RAPLDir names it in messages.
	RAPL    fs.FS
	RAPLDir string
	// Idle is how long to record before starting the command, to report
	// the idle power (never subtracted); 0 = no idle baseline.
	Idle time.Duration
	// StageFile is a file or named pipe the command may write protocol
	// lines to, besides its stdout and stderr; "" = none. It is created
	// (empty) when missing and its path is passed to the command as
	// $WATTSCALE_STAGE_FILE.
	StageFile string
	// FirstStage names the time before the first stage line ("" = "prerun").
	FirstStage string
	// FirstReading bounds the wait for nvidia-smi's first reading of every
	// GPU (0 = 15 s).
	FirstReading time.Duration
	// Grace is how long a cancelled recording lets the command exit by
	// itself (a terminal's Ctrl-C reaches it directly) before sending it
	// SIGTERM (0 = 10 s).
	Grace  time.Duration
	Stdin  io.Reader
	Stdout io.Writer // the command's stdout is passed through here (nil = discard)
	Stderr io.Writer // and its stderr here
}

// Recording is what a run left: the samples and markers on one clock, in
// seconds since Base. The idle baseline is [IdleS, StartS] (empty when
// IdleS == StartS); the command ran over [StartS, EndS].
type Recording struct {
	Base                time.Time
	IntervalS           float64
	IdleS, StartS, EndS float64
	Command             []string
	ExitCode            int // the command's exit status; -1 when a signal ended it
	GPUs                []GPUTrace
	CPUs                []CPUTrace
	Events              []Event
	FirstStage          string
	Notes               []string
}

// GPUTrace is one GPU's power samples.
type GPUTrace struct {
	Index   int
	Name    string
	Samples []PowerSample
}

// PowerSample is one power reading; OK false for a reading without a number
// (Raw keeps what nvidia-smi printed).
type PowerSample struct {
	T   float64
	W   float64
	OK  bool
	Raw string
}

// CPUTrace is one RAPL domain's raw counter readings.
type CPUTrace struct {
	Domain  Domain
	Samples []CounterSample
}

// StageFileEnv is the environment variable that tells the measured command
// where the stage file is.
const StageFileEnv = "WATTSCALE_STAGE_FILE"

// Record lists the GPUs, starts sampling their power (and the CPU package
// energy), waits for a first reading of every GPU, records the idle
// baseline, runs the command while collecting stage markers, samples until
// every GPU has a reading after the command ended, and stops. Cancelling
// ctx ends the idle baseline without running the command, or gives the
// running command Options.Grace to exit before sending it SIGTERM; the
// recording then ends when it exits. A failing command is not an error: its
// status is in ExitCode.
func Record(ctx context.Context, o Options) (*Recording, error) {
	if len(o.Command) == 0 {
		return nil, errors.New("measure: no command to run (put it after --)")
	}
	cmd := exec.Command(o.Command[0], o.Command[1:]...)
	if cmd.Err != nil {
		return nil, fmt.Errorf("measure: the command: %w", cmd.Err)
	}
	gpus, err := o.SMI.List(ctx)
	if err != nil {
		return nil, err
	}
	now := func() time.Time { return time.Now().Round(0) }
	rec := &Recording{Base: now(), IntervalS: float64(o.SMI.interval()) / 1000, Command: o.Command, FirstStage: o.FirstStage}
	if rec.FirstStage == "" {
		rec.FirstStage = "prerun"
	}
	since := func(t time.Time) float64 { return t.Sub(rec.Base).Seconds() }
	ev := &events{base: rec.Base}

	var tail *tailer
	if o.StageFile != "" {
		if tail, err = startTail(o.StageFile, ev, now); err != nil {
			return nil, err
		}
	}
	var domains []Domain
	if o.RAPL != nil {
		var notes []string
		domains, notes = FindDomains(o.RAPL, o.RAPLDir)
		rec.Notes = append(rec.Notes, notes...)
	}
	stream, err := o.SMI.Start(now)
	if err != nil {
		tail.stop()
		return nil, err
	}
	cpu := startCPU(o.RAPL, domains, time.Duration(o.SMI.interval())*time.Millisecond, now, since)
	idx := make([]int, len(gpus))
	for i, g := range gpus {
		idx[i] = g.Index
	}
	wait := o.FirstReading
	if wait <= 0 {
		wait = 15 * time.Second
	}
	if !stream.WaitCovered(idx, time.Time{}, wait) {
		readings, notes := stream.Stop()
		cpu.stop()
		tail.stop()
		return nil, fmt.Errorf("measure: nvidia-smi gave no reading of every GPU within %v (%d readings) %s", wait, len(readings), strings.Join(notes, "; "))
	}
	idleStart := since(now())
	if o.Idle > 0 {
		select {
		case <-time.After(o.Idle):
		case <-ctx.Done():
		}
	}

	rec.StartS = since(now())
	rec.IdleS = rec.StartS
	if o.Idle > 0 {
		rec.IdleS = idleStart
	}
	if ctx.Err() != nil {
		rec.Notes = append(rec.Notes, "measure: interrupted during the idle baseline: the command was not run")
		rec.ExitCode, rec.EndS = -1, rec.StartS
	} else {
		code, notes, err := runCommand(ctx, cmd, o, ev, now)
		if err != nil {
			stream.Stop()
			cpu.stop()
			tail.stop()
			return nil, err
		}
		rec.EndS, rec.ExitCode = since(now()), code
		rec.Notes = append(rec.Notes, notes...)
	}

	end := rec.Base.Add(time.Duration(rec.EndS * float64(time.Second)))
	if !stream.WaitCovered(idx, end, 3*time.Duration(o.SMI.interval())*time.Millisecond+2*time.Second) {
		rec.Notes = append(rec.Notes, "gpu: no reading of every GPU after the command ended: the last readings are held to the end")
	}
	readings, notes := stream.Stop()
	rec.Notes = append(rec.Notes, notes...)
	rec.CPUs = cpu.stop()
	tail.stop()

	rec.GPUs = gpuTraces(gpus, readings, since)
	ev.mu.Lock()
	rec.Events = append(rec.Events, ev.list...)
	rec.Notes = append(rec.Notes, ev.notes...)
	ev.mu.Unlock()
	return rec, nil
}

// runCommand starts cmd with the options' streams and environment, feeds
// its output lines to the marker collector, and waits for it. Cancelling
// ctx gives it o.Grace, then SIGTERM. It returns the exit status (-1 for a
// signal) and notes; the error is for a command that could not start.
func runCommand(ctx context.Context, cmd *exec.Cmd, o Options, ev *events, now func() time.Time) (int, []string, error) {
	stdout, stderr := o.Stdout, o.Stderr
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	outW := &lineWriter{ev: ev, now: now, source: "stdout"}
	errW := &lineWriter{ev: ev, now: now, source: "stderr"}
	cmd.Stdin = o.Stdin
	cmd.Stdout = io.MultiWriter(stdout, outW)
	cmd.Stderr = io.MultiWriter(stderr, errW)
	cmd.Env = append(os.Environ(), "PYTHONUNBUFFERED=1", "WATTSCALE_MEASURE=1")
	if o.StageFile != "" {
		cmd.Env = append(cmd.Env, StageFileEnv+"="+o.StageFile)
	}
	// Children left running with the output open (a stray daemon) do not
	// hold the recording past the command's exit for longer than this.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return 0, nil, fmt.Errorf("measure: starting the command: %w", err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			grace := o.Grace
			if grace <= 0 {
				grace = 10 * time.Second
			}
			select {
			case <-done:
			case <-time.After(grace):
				_ = cmd.Process.Signal(sigterm)
			}
		case <-done:
		}
	}()
	err := cmd.Wait()
	outW.flush()
	errW.flush()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, nil, nil
	case errors.As(err, &ee):
		return ee.ExitCode(), nil, nil
	case errors.Is(err, exec.ErrWaitDelay):
		return cmd.ProcessState.ExitCode(), []string{"measure: the command's output stayed open after it exited (a child still running?): stopped reading it 5 s later, so the run's end is counted up to 5 s late"}, nil
	}
	return -1, []string{fmt.Sprintf("measure: waiting for the command: %v", err)}, nil
}

// gpuTraces sorts the readings into one trace per listed GPU, on the
// recording's clock; readings of other GPUs are dropped.
func gpuTraces(gpus []GPUInfo, readings []Reading, since func(time.Time) float64) []GPUTrace {
	byGPU := map[int]int{}
	out := make([]GPUTrace, len(gpus))
	for i, g := range gpus {
		byGPU[g.Index] = i
		out[i] = GPUTrace{Index: g.Index, Name: g.Name}
	}
	for _, r := range readings {
		if i, ok := byGPU[r.GPU]; ok {
			out[i].Samples = append(out[i].Samples, PowerSample{T: since(r.Time), W: r.PowerW, OK: r.OK, Raw: r.Raw})
		}
	}
	return out
}

// cpuSampler reads the RAPL counters on a ticker.
type cpuSampler struct {
	root    fs.FS
	domains []Domain
	traces  []CPUTrace
	since   func(time.Time) float64
	now     func() time.Time
	quit    chan struct{}
	wg      sync.WaitGroup
}

func startCPU(root fs.FS, domains []Domain, every time.Duration, now func() time.Time, since func(time.Time) float64) *cpuSampler {
	c := &cpuSampler{root: root, domains: domains, since: since, now: now, quit: make(chan struct{})}
	for _, d := range domains {
		c.traces = append(c.traces, CPUTrace{Domain: d})
	}
	if len(domains) == 0 {
		return c
	}
	c.read()
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		tk := time.NewTicker(every)
		defer tk.Stop()
		for {
			select {
			case <-tk.C:
				c.read()
			case <-c.quit:
				return
			}
		}
	}()
	return c
}

func (c *cpuSampler) read() {
	for i, d := range c.domains {
		uj, err := d.ReadUJ(c.root)
		c.traces[i].Samples = append(c.traces[i].Samples, CounterSample{T: c.since(c.now()), UJ: uj, OK: err == nil})
	}
}

func (c *cpuSampler) stop() []CPUTrace {
	if len(c.domains) == 0 {
		return nil
	}
	close(c.quit)
	c.wg.Wait()
	c.read()
	return c.traces
}
