package meter

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseMarker(t *testing.T) {
	tests := []struct {
		line   string
		want   Marker
		ok     bool
		errHas string
	}{
		{"wattscale:stage teacher", Marker{Stage: "teacher"}, true, ""},
		{"wattscale:stage student tokens=2.5e7", Marker{Stage: "student", Tokens: 2.5e7}, true, ""},
		{"INFO:root:wattscale:stage eval t=1767225600.25 tokens=100", Marker{Stage: "eval", Tokens: 100, AtUnix: 1767225600.25}, true, ""},
		{"  wattscale:tokens 4096", Marker{Tokens: 4096}, true, ""},
		{"epoch 3 loss 0.12", Marker{}, false, ""},
		{"wattscale: starting", Marker{}, false, ""},
		{"wattscale:stagefright", Marker{}, false, ""},
		{"wattscale:stage", Marker{}, true, "needs a stage name"},
		{"wattscale:stage tokens=5", Marker{}, true, "needs a stage name"},
		{"wattscale:stage a/b", Marker{}, true, "use letters"},
		{"wattscale:stage total", Marker{}, true, "reserved"},
		{"wattscale:stage x tokens=-1", Marker{}, true, "tokens=-1"},
		{"wattscale:stage x tokens=abc", Marker{}, true, "tokens=abc"},
		{"wattscale:stage x t=0", Marker{}, true, "t=0"},
		{"wattscale:stage x foo=1", Marker{}, true, "unknown key"},
		{"wattscale:stage x y", Marker{}, true, "unexpected"},
		{"wattscale:stage x tokens=1 tokens=2", Marker{}, true, "twice"},
		{"wattscale:tokens", Marker{}, true, "needs a token count"},
	}
	for _, tc := range tests {
		got, ok, err := ParseMarker(tc.line)
		if ok != tc.ok {
			t.Errorf("ParseMarker(%q) ok = %v, want %v", tc.line, ok, tc.ok)
			continue
		}
		if tc.errHas != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errHas) {
				t.Errorf("ParseMarker(%q) error = %v, want one containing %q", tc.line, err, tc.errHas)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseMarker(%q) = %+v, %v; want %+v", tc.line, got, err, tc.want)
		}
	}
}

func FuzzParseMarker(f *testing.F) {
	for _, s := range []string{"wattscale:stage teacher tokens=5 t=1767225600.5", "wattscale:tokens 12", "x wattscale:stage", "wattscale:stage a=b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		m, ok, err := ParseMarker(line)
		if !ok || err != nil {
			return
		}
		if m.Stage != "" && !stageName.MatchString(m.Stage) {
			t.Errorf("ParseMarker(%q) accepted stage %q", line, m.Stage)
		}
		if math.IsNaN(m.Tokens) || m.Tokens < 0 || m.Tokens > 1e16 || math.IsNaN(m.AtUnix) || m.AtUnix < 0 {
			t.Errorf("ParseMarker(%q) = %+v: out of range", line, m)
		}
	})
}

func FuzzParseReading(f *testing.F) {
	for _, s := range []string{"0, 2026/01/04 14:41:13.123, 52.12", "1, 2026/01/04 14:41:13.123, [N/A]", "0,,", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		r, err := ParseReading(line, time.UTC)
		if err != nil {
			return
		}
		if r.OK && (math.IsNaN(r.PowerW) || r.PowerW < 0 || r.PowerW >= 1e5) {
			t.Errorf("ParseReading(%q) = %+v: power out of range", line, r)
		}
		if (r.OK && r.Raw != "") || (!r.OK && r.PowerW != 0) {
			t.Errorf("ParseReading(%q) = %+v: want a power without raw text, or no power", line, r)
		}
	})
}

func TestTimeline(t *testing.T) {
	ev := func(t float64, stage string, tokens float64) Event {
		return Event{T: t, Marker: Marker{Stage: stage, Tokens: tokens}}
	}
	// Out of order on purpose (stdout and stderr are read concurrently);
	// "train" comes back; a stage line before the start is clamped to it.
	evs := []Event{ev(4, "eval", 0), ev(1, "train", 100), ev(6, "train", 50), ev(5, "", 7), ev(8, "", 3), ev(-1, "load", 0)}
	segs, order, tokens, untimed := Timeline(evs, 0, 10, "prerun")
	if got, want := strings.Join(order, ","), "load,train,eval"; got != want {
		t.Errorf("order = %s, want %s (zero-length prerun left out)", got, want)
	}
	wantSegs := []Segment{{"load", 0, 1}, {"train", 1, 4}, {"eval", 4, 6}, {"train", 6, 10}}
	if len(segs) != len(wantSegs) {
		t.Fatalf("segments = %v, want %v", segs, wantSegs)
	}
	for i := range segs {
		if segs[i] != wantSegs[i] {
			t.Errorf("segment %d = %v, want %v", i, segs[i], wantSegs[i])
		}
	}
	if tokens["train"] != 153 || tokens["eval"] != 7 || untimed != 0 {
		t.Errorf("tokens = %v, untimed %g; want train 153, eval 7", tokens, untimed)
	}
	// No stage line: no segments, tokens lines add up to the run.
	segs, order, _, untimed = Timeline([]Event{ev(2, "", 10), ev(3, "", 5)}, 0, 10, "prerun")
	if len(segs) != 0 || len(order) != 0 || untimed != 15 {
		t.Errorf("Timeline without stages = %v, %v, %g; want none, none, 15", segs, order, untimed)
	}
}
