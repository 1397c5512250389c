package lexindex

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/holomem/holomem/text"
)

// DefaultSimilarTermDocs is Similar's maxTermDocs when given <= 0, as in
// the SQLite store's SimilarFacts.
const DefaultSimilarTermDocs = 200

// similarAllRead is how many all-word matches Similar's fallback reads per
// result it wants (the SQLite store's allIDsRead).
const similarAllRead = 4

// Similar returns up to limit live facts of namespace ns that share the
// most of terms (content words of a fact about to be written): write-time
// hygiene's candidates, by the contract of the SQLite store's
// SimilarFacts, which it reproduces:
//
// terms are joined by spaces and tokenised (text.Tokens; distinct, at most
// text.MaxMatchTokens). A fact matches a token t when it holds t or
// text.Stem(t) as a stem, or (Cyrillic) a stem starting with
// text.MorphPrefix(t). A token matched by more than maxTermDocs facts
// (all namespaces, superseded included) is common and left out; a rarer
// one matched by df facts weighs ln(1 + (maxTermDocs+1)/df) if some live
// fact of ns matches it. A fact's score is the weights of the tokens it
// matches over the weights of all of them; best first, ties newest
// (larger id) first. When no token weighs anything, the live facts of ns
// among the 4×limit oldest facts matching every token are returned
// instead, oldest first, score 1. limit <= 0 means 10; maxTermDocs <= 0
// means [DefaultSimilarTermDocs].
//
// How it can differ from the store: FTS5 also indexes each surface word,
// so the store matches a fact whose word equals Stem(t) but itself stems
// to something else (Snowball is not idempotent on a few words), and it
// folds diacritics (unicode61 remove_diacritics 2: "café" matches "cafe");
// the store also remembers common words for five minutes, so a word that
// a delete made rare again is left out there until then, and used here.
func (x *Index) Similar(ns string, terms []string, limit, maxTermDocs int) []Hit {
	if limit <= 0 {
		limit = 10
	}
	if maxTermDocs <= 0 {
		maxTermDocs = DefaultSimilarTermDocs
	}
	toks := distinctTokens(strings.Join(terms, " "))
	if len(toks) == 0 {
		return nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	nsn, ok := x.nsNum[ns]
	if !ok {
		return nil
	}
	want := nsn << scopeShift
	score := map[int64]float64{}
	total := 0.0
	var buf []uint32
	for _, t := range toks {
		var common bool
		buf, common = x.matchLocked(buf[:0], t, maxTermDocs)
		if common {
			continue
		}
		n := len(buf)
		w := math.Log(1 + float64(maxTermDocs+1)/float64(n))
		found := false
		for _, s := range buf {
			if x.scope[s] == want {
				score[x.ids[s]] += w
				found = true
			}
		}
		if found {
			total += w
		}
	}
	if total == 0 {
		return x.allMatchLocked(toks, want, limit)
	}
	out := make([]Hit, 0, len(score))
	for id, v := range score {
		out = append(out, Hit{ID: id, Score: v / total})
	}
	slices.SortFunc(out, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	return out[:min(len(out), limit)]
}

// distinctTokens is the SQLite store's queryTokens.
func distinctTokens(q string) []string {
	var out []string
	for _, t := range text.Tokens(q) {
		if !slices.Contains(out, t) && len(out) < text.MaxMatchTokens {
			out = append(out, t)
		}
	}
	return out
}

// tokenTermsLocked appends to dst the terms a fact must hold one of to
// match token t (see Similar).
func (x *Index) tokenTermsLocked(dst []uint32, t string) []uint32 {
	add := func(u uint32) {
		if !slices.Contains(dst, u) {
			dst = append(dst, u)
		}
	}
	if u, ok := x.vocab[t]; ok {
		add(u)
	}
	if u, ok := x.vocab[text.Stem(t)]; ok {
		add(u)
	}
	if p := text.MorphPrefix(t); p != "" {
		x.eachPrefixLocked(p, add)
	}
	return dst
}

// matchLocked appends to dst the slots (not deleted, any namespace) that
// match token t, ascending, and reports common (dst then incomplete) when
// there are more than bound.
func (x *Index) matchLocked(dst []uint32, t string, bound int) ([]uint32, bool) {
	ts := x.tokenTermsLocked(nil, t)
	for _, u := range ts {
		if int(x.terms[u].df) > bound {
			return dst, true
		}
	}
	for _, u := range ts {
		for _, pl := range x.terms[u].lists {
			for _, s := range pl.slots {
				if x.scope[s]&flagDeleted == 0 {
					dst = append(dst, s)
				}
			}
		}
	}
	if len(ts) > 1 {
		slices.Sort(dst)
		dst = slices.Compact(dst)
	}
	return dst, len(dst) > bound
}

// allMatchLocked is Similar's fallback: the live facts of scope want
// among the similarAllRead×limit oldest facts (any namespace) matching
// every token, oldest first, at most limit.
func (x *Index) allMatchLocked(toks []string, want uint32, limit int) []Hit {
	lists := make([][]uint32, len(toks)) // terms per token
	size := make([]int, len(toks))
	for i, t := range toks {
		lists[i] = x.tokenTermsLocked(nil, t)
		for _, u := range lists[i] {
			for _, pl := range x.terms[u].lists {
				size[i] += len(pl.slots)
			}
		}
		if size[i] == 0 {
			return nil
		}
	}
	// Walk the rarest token's slots, check the others by binary search.
	r := 0
	for i := range size {
		if size[i] < size[r] {
			r = i
		}
	}
	var cands []uint32
	for _, u := range lists[r] {
		for _, pl := range x.terms[u].lists {
			cands = append(cands, pl.slots...)
		}
	}
	slices.Sort(cands)
	cands = slices.Compact(cands)
	read := similarAllRead * limit
	var ids []int64 // matching every token, any namespace
	for _, s := range cands {
		if x.scope[s]&flagDeleted != 0 {
			continue
		}
		all := true
		for i := range lists {
			if i != r && !x.holdsAnyLocked(lists[i], s) {
				all = false
				break
			}
		}
		if !all {
			continue
		}
		ids = append(ids, x.ids[s])
		// With slots in id order the first read matches are the oldest.
		if x.ordered && len(ids) == read {
			break
		}
	}
	slices.Sort(ids)
	ids = ids[:min(len(ids), read)]
	var out []Hit
	for _, id := range ids {
		if s := x.bySlot[id]; x.scope[s] == want {
			out = append(out, Hit{ID: id, Score: 1})
			if len(out) == limit {
				break
			}
		}
	}
	return out
}

// holdsAnyLocked reports whether slot s holds one of terms.
func (x *Index) holdsAnyLocked(terms []uint32, s uint32) bool {
	for _, u := range terms {
		pl := x.terms[u].list(x.scope[s] >> scopeShift)
		if pl == nil {
			continue
		}
		if _, ok := slices.BinarySearch(pl.slots, s); ok {
			return true
		}
	}
	return false
}
