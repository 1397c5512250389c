package retrieve

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/hrr"
	"github.com/holomem/holomem/text"
	"github.com/holomem/holomem/vec"
)

// candidate gathers one fact's channel scores while recall runs.
type candidate struct {
	fact   *holomem.Fact
	scores holomem.Scores
	via    []int64
	// inPeriod is set when the fact falls in the period the query names;
	// its decay then counts periodAge (see scoreTime).
	inPeriod  bool
	periodAge time.Duration
	// passage is a long fact's best passage by BM25 (nil: not scored so).
	passage *holomem.Passage
}

// Recall answers q: candidates from full text and semantic search, scored on
// every channel that can run, combined with the weights, ranked by score and
// then id. Returned facts get retrieval_count + 1 unless q.NoTouch; that
// count is best-effort (see [Options.RetrievalFlush]) and never fails recall.
func (m *Memory) Recall(ctx context.Context, q holomem.Query) (*holomem.Result, error) {
	q.Normalize()
	if err := allow(ctx, q.Namespace, false); err != nil {
		return nil, err
	}
	if err := q.Validate(); err != nil {
		return nil, err
	}
	weights := m.opts.Weights
	if q.Weights != nil {
		weights = *q.Weights
	}
	// A page is the tail of the longer ranking: offset 10 limit 10 ranks
	// as limit 20 does (the candidate pool grows with it) and skips 10.
	skip := q.Offset
	q.Limit, q.Offset = q.Limit+q.Offset, 0
	clk := startStages(ctx)
	lex, refs := m.expandRefs(ctx, &q)
	res := &holomem.Result{}
	pool := max(q.Limit*candidateMultiplier, minCandidates)
	cands := map[int64]*candidate{}
	get := func(id int64) *candidate {
		c := cands[id]
		if c == nil {
			c = &candidate{}
			cands[id] = c
		}
		return c
	}

	// Full text: the raw query; user text is escaped by the store.
	var sopts []holomem.SearchOption
	if q.IncludeSuperseded {
		sopts = append(sopts, holomem.WithSuperseded())
	}
	// Candidates: every fact sharing a content word with the query, the
	// best pool of them by the store's BM25; fusion then re-scores them.
	// A long-running process ranks them from its in-memory index (exact
	// BM25 over every fact sharing a stem); others ask the store.
	lx := m.liveIndex(ctx)
	lq, err := m.newLexicalQuery(ctx, lex, lx)
	if err != nil {
		return nil, fmt.Errorf("full-text statistics: %w", err)
	}
	sopts = append(sopts, holomem.WithAnyTerm())
	var matches []holomem.TextMatch
	if lx != nil {
		if lq != nil {
			matches = liveSearch(lx, q.Namespace, lq, q.IncludeSuperseded, pool)
		}
	} else {
		ftsOpts := slices.Clip(sopts)
		if lq != nil {
			ftsOpts = append(ftsOpts, holomem.WithTermDocs(lq.df))
		}
		matches, err = m.store.SearchText(ctx, q.Namespace, text.QueryText(lex), pool, ftsOpts...)
		if err != nil {
			return nil, fmt.Errorf("full-text search: %w", err)
		}
	}
	for _, mt := range matches {
		get(mt.ID).scores.FTS = mt.Score
	}
	res.Channels = append(res.Channels, holomem.ChannelFTS, holomem.ChannelJaccard)
	clk.done(StageFTS)

	// Semantic: nearest neighbours join the candidates (not only when FTS is empty).
	semantic := false
	var qv []float32
	if m.emb == nil {
		res.Notes = append(res.Notes, noEmbedderNote)
	} else if v, err := m.embedQuery(ctx, q); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		res.Notes = append(res.Notes, fmt.Sprintf(embedFailedNoteFmt, err))
	} else if near, err := m.sem.Search(ctx, q.Namespace, v, pool); err != nil {
		res.Notes = append(res.Notes, fmt.Sprintf(embedFailedNoteFmt, err))
	} else {
		semantic, qv = true, v
		for _, r := range near {
			get(r.ID).scores.Semantic = max(0, float64(r.Score))
		}
	}
	clk.done(StageSemantic)
	hrrOn := !m.opts.DisableHRR
	if hrrOn {
		res.Channels = append(res.Channels, holomem.ChannelHRR)
	}
	if semantic {
		res.Channels = append(res.Channels, holomem.ChannelSemantic)
	}

	for _, f := range refs {
		if c := get(f.ID); c.fact == nil {
			c.fact = f
		}
	}
	if err := m.loadCandidates(ctx, cands, q); err != nil {
		return nil, err
	}
	clk.done(StageLoad)
	if lq != nil {
		m.scoreBM25(lq, cands, lx)
	}
	clk.done(StageBM25)
	lexQ := q
	lexQ.Text = lex
	qtoks := text.ContentTokens(lex)
	qset := stemSet(qtoks)
	// With weight 0 (the default) Jaccard cannot move the ranking: it is
	// computed for the hits returned only, which the explanation shows.
	lazyJaccard := weights.Jaccard == 0
	m.scoreLocal(ctx, clk, cands, lexQ, qtoks, qset, !lazyJaccard, hrrOn, semantic, qv)
	for _, f := range refs {
		// The query names these records: they match it exactly.
		if c := cands[f.ID]; c != nil {
			c.scores.FTS, c.scores.Jaccard = 1, 1
		}
	}

	w := weights.Redistribute(semantic, hrrOn)
	if q.PPR {
		if w.PPR == 0 {
			w.PPR = defaultPPRWeight
		}
		if err := m.addPPR(ctx, cands, q, w); err != nil {
			return nil, err
		}
		res.Channels = append(res.Channels, holomem.ChannelPPR)
	} else {
		w.PPR = 0
	}
	w = m.withTime(cands, q.Text, w, res)
	// The weights reported are the ones relevance is the plain weighted sum
	// of: PPR's 4 against the others' 1 shows as 0.80 and 0.20 in all.
	w = w.Normalized()
	res.Weights = w
	clk.done(StagePPR)
	hits := m.rank(cands, w)
	clk.done(StageRank)
	if q.FollowCausal {
		if hits, err = m.followCausal(ctx, hits, q, w); err != nil {
			return nil, err
		}
	}
	if len(hits) > q.Limit {
		hits = hits[:q.Limit]
	}
	hits = hits[min(skip, len(hits)):]
	clk.done(StagePPR)
	if lazyJaccard {
		isRef := func(id int64) bool {
			return slices.ContainsFunc(refs, func(f *holomem.Fact) bool { return f.ID == id })
		}
		for i := range hits {
			if !isRef(hits[i].Fact.ID) {
				hits[i].Scores.Jaccard = text.JaccardSorted(qset, m.terms.get(hits[i].Fact).contentSet)
			}
		}
	}
	clk.done(StageJaccard)
	if err := m.attachEntities(ctx, hits); err != nil {
		return nil, err
	}
	m.markStale(ctx, hits)
	attachSnippets(hits, qset)
	clk.done(StageRank)
	if !q.NoTouch && len(hits) > 0 {
		ids := make([]int64, len(hits))
		for i, h := range hits {
			ids[i] = h.Fact.ID
		}
		m.countRetrievals(ctx, ids)
		for i := range hits {
			hits[i].Fact.RetrievalCount++
		}
	}
	clk.done(StageTouch)
	res.Hits = hits
	if res.Hits == nil {
		res.Hits = []holomem.Hit{}
	}
	res.Namespace = q.Namespace
	if len(res.Hits) == 0 && skip == 0 {
		res.Hits = []holomem.Hit{}
		// Nothing here: say where else the words occur (a fact added
		// outside the git project is in "default", not the project's).
		res.Elsewhere = m.elsewhere(ctx, q.Namespace, text.QueryText(lex), sopts)
		if len(res.Elsewhere) > 0 {
			res.Notes = append(res.Notes, elsewhereNote(q.Namespace, res.Elsewhere))
		}
	}
	return res, nil
}

// embedQuery embeds the query for the semantic channel. Under a deadline
// it leaves a fifth of the remaining time for the other channels: when the
// model is slow (cold load, busy CPU) recall answers without it rather than
// not at all.
func (m *Memory) embedQuery(ctx context.Context, q holomem.Query) ([]float32, error) {
	t := q.EmbedText
	if t == "" {
		t = q.Text
	}
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, dl.Add(-time.Until(dl)/5))
		defer cancel()
	}
	return m.embedOne(ctx, t)
}

// loadCandidates fetches the candidates' facts in one query and drops those
// the query filters out (namespace, category, trust, superseded).
func (m *Memory) loadCandidates(ctx context.Context, cands map[int64]*candidate, q holomem.Query) error {
	var ids []int64
	for id, c := range cands {
		if c.fact == nil {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	facts, err := m.loadFacts(ctx, ids, !m.opts.DisableHRR, q.IncludeSuperseded)
	if err != nil {
		return fmt.Errorf("load candidates: %w", err)
	}
	for _, f := range facts {
		cands[f.ID].fact = f
	}
	for id, c := range cands {
		f := c.fact
		if f == nil || f.Namespace != q.Namespace || f.Trust < *q.MinTrust ||
			(q.Category != "" && f.Category != q.Category) ||
			(!q.IncludeSuperseded && f.SupersededBy != 0) {
			delete(cands, id)
		}
	}
	return nil
}

// attachEntities fills the Entities of the hits' facts, which candidates
// are loaded without (only the few facts returned need them).
func (m *Memory) attachEntities(ctx context.Context, hits []holomem.Hit) error {
	if len(hits) == 0 {
		return nil
	}
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.Fact.ID
	}
	ents, err := m.entitiesOf(ctx, ids)
	if err != nil {
		return fmt.Errorf("load entities: %w", err)
	}
	for i := range hits {
		hits[i].Fact.Entities = ents[hits[i].Fact.ID]
	}
	return nil
}

// scoreLocal fills the jaccard, hrr and (for candidates found by full text
// only) semantic scores.
// qtoks are the query's content tokens, qset their stem set; doJaccard
// false leaves jaccard to the caller.
func (m *Memory) scoreLocal(ctx context.Context, clk *stageClock, cands map[int64]*candidate, q holomem.Query, qtoks, qset []string, doJaccard, hrrOn, semantic bool, qv []float32) {
	var key *hrr.Key
	if hrrOn {
		key = hrr.QueryKey(qtoks, m.entityKeys(ctx, q.Namespace, q.Text))
	}
	clk.done(StageEntities)
	if doJaccard {
		for _, c := range cands {
			if c.fact != nil {
				c.scores.Jaccard = text.JaccardSorted(qset, m.terms.get(c.fact).contentSet)
			}
		}
	}
	clk.done(StageJaccard)
	if key != nil {
		for _, c := range cands {
			if c.fact != nil && hrr.Check(c.fact.HRR) == nil {
				c.scores.HRR = hrr.Relevance(key.Score(c.fact.HRR))
			}
		}
	}
	clk.done(StageHRR)
	for _, c := range cands {
		if c.fact == nil {
			continue
		}
		if semantic && c.scores.Semantic == 0 {
			if v := m.sem.VectorOf(q.Namespace, c.fact.ID); v != nil {
				c.scores.Semantic = max(0, float64(vec.Dot(qv, v)))
			}
		}
	}
	clk.done(StageSemantic)
}

// rank combines channel scores into hits, best first, ties by id.
func (m *Memory) rank(cands map[int64]*candidate, w holomem.Weights) []holomem.Hit {
	total := w.FTS + w.Jaccard + w.HRR + w.Semantic + w.PPR + w.Time
	hits := make([]holomem.Hit, 0, len(cands))
	for _, c := range cands {
		if c.fact == nil {
			continue
		}
		s := c.scores
		rel := (s.FTS*w.FTS + s.Jaccard*w.Jaccard + s.HRR*w.HRR + s.Semantic*w.Semantic + s.PPR*w.PPR + s.Time*w.Time) / total
		if rel <= 0 && len(c.via) == 0 {
			continue
		}
		d := m.decay(c.fact)
		if c.inPeriod {
			d = m.decayAge(c.fact, c.periodAge)
		}
		hits = append(hits, holomem.Hit{
			Fact: c.fact, Relevance: rel, Decay: d, Scores: s, Via: c.via, Passage: c.passage,
			Score: rel * c.fact.Trust * d,
		})
	}
	sortHits(hits)
	return hits
}

func sortHits(hits []holomem.Hit) {
	slices.SortFunc(hits, func(a, b holomem.Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Fact.ID, b.Fact.ID)
	})
}

// stemSet is the sorted set of the tokens' stems.
func stemSet(toks []string) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = text.Stem(t)
	}
	return text.SortedSet(out)
}
