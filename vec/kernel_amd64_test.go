//go:build !purego

package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestDot_KernelsAgree(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2/FMA on this CPU")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 200; n++ {
		a, b := randVec(rng, n), randVec(rng, n)
		got, want := dotAVX2(a, b), DotGeneric(a, b)
		// Bound by the sum of |a_i b_i| times a few ulps: both paths round
		// differently but must agree to float32 precision.
		var mag float64
		for i := range a {
			mag += math.Abs(float64(a[i] * b[i]))
		}
		if d := math.Abs(float64(got - want)); d > 1e-5*mag+1e-6 {
			t.Fatalf("n=%d: avx2 %v, generic %v (|a||b| sum %v)", n, got, want, mag)
		}
	}
}

func TestDotInt8_KernelsAgree(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2 on this CPU")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= 300; n++ {
		a, b := make([]int8, n), make([]int8, n)
		for i := range a {
			a[i], b[i] = int8(rng.IntN(256)-128), int8(rng.IntN(256)-128)
		}
		if got, want := dotInt8AVX2(a, b), dotInt8Generic(a, b); got != want {
			t.Fatalf("n=%d: avx2 %d, generic %d", n, got, want)
		}
	}
}
