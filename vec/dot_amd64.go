//go:build !purego

package vec

import "golang.org/x/sys/cpu"

// hasAVX2 reports whether the assembly kernels may run. It is a variable so
// tests can compare both paths on the same machine.
var hasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func dotAVX2(a, b []float32) float32

//go:noescape
func dotInt8AVX2(a, b []int8) int32

func dot(a, b []float32) float32 {
	if hasAVX2 {
		return dotAVX2(a, b)
	}
	return DotGeneric(a, b)
}

func dotInt8(a, b []int8) int32 {
	if hasAVX2 {
		return dotInt8AVX2(a, b)
	}
	return dotInt8Generic(a, b)
}
