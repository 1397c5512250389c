package lexindex

import (
	"context"
	"fmt"
	"iter"
	"math/rand"
	"strings"
	"testing"
)

// Benchmark corpus: facts of about 60 words drawn Zipf-like from a
// synthetic vocabulary of 50,000 words (w<n>, so stemming keeps them
// distinct), which makes the head words hold most facts, as real prose's
// function and topic words do.
const benchVocab = 50000

func benchFacts(n int) []Fact {
	r := rand.New(rand.NewSource(1))
	z := rand.NewZipf(r, 1.07, 2, benchVocab-1)
	fs := make([]Fact, n)
	for i := range fs {
		var b strings.Builder
		for j := range 60 {
			if j > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "w%d", z.Uint64())
		}
		fs[i] = Fact{ID: int64(i + 1), Namespace: "default", Content: b.String()}
	}
	return fs
}

func seqOf(fs []Fact) iter.Seq[Fact] {
	return func(yield func(Fact) bool) {
		for _, f := range fs {
			if !yield(f) {
				return
			}
		}
	}
}

var benchIndexes = map[int]*Index{}

func benchIndex(b *testing.B, n int) *Index {
	if x := benchIndexes[n]; x != nil {
		return x
	}
	x := New()
	if err := x.Load(context.Background(), seqOf(benchFacts(n)), 0); err != nil {
		b.Fatal(err)
	}
	benchIndexes[n] = x
	return x
}

var sinkHits []Hit

// BenchmarkSearch runs 2-word queries drawn Zipf-like from the same
// vocabulary (so mostly common words) at 1k, 10k and 100k facts, k 100.
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			x := benchIndex(b, n)
			r := rand.New(rand.NewSource(2))
			z := rand.NewZipf(r, 1.07, 2, benchVocab-1)
			qs := make([]Query, 256)
			for i := range qs {
				qs[i] = NewQuery(fmt.Sprintf("w%d w%d", z.Uint64(), z.Uint64()))
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				sinkHits = x.Search("default", qs[i%len(qs)], 100)
			}
		})
	}
}

// BenchmarkSearchCommon is the worst case: the two most common words
// (each in most facts).
func BenchmarkSearchCommon(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			x := benchIndex(b, n)
			q := NewQuery("w0 w1")
			_, df := x.Stats(q.Stems)
			b.ReportMetric(float64(df[0])/float64(n), "df0/fact")
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				sinkHits = x.Search("default", q, 100)
			}
		})
	}
}

// BenchmarkSearchNamespaces searches one of ten namespaces of 10k facts
// each (100k in the index): postings are per namespace, so this should
// cost about what BenchmarkSearch/10000 does.
func BenchmarkSearchNamespaces(b *testing.B) {
	fs := benchFacts(100000)
	for i := range fs {
		fs[i].Namespace = fmt.Sprint("ns", i%10)
	}
	x := New()
	if err := x.Load(context.Background(), seqOf(fs), 0); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewSource(2))
	z := rand.NewZipf(r, 1.07, 2, benchVocab-1)
	qs := make([]Query, 256)
	for i := range qs {
		qs[i] = NewQuery(fmt.Sprintf("w%d w%d", z.Uint64(), z.Uint64()))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		sinkHits = x.Search("ns3", qs[i%len(qs)], 100)
	}
}

// BenchmarkSimilar runs hygiene's query (12 words of a new fact, bound
// 200, limit 20) at 100k facts.
func BenchmarkSimilar(b *testing.B) {
	x := benchIndex(b, 100000)
	fs := benchFacts(100256)[100000:]
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		terms := strings.Fields(fs[i%len(fs)].Content)[:12]
		sinkHits = x.Similar("default", terms, 20, 200)
	}
}

// BenchmarkPut adds facts one by one to an index of 100k (terms derived
// beforehand: the cost of the index alone) and reports bytes per fact.
func BenchmarkPut(b *testing.B) {
	fs := benchFacts(100000 + 20000)
	x := New()
	if err := x.Load(context.Background(), seqOf(fs[:100000]), 0); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(x.Bytes())/float64(x.Len()), "B/fact@100k")
	docs := make([]Doc, 20000)
	var s Stemmer
	for i := range docs {
		docs[i] = s.Doc(fs[100000+i])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		d := docs[i%len(docs)]
		d.ID += int64(i / len(docs) * len(docs))
		x.Put(d)
	}
}

// BenchmarkLoad loads 100k facts (term derivation on every core).
func BenchmarkLoad(b *testing.B) {
	fs := benchFacts(100000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		x := New()
		if err := x.Load(context.Background(), seqOf(fs), 0); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(x.Bytes())/float64(x.Len()), "B/fact")
	}
}

var sinkTerms Terms

// BenchmarkTermsOf derives one fact's terms.
func BenchmarkTermsOf(b *testing.B) {
	fs := benchFacts(1000)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		sinkTerms = TermsOf(fs[i%len(fs)].Content, nil)
	}
}
