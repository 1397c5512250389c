package annbench

import (
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/holomem/holomem/vec"
)

// chunk is how many vectors share one random stream, so generation can run
// in parallel and still give the same data for a seed.
const chunk = 4096

// Synthetic returns n unit vectors of length dim. dist "uniform" draws
// directions uniformly on the sphere; "clustered" picks one of centres
// random unit centres and adds a random direction scaled by noise (0.75
// gives cosine ~0.8 to the centre, ~0.64 between two members), like
// sentence embeddings that bunch by topic. The output depends only on the
// arguments.
func Synthetic(dist string, n, dim, centres int, noise float64, seed uint64) [][]float32 {
	var cs [][]float32
	if dist == "clustered" {
		rng := rand.New(rand.NewPCG(seed, 0xc0ffee))
		cs = make([][]float32, max(centres, 1))
		for i := range cs {
			cs[i] = randUnit(rng, make([]float32, dim))
		}
	}
	flat := make([]float32, n*dim)
	out := make([][]float32, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for c := 0; c*chunk < n; c++ {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			rng := rand.New(rand.NewPCG(seed, uint64(c)+1))
			d := make([]float32, dim)
			for i := c * chunk; i < min(n, (c+1)*chunk); i++ {
				v := flat[i*dim : (i+1)*dim : (i+1)*dim]
				randUnit(rng, v)
				if cs != nil {
					copy(d, v)
					copy(v, cs[rng.IntN(len(cs))])
					for j := range v {
						v[j] += float32(noise) * d[j]
					}
					vec.Normalize(v)
				}
				out[i] = v
			}
		})
	}
	wg.Wait()
	return out
}

func randUnit(rng *rand.Rand, v []float32) []float32 {
	for j := range v {
		v[j] = float32(rng.NormFloat64())
	}
	vec.Normalize(v)
	return v
}
