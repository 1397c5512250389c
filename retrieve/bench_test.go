package retrieve_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/bench/synth"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/sqlite"
)

var (
	benchSink  any
	benchMu    sync.Mutex
	benchStore = map[int]*retrieve.Memory{}
)

// benchMemory returns a memory over n synthetic facts, built once per n
// for the whole benchmark run (a 100k store takes a few seconds to fill).
func benchMemory(b *testing.B, n int) *retrieve.Memory {
	b.Helper()
	benchMu.Lock()
	defer benchMu.Unlock()
	if m := benchStore[n]; m != nil {
		return m
	}
	dir, err := os.MkdirTemp("", "holomem-bench")
	if err != nil {
		b.Fatal(err)
	}
	s, err := sqlite.Open(b.Context(), filepath.Join(dir, "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	m, err := retrieve.New(s, retrieve.Options{})
	if err != nil {
		b.Fatal(err)
	}
	const batch = 1000
	for start := 0; start < n; start += batch {
		facts := make([]*holomem.Fact, 0, batch)
		for i := start; i < min(n, start+batch); i++ {
			facts = append(facts, synth.Fact(1, i))
		}
		if _, err := m.Import(b.Context(), facts); err != nil {
			b.Fatal(err)
		}
	}
	benchStore[n] = m
	return m
}

// reportLatency records p50 and p99 of the samples as benchmark metrics.
func reportLatency(b *testing.B, samples []time.Duration) {
	slices.Sort(samples)
	if len(samples) == 0 {
		return
	}
	p := func(q float64) float64 { return float64(samples[int(q*float64(len(samples)-1))].Microseconds()) / 1000 }
	b.ReportMetric(p(0.50), "p50-ms")
	b.ReportMetric(p(0.99), "p99-ms")
}

// BenchmarkRecall measures hybrid recall (fts + jaccard + hrr, no model)
// at 10k and 100k facts: go test -run=^$ -bench=Recall -benchtime=300x ./retrieve/
func BenchmarkRecall(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("facts=%d", n), func(b *testing.B) {
			m := benchMemory(b, n)
			ctx := b.Context()
			samples := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				t0 := time.Now()
				res, err := m.Recall(ctx, holomem.Query{Text: synth.Query(2, i), NoTouch: true})
				if err != nil {
					b.Fatal(err)
				}
				samples = append(samples, time.Since(t0))
				benchSink = res
			}
			b.StopTimer()
			reportLatency(b, samples)
		})
	}
}

// BenchmarkProbe measures probe and reason over 10k facts:
// go test -run=^$ -bench='Probe|Reason' ./retrieve/
func BenchmarkProbe(b *testing.B) {
	m := benchMemory(b, 10_000)
	people := synth.People()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		hits, err := m.Probe(b.Context(), "", people[i%len(people)], 10)
		if err != nil {
			b.Fatal(err)
		}
		benchSink = hits
	}
}

func BenchmarkReason(b *testing.B) {
	m := benchMemory(b, 10_000)
	people, services := synth.People(), synth.Services()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		hits, err := m.Reason(b.Context(), "", []string{people[i%len(people)], services[i%len(services)]}, 10)
		if err != nil {
			b.Fatal(err)
		}
		benchSink = hits
	}
}

// BenchmarkImport measures bulk insert throughput through the memory
// service (HRR derived, no model), in batches of 1000.
func BenchmarkImport(b *testing.B) { benchImport(b, true) }

// BenchmarkImport_untagged is BenchmarkImport on facts without tags (a
// conversation log, a JSONL of notes), whose entities are extracted once
// for the HRR vector and the store's links together.
func BenchmarkImport_untagged(b *testing.B) { benchImport(b, false) }

func benchImport(b *testing.B, tags bool) {
	s, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "import.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	m, _ := retrieve.New(s, retrieve.Options{})
	b.ReportAllocs()
	b.ResetTimer()
	const batch = 1000
	for i := 0; i < b.N; i += batch {
		facts := make([]*holomem.Fact, 0, batch)
		for j := i; j < min(b.N, i+batch); j++ {
			f := synth.Fact(3, j)
			if !tags {
				f.Tags = nil
			}
			facts = append(facts, f)
		}
		if _, err := m.Import(b.Context(), facts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "facts/s")
}

// BenchmarkRemember measures one-by-one writes with write-time hygiene.
func BenchmarkRemember(b *testing.B) {
	s, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "remember.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	m, _ := retrieve.New(s, retrieve.Options{})
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, err := m.Remember(b.Context(), synth.Fact(4, i)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "facts/s")
}

// BenchmarkRemember10k measures one-by-one writes into a 10k-fact store
// (hygiene searches grow with the store).
func BenchmarkRemember10k(b *testing.B) {
	m := benchMemory(b, 10_000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, err := m.Remember(b.Context(), synth.Fact(14, i)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "facts/s")
}
