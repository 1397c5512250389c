package index

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/holomem/holomem/hnsw"
	"github.com/holomem/holomem/vec"
)

// sinkResults keeps the compiler from discarding benchmarked searches.
var sinkResults []vec.Result

// benchClustered returns n seeded unit vectors of dim around n/10 centres
// (cosine about 0.8 to their centre), like sentence embeddings by topic.
func benchClustered(seed uint64, n, dim int) [][]float32 {
	r := rand.New(rand.NewPCG(seed, 3))
	unit := func() []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		vec.Normalize(v)
		return v
	}
	cs := make([][]float32, max(n/10, 1))
	for i := range cs {
		cs[i] = unit()
	}
	out := make([][]float32, n)
	for i := range out {
		c, d := cs[r.IntN(len(cs))], unit()
		v := make([]float32, dim)
		for j := range v {
			v[j] = c[j] + 0.75*d[j]
		}
		vec.Normalize(v)
		out[i] = v
	}
	return out
}

// BenchmarkSemanticSearch times one top-10 semantic search through the
// index's search path (searchSpace) over N clustered 384-d vectors:
// an exact float32 scan, the int8 pre-selection with float rescoring for
// several r, and the HNSW graph (plus delta merge and rescoring). It
// reports p50_ms (median latency) and recall@10 against the exact scan.
// N=100000 builds a graph of 100k vectors first (minutes on 2 cores);
// -short runs N=10000 only.
//
//	go test -run '^$' -bench BenchmarkSemanticSearch -benchtime 200x ./retrieve/
func BenchmarkSemanticSearch(b *testing.B) {
	const dim, nq = 384, 200
	for _, n := range []int{10_000, 100_000} {
		if n > 10_000 && testing.Short() {
			continue
		}
		all := benchClustered(11, n+nq, dim)
		queries := all[n:]
		s := &Index{dim: dim, cfg: config{exactBelow: 1, rescore: int8Rescore, canaryMin: DefaultCanaryMin, workers: 2}}
		sp := newSpace(dim)
		ids := make([]int64, n)
		for i, v := range all[:n] {
			ids[i] = int64(i + 1)
			if err := sp.mat.Add(ids[i], v); err != nil {
				b.Fatal(err)
			}
		}
		exact := make([][]int64, nq)
		for i, q := range queries {
			res, err := sp.mat.Search(q, 10, nil)
			if err != nil {
				b.Fatal(err)
			}
			exact[i] = resultIDs(res)
		}
		run := func(name string, search func(q []float32) ([]vec.Result, error)) {
			b.Run(fmt.Sprintf("N=%d/%s", n, name), func(b *testing.B) {
				got := make([][]int64, nq)
				for i, q := range queries {
					res, err := search(q)
					if err != nil {
						b.Fatal(err)
					}
					got[i] = resultIDs(res)
				}
				b.ReportAllocs()
				var took []time.Duration
				i := 0
				for b.Loop() {
					start := time.Now()
					sinkResults, _ = search(queries[i%nq])
					took = append(took, time.Since(start))
					i++
				}
				slices.Sort(took)
				b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50_ms")
				b.ReportMetric(hnsw.Recall(got, exact), "recall@10")
			})
		}
		run("exact", func(q []float32) ([]vec.Result, error) {
			res, _, err := s.searchSpace(sp, q, 10)
			return res, err
		})
		sp.mat.EnableInt8()
		for _, r := range []int{2, 4, 8} {
			run(fmt.Sprintf("int8/r=%d", r), func(q []float32) ([]vec.Result, error) {
				return sp.mat.SearchInt8(q, 10, r, nil)
			})
		}
		_, vecs := sp.mat.Snapshot()
		start := time.Now()
		g, _, err := s.buildCanonical(b.Context(), "bench", ids, vecs, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("N=%d: graph built in %v (%d links)", n, time.Since(start), g.EdgeCount())
		sp.graph = g
		sp.reconcile()
		run("hnsw", func(q []float32) ([]vec.Result, error) {
			res, mode, err := s.searchSpace(sp, q, 10)
			if mode != ModeHNSW {
				b.Fatalf("mode %s", mode)
			}
			return res, err
		})
	}
}
