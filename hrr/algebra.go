package hrr

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Item is a stored fact as the algebra sees it: its id and compact vector
// (see [Marshal]).
type Item struct {
	ID  int64
	HRR []byte
}

// Scored is a fact id with its score.
type Scored struct {
	ID    int64
	Score float64
}

// Connection is an entity found by [Related].
type Connection struct {
	Entity string
	// Score sums, over the facts that hold both entities, the weaker of the
	// two detections (the probed entity's and this one's).
	Score float64
	// Facts is how many of the probed entity's facts hold this entity.
	Facts int
}

// DefaultSigmas is the noise floor, in standard deviations, that separates a
// real member from chance. Unrelated similarities are about normal with
// σ = 1/sqrt(2·Dim) ≈ 0.022, and the largest of N of them is about
// sqrt(2·ln N)·σ: 3.9σ at 2,000 facts, 4.8σ at 100,000. At 5σ (0.110) a
// probe over 100,000 non-members lets about one through in 30, while a
// member of a fact with up to ~25 entities still scores above it.
const DefaultSigmas = 5

// RecallSigmas is the noise floor [Relevance] subtracts.
const RecallSigmas = 3

// NoiseFloor returns sigmas standard deviations of the similarity between
// unrelated vectors: sigmas/sqrt(2·Dim). Unrelated phases differ uniformly,
// so each cos term has mean 0 and variance 1/2, and the mean of Dim of them
// has variance 1/(2·Dim).
func NoiseFloor(sigmas float64) float64 {
	return sigmas / math.Sqrt(2*Dim)
}

// Relevance maps a query similarity ([QueryKey] scored against a fact) to the
// 0..1 score of the recall hrr channel: the part above the noise floor at
// [RecallSigmas], rescaled so that 1 stays 1. Below the floor a similarity
// is indistinguishable from chance and maps to 0, so unrelated facts get no
// hrr credit instead of a random few percent.
func Relevance(sim float64) float64 {
	f := NoiseFloor(RecallSigmas)
	return min(max((sim-f)/(1-f), 0), 1)
}

// Probe scores every fact against key and returns the facts scoring at least
// floor, best first (ties by id), at most limit of them (limit <= 0: all).
// With key = [ProbeKey](X) and floor = [NoiseFloor]([DefaultSigmas]) this
// is probe(X): the facts that hold X as an entity. Items whose bytes are not
// a compact vector are skipped. It is deterministic and does not modify
// facts. Cost: one [Key.Score] per fact.
func Probe(key *Key, facts []Item, floor float64, limit int) []Scored {
	var out []Scored
	for _, f := range facts {
		if Check(f.HRR) != nil {
			continue
		}
		if s := key.Score(f.HRR); s >= floor {
			out = append(out, Scored{f.ID, s})
		}
	}
	return rank(out, limit)
}

// Reason returns the facts that hold all the keys' entities: a fact's score
// is the minimum of its scores against the keys, so one missing entity pulls
// it down to the noise. Facts scoring at least floor come first in score
// order (ties by id), at most limit of them (limit <= 0: all). With no keys
// it returns nil.
func Reason(keys []*Key, facts []Item, floor float64, limit int) []Scored {
	if len(keys) == 0 {
		return nil
	}
	var out []Scored
	for _, f := range facts {
		if Check(f.HRR) != nil {
			continue
		}
		s := math.Inf(1)
		for _, k := range keys {
			s = min(s, k.Score(f.HRR))
			if s < floor {
				break
			}
		}
		if s >= floor {
			out = append(out, Scored{f.ID, s})
		}
	}
	return rank(out, limit)
}

// Related returns the entities structurally connected to entity. It probes
// the facts for entity (members are those scoring at least floor), then for
// each member unbinds ROLE_ENTITY from the fact's own vector and cleans the
// result up against the atoms of the candidate names: a candidate is
// detected in that fact when its similarity is at least floor. Detections
// are aggregated per candidate into a [Connection]; results are ordered by
// score (ties by name), at most limit of them (limit <= 0: all). The probed
// entity itself is never returned; candidates are lower-cased and
// deduplicated.
//
// Unbinding happens per fact, never through a bundle of many facts: a
// single fact holds a few dozen terms, far below capacity, so the cleanup is
// reliable. (Unbinding from a superposition of all facts mixes thousands of
// terms into each phase and returns noise.) Cost: one score per fact plus
// one per (member fact, candidate).
func Related(entity string, facts []Item, candidates []string, floor float64, limit int) []Connection {
	return RelatedWithin(entity, facts, candidates, floor, limit, nil)
}

// RelatedWithin is [Related] with each member fact cleaned up against only
// the candidates within returns for it: indexes into names, the candidates
// as Related uses them (lower-cased, deduplicated, sorted, without the
// probed entity). A nil within tries every candidate in every fact. The
// caller knows which names a fact's text holds; a name it does not hold
// can only be detected by chance, and skipping it spares one score per
// (member fact, candidate), which is most of Related's cost when the
// probed entity has thousands of facts and they name thousands of others.
func RelatedWithin(entity string, facts []Item, candidates []string, floor float64, limit int, within func(id int64, names []string) []int) []Connection {
	entity = strings.ToLower(entity)
	members := Probe(ProbeKey(entity), facts, floor, 0)
	if len(members) == 0 {
		return nil
	}
	byID := make(map[int64][]byte, len(members))
	for _, f := range facts {
		byID[f.ID] = f.HRR
	}

	names := distinct(candidates, true)
	names = slices.DeleteFunc(names, func(s string) bool { return s == entity })
	book := make([]*Key, len(names))
	for i, n := range names {
		book[i] = atomKey(n)
	}
	var role [Dim]byte
	for i := range role {
		role[i] = quantize16(roleEntity[i])
	}

	conns := make([]Connection, len(names))
	var u [EncodedLen]byte
	u[0] = EncodingVersion
	all := make([]int, len(book))
	for j := range all {
		all[j] = j
	}
	for _, m := range members {
		c := byID[m.ID]
		for i := range Dim {
			u[1+i] = c[1+i] - role[i] // unbind ROLE_ENTITY, mod 256
		}
		try := all
		if within != nil {
			try = within(m.ID, names)
		}
		for _, j := range try {
			if s := book[j].Score(u[:]); s >= floor {
				conns[j].Facts++
				conns[j].Score += min(s, m.Score)
			}
		}
	}

	out := conns[:0]
	for j, c := range conns {
		if c.Facts > 0 {
			c.Entity = names[j]
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b Connection) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(a.Entity, b.Entity)
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// rank sorts by score descending, then id ascending, and truncates to limit.
func rank(s []Scored, limit int) []Scored {
	slices.SortFunc(s, func(a, b Scored) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	if limit > 0 && len(s) > limit {
		s = s[:limit]
	}
	return s
}
