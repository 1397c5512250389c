//go:build unix

// Package cputime measures the CPU time a process has used. Benchmarks
// report it beside wall time because the machines holomem is measured on are
// shared, and there wall time mostly measures the neighbours.
package cputime

import (
	"syscall"
	"time"
)

// Process returns the user + system CPU time of the process and of its
// waited-for children (such as the git processes of the git importer), or 0
// when the platform cannot tell.
func Process() time.Duration {
	var t time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) != nil {
			return 0
		}
		t += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return t
}
