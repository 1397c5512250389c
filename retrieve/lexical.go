package retrieve

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/lexindex"
	"github.com/holomem/holomem/text"
)

// lexicalQuery is a query reduced to what the fts channel scores: the
// distinct stems of its content words (stop and question words removed).
type lexicalQuery struct {
	stems []string
	// prefixes[i] is stems[i]'s text.MorphPrefix ("" for none): a fact
	// word with that prefix counts half an occurrence of the stem.
	prefixes []string
	idf      []float64
	// df maps each stem to its document frequency (for the store's
	// any-term search, see [holomem.WithTermDocs]).
	df map[string]int64
}

// newLexicalQuery looks up the stems' document frequencies: in the live
// index lx when recall uses it, else from the store. It returns nil when
// the store cannot report them; the fts channel then keeps the store's own
// normalised BM25.
func (m *Memory) newLexicalQuery(ctx context.Context, q string, lx *lexindex.Index) (*lexicalQuery, error) {
	ts, ok := m.store.(holomem.TermStatser)
	if !ok && lx == nil {
		return nil, nil
	}
	lq := &lexicalQuery{}
	for _, t := range text.ContentTokens(q) {
		st := text.Stem(t)
		if !contains(lq.stems, st) {
			lq.stems = append(lq.stems, st)
			lq.prefixes = append(lq.prefixes, text.MorphPrefix(t))
		}
	}
	if len(lq.stems) == 0 {
		return nil, nil
	}
	var n int64
	var df []int64
	if lx != nil {
		n, df = lx.Stats(lq.stems)
	} else {
		var err error
		if n, df, err = ts.TermStats(ctx, lq.stems); err != nil {
			return nil, err
		}
	}
	lq.idf = make([]float64, len(df))
	lq.df = make(map[string]int64, len(df))
	for i, d := range df {
		lq.df[lq.stems[i]] = d
		d = min(d, n)
		lq.idf[i] = math.Log(1 + (float64(n)-float64(d)+0.5)/(float64(d)+0.5))
	}
	return lq, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// scoreBM25 sets every candidate's fts score to its BM25 over stems,
// divided by the best candidate's (so the best is 1), with the settings
// of the candidate's kind and its heading counted extra (fusion.go). The
// average length is the candidates' own: they are the facts that share
// words with the query.
//
// With the live index lx the counts come from it (no text is tokenised);
// a candidate it does not hold (written after this recall's sync) is
// counted from its text.
func (m *Memory) scoreBM25(lq *lexicalQuery, cands map[int64]*candidate, lx *lexindex.Index) {
	type doc struct {
		c   *candidate
		tf  []float64 // by lq.stems
		len int
		p   bm25Params
		// pairs[j] counts query stems j and j+1 side by side (nil: not counted).
		pairs []float64
	}
	// The candidates' stems come from m.terms (tokenised and stemmed once
	// per fact text); the counts are the same as stemming every token here.
	docs := make([]doc, 0, len(cands))
	q := lexindex.Query{Stems: lq.stems, Prefixes: lq.prefixes}
	tfs := make([]float64, len(cands)*len(lq.stems))
	total := 0
	for _, c := range cands {
		if c.fact == nil {
			continue
		}
		d := doc{c: c, tf: tfs[:len(lq.stems):len(lq.stems)]}
		tfs = tfs[len(lq.stems):]
		ok := false
		if lx != nil {
			d.len, ok = lx.TF(c.fact.ID, q, d.tf)
		}
		if !ok {
			ft := m.terms.get(c.fact)
			d.len = ft.n
			for _, sc := range ft.stems {
				if j := slices.Index(lq.stems, sc.stem); j >= 0 {
					d.tf[j] += sc.count
					continue
				}
				for j, p := range lq.prefixes {
					if p != "" && strings.HasPrefix(sc.stem, p) {
						d.tf[j] += 0.5 * sc.count
					}
				}
			}
		}
		d.len += addHeading(c.fact.Content, lq, d.tf)
		d.p = bm25ParamsOf(c.fact)
		if d.p.pairs > 0 && hasPair(d.tf) {
			d.pairs = make([]float64, len(lq.stems)-1)
			pairTF(c.fact.Content, lq, d.pairs)
		}
		total += d.len
		docs = append(docs, d)
	}
	if len(docs) == 0 {
		return
	}
	avg := max(1, float64(total)/float64(len(docs)))
	best := 0.0
	scores := make([]float64, len(docs))
	for i, d := range docs {
		s := 0.0
		k1, b := d.p.k1, d.p.b
		norm := k1 * (1 - b + b*float64(d.len)/avg)
		for j := range lq.stems {
			if f := d.tf[j]; f > 0 {
				s += lq.idf[j] * f * (k1 + 1) / (f + norm)
			}
		}
		for j, f := range d.pairs {
			if f > 0 {
				s += d.p.pairs * min(lq.idf[j], lq.idf[j+1]) * f * (k1 + 1) / (f + norm)
			}
		}
		scores[i] = s
		best = max(best, s)
	}
	for i, d := range docs {
		if best > 0 {
			d.c.scores.FTS = scores[i] / best
		} else {
			d.c.scores.FTS = 0
		}
	}
}
