package embed

import "github.com/holomem/holomem/vec"

// kernels are the inner loops of the matrix products. The SIMD set is
// written in Go assembly (AVX2+FMA, amd64); the generic set is plain Go and
// is used when the CPU lacks those features, on other architectures, and
// when Options.NoSIMD asks for it. Both compute the same sums; they differ
// only in the order of float32 additions.
type kernels struct {
	name string
	// dot4x3 sets out[4*j+i] = dot(w[i*ws:i*ws+n], x[j*xs:j*xs+n]) for
	// i < 4, j < 3. n must be a multiple of 8.
	dot4x3 func(w []float32, ws int, x []float32, xs int, n int, out *[12]float32)
	// dot4x1 sets out[i] = dot(w[i*ws:i*ws+n], x[:n]) for i < 4. n must be a
	// multiple of 8.
	dot4x1 func(w []float32, ws int, x []float32, n int, out *[4]float32)
	// dot returns the dot product of a and b[:len(a)] for any length.
	dot func(a, b []float32) float32
	// gelu applies the exact (erf) GELU in place.
	gelu func(x []float32)
}

var genericKernels = &kernels{
	name:   "go",
	dot4x3: dot4x3Go,
	dot4x1: dot4x1Go,
	dot:    vec.DotGeneric,
	gelu:   gelu,
}

func dot4x3Go(w []float32, ws int, x []float32, xs int, n int, out *[12]float32) {
	w0, w1, w2, w3 := w[:n], w[ws:ws+n], w[2*ws:2*ws+n], w[3*ws:3*ws+n]
	for j := range 3 {
		xj := x[j*xs : j*xs+n]
		var s0, s1, s2, s3 float32
		for k, v := range xj {
			s0 += w0[k] * v
			s1 += w1[k] * v
			s2 += w2[k] * v
			s3 += w3[k] * v
		}
		out[4*j], out[4*j+1], out[4*j+2], out[4*j+3] = s0, s1, s2, s3
	}
}

func dot4x1Go(w []float32, ws int, x []float32, n int, out *[4]float32) {
	w0, w1, w2, w3 := w[:n], w[ws:ws+n], w[2*ws:2*ws+n], w[3*ws:3*ws+n]
	var s0, s1, s2, s3 float32
	for k, v := range x[:n] {
		s0 += w0[k] * v
		s1 += w1[k] * v
		s2 += w2[k] * v
		s3 += w3[k] * v
	}
	out[0], out[1], out[2], out[3] = s0, s1, s2, s3
}

// defaultKernels returns the fastest kernel set this CPU supports.
func defaultKernels() *kernels {
	if simdKernels != nil {
		return simdKernels
	}
	return genericKernels
}
