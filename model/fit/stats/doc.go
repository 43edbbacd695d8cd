// Package stats is the statistics behind wattscale's calibrations:
// ordinary and non-linear least squares, group-aware splits and
// cross-validation. It knows nothing about energy, GPUs or calibrations;
// package fit builds those on it. It is the only package of the project,
// with fit, that imports gonum, which is why the calculator's WebAssembly
// (which needs neither) stays small.
//
// # Ordinary least squares
//
// OLS fits y = Xβ + e for an n×p design X (the caller adds the column of
// ones for an intercept). Each column is scaled to unit length, X_s = X·D⁻¹,
// and factorised X_s = QR (Householder), so that
//
//	β̂ = D⁻¹R⁻¹Qᵀy,  (XᵀX)⁻¹ = A·Aᵀ with A = D⁻¹R⁻¹.
//
// The 2-norm condition number of X_s (from its singular values) above 10¹²
// is reported as a rank-deficient design, naming the column whose |Rⱼⱼ| is
// smallest: the one most nearly a combination of the columns before it.
// With residuals e = y − Xβ̂, SSE = Σeᵢ², DOF = n − p:
//
//	σ̂² = SSE/DOF                              (Sigma = σ̂)
//	SE(β̂ⱼ) = sqrt(σ̂²·[(XᵀX)⁻¹]ⱼⱼ)              (classical)
//	R² = 1 − SSE/Σ(yᵢ − ȳ)²,  adj R² = 1 − (1 − R²)(n − 1)/DOF,  RMSE = sqrt(SSE/n)
//
// The robust standard errors are sandwiches (XᵀX)⁻¹·M·(XᵀX)⁻¹ with the
// rows qᵢ of the thin Q (so that xᵢ = qᵢ·R·D, and the leverage hᵢᵢ = |qᵢ|²):
//
//	HC3:  M = Σ xᵢxᵢᵀ·eᵢ²/(1 − hᵢᵢ)²
//	CR1:  M = c·Σ_g s_g s_gᵀ,  s_g = Σ_{i∈g} xᵢeᵢ,  c = G/(G − 1)·(n − 1)/(n − p)
//
// for G clusters g (Cameron and Miller, "A Practitioner's Guide to
// Cluster-Robust Inference", J. Human Resources 2015; CR1 is Stata's
// default small-sample correction). t statistics, p-values and 95 %
// intervals use Student's t with DOF degrees of freedom; a new observation
// at x has the prediction SE σ̂·sqrt(1 + xᵀ(XᵀX)⁻¹x). The variance inflation
// factor of column j is TSSⱼ·[(XᵀX)⁻¹]ⱼⱼ (centred TSS when the design has
// a constant column).
//
// # Non-linear least squares
//
// NLS minimises Σ(f(xᵢ, θ) − yᵢ)² inside optional box bounds by a projected
// Levenberg–Marquardt method (Marquardt's diagonal scaling, Nielsen's damping
// update, an active set for parameters held on a bound) with a central-
// difference Jacobian J. The asymptotic standard errors are
// sqrt(diag(s²·(JᵀJ)⁻¹)) with s² = SSE/(n − p) at θ̂.
//
// # Splits and cross-validation
//
// KFold, GroupKFold and GroupShuffleSplits partition row indices, the group
// variants keeping all rows of a group (a workload: every GPU count and
// strategy of one model on one dataset) on the same side, from a seeded
// PCG generator so that the same seed gives the same splits. GroupCV runs a
// fit on each training side and scores its predictions of the held-out
// side in ln units: with at least 5 groups, 20 repeated group-disjoint
// 70/30 splits (the roofline paper's protocol), reporting the median R²
// and RMSE over splits; with fewer, leave-one-group-out. The interval
// coverage counts held-out rows with |ln ŷ − ln y| ≤ z_{(1+level)/2}·σ̂ of
// their split, z the standard normal quantile (NormalQuantile, via
// math.Erfinv).
package stats
