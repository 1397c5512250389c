package graph_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/holomem/holomem/graph"
	"github.com/holomem/holomem/internal/leaf/cputime"
)

// sink keeps benchmark results alive so the compiler cannot drop the work.
var sink []graph.Rank

var pathSink []graph.Path

// BenchmarkPersonalizedPageRank_100k times one query on a 100k-node graph
// with 10 edges per node, seeded by 10 nodes, with the default iterations:
// over the whole graph, restricted to 2 hops, and returning the top 100.
func BenchmarkPersonalizedPageRank_100k(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 100_000
	g := graph.New(randomGraph(rng, n, 10), graph.DefaultKindWeights())
	seeds := make([]map[int64]float64, 16)
	for i := range seeds {
		seeds[i] = map[int64]float64{}
		for range 10 {
			seeds[i][rng.Int64N(n)+1] = 0.5 + rng.Float64()/2
		}
	}
	for _, o := range []struct {
		name string
		opts graph.PPROptions
	}{
		{"Full", graph.PPROptions{}},
		{"Full_Top100", graph.PPROptions{Limit: 100}},
		{"Hops2_Top100", graph.PPROptions{Hops: 2, Limit: 100}},
	} {
		b.Run(o.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			cpu0 := cputime.Process()
			for b.Loop() {
				sink = graph.PersonalizedPageRank(g, seeds[i%len(seeds)], o.opts)
				i++
			}
			if cpu := cputime.Process() - cpu0; cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
		})
	}
}

// BenchmarkNew_100k times building a 100k-node, 1M-edge graph.
func BenchmarkNew_100k(b *testing.B) {
	edges := randomGraph(rand.New(rand.NewPCG(1, 2)), 100_000, 10)
	b.ReportAllocs()
	cpu0 := cputime.Process()
	for b.Loop() {
		g := graph.New(edges, graph.DefaultKindWeights())
		sink = []graph.Rank{{ID: int64(g.Len())}}
	}
	if cpu := cputime.Process() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

func BenchmarkChain(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		g := graph.New(randomGraph(rand.New(rand.NewPCG(1, 2)), n, 3), nil)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				pathSink = graph.Chain(g, 1, []string{"causal"}, graph.Both, 3)
			}
		})
	}
}
