package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// NLSResult holds a non-linear least-squares fit.
type NLSResult struct {
	// Theta is the fitted parameter vector θ̂, inside the bounds when bounds
	// were given.
	Theta []float64
	// SE is the asymptotic standard error of each parameter, the square root
	// of the diagonal of s²·(JᵀJ)⁻¹ with s² = SSE/DOF and J the numeric
	// Jacobian ∂f(xᵢ, θ)/∂θⱼ at θ̂. Entries are NaN (not an error) when
	// DOF <= 0 or JᵀJ is singular, for example when a parameter does not
	// affect f.
	SE []float64
	// SSE is the residual sum of squares Σ (f(xᵢ, θ̂) − yᵢ)², in squared
	// units of y.
	SSE float64
	// DOF is the residual degrees of freedom: points minus parameters.
	DOF int
	// Converged reports whether the optimizer stopped on a convergence test
	// (small step, negligible decrease of SSE, residuals orthogonal to the
	// Jacobian, or an exact fit) rather than on its iteration limit. Theta
	// is the best point found either way.
	Converged bool
}

// NLS minimises Σ (f(xᵢ, θ) − yᵢ)² over θ, starting at theta0.
//
// lower and upper are optional box bounds (either may be nil, and an entry
// may be −Inf or +Inf for no bound on that parameter). A theta0 outside the
// bounds is clamped into them, and f is only ever evaluated inside them:
// every trial point is projected (clamped) onto the box and the
// finite-difference Jacobian steps one-sided next to a bound.
//
// The minimisation is a projected Levenberg–Marquardt method: Marquardt's
// diagonal scaling, Nielsen's damping update, and an active set that holds
// a parameter on its bound while the gradient pushes it outwards, which
// converges quickly when the optimum lies on a bound. The Jacobian is a
// central difference with a step relative to each parameter's magnitude.
// A trial point where f is not finite counts as an infinitely bad fit and
// is rejected. Like any local method it finds a local minimum, normally the
// one whose basin holds theta0; Converged is false when it stops on its
// iteration limit instead (for example in a valley whose infimum lies at
// infinity).
//
// NLS returns an error when there are no points, when xs or ys holds a NaN
// or an infinity, when theta0 is empty or holds a NaN, when a bound is NaN
// or a lower bound exceeds its upper bound, or when the objective is not
// finite at (the clamped) theta0.
// Slices of mismatched lengths are programmer errors and panic.
func NLS(f func(x float64, theta []float64) float64, xs, ys []float64, theta0, lower, upper []float64) (*NLSResult, error) {
	if len(xs) != len(ys) {
		panic(fmt.Sprintf("fit: NLS got %d x values but %d y values", len(xs), len(ys)))
	}
	p := len(theta0)
	if lower != nil && len(lower) != p {
		panic(fmt.Sprintf("fit: NLS got %d lower bounds for %d parameters", len(lower), p))
	}
	if upper != nil && len(upper) != p {
		panic(fmt.Sprintf("fit: NLS got %d upper bounds for %d parameters", len(upper), p))
	}
	n := len(xs)
	if n < 1 {
		return nil, fmt.Errorf("fit: need at least 1 point, got %d", n)
	}
	if p == 0 {
		return nil, fmt.Errorf("fit: theta0 is empty")
	}
	for i := range n {
		if math.IsNaN(xs[i]) || math.IsInf(xs[i], 0) {
			return nil, fmt.Errorf("fit: xs[%d] is %v", i, xs[i])
		}
		if math.IsNaN(ys[i]) || math.IsInf(ys[i], 0) {
			return nil, fmt.Errorf("fit: ys[%d] is %v", i, ys[i])
		}
	}
	for j, v := range theta0 {
		if math.IsNaN(v) {
			return nil, fmt.Errorf("fit: theta0[%d] is NaN", j)
		}
	}

	lo := make([]float64, p)
	hi := make([]float64, p)
	for j := range p {
		lo[j], hi[j] = math.Inf(-1), math.Inf(1)
		if lower != nil {
			lo[j] = lower[j]
		}
		if upper != nil {
			hi[j] = upper[j]
		}
		if math.IsNaN(lo[j]) || math.IsNaN(hi[j]) || lo[j] > hi[j] {
			return nil, fmt.Errorf("fit: bounds of parameter %d are [%v, %v]", j, lo[j], hi[j])
		}
	}
	q := &nlsProblem{f: f, xs: xs, ys: ys, lo: lo, hi: hi, typ: make([]float64, p)}
	theta := make([]float64, p)
	for j := range p {
		theta[j] = math.Min(math.Max(theta0[j], lo[j]), hi[j])
		q.typ[j] = math.Abs(theta[j])
	}
	if s := q.sse(theta); math.IsInf(s, 0) {
		return nil, fmt.Errorf("fit: objective is not finite at theta0 %v", theta)
	}
	sum, converged := q.levenbergMarquardt(theta)
	return &NLSResult{
		Theta:     theta,
		SE:        q.standardErrors(theta, sum),
		SSE:       sum,
		DOF:       n - p,
		Converged: converged,
	}, nil
}

// nlsProblem is a bounded least-squares problem Σ (f(xᵢ, θ) − yᵢ)².
type nlsProblem struct {
	f      func(float64, []float64) float64
	xs, ys []float64
	lo, hi []float64
	typ    []float64 // typical magnitude of each parameter, for difference steps
}

// resid writes f(xᵢ, θ) − yᵢ into dst.
func (q *nlsProblem) resid(dst, theta []float64) {
	for i, x := range q.xs {
		dst[i] = q.f(x, theta) - q.ys[i]
	}
}

// sse returns Σ (f(xᵢ, θ) − yᵢ)², or +Inf when that is not finite.
func (q *nlsProblem) sse(theta []float64) float64 {
	var s float64
	for i, x := range q.xs {
		d := q.f(x, theta) - q.ys[i]
		s += d * d
	}
	if math.IsNaN(s) {
		return math.Inf(1)
	}
	return s
}

// jacobian fills jac (n×p) with ∂f(xᵢ, θ)/∂θⱼ by central differences with
// step 6e-6·max(|θⱼ|, typⱼ) (about the cube root of machine epsilon),
// one-sided where a central step would leave the box. Non-finite entries
// become 0. It reports false when that happened. Each column evaluates f
// at every x for θ + hⱼ, then for θ − hⱼ, so that a caller whose f sets
// up work per θ (TableCatalog: a catalog) does it twice a column.
func (q *nlsProblem) jacobian(jac *mat.Dense, theta []float64) bool {
	const rel = 6e-6
	p := len(theta)
	tp := make([]float64, p)
	tm := make([]float64, p)
	fp := make([]float64, len(q.xs))
	ok := true
	for j := range p {
		h := rel * math.Max(math.Abs(theta[j]), q.typ[j])
		if h == 0 {
			h = rel
		}
		hp, hm := h, h
		if theta[j]+hp > q.hi[j] {
			hp = 0
		}
		if theta[j]-hm < q.lo[j] {
			hm = 0
		}
		if hp == 0 && hm == 0 {
			// The box is narrower than two steps.
			hp, hm = q.hi[j]-theta[j], theta[j]-q.lo[j]
		}
		copy(tp, theta)
		copy(tm, theta)
		tp[j] += hp
		tm[j] -= hm
		if hp+hm > 0 {
			for i, x := range q.xs {
				fp[i] = q.f(x, tp)
			}
		}
		for i, x := range q.xs {
			d := 0.0
			if hp+hm > 0 {
				d = (fp[i] - q.f(x, tm)) / (hp + hm)
			}
			if math.IsNaN(d) || math.IsInf(d, 0) {
				d, ok = 0, false
			}
			jac.Set(i, j, d)
		}
	}
	return ok
}

// levenbergMarquardt minimises sse over the box from theta, which it
// updates in place, and returns the final SSE and whether a convergence test
// (rather than the iteration limit) stopped it.
func (q *nlsProblem) levenbergMarquardt(theta []float64) (sum float64, converged bool) {
	const (
		maxIter = 1000
		xtol    = 1e-12 // relative step size
		ftol    = 1e-15 // relative decrease of SSE
		gtol    = 1e-12 // cosine between the residuals and a free Jacobian column
	)
	n, p := len(q.xs), len(theta)
	r := make([]float64, n)
	q.resid(r, theta)
	sum = q.sse(theta)
	if sum == 0 {
		return sum, true
	}
	jac := mat.NewDense(n, p, nil)
	a := mat.NewSymDense(p, nil)
	g := make([]float64, p)
	diag := make([]float64, p)
	// linearise sets jac, a = JᵀJ and g = Jᵀr at theta.
	linearise := func() {
		q.jacobian(jac, theta)
		a.SymOuterK(1, jac.T())
		for j := range p {
			var s float64
			for i := range n {
				s += jac.At(i, j) * r[i]
			}
			g[j] = s
			diag[j] = math.Max(diag[j], a.At(j, j))
		}
	}
	linearise()
	mu, nu := 1e-3, 2.0

	free := make([]int, 0, p)
	trial := make([]float64, p)
	var ch mat.Cholesky
	for range maxIter {
		// Active set: a parameter on a bound whose descent direction −g
		// points out of the box stays put. gcos is the largest cosine
		// between r and a free column of J, zero at a stationary point.
		free = free[:0]
		var gcos, maxDiag float64
		rn := math.Sqrt(sum)
		for j := range p {
			if theta[j] <= q.lo[j] && g[j] > 0 || theta[j] >= q.hi[j] && g[j] < 0 || q.lo[j] == q.hi[j] {
				continue
			}
			free = append(free, j)
			maxDiag = math.Max(maxDiag, diag[j])
			if c := math.Sqrt(a.At(j, j)); c > 0 {
				gcos = math.Max(gcos, math.Abs(g[j])/(c*rn))
			}
		}
		if len(free) == 0 || gcos <= gtol || maxDiag == 0 {
			return sum, true
		}
		// Solve (Â + μI)·δ̂ = −ĝ in Marquardt's scaled variables
		// δ̂ⱼ = Sⱼ·δⱼ, Sⱼ = sqrt(max JᵀJⱼⱼ so far): μ is dimensionless and the
		// system stays well conditioned however the parameters are scaled.
		floor := 1e-16 * maxDiag
		m := len(free)
		sc := make([]float64, m)
		for k, j := range free {
			sc[k] = math.Sqrt(math.Max(diag[j], floor))
		}
		damped := mat.NewSymDense(m, nil)
		rhs := mat.NewVecDense(m, nil)
		for k, j := range free {
			for l := k; l < m; l++ {
				damped.SetSym(k, l, a.At(j, free[l])/(sc[k]*sc[l]))
			}
			damped.SetSym(k, k, a.At(j, j)/(sc[k]*sc[k])+mu)
			rhs.SetVec(k, -g[j]/sc[k])
		}
		var step mat.VecDense
		// A Condition error still leaves the solution in step; a useless
		// one is rejected below like any other bad step.
		if ch.Factorize(damped) && finite(solveIgnoringCondition(&ch, &step, rhs)) {
			for k := range free {
				step.SetVec(k, step.AtVec(k)/sc[k])
			}
			copy(trial, theta)
			for k, j := range free {
				trial[j] = math.Min(math.Max(theta[j]+step.AtVec(k), q.lo[j]), q.hi[j])
			}
			// Actual (projected) step d, its size, and the decrease of SSE
			// that the linear model predicts for it: ‖r‖² − ‖r + J·d‖².
			small := true
			for j := range p {
				if d := trial[j] - theta[j]; math.Abs(d) > xtol*(math.Abs(theta[j])+xtol) {
					small = false
				}
			}
			if small {
				return sum, true
			}
			var pred float64
			for i := range n {
				var s float64
				for j := range p {
					s += jac.At(i, j) * (trial[j] - theta[j])
				}
				pred -= s * (2*r[i] + s)
			}
			newSum := q.sse(trial)
			if pred > 0 && newSum < sum {
				rho := (sum - newSum) / pred
				rel := (sum - newSum) / sum
				copy(theta, trial)
				sum = newSum
				q.resid(r, theta)
				mu *= math.Max(1.0/3, 1-math.Pow(2*rho-1, 3))
				nu = 2
				if sum == 0 || rel <= ftol {
					return sum, true
				}
				linearise()
				continue
			}
		}
		mu *= nu
		nu *= 2
		if math.IsInf(mu, 0) || nu > 1e300 {
			// No step, however short, decreases SSE: rounding has the
			// last word, which is a minimum if the gradient nearly vanishes.
			return sum, gcos <= 1e-6
		}
	}
	return sum, false
}

// standardErrors returns sqrt(diag(s²·(JᵀJ)⁻¹)) at theta with s² = SSE/DOF,
// or NaN entries when DOF <= 0, the Jacobian is not finite, or JᵀJ is
// singular (condition number above 1e12 after scaling to unit diagonal:
// the central-difference Jacobian carries about 10 correct digits).
func (q *nlsProblem) standardErrors(theta []float64, sum float64) []float64 {
	n, p := len(q.xs), len(theta)
	se := make([]float64, p)
	for j := range se {
		se[j] = math.NaN()
	}
	dof := n - p
	if dof <= 0 {
		return se
	}
	jac := mat.NewDense(n, p, nil)
	if !q.jacobian(jac, theta) {
		return se
	}
	var jtj mat.SymDense
	jtj.SymOuterK(1, jac.T())
	d := make([]float64, p)
	for j := range p {
		d[j] = math.Sqrt(jtj.At(j, j))
		if d[j] == 0 {
			return se
		}
	}
	sc := mat.NewSymDense(p, nil)
	for i := range p {
		for j := i; j < p; j++ {
			sc.SetSym(i, j, jtj.At(i, j)/(d[i]*d[j]))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(sc) || ch.Cond() > maxCond {
		return se
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		return se
	}
	s2 := sum / float64(dof)
	for j := range p {
		se[j] = math.Sqrt(s2*inv.At(j, j)) / d[j]
	}
	return se
}

// solveIgnoringCondition solves with a Cholesky factorization and returns
// the solution even when gonum flags the system as near-singular.
func solveIgnoringCondition(ch *mat.Cholesky, dst *mat.VecDense, b mat.Vector) []float64 {
	if err := ch.SolveVecTo(dst, b); err != nil {
		if _, ok := err.(mat.Condition); !ok {
			return []float64{math.NaN()}
		}
	}
	return dst.RawVector().Data
}

// finite reports whether every value is neither NaN nor infinite.
func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
