package vec

import "math"

// quantize writes v scaled to int8 into dst and returns the scale s such that
// v[i] ≈ s*dst[i]. The scale is per vector (max |v[i]| / 127), which keeps
// the relative error of unit vectors near 1/254 per element.
func quantize(dst []int8, v []float32) float32 {
	var m float32
	for _, x := range v {
		m = max(m, float32(math.Abs(float64(x))))
	}
	if m == 0 {
		clear(dst)
		return 0
	}
	inv := 127 / m
	for i, x := range v {
		dst[i] = int8(math.Round(float64(x * inv)))
	}
	return m / 127
}

// DotInt8 returns the inner product of two int8 vectors as int32, using the
// AVX2 kernel when available. It panics if the lengths differ.
func DotInt8(a, b []int8) int32 {
	if len(a) != len(b) {
		panic("vec: DotInt8 of different lengths")
	}
	return dotInt8(a, b)
}
