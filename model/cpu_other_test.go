//go:build !unix

package model_test

// cpuNanos is not available here (js/wasm): benchmarks report wall time only.
func cpuNanos() int64 { return -1 }
