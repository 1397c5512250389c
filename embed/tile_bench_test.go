package embed

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/holomem/holomem/internal/leaf/cputime"
)

// BenchmarkGemmTile measures the kernel alone on one panel held in L1
// (GFLOP/s of CPU time): the ceiling the products can reach.
func BenchmarkGemmTile(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, ks := range simdKernels {
		for _, kk := range []int{64, 384} {
			b.Run(ks.name+"/k="+strconv.Itoa(kk), func(b *testing.B) {
				a := randSlice(rng, tileM*kk)
				p := randSlice(rng, kk*tileN)
				c := make([]float32, tileM*tileN)
				t0 := cputime.Process().Seconds()
				b.ResetTimer()
				for range b.N {
					ks.gemmTile(a, kk, p, kk, c, tileN, nil, false, tileM)
				}
				cpu := cputime.Process().Seconds() - t0
				b.ReportMetric(float64(2*tileM*tileN*kk)*float64(b.N)/cpu/1e9, "GFLOP/s-cpu")
			})
		}
	}
}
