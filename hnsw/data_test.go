package hnsw_test

import (
	stdcontext "context"
	"testing"

	"math/rand/v2"

	"github.com/holomem/holomem/vec"
)

// clustered returns n unit vectors around centres random centres: each is a
// centre plus a random direction scaled by noise (0.75 gives cosine ~0.8 to
// its centre), like sentence embeddings that bunch by topic.
func clustered(seed uint64, n, dim, centres int, noise float64) [][]float32 {
	rng := rand.New(rand.NewPCG(seed, 1))
	cs := make([][]float32, centres)
	for i := range cs {
		cs[i] = unit(rng, dim)
	}
	out := make([][]float32, n)
	for i := range out {
		c := cs[rng.IntN(centres)]
		d := unit(rng, dim)
		v := make([]float32, dim)
		for j := range v {
			v[j] = c[j] + float32(noise)*d[j]
		}
		vec.Normalize(v)
		out[i] = v
	}
	return out
}

func uniform(seed uint64, n, dim int) [][]float32 {
	rng := rand.New(rand.NewPCG(seed, 2))
	out := make([][]float32, n)
	for i := range out {
		out[i] = unit(rng, dim)
	}
	return out
}

func unit(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for j := range v {
		v[j] = float32(rng.NormFloat64())
	}
	vec.Normalize(v)
	return v
}

// seqIDs returns ids that are not 0..n-1, so slot/id mix-ups show.
func seqIDs(n int) []int64 {
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(i)*7 + 1000
	}
	return ids
}

// exactTopK ranks with vec.Matrix, the reference the index is judged by.
func exactTopK(ids []int64, vecs [][]float32, queries [][]float32, k int) [][]int64 {
	m := vec.NewMatrix(len(vecs[0]))
	for i := range ids {
		if err := m.Add(ids[i], vecs[i]); err != nil {
			panic(err)
		}
	}
	out := make([][]int64, len(queries))
	for i, q := range queries {
		res, err := m.Search(q, k, nil)
		if err != nil {
			panic(err)
		}
		for _, r := range res {
			out[i] = append(out[i], r.ID)
		}
	}
	return out
}

type context = stdcontext.Context

func contextWithCancel(t *testing.T) (context, func()) {
	return stdcontext.WithCancel(t.Context())
}
