package meter

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrNoSMI is returned when nvidia-smi is not on PATH.
var ErrNoSMI = errors.New("measure: nvidia-smi not found on PATH: no NVIDIA GPU or driver (use -dry-run to see what would be read)")

// SMI describes how the board power of NVIDIA GPUs is read: nvidia-smi's
// --query-gpu loop, one CSV line per GPU every IntervalMS milliseconds, each
// with the GPU index, nvidia-smi's timestamp and the power field in W.
//
// nvidia-smi has no query field for NVML's total-energy counter (checked
// against its --help-query-gpu list), so the energy is the integral of the
// sampled power.
type SMI struct {
	Path       string         // executable; "" = nvidia-smi on PATH
	GPUs       []int          // indices to sample; nil = every GPU nvidia-smi lists
	IntervalMS int            // sampling interval; 0 = 500
	Field      string         // power field; "" = power.draw (power.draw.instant on Ampere and newer is unaveraged)
	Location   *time.Location // zone of nvidia-smi's timestamps; nil = time.Local
}

// GPUInfo is one GPU as nvidia-smi lists it.
type GPUInfo struct {
	Index int
	Name  string
}

func (s SMI) interval() int {
	if s.IntervalMS > 0 {
		return s.IntervalMS
	}
	return 500
}

func (s SMI) field() string {
	if s.Field != "" {
		return s.Field
	}
	return "power.draw"
}

func (s SMI) loc() *time.Location {
	if s.Location != nil {
		return s.Location
	}
	return time.Local
}

// Bin resolves the nvidia-smi executable, or returns ErrNoSMI.
func (s SMI) Bin() (string, error) {
	name := s.Path
	if name == "" {
		name = "nvidia-smi"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		if s.Path == "" {
			return "", ErrNoSMI
		}
		return "", fmt.Errorf("measure: nvidia-smi at %s: %w", s.Path, err)
	}
	return p, nil
}

// ListArgs are the arguments of the query that lists the GPUs.
func (s SMI) ListArgs() []string {
	return []string{"--query-gpu=index,name", "--format=csv,noheader"}
}

// LoopArgs are the arguments of the sampling loop.
func (s SMI) LoopArgs() []string {
	a := []string{"--query-gpu=index,timestamp," + s.field(), "--format=csv,noheader,nounits", "-lms", strconv.Itoa(s.interval())}
	if len(s.GPUs) > 0 {
		var ids []string
		for _, g := range s.GPUs {
			ids = append(ids, strconv.Itoa(g))
		}
		a = append(a, "-i", strings.Join(ids, ","))
	}
	return a
}

// List runs nvidia-smi once to list the GPUs and checks the selection
// against it. Its errors say what nvidia-smi said (no driver, no
// permission, no device).
func (s SMI) List(ctx context.Context) ([]GPUInfo, error) {
	bin, err := s.Bin()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, s.ListArgs()...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := firstLine(stderr.String())
		if msg == "" {
			msg = firstLine(stdout.String())
		}
		return nil, fmt.Errorf("measure: nvidia-smi cannot list the GPUs (%v): %s: no usable NVIDIA GPU, driver or permission", err, msg)
	}
	var all []GPUInfo
	for i, line := range strings.Split(stdout.String(), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		idx, name, ok := strings.Cut(line, ",")
		n, err := strconv.Atoi(strings.TrimSpace(idx))
		if !ok || err != nil {
			return nil, fmt.Errorf("measure: nvidia-smi list, line %d: %q is not \"index, name\"", i+1, line)
		}
		all = append(all, GPUInfo{Index: n, Name: strings.TrimSpace(name)})
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("measure: nvidia-smi lists no GPU: %s", firstLine(stdout.String()+stderr.String()))
	}
	return selectGPUs(all, s.GPUs)
}

func selectGPUs(all []GPUInfo, want []int) ([]GPUInfo, error) {
	if len(want) == 0 {
		return all, nil
	}
	by := map[int]GPUInfo{}
	var have []string
	for _, g := range all {
		by[g.Index] = g
		have = append(have, strconv.Itoa(g.Index))
	}
	var out []GPUInfo
	seen := map[int]bool{}
	for _, w := range want {
		g, ok := by[w]
		if !ok {
			return nil, fmt.Errorf("measure: -gpus: GPU %d not found (nvidia-smi lists %s)", w, strings.Join(have, ", "))
		}
		if seen[w] {
			return nil, fmt.Errorf("measure: -gpus: GPU %d given twice", w)
		}
		seen[w] = true
		out = append(out, g)
	}
	return out, nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// Reading is one parsed line of the sampling loop. OK is false when
// nvidia-smi printed no number ("[N/A]", "[Not Supported]", ...); Raw then
// keeps what it printed (it is empty for a number).
type Reading struct {
	GPU    int
	Time   time.Time
	PowerW float64
	OK     bool
	Raw    string
}

// TimestampLayout is the layout of nvidia-smi's timestamp field.
const TimestampLayout = "2006/01/02 15:04:05.000"

// ParseReading parses one line "index, YYYY/MM/DD HH:MM:SS.mmm, watts" of
// the sampling loop (csv, noheader, nounits). A non-numeric power field
// gives a reading with OK false; a line of another shape is an error.
func ParseReading(line string, loc *time.Location) (Reading, error) {
	f := strings.Split(strings.TrimSpace(line), ",")
	if len(f) != 3 {
		return Reading{}, fmt.Errorf("want 3 fields (index, timestamp, power), got %d", len(f))
	}
	for i := range f {
		f[i] = strings.TrimSpace(f[i])
	}
	n, err := strconv.Atoi(f[0])
	if err != nil || n < 0 {
		return Reading{}, fmt.Errorf("index %q is not a GPU index", f[0])
	}
	ts, err := time.ParseInLocation(TimestampLayout, f[1], loc)
	if err != nil {
		return Reading{}, fmt.Errorf("timestamp %q is not YYYY/MM/DD HH:MM:SS.mmm", f[1])
	}
	r := Reading{GPU: n, Time: ts}
	w, err := strconv.ParseFloat(strings.TrimSuffix(f[2], " W"), 64)
	if err == nil && !math.IsNaN(w) && !math.IsInf(w, 0) && w >= 0 && w < 1e5 {
		r.PowerW, r.OK = w, true
	} else {
		r.Raw = f[2]
	}
	return r, nil
}

// maxClockSkew is how far nvidia-smi's first timestamp may be from the time
// its line arrived before the recorder shifts all its timestamps (a time zone
// or clock mismatch would otherwise misplace every stage boundary).
const maxClockSkew = 2 * time.Second

// Stream is a running nvidia-smi sampling loop.
type Stream struct {
	cmd      *exec.Cmd
	loc      *time.Location
	now      func() time.Time
	stderr   limited
	mu       sync.Mutex
	readings []Reading
	latest   map[int]time.Time
	bad      int
	badLines []string
	offset   time.Duration
	skewNote string
	first    bool
	done     chan struct{}
	stopped  bool
	waitErr  error
}

// Start starts the sampling loop. now is the recorder's clock.
func (s SMI) Start(now func() time.Time) (*Stream, error) {
	bin, err := s.Bin()
	if err != nil {
		return nil, err
	}
	st := &Stream{loc: s.loc(), now: now, latest: map[int]time.Time{}, first: true, done: make(chan struct{})}
	st.cmd = exec.Command(bin, s.LoopArgs()...)
	st.stderr.n = 4096
	st.cmd.Stderr = &st.stderr
	ownGroup(st.cmd)
	out, err := st.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := st.cmd.Start(); err != nil {
		return nil, fmt.Errorf("measure: starting nvidia-smi: %w", err)
	}
	go func() {
		st.read(out)
		st.waitErr = st.cmd.Wait()
		close(st.done)
	}()
	return st, nil
}

// maxLine bounds a line of nvidia-smi's output (a reading is under 200
// bytes); a longer line is counted as unreadable and skipped, with the
// limit in the recording's notes, and the lines after it are read.
const maxLine = 64 << 10

// read adds each line of out until its end.
func (st *Stream) read(out io.Reader) {
	rd := bufio.NewReaderSize(out, maxLine)
	for {
		line, more, err := rd.ReadLine()
		if err != nil {
			return
		}
		if !more {
			st.add(string(line))
			continue
		}
		for more && err == nil {
			_, more, err = rd.ReadLine()
		}
		st.mu.Lock()
		st.bad++
		if len(st.badLines) < 3 {
			st.badLines = append(st.badLines, fmt.Sprintf("a line longer than %d bytes", maxLine))
		}
		st.mu.Unlock()
	}
}

func (st *Stream) add(line string) {
	recv := st.now()
	if strings.TrimSpace(line) == "" {
		return
	}
	r, err := ParseReading(line, st.loc)
	st.mu.Lock()
	defer st.mu.Unlock()
	if err != nil {
		st.bad++
		if len(st.badLines) < 3 {
			st.badLines = append(st.badLines, fmt.Sprintf("%q (%v)", line, err))
		}
		return
	}
	if st.first {
		st.first = false
		if d := recv.Sub(r.Time); d > maxClockSkew || d < -maxClockSkew {
			st.offset = d
			st.skewNote = fmt.Sprintf("gpu: nvidia-smi's timestamps are %.3f s off the recorder's clock (time zone or clock mismatch): they were shifted by that amount", d.Seconds())
		}
	}
	r.Time = r.Time.Add(st.offset)
	st.readings = append(st.readings, r)
	if r.Time.After(st.latest[r.GPU]) {
		st.latest[r.GPU] = r.Time
	}
}

// WaitCovered waits until every GPU in gpus has a reading at or after t
// (zero t: any reading), the loop has ended, or timeout passes. It reports
// whether all GPUs were covered.
func (st *Stream) WaitCovered(gpus []int, t time.Time, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		st.mu.Lock()
		ok := true
		for _, g := range gpus {
			l, seen := st.latest[g]
			if !seen || (!t.IsZero() && l.Before(t)) {
				ok = false
			}
		}
		st.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-st.done:
			return false
		default:
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Stop ends the loop and returns the readings in arrival order, with notes
// on malformed lines, clock shifts and an early exit of nvidia-smi.
func (st *Stream) Stop() ([]Reading, []string) {
	select {
	case <-st.done:
	default:
		st.mu.Lock()
		st.stopped = true
		st.mu.Unlock()
		signalGroup(st.cmd, false)
		select {
		case <-st.done:
		case <-time.After(3 * time.Second):
			signalGroup(st.cmd, true)
			<-st.done
		}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	var notes []string
	if st.skewNote != "" {
		notes = append(notes, st.skewNote)
	}
	if st.bad > 0 {
		notes = append(notes, fmt.Sprintf("gpu: %d nvidia-smi lines could not be read and were skipped, e.g. %s", st.bad, strings.Join(st.badLines, "; ")))
	}
	if !st.stopped {
		msg := firstLine(st.stderr.String())
		if msg == "" {
			msg = "no message"
		}
		notes = append(notes, fmt.Sprintf("gpu: nvidia-smi stopped before the recording ended (%v): %s; later power is held at its last reading", st.waitErr, msg))
	}
	out := append([]Reading(nil), st.readings...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out, notes
}

// limited is a writer keeping the first n bytes and counting the rest.
type limited struct {
	b       bytes.Buffer
	n       int
	dropped int
}

func (l *limited) Write(p []byte) (int, error) {
	room := max(l.n-l.b.Len(), 0)
	if len(p) < room {
		room = len(p)
	}
	l.b.Write(p[:room])
	l.dropped += len(p) - room
	return len(p), nil
}

// String is what was kept, and says how much was not.
func (l *limited) String() string {
	if l.dropped == 0 {
		return l.b.String()
	}
	return fmt.Sprintf("%s [%d more bytes not kept: the first %d are]", l.b.String(), l.dropped, l.n)
}
