package meter

import (
	"fmt"
	"math"
	"sort"
)

// Series is one quantity sampled over time, read as the piecewise-linear
// function through its samples: power in W (integrate it with Integral) or
// an unwrapped energy counter in J (difference it with At). Times are seconds
// on the recording's clock, strictly increasing after NewSeries. Beyond the
// first and last sample the function is held at the end values; a missing
// reading between two samples is bridged by the straight line between them.
type Series struct {
	T, V   []float64
	prefix []float64 // prefix[i] = ∫ from T[0] to T[i] (trapezoid rule)
}

// NewSeries sorts the samples by time, keeps the first of samples with equal
// times, and precomputes the running trapezoid integral. It returns how many
// duplicates it dropped. t and v must have the same length.
func NewSeries(t, v []float64) (*Series, int) {
	if len(t) != len(v) {
		panic(fmt.Sprintf("meter: NewSeries with %d times and %d values", len(t), len(v)))
	}
	idx := make([]int, len(t))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return t[idx[a]] < t[idx[b]] })
	s := &Series{}
	dropped := 0
	for _, i := range idx {
		if n := len(s.T); n > 0 && t[i] == s.T[n-1] {
			dropped++
			continue
		}
		s.T = append(s.T, t[i])
		s.V = append(s.V, v[i])
	}
	s.prefix = make([]float64, len(s.T))
	for i := 1; i < len(s.T); i++ {
		s.prefix[i] = s.prefix[i-1] + (s.T[i]-s.T[i-1])*(s.V[i]+s.V[i-1])/2
	}
	return s, dropped
}

// Len is the number of samples.
func (s *Series) Len() int { return len(s.T) }

// segment returns i with T[i] <= x < T[i+1]; callers ensure T[0] <= x < T[n-1].
func (s *Series) segment(x float64) int {
	return sort.Search(len(s.T), func(i int) bool { return s.T[i] > x }) - 1
}

// At is the series' value at x: linear between samples, held beyond the
// ends; NaN for an empty series.
func (s *Series) At(x float64) float64 {
	n := len(s.T)
	switch {
	case n == 0:
		return math.NaN()
	case x <= s.T[0]:
		return s.V[0]
	case x >= s.T[n-1]:
		return s.V[n-1]
	}
	i := s.segment(x)
	return s.V[i] + (s.V[i+1]-s.V[i])*(x-s.T[i])/(s.T[i+1]-s.T[i])
}

// cumulative is F(x) = ∫ from T[0] to x of the series (negative before T[0]).
func (s *Series) cumulative(x float64) float64 {
	n := len(s.T)
	switch {
	case x <= s.T[0]:
		return s.V[0] * (x - s.T[0])
	case x >= s.T[n-1]:
		return s.prefix[n-1] + s.V[n-1]*(x-s.T[n-1])
	}
	i := s.segment(x)
	return s.prefix[i] + (x-s.T[i])*(s.V[i]+s.At(x))/2
}

// Integral is ∫ from a to b of the series by the trapezoid rule, exact for
// the piecewise-linear function: a sample's power times seconds gives
// joules. Integrals over adjacent windows add up to the integral over their
// union. It is 0 for an empty series and negative when b < a.
func (s *Series) Integral(a, b float64) float64 {
	if len(s.T) == 0 || a == b {
		return 0
	}
	return s.cumulative(b) - s.cumulative(a)
}

// Gap is a stretch of a window with no sample, longer than the gap limit.
type Gap struct{ FromS, ToS float64 }

// Gaps lists the stretches of [from, to] longer than limit seconds without a
// sample, counting the window's edges as ends of a stretch.
func (s *Series) Gaps(from, to, limit float64) []Gap {
	var out []Gap
	prev := from
	for _, t := range s.T {
		if t <= from {
			continue
		}
		if t >= to {
			break
		}
		if t-prev > limit {
			out = append(out, Gap{prev, t})
		}
		prev = t
	}
	if to-prev > limit {
		out = append(out, Gap{prev, to})
	}
	return out
}
