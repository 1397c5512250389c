package embed

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/holomem/holomem/internal/leaf/cputime"
)

var sinkF []float32

// BenchmarkMatmul measures the up (384 -> 1536) and down (1536 -> 384)
// products of MiniLM over 10-96 token rows and
// reports GFLOP/s of process CPU time (robust to a busy machine).
func BenchmarkMatmul(b *testing.B) {
	for _, ks := range allKernels() {
		for _, sh := range [][3]int{{10, 384, 1536}, {60, 384, 1536}, {96, 384, 1536}, {60, 1536, 384}} {
			rows, in, out := sh[0], sh[1], sh[2]
			b.Run(ks.name+"/rows="+strconv.Itoa(rows)+"/in="+strconv.Itoa(in), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 2))
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
