package embed

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestKernels_agree(t *testing.T) {
	if simdKernels == nil {
		t.Skip("no SIMD kernels on this CPU or build")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 8, 16, 64, 384, 1536} {
		ws, xs := n+3, n+5
		w := randSlice(rng, 4*ws)
		x := randSlice(rng, 3*xs)
		var a, b [12]float32
		simdKernels.dot4x3(w, ws, x, xs, n, &a)
		genericKernels.dot4x3(w, ws, x, xs, n, &b)
		for i := range a {
			if !close32(a[i], b[i], n) {
				t.Fatalf("dot4x3 n=%d [%d]: simd %g, go %g", n, i, a[i], b[i])
			}
		}
		var c, d [4]float32
		simdKernels.dot4x1(w, ws, x, n, &c)
		genericKernels.dot4x1(w, ws, x, n, &d)
		for i := range c {
			if !close32(c[i], d[i], n) {
				t.Fatalf("dot4x1 n=%d [%d]: simd %g, go %g", n, i, c[i], d[i])
			}
		}
		for _, m := range []int{n, n + 3} {
			if m > len(x) {
				continue
			}
			if a, b := simdKernels.dot(w[:m], x), genericKernels.dot(w[:m], x); !close32(a, b, m) {
				t.Fatalf("dot n=%d: simd %g, go %g", m, a, b)
			}
		}
	}
}

func TestKernels_gelu(t *testing.T) {
	if simdKernels == nil {
		t.Skip("no SIMD kernels on this CPU or build")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	x := randSlice(rng, 1003)
	for i := range x {
		x[i] *= 4
	}
	x[0], x[1], x[2] = 0, 100, -100
	a := append([]float32(nil), x...)
	b := append([]float32(nil), x...)
	simdKernels.gelu(a)
	genericKernels.gelu(b)
	for i := range x {
		want := 0.5 * float64(x[i]) * (1 + math.Erf(float64(x[i])/math.Sqrt2))
		if math.Abs(float64(a[i])-want) > 1e-5*(1+math.Abs(want)) || math.Abs(float64(b[i])-want) > 1e-5*(1+math.Abs(want)) {
			t.Fatalf("gelu(%g): simd %g, go %g, want %g", x[i], a[i], b[i], want)
		}
	}
}

func randSlice(rng *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(rng.NormFloat64())
	}
	return s
}

func close32(a, b float32, n int) bool {
	return math.Abs(float64(a-b)) <= 1e-5*float64(n+1)
}
