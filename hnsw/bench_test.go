package hnsw_test

import (
	"fmt"
	"testing"

	"github.com/holomem/holomem/hnsw"
	"github.com/holomem/holomem/vec"
)

// Global sink keeps the compiler from discarding benchmarked work.
var sinkResults []vec.Result

type benchSet struct {
	ids     []int64
	vecs    [][]float32
	queries [][]float32
	exact   [][]int64
}

func newBenchSet(dist string, n, nq int) benchSet {
	var all [][]float32
	switch dist {
	case "clustered":
		all = clustered(11, n+nq, 384, max(n/10, 1), 0.75)
	default:
		all = uniform(11, n+nq, 384)
	}
	s := benchSet{ids: seqIDs(n), vecs: all[:n], queries: all[n:]}
	s.exact = exactTopK(s.ids, s.vecs, s.queries, 10)
	return s
}

// BenchmarkGraph_Build times a full Build of 10k x 384 vectors (ns/op is the
// whole build) with 1 and 2 workers.
func BenchmarkGraph_Build(b *testing.B) {
	for _, dist := range []string{"clustered", "uniform"} {
		s := newBenchSet(dist, 10_000, 0)
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("N=10000/%s/workers=%d", dist, workers), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					g, _ := hnsw.New(384, hnsw.Config{})
					if err := g.Build(b.Context(), s.ids, s.vecs, workers); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkGraph_Search times one top-10 query (ns/op) on a 10k x 384
// graph for several ef, and reports recall@10 against an exact scan and the
// mean number of vectors compared.
func BenchmarkGraph_Search(b *testing.B) {
	for _, dist := range []string{"clustered", "uniform"} {
		s := newBenchSet(dist, 10_000, 200)
		g, _ := hnsw.New(384, hnsw.Config{})
		if err := g.Build(b.Context(), s.ids, s.vecs, 2); err != nil {
			b.Fatal(err)
		}
		for _, ef := range []int{16, 64, 128, 256} {
			b.Run(fmt.Sprintf("N=10000/%s/ef=%d", dist, ef), func(b *testing.B) {
				ann := make([][]int64, len(s.queries))
				visits := 0
				for i, q := range s.queries {
					res, v, _ := g.SearchStats(q, 10, ef)
					ann[i] = resultIDs(res)
					visits += v
				}
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					sinkResults, _ = g.Search(s.queries[i%len(s.queries)], 10, ef)
					i++
				}
				b.ReportMetric(hnsw.Recall(ann, s.exact), "recall@10")
				b.ReportMetric(float64(visits)/float64(len(s.queries)), "visits/op")
			})
		}
	}
}
