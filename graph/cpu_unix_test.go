//go:build unix

package graph_test

import (
	"syscall"
	"time"
)

// cpuTime returns the user + system CPU time of the process and of its
// waited-for children (the git processes of the git importer). Benchmarks report
// it per op as well as wall time, because the machines we measure on are
// shared and wall time there mostly measures the neighbours.
func cpuTime() time.Duration {
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
