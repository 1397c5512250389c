package retrieve

import (
	"context"
	"fmt"
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
	// hygieneTermDocs bounds the relaxed duplicate search to words found in
	// at most this many facts (the rarest is always kept): a near-duplicate
	// shares most of f's words, so it contains the rare ones too, and
	// ranking every fact that contains a common word made each write cost
	// time in proportion to the store (20 adds/s at 100k facts).
	hygieneTermDocs = 200
)

// hygiene finds facts in f's namespace that f nearly duplicates, and facts
// about the same entities that say something different (likely
// contradictions: candidates for supersede). qv is f's embedding or nil.
// toks are text.Tokens(f.Content), which the query, Jaccard and Relate
// share, and ents text.Entities(f.Content).
func (m *Memory) hygiene(ctx context.Context, f *holomem.Fact, toks []string, ents []text.Entity, qv []float32) (dups, contras, refines []holomem.Hit, err error) {
	cands := map[int64]*candidate{}
	if q := hygieneQuery(toks); q != "" {
		var matches []holomem.TextMatch
		var err error
		if lx := m.liveIndex(ctx); lx != nil {
			for _, h := range lx.Similar(f.Namespace, strings.Fields(q), hygieneCandidates, hygieneTermDocs) {
				matches = append(matches, holomem.TextMatch{ID: h.ID, Score: h.Score})
			}
		} else if sf, ok := holomem.As[holomem.SimilarFactFinder](m.store); ok {
			matches, err = sf.SimilarFacts(ctx, f.Namespace, strings.Fields(q), hygieneCandidates, hygieneTermDocs)
		} else {
			matches, err = m.store.SearchText(ctx, f.Namespace, q, hygieneCandidates, holomem.WithMaxTermDocs(hygieneTermDocs))
		}
		if err != nil {
			return nil, nil, nil, err
		}
		for _, mt := range matches {
			cands[mt.ID] = &candidate{scores: holomem.Scores{FTS: mt.Score}}
		}
	}
	// Facts about the same entities are the contradiction candidates even
	// when they share few words.
	names := make([]string, 0, hygieneEntities)
	for _, e := range ents[:min(len(ents), hygieneEntities)] {
		names = append(names, e.Name)
	}
	byEntity, err := m.recentEntityFacts(ctx, f.Namespace, names)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, ids := range byEntity {
		for _, id := range ids[max(0, len(ids)-hygieneCandidates):] {
			if cands[id] == nil {
				cands[id] = &candidate{}
			}
		}
	}
	if qv != nil {
		near, err := m.sem.Search(ctx, f.Namespace, qv, hygieneCandidates/2)
		if err != nil {
			return nil, nil, nil, err
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
		return nil, nil, nil, nil
	}
	if err := m.loadHygieneCandidates(ctx, cands, f.Namespace); err != nil {
		return nil, nil, nil, err
	}
	nearJ, nearCos := defaultNearJaccard, defaultNearCosine
	if m.opts.NearDuplicate > 0 {
		nearJ, nearCos = m.opts.NearDuplicate, m.opts.NearDuplicate
	}
	mine := text.NewWordSet(toks)
	relater := text.NewRelaterText(f.Content, toks)
	for _, c := range cands {
		other := c.fact
		if other == nil || other.Content == f.Content {
			continue
		}
		ow := m.words.of(other.ID, other.Content)
		c.scores.Jaccard = text.JaccardSets(mine, ow.set)
		cos := -1.0
		if qv != nil {
			if c.scores.Semantic == 0 {
				if v := m.sem.VectorOf(f.Namespace, other.ID); v != nil {
					c.scores.Semantic = max(0, float64(vec.Dot(qv, v)))
				}
			}
			cos = c.scores.Semantic
		}
		// other may be the row cache's: the hits get copies (their
		// entities are attached below).
		h := holomem.Hit{Scores: c.scores, Decay: 1}
		h.Relevance = max(c.scores.Jaccard, c.scores.Semantic)
		h.Score = h.Relevance
		// text.Relate decides (measured on text/testdata/hygiene*.jsonl;
		// its contradiction checks run before any similarity). The
		// near-duplicate thresholds only catch restatements it calls
		// unrelated (a model's similarity above them).
		near := c.scores.Jaccard >= nearJ || c.scores.Semantic >= nearCos
		hit := func() holomem.Hit {
			cp := *other
			h.Fact = &cp
			return h
		}
		switch rel := relater.RelateTo(ow.rel, cos); {
		case rel == text.RelContradiction:
			contras = append(contras, hit())
		case rel == text.RelRefinement:
			refines = append(refines, hit())
		case rel == text.RelNearDuplicate, near:
			dups = append(dups, hit())
		}
	}
	sortHits(dups)
	sortHits(contras)
	sortHits(refines)
	for _, hs := range [][]holomem.Hit{dups, contras, refines} {
		if err := m.attachEntities(ctx, hs); err != nil {
			return nil, nil, nil, err
		}
	}
	return dups, contras, refines, nil
}

// recentEntityFacts returns the ids of each named entity's newest
// hygieneCandidates facts (all of them from a store without a bounded
// lookup), in one read where the store can.
func (m *Memory) recentEntityFacts(ctx context.Context, namespace string, names []string) ([][]int64, error) {
	if len(names) == 0 {
		return nil, nil
	}
	if rs, ok := holomem.As[holomem.RecentEntitiesFacts](m.store); ok {
		return rs.RecentFactIDsByEntities(ctx, namespace, names, hygieneCandidates)
	}
	recent, _ := holomem.As[holomem.RecentEntityFacts](m.store)
	out := make([][]int64, len(names))
	for i, name := range names {
		var ids []int64
		var err error
		if recent != nil {
			ids, err = recent.RecentFactIDsByEntity(ctx, namespace, name, hygieneCandidates)
		} else {
			ids, err = m.store.FactIDsByEntity(ctx, namespace, name)
		}
		if err != nil && !isNotFound(err) {
			return nil, err
		}
		out[i] = ids
	}
	return out, nil
}

// hygieneQuery keeps the content words (of a fact's tokens) that can tell
// facts apart: short words ("the", "is", "в") match most of a store, and
// an any-term search over them would rank thousands of facts on every
// write.
func hygieneQuery(tokens []string) string {
	var keep []string
	seen := map[string]bool{}
	for _, t := range tokens {
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

// loadHygieneCandidates loads the candidates' facts without their HRR
// vectors (recall's loader reads them for scoring; hygiene never looks at
// them, and decoding ~60 of them was a sixth of an add) and drops those
// that are not live facts of namespace. The facts may be the row cache's
// own: read them, never change them.
func (m *Memory) loadHygieneCandidates(ctx context.Context, cands map[int64]*candidate, namespace string) error {
	ids := make([]int64, 0, len(cands))
	for id := range cands {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	facts, err := m.loadFactsShared(ctx, ids, false, false, true)
	if err != nil {
		return fmt.Errorf("load candidates: %w", err)
	}
	for _, f := range facts {
		cands[f.ID].fact = f
	}
	for id, c := range cands {
		if f := c.fact; f == nil || f.Namespace != namespace || f.Trust < 0 || f.SupersededBy != 0 {
			delete(cands, id)
		}
	}
	return nil
}
