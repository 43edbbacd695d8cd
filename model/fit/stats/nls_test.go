package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// saturating is y = a·(1 − exp(−b·x)), θ = (a, b).
func saturating(x float64, theta []float64) float64 {
	return theta[0] * (1 - math.Exp(-theta[1]*x))
}

// saturatingData returns x = 0, 0.25, …, 10 and y = saturating(x; 3, 0.5)
// plus N(0, sigma²) noise from rng (none when sigma is 0).
func saturatingData(rng *rand.Rand, sigma float64) (xs, ys []float64) {
	for i := range 41 {
		x := 0.25 * float64(i)
		xs = append(xs, x)
		y := saturating(x, []float64{3, 0.5})
		if sigma > 0 {
			y += sigma * rng.NormFloat64()
		}
		ys = append(ys, y)
	}
	return xs, ys
}

func TestNLSNoiseless(t *testing.T) {
	xs, ys := saturatingData(nil, 0)
	tests := []struct {
		name         string
		theta0       []float64
		lower, upper []float64
	}{
		{"unbounded", []float64{1, 1}, nil, nil},
		{"far start", []float64{20, 0.05}, nil, nil},
		{"flat start", []float64{100, 100}, nil, nil},
		{"start with b = 0", []float64{1, 0}, nil, nil},
		{"badly scaled start", []float64{1e4, 1e-4}, nil, nil},
		{"lower bounds", []float64{1, 1}, []float64{0, 0}, nil},
		{"box", []float64{1, 1}, []float64{0, 0.01}, []float64{10, 5}},
		{"start on a bound", []float64{10, 0.01}, []float64{0, 0.01}, []float64{10, 5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NLS(saturating, xs, ys, tc.theta0, tc.lower, tc.upper)
			if err != nil {
				t.Fatalf("NLS error: %v", err)
			}
			for j, want := range []float64{3, 0.5} {
				if math.Abs(r.Theta[j]-want) > 1e-6 {
					t.Errorf("Theta[%d] = %.10g, want %.10g ± 1e-6", j, r.Theta[j], want)
				}
			}
			if !r.Converged {
				t.Errorf("Converged = false, want true")
			}
			if r.SSE > 1e-12 {
				t.Errorf("SSE = %.3g, want ≈ 0 for noiseless data", r.SSE)
			}
			if r.DOF != len(xs)-2 {
				t.Errorf("DOF = %d, want %d", r.DOF, len(xs)-2)
			}
		})
	}
}

func TestNLSReportsNonConvergence(t *testing.T) {
	// From a < 0, b < 0 the descent runs down a valley towards a → −∞,
	// b → 0⁻ (a straight line a·b·x in the limit) whose infimum is never
	// attained: NLS must stop on its iteration limit and say so.
	xs, ys := saturatingData(nil, 0)
	r, err := NLS(saturating, xs, ys, []float64{-3, -0.01}, nil, nil)
	if err != nil {
		t.Fatalf("NLS error: %v", err)
	}
	if r.Converged {
		t.Errorf("NLS from (-3, -0.01) = %+v, want Converged false", r)
	}
	if r.Theta[0] > -100 {
		t.Errorf("Theta[0] = %.4g, want it far down the valley (< -100)", r.Theta[0])
	}
}

func TestNLSNoisyWithinSE(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs, ys := saturatingData(rng, 0.1)
	r, err := NLS(saturating, xs, ys, []float64{1, 1}, nil, nil)
	if err != nil {
		t.Fatalf("NLS error: %v", err)
	}
	for j, want := range []float64{3, 0.5} {
		if !(r.SE[j] > 0) || math.IsInf(r.SE[j], 0) {
			t.Fatalf("SE[%d] = %v, want finite and positive", j, r.SE[j])
		}
		if d := math.Abs(r.Theta[j] - want); d > 3*r.SE[j] {
			t.Errorf("Theta[%d] = %.5f, want %.5f within 3 SE (%.5f)", j, r.Theta[j], want, 3*r.SE[j])
		}
	}
	// s = sqrt(SSE/DOF) estimates the noise SD 0.1.
	if s := math.Sqrt(r.SSE / float64(r.DOF)); math.Abs(s-0.1) > 0.03 {
		t.Errorf("sqrt(SSE/DOF) = %.4f, want 0.1 ± 0.03", s)
	}
	if !r.Converged {
		t.Errorf("Converged = false, want true")
	}
}

func TestNLSMatchesOLSForLinearModel(t *testing.T) {
	// For f = a + b·x, least squares is linear: NLS must reproduce the OLS
	// coefficients and (through its Jacobian) the classical SEs.
	rng := rand.New(rand.NewPCG(1, 2))
	var xs, ys []float64
	var X [][]float64
	for i := range 30 {
		x := float64(i) / 3
		xs = append(xs, x)
		ys = append(ys, 1.5-0.8*x+0.4*rng.NormFloat64())
		X = append(X, []float64{1, x})
	}
	lin := func(x float64, th []float64) float64 { return th[0] + th[1]*x }
	r, err := NLS(lin, xs, ys, []float64{0, 0}, nil, nil)
	if err != nil {
		t.Fatalf("NLS error: %v", err)
	}
	o, err := OLS(X, ys, nil, nil)
	if err != nil {
		t.Fatalf("OLS error: %v", err)
	}
	for j := range 2 {
		if math.Abs(r.Theta[j]-o.Coef[j]) > 1e-8 {
			t.Errorf("NLS Theta[%d] = %.12g, want OLS Coef %.12g", j, r.Theta[j], o.Coef[j])
		}
		if relErr(r.SE[j], o.SE[j]) > 1e-5 {
			t.Errorf("NLS SE[%d] = %.10g, want OLS SE %.10g", j, r.SE[j], o.SE[j])
		}
	}
	if want := o.Sigma * o.Sigma * float64(o.DOF); relErr(r.SSE, want) > 1e-10 {
		t.Errorf("NLS SSE = %.12g, want OLS SSE %.12g", r.SSE, want)
	}
}

func TestNLSBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs, ys := saturatingData(rng, 0.05)
	tests := []struct {
		name         string
		lower, upper []float64
		active       []int // parameters whose optimum is on a bound
	}{
		{"upper bound on b binds", []float64{0, 0}, []float64{100, 0.3}, []int{1}},
		{"lower bound on a binds", []float64{3.5, math.Inf(-1)}, nil, []int{0}},
		{"upper only on a binds", nil, []float64{2.5, math.Inf(1)}, []int{0}},
		{"box holds the optimum", []float64{1, 0.1}, []float64{5, 2}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			outside := 0
			inBounds := func(th []float64) bool {
				for j, v := range th {
					if tc.lower != nil && v < tc.lower[j] || tc.upper != nil && v > tc.upper[j] {
						return false
					}
				}
				return true
			}
			f := func(x float64, th []float64) float64 {
				if !inBounds(th) {
					outside++
				}
				return saturating(x, th)
			}
			r, err := NLS(f, xs, ys, []float64{3, 0.2}, tc.lower, tc.upper)
			if err != nil {
				t.Fatalf("NLS error: %v", err)
			}
			if !inBounds(r.Theta) {
				t.Errorf("Theta = %v, want within [%v, %v]", r.Theta, tc.lower, tc.upper)
			}
			if outside > 0 {
				t.Errorf("f evaluated %d times outside the bounds, want 0", outside)
			}
			for _, j := range tc.active {
				b := math.NaN()
				if tc.lower != nil && !math.IsInf(tc.lower[j], 0) {
					b = tc.lower[j]
				}
				if tc.upper != nil && !math.IsInf(tc.upper[j], 0) && (math.IsNaN(b) || math.Abs(r.Theta[j]-tc.upper[j]) < math.Abs(r.Theta[j]-b)) {
					b = tc.upper[j]
				}
				if math.Abs(r.Theta[j]-b) > 1e-4*math.Max(1, math.Abs(b)) {
					t.Errorf("Theta[%d] = %.8g, want it on the active bound %g", j, r.Theta[j], b)
				}
			}
			if tc.active == nil {
				for j, want := range []float64{3, 0.5} {
					if d := math.Abs(r.Theta[j] - want); d > 3*r.SE[j] {
						t.Errorf("Theta[%d] = %.5f, want %.5f within 3 SE (%.5f)", j, r.Theta[j], want, 3*r.SE[j])
					}
				}
			}
		})
	}
}

func TestNLSStandardErrorsNaN(t *testing.T) {
	tests := []struct {
		name   string
		f      func(float64, []float64) float64
		xs, ys []float64
	}{
		{"DOF 0", saturating, []float64{1, 2}, []float64{1.2, 1.9}},
		{"parameter without effect", func(x float64, th []float64) float64 { return th[0] * x }, []float64{1, 2, 3, 4}, []float64{1.1, 1.9, 3.2, 3.9}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NLS(tc.f, tc.xs, tc.ys, []float64{1, 1}, nil, nil)
			if err != nil {
				t.Fatalf("NLS error: %v", err)
			}
			for j, se := range r.SE {
				if !math.IsNaN(se) {
					t.Errorf("SE[%d] = %v, want NaN", j, se)
				}
			}
		})
	}
}

func TestNLSErrors(t *testing.T) {
	logModel := func(x float64, th []float64) float64 { return th[0] * math.Log(th[1]*x) }
	xs, ys := []float64{1, 2, 3}, []float64{0, 0.7, 1.1}
	tests := []struct {
		name         string
		f            func(float64, []float64) float64
		xs, ys       []float64
		theta0       []float64
		lower, upper []float64
		want         string
	}{
		{"no points", saturating, nil, nil, []float64{1, 1}, nil, nil, "need at least 1 point, got 0"},
		{"NaN in ys", saturating, xs, []float64{0, math.NaN(), 1}, []float64{1, 1}, nil, nil, "ys[1] is NaN"},
		{"Inf in xs", saturating, []float64{0, math.Inf(-1), 1}, ys, []float64{1, 1}, nil, nil, "xs[1] is -Inf"},
		{"empty theta0", saturating, xs, ys, nil, nil, nil, "theta0 is empty"},
		{"non-finite objective at theta0", logModel, xs, ys, []float64{1, -1}, nil, nil, "objective is not finite at theta0"},
		{"lower above upper", saturating, xs, ys, []float64{1, 1}, []float64{2, 0}, []float64{1, 1}, "bounds of parameter 0 are [2, 1]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NLS(tc.f, tc.xs, tc.ys, tc.theta0, tc.lower, tc.upper)
			if err == nil {
				t.Fatalf("NLS = %+v, nil error; want error containing %q", r, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "fit: ") {
				t.Errorf("NLS error = %q, want it to start with \"fit: \" and contain %q", err, tc.want)
			}
		})
	}
}
