// Package meter records the energy of a command: board power of NVIDIA GPUs
// sampled through nvidia-smi, CPU package energy from RAPL counters, and
// stage markers the command prints, all on one clock; it integrates them per
// stage and writes the raw log, a summary and rows in wattscale's
// measurement schema (model.Measurement) ready for the fitter.
//
// The phases, in order: Record (list GPUs, sample, run the command, stop),
// Summarize (integrate per GPU and stage), Rows (measurement rows, checked
// with the schema's parser), and the writers (WritePower, WriteStages,
// WriteJSON, AppendRows).
//
// Integration: each GPU's power is the piecewise-linear function through its
// readings, integrated exactly (trapezoid rule); a reading without a number
// or a missing line is bridged by the straight line between its neighbours,
// and stretches longer than three sampling intervals are reported. A stage's
// energy is the integral between its boundaries (the power interpolated at
// the boundary), so the stages add up to the run. RAPL counters are unwrapped
// with max_energy_range_uj and read by linear interpolation at the
// boundaries. The idle baseline is reported, never subtracted.
package meter
