package hrr_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/holomem/holomem/hrr"
)

// Sinks keep the compiler from discarding benchmarked work.
var (
	sinkVector hrr.Vector
	sinkFloat  float64
	sinkScored []hrr.Scored
	sinkConns  []hrr.Connection
)

func BenchmarkAtom(b *testing.B) {
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		toks := make([]string, b.N)
		for i := range toks {
			toks[i] = fmt.Sprint("cold-", i, "-", b.N)
		}
		b.ResetTimer()
		for i := range b.N {
			sinkVector = hrr.Atom(toks[i])
		}
	})
	b.Run("cached", func(b *testing.B) {
		b.ReportAllocs()
		hrr.Atom("cached")
		for b.Loop() {
			sinkVector = hrr.Atom("cached")
		}
	})
}

// BenchmarkEncodeFact encodes a 20-token fact with 2 entities, atoms cached.
func BenchmarkEncodeFact(b *testing.B) {
	toks, ents := benchFact()
	b.ReportAllocs()
	cpuLoop(b, func() {
		sinkVector = hrr.EncodeFact(toks, ents)
	})
}

// BenchmarkEncodeFactCompact is what the write path stores: compare it
// with BenchmarkEncodeFactMarshal (the same bytes through float64 phases).
func BenchmarkEncodeFactCompact(b *testing.B) {
	toks, ents := benchFact()
	b.ReportAllocs()
	cpuLoop(b, func() {
		sinkBytes = hrr.EncodeFactCompact(toks, ents)
	})
}

func BenchmarkEncodeFactMarshal(b *testing.B) {
	toks, ents := benchFact()
	b.ReportAllocs()
	cpuLoop(b, func() {
		sinkBytes = hrr.Marshal(hrr.EncodeFact(toks, ents))
	})
}

var sinkBytes []byte

func benchItems(n int) []hrr.Item {
	rng := rand.New(rand.NewPCG(5, 6))
	items := make([]hrr.Item, n)
	for i := range items {
		b := make([]byte, hrr.EncodedLen)
		b[0] = hrr.EncodingVersion
		for j := 1; j < len(b); j++ {
			b[j] = byte(rng.UintN(256))
		}
		items[i] = hrr.Item{ID: int64(i), HRR: b}
	}
	return items
}

// cpuLoop runs f under b.Loop and reports the CPU time of the benchmark's
// thread per op in ms ("cpu-ms/op", Linux only): on a shared machine wall
// time (ns/op) includes waiting for a core, CPU time does not.
func cpuLoop(b *testing.B, f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0, n := threadCPU(), 0
	for b.Loop() {
		f()
		n++
	}
	b.ReportMetric(float64(threadCPU()-t0)/float64(n)/1e6, "cpu-ms/op")
}

// BenchmarkScore10k scores one key against 10,000 compact vectors.
func BenchmarkScore10k(b *testing.B) {
	items := benchItems(10000)
	k := hrr.ProbeKey("nginx")
	b.ReportAllocs()
	cpuLoop(b, func() {
		var s float64
		for _, it := range items {
			s += k.Score(it.HRR)
		}
		sinkFloat = s
	})
}

// BenchmarkProbe10k is a whole probe over 10,000 facts at the default floor.
func BenchmarkProbe10k(b *testing.B) {
	items := benchItems(10000)
	k := hrr.ProbeKey("nginx")
	floor := hrr.NoiseFloor(hrr.DefaultSigmas)
	b.ReportAllocs()
	cpuLoop(b, func() {
		sinkScored = hrr.Probe(k, items, floor, 20)
	})
}

// BenchmarkRelated runs related(X) for the most frequent entity (273 facts)
// of the 2,000-fact proof corpus against 300 candidates.
func BenchmarkRelated(b *testing.B) {
	c := corpus2000()
	x := c.byFrequency()[0]
	floor := hrr.NoiseFloor(hrr.DefaultSigmas)
	b.ReportAllocs()
	cpuLoop(b, func() {
		sinkConns = hrr.Related(x, c.items, c.names, floor, 20)
	})
}

// benchFact is the 20-token fact with 2 entities the encode benchmarks share.
func benchFact() (toks, ents []string) {
	toks = make([]string, 20)
	for i := range toks {
		toks[i] = fmt.Sprint("token", i)
	}
	return toks, []string{"nginx", "ci"}
}
