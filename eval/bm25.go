package eval

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/kljensen/snowball/english"
)

// BM25 is the plain Okapi BM25 baseline: lower-cased word tokens (letters,
// digits, underscore), idf = ln(1 + (N - df + 0.5) / (df + 0.5)), and by
// default ([ClassicBM25]) a small English stop list removed, no stemming,
// k1 1.5, b 0.75; [NewBM25With] takes other settings ([LuceneBM25]). It is
// the "plain search library" any memory must beat, computed in-process so
// the comparison runs over exactly the same facts and queries.
type BM25 struct {
	K1, B float64
	p     BM25Params
	docs  []bm25Doc
	df    map[string]int
	avg   float64
}

type bm25Doc struct {
	key string
	tf  map[string]int
	len int
}

// bm25Stop is the stop list of the reference baseline script, as a set
// built on first use: only the eval baseline needs it.
var bm25Stop = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("a an the is are was were be been being of to in on at for with by from and or not do does did what when where who whom which why how that this these those it its i you he she they we me my your his her their our") {
		m[w] = true
	}
	return m
})

// luceneStop is Lucene's English stop set (EnglishAnalyzer's default),
// which the Anserini BM25 that BEIR reports uses.
var luceneStop = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with") {
		m[w] = true
	}
	return m
})

// BM25Params are one BM25 baseline's settings.
type BM25Params struct {
	// Name is the system's name in a report.
	Name  string
	K1, B float64
	// Stem applies the English Snowball stemmer to every token.
	Stem bool
	// Lucene uses Lucene's 33 English stop words instead of the default 52.
	Lucene bool
}

// The baselines a run can report.
var (
	// ClassicBM25 is the default baseline (the reference script's).
	ClassicBM25 = BM25Params{Name: BaselineName, K1: 1.5, B: 0.75}
	// LuceneBM25 replicates the BM25 that BEIR's published figures use
	// (Anserini: k1 0.9, b 0.4, English stems, Lucene's stop words).
	LuceneBM25 = BM25Params{Name: "bm25-lucene", K1: 0.9, B: 0.4, Stem: true, Lucene: true}
)

// String says which BM25 p is, for reports.
func (p BM25Params) String() string {
	stem, stop := "no stemming", "52 English function and question words"
	if p.Stem {
		stem = "English Snowball stems"
	}
	if p.Lucene {
		stop = "Lucene's 33 English stop words"
	}
	return fmt.Sprintf("%s = Okapi BM25 in-process, k1 %g, b %g, idf ln(1+(N-df+0.5)/(df+0.5)); lower-cased word tokens, %s, %s removed; document = the fact's whole text", p.Name, p.K1, p.B, stem, stop)
}

// tokens splits s like Python's re.findall(r"\w+", s.lower()), drops
// stop words and stems what is left when p says so.
func (p BM25Params) tokens(s string) []string {
	stop := bm25Stop()
	if p.Lucene {
		stop = luceneStop()
	}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '_')
	}) {
		if stop[w] {
			continue
		}
		if p.Stem {
			w = english.Stem(w, true)
		}
		out = append(out, w)
	}
	return out
}

// NewBM25 indexes the texts with [ClassicBM25]; keys are what Search returns.
func NewBM25(keys, texts []string) *BM25 { return NewBM25With(ClassicBM25, keys, texts) }

// NewBM25With indexes the texts with the settings p.
func NewBM25With(p BM25Params, keys, texts []string) *BM25 {
	b := &BM25{K1: p.K1, B: p.B, p: p, df: map[string]int{}}
	total := 0
	for i, t := range texts {
		toks := p.tokens(t)
		d := bm25Doc{key: keys[i], tf: map[string]int{}, len: len(toks)}
		for _, w := range toks {
			d.tf[w]++
		}
		for w := range d.tf {
			b.df[w]++
		}
		total += len(toks)
		b.docs = append(b.docs, d)
	}
	if len(b.docs) > 0 {
		b.avg = float64(total) / float64(len(b.docs))
	}
	return b
}

// Search returns the keys of the k best documents with a positive score,
// best first, ties in index order.
func (b *BM25) Search(query string, k int) []string {
	qt := b.p.tokens(query)
	n := float64(len(b.docs))
	type sc struct {
		s float64
		i int
	}
	var hits []sc
	for i, d := range b.docs {
		s := 0.0
		for _, w := range qt {
			f := float64(d.tf[w])
			if f == 0 {
				continue
			}
			df := float64(b.df[w])
			idf := math.Log(1 + (n-df+0.5)/(df+0.5))
			s += idf * f * (b.K1 + 1) / (f + b.K1*(1-b.B+b.B*float64(d.len)/b.avg))
		}
		if s > 0 {
			hits = append(hits, sc{s, i})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].s != hits[j].s {
			return hits[i].s > hits[j].s
		}
		return hits[i].i < hits[j].i
	})
	out := make([]string, 0, min(k, len(hits)))
	for _, h := range hits[:min(k, len(hits))] {
		out = append(out, b.docs[h.i].key)
	}
	return out
}
