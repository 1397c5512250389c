//go:build !linux

package hrr_test

// threadCPU is unavailable here; benchmarks then report 0 CPU time.
func threadCPU() int64 { return 0 }
