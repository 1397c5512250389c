package lexindex

import (
	"slices"
	"strings"
)

// TF sets tf[j] to the occurrences of q.Stems[j] in the fact with id id
// (a stem of the fact that is not one of q.Stems and starts with
// q.Prefixes[j] counts half), the counts recall's BM25 re-scoring sums,
// and returns the fact's length (its number of tokens). ok is false when
// the index does not hold id. tf must have len(q.Stems) elements.
//
// Recall re-scores its candidates from here in a warm process instead of
// tokenising and stemming each candidate's text again (or keeping every
// fact's terms in a second cache).
func (x *Index) TF(id int64, q Query, tf []float64) (length int, ok bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	s, ok := x.bySlot[id]
	if !ok {
		return 0, false
	}
	clear(tf)
	prefixes := false
	for j, st := range q.Stems {
		if t, has := x.vocab[st]; has {
			tf[j] = float64(x.tfLocked(t, s))
		}
		prefixes = prefixes || j < len(q.Prefixes) && q.Prefixes[j] != ""
	}
	if prefixes {
		x.eachTermOfSlot(s, func(t uint32) {
			stem := x.terms[t].stem
			if slices.Contains(q.Stems, stem) {
				return
			}
			for j, p := range q.Prefixes {
				if p != "" && strings.HasPrefix(stem, p) {
					tf[j] += 0.5 * float64(x.tfLocked(t, s))
				}
			}
		})
	}
	return int(x.lens[s]), true
}
