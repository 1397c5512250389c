package lexindex

import (
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/holomem/holomem/text"
)

// BM25 parameters, the same as recall's re-scoring (retrieve/lexical.go,
// where they were chosen): k1 1.2, b 0.3.
const (
	K1 = 1.2
	B  = 0.3
)

// Query is a lexical query: distinct stems, each with an optional morph
// prefix and IDF.
type Query struct {
	// Stems are the query's distinct stems.
	Stems []string
	// Prefixes[i] is Stems[i]'s text.MorphPrefix ("" or nil: none): a
	// fact stem that is not one of Stems and starts with it counts half an
	// occurrence of Stems[i].
	Prefixes []string
	// IDF[i] is Stems[i]'s IDF; nil: computed from the index (see
	// [Index.Stats] and [IDF]).
	IDF []float64
	// IncludeSuperseded searches superseded facts too.
	IncludeSuperseded bool
}

// NewQuery reduces s to a query the way recall does: the distinct stems
// of its content words (text.ContentTokens) with their morph prefixes.
func NewQuery(s string) Query {
	var q Query
	for _, t := range text.ContentTokens(s) {
		st := text.Stem(t)
		if !slices.Contains(q.Stems, st) {
			q.Stems = append(q.Stems, st)
			q.Prefixes = append(q.Prefixes, text.MorphPrefix(t))
		}
	}
	return q
}

// IDF is BM25's inverse document frequency of a term in df of n facts,
// the formula recall uses: ln(1 + (n - df + 0.5) / (df + 0.5)), df capped
// at n.
func IDF(n, df int64) float64 {
	df = min(df, n)
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// Hit is a fact and its score.
type Hit struct {
	ID    int64
	Score float64
}

// Stats returns the number of facts held (all namespaces, live and
// superseded) and, for each stem, how many of them hold it: what the
// store's TermStats reports for recall's IDF, except that the store's
// full-text index also counts a fact whose word equals the stem but
// stems differently (rare: Snowball is not idempotent on a few words).
func (x *Index) Stats(stems []string) (n int64, df []int64) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	df = make([]int64, len(stems))
	for i, st := range stems {
		if t, ok := x.vocab[st]; ok {
			df[i] = int64(x.terms[t].df)
		}
	}
	return int64(x.live), df
}

// Search returns the k best facts of namespace ns for q by BM25 (k1 [K1],
// b [B]), best first, ties by smaller id; k <= 0 returns every match. It
// scores every live fact of ns (and superseded ones with
// q.IncludeSuperseded) holding a query stem or, at half weight, a stem
// with a query prefix, the same sum as recall's scoreBM25, over the
// average length of the namespace's facts searched (at least 1).
func (x *Index) Search(ns string, q Query, k int) []Hit {
	x.mu.RLock()
	defer x.mu.RUnlock()
	nsn, ok := x.nsNum[ns]
	if !ok || len(q.Stems) == 0 {
		return nil
	}
	st := x.nsStat[nsn]
	count, total := st.live, st.liveLen
	if q.IncludeSuperseded {
		count, total = count+st.sup, total+st.supLen
	}
	if count == 0 {
		return nil
	}
	avg := max(1, float64(total)/float64(count))
	want := nsn << scopeShift
	mask := ^uint32(0)
	if q.IncludeSuperseded {
		mask = ^uint32(flagSuperseded)
	}

	curs := make([]cursor, 0, len(q.Stems))
	for j, stem := range q.Stems {
		t, has := x.vocab[stem]
		var idf float64
		if q.IDF != nil {
			idf = q.IDF[j]
		} else {
			df := int64(0)
			if has {
				df = int64(x.terms[t].df)
			}
			idf = IDF(int64(x.live), df)
		}
		pre := ""
		if j < len(q.Prefixes) {
			pre = q.Prefixes[j]
		}
		c := cursor{idf: idf, t: t}
		if pre == "" {
			if !has {
				continue
			}
			pl := x.terms[t].list(nsn)
			if pl == nil {
				continue
			}
			c.slots, c.tfs, c.maxF = pl.slots, pl.tfs, float64(pl.maxTF)
		} else {
			c.slots, c.fs = x.prefixPostingsLocked(q.Stems, stem, pre, mask, want)
		}
		curs = append(curs, c)
	}
	if len(curs) == 0 {
		return nil
	}
	return searchCursors(x, curs, mask, want, avg, k)
}

// minNorm is BM25's length normalisation of an empty fact: no fact's is
// smaller, so a stem's contribution is at most idf·f·(K1+1)/(f+minNorm).
const minNorm = K1 * (1 - B)

// pruneSlack keeps a fact whose bound is within rounding of the k-th
// best score: bounds are summed in another order than scores.
const pruneSlack = 1e-9

// searchCursors scores the facts on curs term at a time with MaxScore
// pruning ("quit and continue"): the cursors go from the largest bound
// (rarest stem) down, each adding its terms to per-slot accumulators, and
// once the k-th best accumulated score exceeds the summed bounds of the
// cursors left, no fact not yet seen can enter the top k: the rest only
// add to the facts that still can, found by seeking instead of walking
// every posting (a common stem after a rare one costs a few hundred
// seeks, not a pass over most facts). The kept facts' scores are then
// recomputed in query order (the order recall sums in), so scores equal
// recall's exactly whatever order the cursors ran in.
func searchCursors(x *Index, curs []cursor, mask, want uint32, avg float64, k int) []Hit {
	prune := k > 0
	for i := range curs {
		c := &curs[i]
		maxF := c.maxF // a term's maxTF
		if c.fs != nil {
			for _, f := range c.fs {
				maxF = max(maxF, f)
			}
		}
		c.maxF = maxF
		c.ub = c.idf * maxF * (K1 + 1) / (maxF + minNorm)
		if !(c.idf > 0) {
			prune = false // bounds need positive terms
		}
	}
	byQuery := slices.Clone(curs)
	if prune {
		slices.SortStableFunc(curs, func(a, b cursor) int {
			switch {
			case a.ub > b.ub:
				return -1
			case a.ub < b.ub:
				return 1
			}
			return 0
		})
	}
	// rest[i] is the sum of the bounds of cursors [i, n).
	rest := make([]float64, len(curs)+1)
	for i := len(curs) - 1; i >= 0; i-- {
		rest[i] = rest[i+1] + curs[i].ub
	}
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	sc.reset(len(x.ids))
	norms := normTable{avg: avg}
	i := 0
	for ; i < len(curs); i++ {
		// Continuing pays when the facts seen are fewer than the postings
		// left to walk (two common stems: walk both).
		if prune && i > 0 && len(sc.touched) >= k && 2*len(sc.touched) < postingsLeft(curs[i:]) {
			if theta := kthBest(sc, sc.touched, k); theta*(1-pruneSlack) > rest[i] {
				break
			}
		}
		c := &curs[i]
		for p, s := range c.slots {
			if x.scope[s]&mask != want {
				continue
			}
			var f float64
			if c.fs != nil {
				f = c.fs[p]
			} else {
				f = float64(x.tf(c.t, s, c.tfs[p]))
			}
			v := c.idf * f * (K1 + 1) / (f + norms.of(x.lens[s]))
			if i == 0 { // nothing touched yet
				sc.seen[s] = sc.gen
				sc.acc[s] = v
				sc.touched = append(sc.touched, s)
				continue
			}
			sc.add(s, v)
		}
	}
	cands := sc.touched
	if i < len(curs) {
		// Continue: only facts that can still reach the k-th best, by a
		// bound at each fact's own length.
		theta := kthBest(sc, cands, k) * (1 - pruneSlack)
		kept := sc.cands[:0]
		for _, s := range cands {
			norm := norms.of(x.lens[s])
			bound := sc.acc[s]
			for _, c := range curs[i:] {
				bound += c.idf * c.maxF * (K1 + 1) / (c.maxF + norm)
			}
			if bound >= theta {
				kept = append(kept, s)
			}
		}
		sc.cands = kept
		cands = kept
		slices.Sort(cands)
		for ; i < len(curs); i++ {
			c := &curs[i]
			c.pos = 0
			for _, s := range cands {
				if c.seek(s) {
					sc.acc[s] += c.score(x, s, norms.of(x.lens[s]))
				}
			}
		}
	}
	// Keep every fact within rounding of the k-th best, score it exactly.
	floor := math.Inf(-1)
	if k > 0 && len(cands) > k {
		floor = kthBest(sc, cands, k) * (1 - pruneSlack)
	}
	top := topK{k: k}
	for _, s := range cands {
		if sc.acc[s] < floor {
			continue
		}
		norm := norms.of(x.lens[s])
		score := 0.0
		for j := range byQuery {
			c := &byQuery[j]
			if i, ok := slices.BinarySearch(c.slots, s); ok {
				c.pos = i
				score += c.score(x, s, norm)
			}
		}
		top.offer(Hit{ID: x.ids[s], Score: score})
	}
	return top.sorted()
}

// postingsLeft returns the number of postings on curs.
func postingsLeft(curs []cursor) int {
	n := 0
	for _, c := range curs {
		n += len(c.slots)
	}
	return n
}

// kthBest returns the k-th largest accumulated score among slots.
func kthBest(sc *scratch, slots []uint32, k int) float64 {
	h := sc.heap[:0]
	for _, s := range slots {
		v := sc.acc[s]
		if len(h) < k {
			h = append(h, v)
			for j := len(h) - 1; j > 0; {
				p := (j - 1) / 2
				if h[p] <= h[j] {
					break
				}
				h[p], h[j] = h[j], h[p]
				j = p
			}
			continue
		}
		if v <= h[0] {
			continue
		}
		h[0] = v
		for j := 0; ; {
			l := 2*j + 1
			if l >= len(h) {
				break
			}
			if r := l + 1; r < len(h) && h[r] < h[l] {
				l = r
			}
			if h[j] <= h[l] {
				break
			}
			h[j], h[l] = h[l], h[j]
			j = l
		}
	}
	sc.heap = h
	if len(h) < k {
		return math.Inf(-1)
	}
	return h[0]
}

// normTable memoises BM25's length normalisation by fact length within
// one search (lengths repeat; the division is most of a posting's cost).
type normTable struct {
	avg float64
	tab [512]float64
}

func (t *normTable) of(n uint32) float64 {
	if n < uint32(len(t.tab)) {
		if v := t.tab[n]; v != 0 {
			return v
		}
		v := K1 * (1 - B + B*float64(n)/t.avg)
		t.tab[n] = v
		return v
	}
	return K1 * (1 - B + B*float64(n)/t.avg)
}

// scratch is one search's per-slot accumulators, pooled: seen[s] == gen
// marks slot s as touched by this search.
type scratch struct {
	acc     []float64
	seen    []uint32
	gen     uint32
	touched []uint32
	cands   []uint32
	heap    []float64
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

func (sc *scratch) reset(n int) {
	if len(sc.acc) < n {
		sc.acc = make([]float64, n+n/4)
		sc.seen = make([]uint32, n+n/4)
		sc.gen = 0
	}
	sc.gen++
	if sc.gen == 0 { // wrapped: clear the marks
		clear(sc.seen)
		sc.gen = 1
	}
	sc.touched = sc.touched[:0]
}

func (sc *scratch) add(s uint32, v float64) {
	if sc.seen[s] != sc.gen {
		sc.seen[s] = sc.gen
		sc.acc[s] = 0
		sc.touched = append(sc.touched, s)
	}
	sc.acc[s] += v
}

// cursor walks one query stem's postings in Search: a term's (slots, tfs)
// or, for a stem with a morph prefix, its merged occurrence counts fs.
type cursor struct {
	slots []uint32
	tfs   []uint8
	fs    []float64
	t     uint32
	pos   int
	idf   float64
	maxF  float64 // at least the largest occurrence count on the cursor
	ub    float64 // bound on what the cursor adds to a score
}

// score is the cursor's stem's BM25 term for slot m, whose posting is at
// c.pos.
func (c *cursor) score(x *Index, m uint32, norm float64) float64 {
	var f float64
	if c.fs != nil {
		f = c.fs[c.pos]
	} else {
		f = float64(x.tf(c.t, m, c.tfs[c.pos]))
	}
	return c.idf * f * (K1 + 1) / (f + norm)
}

// seek moves c to its first posting at or after slot m (galloping: the
// slots it skips are usually few) and reports whether that is m.
func (c *cursor) seek(m uint32) bool {
	n := len(c.slots)
	if c.pos >= n || c.slots[c.pos] >= m {
		return c.pos < n && c.slots[c.pos] == m
	}
	lo, step := c.pos, 1
	hi := lo + step
	for hi < n && c.slots[hi] < m {
		lo = hi
		step *= 2
		hi = lo + step
	}
	hi = min(hi+1, n) // slots[hi] may be m
	i, found := slices.BinarySearch(c.slots[lo:hi], m)
	c.pos = lo + i
	return found
}

// prefixPostingsLocked returns the slots of scope want (under mask)
// holding stem or a stem starting with pre, ascending, with the
// occurrence counts recall gives them: stem's own count plus half the
// count of every prefixed stem that is not itself one of stems.
func (x *Index) prefixPostingsLocked(stems []string, stem, pre string, mask, want uint32) ([]uint32, []float64) {
	f := map[uint32]float64{}
	ns := want >> scopeShift
	if t, ok := x.vocab[stem]; ok && x.terms[t].list(ns) != nil {
		tm := x.terms[t].list(ns)
		for i, s := range tm.slots {
			if x.scope[s]&mask == want {
				f[s] += float64(x.tf(t, s, tm.tfs[i]))
			}
		}
	}
	x.eachPrefixLocked(pre, func(u uint32) {
		if slices.Contains(stems, x.terms[u].stem) {
			return // counted as itself
		}
		tm := x.terms[u].list(ns)
		if tm == nil {
			return
		}
		for i, s := range tm.slots {
			if x.scope[s]&mask == want {
				f[s] += 0.5 * float64(x.tf(u, s, tm.tfs[i]))
			}
		}
	})
	slots := make([]uint32, 0, len(f))
	for s := range f {
		slots = append(slots, s)
	}
	slices.Sort(slots)
	fs := make([]float64, len(slots))
	for i, s := range slots {
		fs[i] = f[s]
	}
	return slots, fs
}

// topK keeps the k best hits offered (k <= 0: all) in a min-heap by
// [better], the worst kept on top.
type topK struct {
	k int
	h []Hit
}

// offer keeps hit if it is among the k best so far.
func (t *topK) offer(hit Hit) {
	if t.k <= 0 || len(t.h) < t.k {
		t.h = append(t.h, hit)
		if t.k > 0 {
			t.up(len(t.h) - 1)
		}
		return
	}
	if !better(hit, t.h[0]) {
		return
	}
	t.h[0] = hit
	t.down(0)
}

func (t *topK) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !better(t.h[p], t.h[i]) {
			break
		}
		t.h[p], t.h[i] = t.h[i], t.h[p]
		i = p
	}
}

func (t *topK) down(i int) {
	n := len(t.h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		w := l // the worse child
		if r := l + 1; r < n && better(t.h[l], t.h[r]) {
			w = r
		}
		if !better(t.h[i], t.h[w]) {
			return
		}
		t.h[i], t.h[w] = t.h[w], t.h[i]
		i = w
	}
}

// sorted returns the kept hits best first.
func (t *topK) sorted() []Hit {
	slices.SortFunc(t.h, func(a, b Hit) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
	return t.h
}

// better orders hits best first: higher score, then smaller id.
func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.ID < b.ID
}

// eachPrefixLocked calls fn with every term whose stem starts with p.
func (x *Index) eachPrefixLocked(p string, fn func(uint32)) {
	i, _ := slices.BinarySearchFunc(x.sorted, p, func(t uint32, p string) int {
		return strings.Compare(x.terms[t].stem, p)
	})
	for ; i < len(x.sorted) && strings.HasPrefix(x.terms[x.sorted[i]].stem, p); i++ {
		fn(x.sorted[i])
	}
	for t := len(x.sorted); t < len(x.terms); t++ {
		if strings.HasPrefix(x.terms[t].stem, p) {
			fn(uint32(t))
		}
	}
}
