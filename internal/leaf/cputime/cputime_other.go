//go:build !unix

// Package cputime measures the CPU time a process has used. Benchmarks
// report it beside wall time because the machines holomem is measured on are
// shared, and there wall time mostly measures the neighbours.
package cputime

import "time"

// Process returns 0: CPU time is not measured on this platform.
func Process() time.Duration { return 0 }
