package text_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/holomem/holomem/text"
)

// Global sinks keep the compiler from optimising benchmarked calls away.
var (
	sinkStrings  []string
	sinkString   string
	sinkFloat    float64
	sinkEntities []text.Entity
)

// benchFacts are fact-sized texts in English and Russian, with code and
// references, as memory stores them.
var benchFacts = map[string]string{
	"en": "Alice prefers deploying Nginx with Ansible on the staging box; see cmd/holomem/main.go and #412 (fixed by PR #415). The HoloMem server reads config.yaml at startup.",
	"ru": "Иван Петров попросил не деплоить по пятницам: конфигурация «Голопамять» лежит в /etc/holomem/holomem.toml, задача GH-77 закрыта вчера в Москве.",
}

func BenchmarkTokens(b *testing.B) {
	for lang, s := range benchFacts {
		b.Run(lang, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(s)))
			var buf []string
			for b.Loop() {
				buf = text.AppendTokens(buf[:0], s)
			}
			sinkStrings = buf
		})
	}
}

func BenchmarkNormalize(b *testing.B) {
	for lang, s := range benchFacts {
		b.Run(lang, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				sinkString = text.Normalize(s)
			}
		})
	}
}

func BenchmarkIndexText(b *testing.B) {
	for lang, s := range benchFacts {
		b.Run(lang, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				sinkString = text.IndexText(s)
			}
		})
	}
	long := strings.Repeat(benchFacts["en"]+" "+benchFacts["ru"]+" ", 20) // ~6 KB, an imported issue
	b.Run("issue6KB", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(long)))
		for b.Loop() {
			sinkString = text.IndexText(long)
		}
	})
}

func BenchmarkMatchAll(b *testing.B) {
	for name, q := range map[string]string{
		"en":   "how do we deploy nginx to staging",
		"ru":   "как деплоить голопамять в москве",
		"hard": `C++ (foo "bar" -rf NEAR( title:x AND {a b}:x *`,
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkString = text.MatchAll(q)
			}
		})
	}
}

func BenchmarkJaccard(b *testing.B) {
	q := text.Tokens("how do we deploy nginx to staging")
	d := text.Tokens(benchFacts["en"])
	b.Run("slices", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkFloat = text.Jaccard(q, d)
		}
	})
	qs, ds := text.SortedSet(q), text.SortedSet(d)
	b.Run("sorted", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkFloat = text.JaccardSorted(qs, ds)
		}
	})
	long := text.Tokens(strings.Repeat(benchFacts["en"]+" "+benchFacts["ru"]+" ", 20))
	b.Run("slices6KB", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkFloat = text.Jaccard(q, long)
		}
	})
}

func BenchmarkEntities(b *testing.B) {
	for lang, s := range benchFacts {
		b.Run(lang, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				sinkEntities = text.Entities(s)
			}
		})
	}
}

func BenchmarkStripForEmbedding(b *testing.B) {
	s := benchFacts["en"] + " ![shot](https://x.io/a.png) see https://github.com/a/b/pull/1"
	b.ReportAllocs()
	for b.Loop() {
		sinkString = text.StripForEmbedding(s)
	}
}

// BenchmarkRelate is write-time hygiene's comparison: one new fact's
// words read, then related to 20 candidates whose words are cached.
func BenchmarkRelate(b *testing.B) {
	newer := "The staging environment is rebuilt every Sunday night from the latest main by the platform team"
	var cands []*text.Relater
	for i := range 20 {
		c := fmt.Sprintf("The staging cluster %d is rebuilt on Saturday nights by Ivan's team with Terraform", i)
		cands = append(cands, text.NewRelaterText(c, text.Tokens(c)))
	}
	toks := text.Tokens(newer)
	b.ReportAllocs()
	for b.Loop() {
		r := text.NewRelaterText(newer, toks)
		for _, c := range cands {
			r.RelateTo(c, -1)
		}
	}
}
