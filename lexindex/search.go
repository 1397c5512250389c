package lexindex

import (
	"container/heap"
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

// scratch is one search's per-slot accumulators, pooled: seen[s] == gen
// marks slot s as touched by this search.
type scratch struct {
	acc     []float64
	seen    []uint32
	gen     uint32
	touched []uint32
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

	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	sc.reset(len(x.ids))
	var f map[uint32]float64 // prefix stems' occurrence counts by slot
	for j, stem := range q.Stems {
		var idf float64
		if q.IDF != nil {
			idf = q.IDF[j]
		} else {
			df := int64(0)
			if t, ok := x.vocab[stem]; ok {
				df = int64(x.terms[t].df)
			}
			idf = IDF(int64(x.live), df)
		}
		pre := ""
		if j < len(q.Prefixes) {
			pre = q.Prefixes[j]
		}
		t, has := x.vocab[stem]
		if pre == "" {
			if !has {
				continue
			}
			tm := &x.terms[t]
			for i, s := range tm.slots {
				if x.scope[s]&mask != want {
					continue
				}
				tf := float64(x.tf(t, s, tm.tfs[i]))
				norm := K1 * (1 - B + B*float64(x.lens[s])/avg)
				sc.add(s, idf*tf*(K1+1)/(tf+norm))
			}
			continue
		}
		if f == nil {
			f = map[uint32]float64{}
		} else {
			clear(f)
		}
		if has {
			tm := &x.terms[t]
			for i, s := range tm.slots {
				if x.scope[s]&mask == want {
					f[s] += float64(x.tf(t, s, tm.tfs[i]))
				}
			}
		}
		x.eachPrefixLocked(pre, func(u uint32) {
			if slices.Contains(q.Stems, x.terms[u].stem) {
				return // counted as itself
			}
			tm := &x.terms[u]
			for i, s := range tm.slots {
				if x.scope[s]&mask == want {
					f[s] += 0.5 * float64(x.tf(u, s, tm.tfs[i]))
				}
			}
		})
		// Add in slot order: a slot's sum must not depend on map order.
		slots := make([]uint32, 0, len(f))
		for s := range f {
			slots = append(slots, s)
		}
		slices.Sort(slots)
		for _, s := range slots {
			tf := f[s]
			norm := K1 * (1 - B + B*float64(x.lens[s])/avg)
			sc.add(s, idf*tf*(K1+1)/(tf+norm))
		}
	}
	return x.topLocked(sc, k)
}

// topLocked returns the k best touched slots of sc as hits, best first,
// ties by smaller id.
func (x *Index) topLocked(sc *scratch, k int) []Hit {
	if k <= 0 || k > len(sc.touched) {
		k = len(sc.touched)
	}
	h := make(hitHeap, 0, k)
	for _, s := range sc.touched {
		hit := Hit{ID: x.ids[s], Score: sc.acc[s]}
		if len(h) < k {
			heap.Push(&h, hit)
			continue
		}
		if better(hit, h[0]) {
			h[0] = hit
			heap.Fix(&h, 0)
		}
	}
	out := []Hit(h)
	slices.SortFunc(out, func(a, b Hit) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
	return out
}

// better orders hits best first: higher score, then smaller id.
func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.ID < b.ID
}

// hitHeap is a min-heap by [better]: the worst kept hit on top.
type hitHeap []Hit

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return better(h[j], h[i]) }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(v any)        { *h = append(*h, v.(Hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
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
