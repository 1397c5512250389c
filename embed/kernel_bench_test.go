package embed

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/holomem/holomem/internal/cputime"
)

var sinkF []float32

// BenchmarkMatmul measures one 384x1536 product over 10 token rows and
// reports GFLOP/s of process CPU time (robust to a busy machine).
func BenchmarkMatmul(b *testing.B) {
	for _, ks := range []*kernels{simdKernels, genericKernels} {
		if ks == nil {
			continue
		}
		for _, rows := range []int{10, 60, 96} {
			b.Run(ks.name+"/rows="+strconv.Itoa(rows), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 2))
				in, out := 384, 1536
				x := randSlice(rng, rows*in)
				w := randSlice(rng, out*in)
				p := make([]float32, packedLen(out, in))
				packPanels(p, w, out, in)
				bias := randSlice(rng, out)
				dst := make([]float32, rows*out)
				t0 := cputime.Process().Seconds()
				b.ResetTimer()
				for range b.N {
					gemm(ks, dst, out, x, in, rows, in, p, out, bias, epStore, 1)
				}
				cpu := cputime.Process().Seconds() - t0
				sinkF = dst
				b.ReportMetric(float64(2*rows*in*out)*float64(b.N)/cpu/1e9, "GFLOP/s-cpu")
			})
		}
	}
}
