package retrieve

import (
	"context"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

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
	ts, ok := holomem.As[holomem.TermStatser](m.store)
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
		// A long fact is scored by its best passage: its passages' counts,
		// each with the tags' counts added (tags describe every passage).
		passages []text.Passage
		plen     []int
		ptf      [][]float64
	}
	// The candidates' stems come from m.terms (tokenised and stemmed once
	// per fact text); the counts are the same as stemming every token here.
	docs := make([]doc, 0, len(cands))
	q := lexindex.Query{Stems: lq.stems, Prefixes: lq.prefixes}
	tfs := make([]float64, len(cands)*len(lq.stems))
	// Lengths add up as integers: candidates come in map order, and a
	// float sum in varying order would move scores by an ulp and break
	// ties differently from one recall to the next.
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
		d.p = bm25ParamsOf(c.fact)
		var eff int
		if !m.opts.WholeFactBM25 && isLong(c.fact.Content) && slices.ContainsFunc(d.tf, func(f float64) bool { return f > 0 }) {
			d.passages, d.plen, d.ptf = lq.passageCounts(m.terms.get(c.fact).passageTerms())
			addTagCounts(d.len, d.tf, d.plen, d.ptf)
			eff = 0
			for _, n := range d.plen {
				eff += n
			}
			eff /= len(d.plen) // a long fact counts as one passage of mean length
		} else {
			d.len += addHeading(c.fact.Content, lq, d.tf)
			eff = d.len
			if d.p.pairs > 0 && hasPair(d.tf) {
				d.pairs = make([]float64, len(lq.stems)-1)
				pairTF(c.fact.Content, lq, d.pairs)
			}
		}
		total += eff
		docs = append(docs, d)
	}
	if len(docs) == 0 {
		return
	}
	avg := max(1, float64(total)/float64(len(docs)))
	bm25 := func(p bm25Params, tf, pairs []float64, n int) float64 {
		s := 0.0
		k1, b := p.k1, p.b
		norm := k1 * (1 - b + b*float64(n)/avg)
		for j := range lq.stems {
			if f := tf[j]; f > 0 {
				s += lq.idf[j] * f * (k1 + 1) / (f + norm)
			}
		}
		for j, f := range pairs {
			if f > 0 {
				s += p.pairs * min(lq.idf[j], lq.idf[j+1]) * f * (k1 + 1) / (f + norm)
			}
		}
		return s
	}
	best := 0.0
	scores := make([]float64, len(docs))
	for i, d := range docs {
		if d.passages == nil {
			scores[i] = bm25(d.p, d.tf, d.pairs, d.len)
		} else {
			// Ties go to the first passage.
			bp := -1
			for k := range d.passages {
				if s := bm25(d.p, d.ptf[k], nil, d.plen[k]); s > scores[i] {
					scores[i], bp = s, k
				}
			}
			if bp >= 0 {
				p := d.passages[bp]
				d.c.passage = &holomem.Passage{Index: p.Index, Start: p.Start, End: p.End}
			}
		}
		best = max(best, scores[i])
	}
	for i, d := range docs {
		if best > 0 {
			d.c.scores.FTS = scores[i] / best
		} else {
			d.c.scores.FTS = 0
		}
	}
}

// passageCounts counts the query's stems in each passage as scoreBM25
// counts them in a whole fact.
func (lq *lexicalQuery) passageCounts(pts []passageTerms) ([]text.Passage, []int, [][]float64) {
	ps := make([]text.Passage, len(pts))
	lens := make([]int, len(pts))
	tf := make([][]float64, len(pts))
	flat := make([]float64, len(pts)*len(lq.stems))
	for k, pt := range pts {
		ps[k], lens[k] = pt.passage, pt.n
		tf[k] = flat[k*len(lq.stems) : (k+1)*len(lq.stems) : (k+1)*len(lq.stems)]
		for _, sc := range pt.stems {
			if j := slices.Index(lq.stems, sc.stem); j >= 0 {
				tf[k][j] += sc.count
				continue
			}
			for j, p := range lq.prefixes {
				if p != "" && strings.HasPrefix(sc.stem, p) {
					tf[k][j] += 0.5 * sc.count
				}
			}
		}
	}
	return ps, lens, tf
}

// isLong reports whether content has more than one passage.
func isLong(content string) bool {
	return len(content) > text.PassageRunes && utf8.RuneCountInString(content) > text.PassageRunes
}

// addTagCounts adds to each passage's counts what the whole fact's counts
// hold beyond its passages' sum: the tags' tokens and matches.
func addTagCounts(n int, tf []float64, plen []int, ptf [][]float64) {
	sum := 0
	for _, l := range plen {
		sum += l
	}
	extra := max(0, n-sum)
	for j := range tf {
		in := 0.0
		for k := range ptf {
			in += ptf[k][j]
		}
		if t := tf[j] - in; t > 0 {
			for k := range ptf {
				ptf[k][j] += t
			}
		}
	}
	for k := range plen {
		plen[k] += extra
	}
}
