package index_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/hnsw"
	"github.com/holomem/holomem/index"
	"github.com/holomem/holomem/internal/leaf/cputime"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
)

// BenchmarkGraphPersist times what the stored graph costs on SQLite over N
// clustered vectors: a build with its persist (Build), a fresh process's
// load of the stored graph (Load: vectors, the graph's layers, canary),
// and then reports the loaded graph's recall@10 against an exact scan and
// its median search latency, so a change to where the graph is stored can
// be checked against both. cpu_ms/op is the process's CPU time per op:
// on a shared machine wall time mostly measures the neighbours.
//
//	go test -run '^$' -bench BenchmarkGraphPersist -benchtime 3x ./index/
func BenchmarkGraphPersist(b *testing.B) {
	const n = 5000
	emb := &fixtureEmbedder{dim: indexDim, vecs: map[string][]float32{}}
	opts := retrieve.Options{Embedder: emb, ExactBelow: 1}
	m, s := testutil.MustOpenMemory(b, opts)
	vs := clusteredVectors(1, n, indexDim, n/30)
	facts := make([]*holomem.Fact, n)
	for i, v := range vs {
		text := fmt.Sprintf("note %d", i)
		emb.vecs[text] = v
		facts[i] = &holomem.Fact{Content: text, Embedding: v, ModelID: emb.ModelID()}
	}
	if _, err := m.Import(b.Context(), facts); err != nil {
		b.Fatal(err)
	}
	b.Run("Build", func(b *testing.B) {
		cpu := cputime.Process()
		for b.Loop() {
			if _, err := m.Index().Build(b.Context(), nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64((cputime.Process()-cpu).Milliseconds())/float64(b.N), "cpu_ms/op")
	})
	b.Run("Load", func(b *testing.B) {
		var last *retrieve.Memory
		cpu := cputime.Process()
		for b.Loop() {
			m2, err := retrieve.New(s, opts)
			if err != nil {
				b.Fatal(err)
			}
			if err := m2.Index().Load(b.Context()); err != nil {
				b.Fatal(err)
			}
			if last != nil {
				last.Close()
			}
			last = m2
		}
		b.ReportMetric(float64((cputime.Process()-cpu).Milliseconds())/float64(b.N), "cpu_ms/op")
		defer last.Close()
		var ann, exact [][]int64
		var took []time.Duration
		modes := map[index.Mode]int{}
		for i := 0; i < n; i += 25 {
			q := facts[i].Embedding
			start := time.Now()
			got, mode, err := last.Index().SearchMode(b.Context(), holomem.DefaultNamespace, q, 10)
			took = append(took, time.Since(start))
			if err != nil {
				b.Fatal(err)
			}
			modes[mode]++
			want, _ := index.ExactSearch(last.Index(), holomem.DefaultNamespace, q, 10)
			ann, exact = append(ann, resIDs(got)), append(exact, resIDs(want))
		}
		if modes[index.ModeHNSW] != len(ann) {
			b.Fatalf("modes %v: the stored graph was not used", modes)
		}
		slices.Sort(took)
		b.ReportMetric(hnsw.Recall(ann, exact), "recall@10")
		b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "search_p50_ms")
	})
}
