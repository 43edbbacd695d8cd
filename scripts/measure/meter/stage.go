package meter

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The stage protocol. A line that contains
//
//	wattscale:stage NAME [tokens=N] [t=UNIX_SECONDS]
//
// on the measured command's stdout or stderr, or in the stage file, starts
// stage NAME and ends the stage before it; the recorder timestamps it when
// it reads it unless t= gives the time (Unix seconds, fractions allowed). A
// line with
//
//	wattscale:tokens N [t=UNIX_SECONDS]
//
// adds N tokens to the stage running at that time. tokens= on a stage line
// adds N tokens to that stage. A stage name may come back (train, eval,
// train, ...): its segments are added up. Time before the first stage line
// belongs to the first stage (Options.FirstStage, "prerun" by default).
// Anything before the marker on the line (a logging prefix) is ignored, and
// every line is passed through unchanged.
const (
	StageMarker  = "wattscale:stage"
	TokensMarker = "wattscale:tokens"
)

// Marker is a parsed protocol line.
type Marker struct {
	Stage  string  // stage started; "" for a tokens line
	Tokens float64 // tokens added (0 = none given)
	AtUnix float64 // time given with t=, Unix seconds; 0 = when read
}

var stageName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// reservedStages are names the reports use themselves.
var reservedStages = map[string]bool{"total": true, "idle": true}

// ParseMarker finds a protocol marker in line. ok is false when the line has
// none; err says what is wrong with a malformed one.
func ParseMarker(line string) (m Marker, ok bool, err error) {
	i := strings.Index(line, "wattscale:")
	if i < 0 {
		return m, false, nil
	}
	f := strings.Fields(line[i+len("wattscale:"):])
	if len(f) == 0 || (f[0] != "stage" && f[0] != "tokens") {
		return m, false, nil
	}
	kind := f[0]
	f = f[1:]
	if kind == "stage" {
		if len(f) == 0 || strings.Contains(f[0], "=") {
			return m, true, fmt.Errorf("%s needs a stage name", StageMarker)
		}
		if !stageName.MatchString(f[0]) {
			return m, true, fmt.Errorf("stage name %q: use letters, digits, '_', '.', '-' (at most 64)", f[0])
		}
		if reservedStages[strings.ToLower(f[0])] {
			return m, true, fmt.Errorf("stage name %q is reserved for the reports", f[0])
		}
		m.Stage = f[0]
		f = f[1:]
	} else {
		if len(f) == 0 || strings.Contains(f[0], "=") {
			return m, true, fmt.Errorf("%s needs a token count", TokensMarker)
		}
		f[0] = "tokens=" + f[0]
	}
	seen := map[string]bool{}
	for _, kv := range f {
		k, v, found := strings.Cut(kv, "=")
		if !found {
			return m, true, fmt.Errorf("unexpected %q (want key=value: tokens=N, t=UNIX_SECONDS)", kv)
		}
		if seen[k] {
			return m, true, fmt.Errorf("%s given twice", k)
		}
		seen[k] = true
		x, perr := strconv.ParseFloat(v, 64)
		switch k {
		case "tokens":
			if perr != nil || math.IsNaN(x) || x < 0 || x > 1e16 {
				return m, true, fmt.Errorf("tokens=%s: want a number in [0, 1e16]", v)
			}
			m.Tokens = x
		case "t":
			if perr != nil || math.IsNaN(x) || x <= 0 || x > 1e11 {
				return m, true, fmt.Errorf("t=%s: want Unix seconds", v)
			}
			m.AtUnix = x
		default:
			return m, true, fmt.Errorf("unknown key %q (known: tokens, t)", k)
		}
	}
	return m, true, nil
}

// Event is a marker with its time on the recording's clock and where it was
// read (stdout, stderr or file).
type Event struct {
	T      float64
	Marker Marker
	Source string
}

// events collects markers from several readers.
type events struct {
	mu    sync.Mutex
	base  time.Time
	list  []Event
	notes []string
}

func (e *events) line(line string, at time.Time, source string) {
	m, ok, err := ParseMarker(line)
	if !ok {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err != nil {
		if len(e.notes) < 20 {
			e.notes = append(e.notes, fmt.Sprintf("stage: %s line %q ignored: %v", source, strings.TrimSpace(line), err))
		}
		return
	}
	t := at.Sub(e.base).Seconds()
	if m.AtUnix > 0 {
		sec, frac := math.Modf(m.AtUnix)
		t = time.Unix(int64(sec), int64(math.Round(frac*1e9))).Sub(e.base).Seconds()
	}
	e.list = append(e.list, Event{T: t, Marker: m, Source: source})
}

// lineWriter passes bytes through to w and hands every complete line (ended
// by \n or \r) to the event collector, stamped with the time it was written.
type lineWriter struct {
	ev     *events
	now    func() time.Time
	source string
	buf    []byte
}

func (l *lineWriter) Write(p []byte) (int, error) {
	at := l.now()
	for _, c := range p {
		if c == '\n' || c == '\r' {
			l.ev.line(string(l.buf), at, l.source)
			l.buf = l.buf[:0]
			continue
		}
		if len(l.buf) < 1<<16 {
			l.buf = append(l.buf, c)
		}
	}
	return len(p), nil
}

func (l *lineWriter) flush() {
	if len(l.buf) > 0 {
		l.ev.line(string(l.buf), l.now(), l.source)
		l.buf = l.buf[:0]
	}
}

// Segment is a stretch of the run belonging to one stage.
type Segment struct {
	Stage      string
	FromS, ToS float64
}

// Timeline splits [start, end] into stage segments by the stage events
// (sorted by time; times outside the window are clamped into it) and sums
// the tokens per stage. order lists the stages by first appearance. With no
// stage event there are no segments, and the tokens of tokens lines are
// returned in untimed.
func Timeline(evs []Event, start, end float64, first string) (segs []Segment, order []string, tokens map[string]float64, untimed float64) {
	evs = append([]Event(nil), evs...)
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].T < evs[j].T })
	tokens = map[string]float64{}
	hasStage := false
	for _, e := range evs {
		hasStage = hasStage || e.Marker.Stage != ""
	}
	if !hasStage {
		for _, e := range evs {
			untimed += e.Marker.Tokens
		}
		return nil, nil, tokens, untimed
	}
	seen := map[string]bool{}
	note := func(s string) {
		if !seen[s] {
			seen[s] = true
			order = append(order, s)
		}
	}
	cur, from := first, start
	for _, e := range evs {
		t := math.Min(math.Max(e.T, start), end)
		if e.Marker.Stage != "" {
			if t > from {
				note(cur)
				segs = append(segs, Segment{cur, from, t})
			}
			cur, from = e.Marker.Stage, t
			note(cur)
		} else if e.Marker.Tokens > 0 {
			note(cur)
		}
		tokens[cur] += e.Marker.Tokens
	}
	if end > from {
		note(cur)
		segs = append(segs, Segment{cur, from, end})
	}
	return segs, order, tokens, 0
}
