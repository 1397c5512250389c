package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Internal tests: the assembly kernels against the portable loops.

func randVec(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

func TestQuantize(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	v := randVec(rng, 384)
	Normalize(v)
	q := make([]int8, len(v))
	s := quantize(q, v)
	for i := range v {
		if d := math.Abs(float64(v[i] - s*float32(q[i]))); d > float64(s)/2+1e-7 {
			t.Fatalf("element %d: %v vs %v*%d", i, v[i], s, q[i])
		}
	}
	z := make([]float32, 4)
	if got := quantize(q[:4], z); got != 0 {
		t.Fatalf("zero vector scale %v", got)
	}
}
