package meter

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// relErr is |got − want| / |want| (|got| when want is 0).
func relErr(got, want float64) float64 {
	if want == 0 {
		return math.Abs(got)
	}
	return math.Abs(got-want) / math.Abs(want)
}

// sampled returns times from 0 to end every step and f at those times.
func sampled(end, step float64, f func(float64) float64) (t, v []float64) {
	for i := 0; float64(i)*step <= end+1e-12; i++ {
		x := float64(i) * step
		t, v = append(t, x), append(v, f(x))
	}
	return t, v
}

func without(t, v []float64, drop float64) ([]float64, []float64) {
	var t2, v2 []float64
	for i := range t {
		if t[i] != drop {
			t2, v2 = append(t2, t[i]), append(v2, v[i])
		}
	}
	return t2, v2
}

func TestIntegralKnownTraces(t *testing.T) {
	ramp := func(x float64) float64 { return 200 + 100*x/60 }                        // 200 W to 300 W over a minute
	rampInt := func(a, b float64) float64 { return 200*(b-a) + 100/120.0*(b*b-a*a) } // its antiderivative
	step := func(x float64) float64 {
		if x < 5.5 {
			return 100
		}
		return 300
	}
	rt, rv := sampled(60, 0.5, ramp)
	st, sv := sampled(10, 0.5, step)
	ct, cv := sampled(60, 0.5, func(float64) float64 { return 75 })
	rtMiss, rvMiss := without(rt, rv, 30)
	stMiss, svMiss := without(st, sv, 5.5)
	tests := []struct {
		name string
		t, v []float64
		a, b float64
		want float64 // J, worked out by hand from the trace
	}{
		{"constant 75 W for 60 s", ct, cv, 0, 60, 4500},
		{"constant, window past both ends (held)", ct, cv, -2, 62, 75 * 64},
		{"ramp 200→300 W over 60 s", rt, rv, 0, 60, 15000},
		{"ramp, window between samples", rt, rv, 10.25, 30.75, rampInt(10.25, 30.75)},
		{"step 100→300 W sampled at 5.0 and 5.5 s", st, sv, 0, 10, 100*5 + 200*0.5 + 300*4.5},
		{"ramp with the 30 s sample missing (bridged: exact on a line)", rtMiss, rvMiss, 0, 60, 15000},
		{"step with the 5.5 s sample missing (bridged 5.0→6.0 s)", stMiss, svMiss, 0, 10, 100*5 + 200*1 + 300*4},
		{"one sample, held both ways", []float64{3}, []float64{40}, 0, 10, 400},
		{"empty", nil, nil, 0, 10, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := NewSeries(tc.t, tc.v)
			if got := s.Integral(tc.a, tc.b); relErr(got, tc.want) > 1e-9 {
				t.Errorf("Integral(%g, %g) = %.12g J, want %.12g J", tc.a, tc.b, got, tc.want)
			}
		})
	}
}

func TestIntegralAddsUpOverAPartition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var ts, vs []float64
	x := 0.0
	for i := 0; i < 2000; i++ {
		x += 0.3 + 0.4*rng.Float64() // irregular sampling
		ts, vs = append(ts, x), append(vs, 50+400*rng.Float64())
	}
	s, _ := NewSeries(ts, vs)
	from, to := -1.0, x+1
	cuts := []float64{from}
	for i := 0; i < 40; i++ {
		cuts = append(cuts, from+(to-from)*rng.Float64())
	}
	cuts = append(cuts, to)
	sort.Float64s(cuts)
	sum := 0.0
	for i := 1; i < len(cuts); i++ {
		sum += s.Integral(cuts[i-1], cuts[i])
	}
	total := s.Integral(from, to)
	if relErr(sum, total) > 1e-9 {
		t.Errorf("sum of %d windows = %.12g J, want the whole %.12g J", len(cuts)-1, sum, total)
	}
	if got := s.Integral(10, 5); relErr(got, -s.Integral(5, 10)) > 1e-12 {
		t.Errorf("Integral(10, 5) = %g, want −Integral(5, 10) = %g", got, -s.Integral(5, 10))
	}
}

func TestNewSeriesSortsAndDropsRepeatedTimes(t *testing.T) {
	s, dropped := NewSeries([]float64{2, 0, 1, 1, 3}, []float64{20, 0, 10, 99, 30})
	if dropped != 1 {
		t.Errorf("dropped = %d, want 1", dropped)
	}
	wantT, wantV := []float64{0, 1, 2, 3}, []float64{0, 10, 20, 30}
	for i := range wantT {
		if s.T[i] != wantT[i] || s.V[i] != wantV[i] {
			t.Fatalf("series = %v / %v, want %v / %v", s.T, s.V, wantT, wantV)
		}
	}
	for _, c := range []struct{ x, want float64 }{{-1, 0}, {0, 0}, {0.25, 2.5}, {2.5, 25}, {3, 30}, {9, 30}} {
		if got := s.At(c.x); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("At(%g) = %g, want %g", c.x, got, c.want)
		}
	}
	if empty, _ := NewSeries(nil, nil); !math.IsNaN(empty.At(1)) {
		t.Errorf("At on an empty series = %g, want NaN", empty.At(1))
	}
}

func TestGaps(t *testing.T) {
	s, _ := NewSeries([]float64{0.5, 1, 1.5, 4, 4.5, 5}, []float64{1, 1, 1, 1, 1, 1})
	got := s.Gaps(0, 8, 1.5)
	want := []Gap{{1.5, 4}, {5, 8}}
	if len(got) != len(want) {
		t.Fatalf("Gaps = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Gaps[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestNewSeriesPanicsOnMismatchedLengths(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewSeries with 2 times and 1 value did not panic")
		}
	}()
	NewSeries([]float64{1, 2}, []float64{1})
}
