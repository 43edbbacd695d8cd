//go:build unix

package model_test

import "syscall"

// cpuNanos is the process's user + system CPU time: benchmarks report it
// per operation beside wall time, which a loaded machine inflates.
func cpuNanos() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return -1
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
