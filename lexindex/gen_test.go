package lexindex

import (
	"math/rand"
	"slices"
	"sort"
	"strings"
)

// words is a test vocabulary: English words with inflections (stems
// shared by several words) and Cyrillic words whose morph prefixes join
// derivations (text.MorphPrefix), so prefix expansion is exercised.
var words = strings.Fields(`
alice bob carol dave deploy deployed deploying deploys deployment billing bill bills
service services serving served payment payments pay paid review reviews reviewed
nginx postgres sqlite database databases migrate migration migrations migrated
fail failed failing failure failures test tests tested testing release releases
released version versions cache caching cached index indexes indexed indexing
memory memories recall recalled search searched searching query queries answer
answered meeting meetings monday tuesday friday weekend travel travelled paris
berlin tokyo coffee tea dinner lunch breakfast book books reading read write
writes writing wrote written code coding coder commit commits committed branch
branches merge merged merging conflict conflicts resolve resolved server servers
the a of and to in is was for on with at by from it this that be are
развертывание развернули развернула развертывать сервис сервисы сервиса оплата оплаты
оплатил проверка проверки проверили база базы данных миграция миграции мигрировали
встреча встречи встретились понедельник пятница кофе чай книга книги читать читали
generously generous agreed agree agreement abilities ability`)

// genText returns a text of about n words drawn Zipf-like from words.
func genText(r *rand.Rand, z *rand.Zipf, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[z.Uint64()%uint64(len(words))])
	}
	return b.String()
}

func newZipf(r *rand.Rand) *rand.Zipf {
	return rand.NewZipf(r, 1.1, 4, uint64(len(words)-1))
}

// bruteSearch is recall's scoreBM25 over every doc of ns without an index:
// what Search must return.
func bruteSearch(docs map[int64]Doc, ns string, q Query, k int) []Hit {
	var n int64
	df := make([]int64, len(q.Stems))
	var elig []Doc
	total := 0
	for _, d := range docs {
		n++
		for j, st := range q.Stems {
			if slices.ContainsFunc(d.Terms.Stems, func(sc StemCount) bool { return sc.Stem == st }) {
				df[j]++
			}
		}
		if d.Namespace == ns && (!d.Superseded || q.IncludeSuperseded) {
			elig = append(elig, d)
			total += d.Terms.Len
		}
	}
	if len(elig) == 0 {
		return nil
	}
	avg := max(1, float64(total)/float64(len(elig)))
	idf := q.IDF
	if idf == nil {
		idf = make([]float64, len(q.Stems))
		for j := range idf {
			idf[j] = IDF(n, df[j])
		}
	}
	var out []Hit
	for _, d := range elig {
		tf := map[string]float64{}
		for _, sc := range d.Terms.Stems {
			if slices.Contains(q.Stems, sc.Stem) {
				tf[sc.Stem] += float64(sc.Count)
				continue
			}
			for j, p := range q.Prefixes {
				if p != "" && strings.HasPrefix(sc.Stem, p) {
					tf[q.Stems[j]] += 0.5 * float64(sc.Count)
				}
			}
		}
		s, any := 0.0, false
		norm := K1 * (1 - B + B*float64(d.Terms.Len)/avg)
		for j, st := range q.Stems {
			if f := tf[st]; f > 0 {
				s += idf[j] * f * (K1 + 1) / (f + norm)
				any = true
			}
		}
		if any {
			out = append(out, Hit{ID: d.ID, Score: s})
		}
	}
	sort.Slice(out, func(i, j int) bool { return better(out[i], out[j]) })
	if k > 0 && len(out) > k {
		out = out[:k]
	}
	return out
}
