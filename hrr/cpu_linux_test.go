//go:build linux

package hrr_test

import "syscall"

// threadCPU returns the CPU time the calling OS thread has used, so
// benchmarks can report work done independently of how loaded the machine
// is. The caller must hold runtime.LockOSThread.
func threadCPU() int64 {
	var ru syscall.Rusage
	const rusageThread = 1
	if syscall.Getrusage(rusageThread, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
