package vec_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/holomem/holomem/vec"
)

// Global sinks keep the compiler from discarding benchmarked work.
var (
	sinkF32     float32
	sinkI32     int32
	sinkResults []vec.Result
)

func BenchmarkDot384(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	x, y := randUnit(rng, 384), randUnit(rng, 384)
	b.ReportAllocs()
	for b.Loop() {
		sinkF32 += vec.Dot(x, y)
	}
}

func BenchmarkDotInt8_384(b *testing.B) {
	x, y := make([]int8, 384), make([]int8, 384)
	for i := range x {
		x[i], y[i] = int8(i), int8(-i)
	}
	b.ReportAllocs()
	for b.Loop() {
		sinkI32 += vec.DotInt8(x, y)
	}
}

func benchMatrix(b *testing.B, n int) (*vec.Matrix, [][]float32) {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	m := vec.NewMatrix(384)
	for i := range n {
		if err := m.Add(int64(i), randUnit(rng, 384)); err != nil {
			b.Fatal(err)
		}
	}
	m.EnableInt8()
	qs := make([][]float32, 64)
	for i := range qs {
		qs[i] = randUnit(rng, 384)
	}
	return m, qs
}

// BenchmarkMatrix_Search measures exact top-10 at 10k and 100k x 384 with
// the float32 scan and the int8 pre-selection + rescore, for 1 and 2 workers.
func BenchmarkMatrix_Search(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		m, qs := benchMatrix(b, n)
		for _, workers := range []int{1, 2} {
			m.SetWorkers(workers)
			b.Run(fmt.Sprintf("N=%d/float32/workers=%d", n, workers), func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					sinkResults, _ = m.Search(qs[i%len(qs)], 10, nil)
					i++
				}
			})
			b.Run(fmt.Sprintf("N=%d/int8/workers=%d", n, workers), func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					sinkResults, _ = m.SearchInt8(qs[i%len(qs)], 10, 0, nil)
					i++
				}
			})
		}
	}
}
