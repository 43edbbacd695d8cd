// Package fit turns measurements into calibrations: the pipeline
// CSV → rows → fits → calibration that `go run ./site fit`, `make fit` and
// the browser refit (fit.wasm) all run through one entry point, Calibrate.
// The statistics it uses (OLS, NLS, splits, cross-validation) are in the
// subpackage stats, whose documentation carries the maths.
//
// The stages (reading and the table stage are also callable on their own):
//
//   - reading: ReadMeasurements takes the project's measurement schema
//     (model.ParseMeasurements) or the Zeus power trace (ReadZeus), and
//     ReadScaling the published speedup and energy figures;
//   - KindLaw: the roofline paper's log-linear law
//     ln E = ln κ + α_C ln C + α_M ln M + α_η ln η + Σ ln Ψ_s + Σ ln H_gpu
//     by OLS with cluster-robust standard errors by workload group, the same
//     law without η, and grouped cross-validation of both; η is the
//     measured T₁/(N·T_N) where the eta column gives it, else the one the
//     speedup curves model;
//   - KindPaper: the paper's specification exactly (no hardware terms, η
//     measured on every multi-GPU row);
//   - KindRoofline: the roofline time-and-power model (speedup curves and α_η
//     from the published scaling points by NLS and OLS, the time model from
//     single-GPU rows), then, when validation runs are given, the table
//     stage (FitTable): tensor-precision and communication constants by
//     Huber-weighted NLS on the published validation runs (the site's
//     validation page).
//
// Every calibration records its envelope (the ranges of the rows it was
// fitted on), its interval (the cross-validated RMSE of ln energy) and
// its fit statistics. Data that cannot be fitted (a constant response, a
// design with nothing that varies) are refused with an error that says so.
package fit
