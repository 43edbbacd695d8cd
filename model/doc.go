// Package model is wattscale's science: the roofline-inspired energy model of
// transformer fine-tuning (Zoubeirou a Mayaki, arXiv 2606.23546) with its
// proxies, roofline decomposition, speedup laws and log-linear scaling law,
// the hardware table and the model presets, and the estimate that turns a
// request into energy, time, power, CO2e and cost with an interval.
//
// The package uses the standard library only: no I/O, no gonum, no
// syscall/js. Tables (hardware, presets) are returned fresh by constructor
// functions and calibrations are parsed from JSON the caller supplies, so
// there is no package-level mutable state.
//
// Units are in names: EnergyKWh, PowerW, TimeS, BandwidthGBs. FLOPs are
// floating-point operations (not per second), bytes are bytes.
package model
