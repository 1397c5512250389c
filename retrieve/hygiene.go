package retrieve

import (
	"context"
	"slices"
	"strings"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/text"
	"github.com/holomem/holomem/vec"
)

const (
	hygieneCandidates = 20
	// hygieneEntities bounds the entities whose facts are checked.
	hygieneEntities = 5
	// hygieneTerms bounds the words of the duplicate search.
	hygieneTerms = 12
	// contradictionJaccard is the token overlap from which two facts about
	// the same entities are taken to talk about the same thing ("Alice
	// prefers dark mode" vs "Alice prefers light mode" overlap 0.6; "Alice
	// lives in Berlin" vs "Alice likes tea" only 0.14).
	contradictionJaccard = 0.3
	// hygieneTermDocs bounds the relaxed duplicate search to words found in
	// at most this many facts (the rarest is always kept): a near-duplicate
	// shares most of f's words, so it contains the rare ones too, and
	// ranking every fact that contains a common word made each write cost
	// time in proportion to the store (20 adds/s at 100k facts).
	hygieneTermDocs = 200
)

// recentEntityFacts is implemented by stores that can list an entity's
// newest facts without reading all of them (the SQLite store).
type recentEntityFacts interface {
	RecentFactIDsByEntity(ctx context.Context, namespace, name string, limit int) ([]int64, error)
}

// hygiene finds facts in f's namespace that f nearly duplicates, and facts
// about the same entities that say something different (likely
// contradictions: candidates for supersede). qv is f's embedding or nil.
func (m *Memory) hygiene(ctx context.Context, f *holomem.Fact, qv []float32) (dups, contras []holomem.Hit, err error) {
	cands := map[int64]*candidate{}
	if q := hygieneQuery(f.Content); q != "" {
		matches, err := m.store.SearchText(ctx, f.Namespace, q, hygieneCandidates, holomem.WithMaxTermDocs(hygieneTermDocs))
		if err != nil {
			return nil, nil, err
		}
		for _, mt := range matches {
			cands[mt.ID] = &candidate{scores: holomem.Scores{FTS: mt.Score}}
		}
	}
	// Facts about the same entities are the contradiction candidates even
	// when they share few words.
	myEntities := text.Entities(f.Content)
	recent, _ := m.store.(recentEntityFacts)
	for i, e := range myEntities {
		if i == hygieneEntities {
			break
		}
		var ids []int64
		var err error
		if recent != nil {
			ids, err = recent.RecentFactIDsByEntity(ctx, f.Namespace, e.Name, hygieneCandidates)
		} else {
			ids, err = m.store.FactIDsByEntity(ctx, f.Namespace, e.Name)
		}
		if err != nil && !isNotFound(err) {
			return nil, nil, err
		}
		for _, id := range ids[max(0, len(ids)-hygieneCandidates):] {
			if cands[id] == nil {
				cands[id] = &candidate{}
			}
		}
	}
	if qv != nil {
		near, err := m.sem.Search(ctx, f.Namespace, qv, hygieneCandidates/2)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range near {
			c := cands[r.ID]
			if c == nil {
				c = &candidate{}
				cands[r.ID] = c
			}
			c.scores.Semantic = max(0, float64(r.Score))
		}
	}
	if len(cands) == 0 {
		return nil, nil, nil
	}
	if err := m.loadCandidates(ctx, cands, holomem.Query{Namespace: f.Namespace, MinTrust: new(float64)}); err != nil {
		return nil, nil, err
	}
	nearJ, nearCos := defaultNearJaccard, defaultNearCosine
	if m.opts.NearDuplicate > 0 {
		nearJ, nearCos = m.opts.NearDuplicate, m.opts.NearDuplicate
	}
	mine := text.SortedSet(text.Tokens(f.Content))
	myEnts := entitySet(myEntities)
	for _, c := range cands {
		other := c.fact
		if other == nil || other.Content == f.Content {
			continue
		}
		c.scores.Jaccard = text.JaccardSorted(mine, text.SortedSet(text.Tokens(other.Content)))
		if qv != nil && c.scores.Semantic == 0 {
			if v := m.sem.VectorOf(f.Namespace, other.ID); v != nil {
				c.scores.Semantic = max(0, float64(vec.Dot(qv, v)))
			}
		}
		h := holomem.Hit{Fact: other, Scores: c.scores, Decay: 1}
		h.Relevance = max(c.scores.Jaccard, c.scores.Semantic)
		h.Score = h.Relevance
		switch {
		case c.scores.Jaccard >= nearJ || c.scores.Semantic >= nearCos:
			dups = append(dups, h)
		case c.scores.Jaccard >= contradictionJaccard && sharesEntity(myEnts, text.Entities(other.Content)):
			contras = append(contras, h)
		}
	}
	sortHits(dups)
	sortHits(contras)
	if err := m.attachEntities(ctx, dups); err != nil {
		return nil, nil, err
	}
	if err := m.attachEntities(ctx, contras); err != nil {
		return nil, nil, err
	}
	return dups, contras, nil
}

// hygieneQuery keeps the content words that can tell facts apart: short
// words ("the", "is", "в") match most of a store, and an any-term search
// over them would rank thousands of facts on every write.
func hygieneQuery(content string) string {
	var keep []string
	seen := map[string]bool{}
	for _, t := range text.Tokens(content) {
		if len([]rune(t)) < 4 || seen[t] {
			continue
		}
		seen[t] = true
		keep = append(keep, t)
		if len(keep) == hygieneTerms {
			break
		}
	}
	return strings.Join(keep, " ")
}

func entitySet(ents []text.Entity) map[string]bool {
	s := make(map[string]bool, len(ents))
	for _, e := range ents {
		s[text.EntityKey(e.Name)] = true
	}
	return s
}

func sharesEntity(mine map[string]bool, theirs []text.Entity) bool {
	return slices.ContainsFunc(theirs, func(e text.Entity) bool { return mine[text.EntityKey(e.Name)] })
}
