package retrieve

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/lexindex"
	"github.com/holomem/holomem/text"
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

// set sets the candidate's score on channel ch.
func (c *candidate) set(ch holomem.Channel, v float64) {
	if c.scores == nil {
		c.scores = holomem.Scores{}
	}
	c.scores[ch] = v
}

// recallRun is one recall's state as it passes through the stages of
// [Memory.Recall].
type recallRun struct {
	m *Memory
	// q is the normalised query; its Limit covers the page's offset too.
	q holomem.Query
	// skip is the page's offset into the ranking.
	skip int
	a    *analysis
	clk  *stageClock
	// weights are the weights asked for (the query's or the configured).
	weights holomem.Weights
	res     *holomem.Result
	// pool is how many candidates each search returns.
	pool  int
	cands map[int64]*candidate
	// ran records the channels that ran; channel is the one scoring now.
	ran     map[holomem.Channel]bool
	channel holomem.Channel
	// sopts are the options of the store's full-text searches.
	sopts []holomem.SearchOption
	// lx is the live text index (nil: the store searches), lq the query's
	// BM25 terms (nil: the store's own scores stand) and qv the query's
	// embedding (nil: no semantic channel).
	lx *lexindex.Index
	lq *lexicalQuery
	qv []float32
}

// Recall answers q: candidates from full text and semantic search, scored on
// every channel that can run, combined with the weights, ranked by score and
// then id. Returned facts get retrieval_count + 1 unless q.NoTouch; that
// count is best-effort (see [Options.RetrievalFlush]) and never fails recall.
//
// It runs in stages, each once: analyse the query, gather candidates, score
// them on every channel, fuse the scores with the weights, rank (relevance
// x trust x decay), follow causal edges, cut the page and describe its hits.
func (m *Memory) Recall(ctx context.Context, q holomem.Query) (*holomem.Result, error) {
	r, err := m.newRecall(ctx, q)
	if err != nil {
		return nil, err
	}
	r.a = m.analyse(ctx, &r.q)
	if err := r.candidates(ctx); err != nil {
		return nil, err
	}
	lazy, err := r.score(ctx)
	if err != nil {
		return nil, err
	}
	w, err := r.fuse(ctx)
	if err != nil {
		return nil, err
	}
	hits := m.rank(r.cands, w)
	r.clk.done(StageRank)
	if hits, err = r.expand(ctx, hits, w); err != nil {
		return nil, err
	}
	hits = r.page(hits)
	if err := r.describe(ctx, hits, lazy); err != nil {
		return nil, err
	}
	r.touch(ctx, hits)
	r.finish(ctx, hits)
	return r.res, nil
}

// newRecall checks q and sets up its recall. A page is the tail of the
// longer ranking: offset 10 limit 10 ranks as limit 20 does (the candidate
// pool grows with it) and skips 10.
func (m *Memory) newRecall(ctx context.Context, q holomem.Query) (*recallRun, error) {
	q.Normalize()
	if err := allow(ctx, q.Namespace, false); err != nil {
		return nil, err
	}
	if err := q.Validate(); err != nil {
		return nil, err
	}
	r := &recallRun{m: m, weights: m.opts.Weights, skip: q.Offset, res: &holomem.Result{},
		cands: map[int64]*candidate{}, ran: map[holomem.Channel]bool{}}
	if q.Weights != nil {
		r.weights = *q.Weights
	}
	q.Limit, q.Offset = q.Limit+q.Offset, 0
	r.q = q
	r.pool = max(q.Limit*candidateMultiplier, minCandidates)
	r.clk = startStages(ctx)
	if q.IncludeSuperseded {
		r.sopts = append(r.sopts, holomem.WithSuperseded())
	}
	r.sopts = append(r.sopts, holomem.WithAnyTerm())
	return r, nil
}

// cand returns the candidate for id, adding it when new.
func (r *recallRun) cand(id int64) *candidate {
	c := r.cands[id]
	if c == nil {
		c = &candidate{}
		r.cands[id] = c
	}
	return c
}

// setRefs gives the records the query references score 1 on ch.
func (r *recallRun) setRefs(ch holomem.Channel) {
	for _, f := range r.a.refs {
		if c := r.cands[f.ID]; c != nil {
			c.set(ch, 1)
		}
	}
}

// candidates gathers the candidates of every channel that searches (full
// text, nearest vectors) and the records the query references, and loads
// their facts (dropping those the query filters out).
func (r *recallRun) candidates(ctx context.Context) error {
	for _, c := range holomem.Channels() {
		s, ok := scorerOf(c.Name)
		if !ok || s.gather == nil {
			continue
		}
		r.channel = c.Name
		ran, err := s.gather(ctx, r)
		if err != nil {
			return err
		}
		r.ran[c.Name] = ran
	}
	for _, f := range r.a.refs {
		if c := r.cand(f.ID); c.fact == nil {
			c.fact = f
		}
	}
	if err := r.m.loadCandidates(ctx, r.cands, r.q); err != nil {
		return err
	}
	r.clk.done(StageLoad)
	return nil
}

// score runs every channel that runs on every query over the loaded
// candidates. It returns the channels left to score on the page's hits
// only (see scorer.page).
func (r *recallRun) score(ctx context.Context) ([]holomem.Channel, error) {
	var lazy []holomem.Channel
	for _, c := range holomem.Channels() {
		s, ok := scorerOf(c.Name)
		if !ok || c.Occasional || (s.gather != nil && !r.ran[c.Name]) {
			continue
		}
		if s.page != nil && r.weights[c.Name] == 0 {
			// With weight 0 (jaccard's default) the channel cannot move
			// the ranking: only the hits returned are scored.
			lazy = append(lazy, c.Name)
			r.setRefs(c.Name)
			r.ran[c.Name] = true
			continue
		}
		if s.score == nil {
			continue
		}
		r.channel = c.Name
		ran, err := s.score(ctx, r, nil)
		if err != nil {
			return nil, err
		}
		r.ran[c.Name] = ran
	}
	return lazy, nil
}

// fuse returns the weights relevance is the plain weighted sum of: those
// asked for, with the share of the channels that did not run given to the
// others, and each occasional channel that runs (scored here, after the
// others, since ppr seeds from their ranking) at its weight, then
// normalised: ppr's 4 against the others' 1 shows as 0.80 and 0.20 in all.
// It also lists the channels that ran in the result.
func (r *recallRun) fuse(ctx context.Context) (holomem.Weights, error) {
	w := r.weights.Keep(func(c holomem.ChannelSpec) bool { return r.ran[c.Name] })
	for _, c := range holomem.Channels() {
		s, ok := scorerOf(c.Name)
		if !c.Occasional {
			continue
		}
		ran := false
		if ok && s.score != nil {
			r.channel = c.Name
			var err error
			if ran, err = s.score(ctx, r, w); err != nil {
				return nil, err
			}
		}
		r.ran[c.Name] = ran
		switch {
		case !ran:
			w[c.Name] = 0
		case w[c.Name] == 0:
			w[c.Name] = c.Weight
		}
	}
	for _, c := range holomem.Channels() {
		if r.ran[c.Name] {
			r.res.Channels = append(r.res.Channels, c.Name)
		}
	}
	w = w.Normalized()
	r.res.Weights = w
	r.clk.done(StagePPR)
	return w, nil
}

// expand adds the facts causal edges lead to from the hits, when asked.
func (r *recallRun) expand(ctx context.Context, hits []holomem.Hit, w holomem.Weights) ([]holomem.Hit, error) {
	if !r.q.FollowCausal {
		return hits, nil
	}
	return r.m.followCausal(ctx, hits, r.q, w)
}

// page cuts the page the query asked for out of the ranking.
func (r *recallRun) page(hits []holomem.Hit) []holomem.Hit {
	if len(hits) > r.q.Limit {
		hits = hits[:r.q.Limit]
	}
	hits = hits[min(r.skip, len(hits)):]
	r.clk.done(StagePPR)
	return hits
}

// describe completes the page's hits: the scores of the lazy channels,
// the facts' entities, staleness of anchored files and snippets.
func (r *recallRun) describe(ctx context.Context, hits []holomem.Hit, lazy []holomem.Channel) error {
	for _, c := range lazy {
		if s, ok := scorerOf(c); ok {
			s.page(r, hits)
		}
	}
	if err := r.m.attachEntities(ctx, hits); err != nil {
		return err
	}
	r.m.markStale(ctx, hits)
	attachSnippets(hits, r.a.stemSet)
	r.clk.done(StageRank)
	return nil
}

// touch counts the hits' retrieval, unless the query says not to.
func (r *recallRun) touch(ctx context.Context, hits []holomem.Hit) {
	if !r.q.NoTouch && len(hits) > 0 {
		ids := make([]int64, len(hits))
		for i, h := range hits {
			ids[i] = h.Fact.ID
		}
		r.m.countRetrievals(ctx, ids)
		for i := range hits {
			hits[i].Fact.RetrievalCount++
		}
	}
	r.clk.done(StageTouch)
}

// finish fills the result. When the first page is empty it says where else
// the words occur (a fact added outside the git project is in "default",
// not the project's).
func (r *recallRun) finish(ctx context.Context, hits []holomem.Hit) {
	r.res.Hits = hits
	if r.res.Hits == nil {
		r.res.Hits = []holomem.Hit{}
	}
	r.res.Namespace = r.q.Namespace
	if len(r.res.Hits) == 0 && r.skip == 0 {
		r.res.Elsewhere = r.m.elsewhere(ctx, r.q.Namespace, r.a.storeQuery(), r.sopts)
		if len(r.res.Elsewhere) > 0 {
			r.res.Notes = append(r.res.Notes, elsewhereNote(r.q.Namespace, r.res.Elsewhere))
		}
	}
}

// gatherFTS adds the candidates of full text: every fact sharing a content
// word with the query, the best pool of them by BM25 (fusion re-scores
// them, see scoreFTS). A long-running process ranks them from its
// in-memory index (exact BM25 over every fact sharing a stem); others ask
// the store, which escapes the user's text.
func gatherFTS(ctx context.Context, r *recallRun) (bool, error) {
	m, q := r.m, r.q
	r.lx = m.liveIndex(ctx)
	var err error
	if r.lq, err = m.newLexicalQuery(ctx, r.a, r.lx); err != nil {
		return false, fmt.Errorf("full-text statistics: %w", err)
	}
	var matches []holomem.TextMatch
	if r.lx != nil {
		if r.lq != nil {
			matches = liveSearch(r.lx, q.Namespace, r.lq, q.IncludeSuperseded, r.pool)
		}
	} else {
		ftsOpts := slices.Clip(r.sopts)
		if r.lq != nil {
			ftsOpts = append(ftsOpts, holomem.WithTermDocs(r.lq.df))
		}
		matches, err = m.store.SearchText(ctx, q.Namespace, r.a.storeQuery(), r.pool, ftsOpts...)
		if err != nil {
			return false, fmt.Errorf("full-text search: %w", err)
		}
	}
	for _, mt := range matches {
		r.cand(mt.ID).set(holomem.ChannelFTS, mt.Score)
	}
	r.clk.done(StageFTS)
	return true, nil
}

// gatherSemantic adds the query's nearest neighbours to the candidates
// (not only when full text found none). Without a model, or when it fails,
// the channel does not run and a note says why.
func gatherSemantic(ctx context.Context, r *recallRun) (bool, error) {
	defer r.clk.done(StageSemantic)
	m := r.m
	if m.emb == nil {
		r.res.Notes = append(r.res.Notes, noEmbedderNote)
		return false, nil
	}
	v, err := m.embedQuery(ctx, r.q)
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		r.res.Notes = append(r.res.Notes, fmt.Sprintf(embedFailedNoteFmt, err))
		return false, nil
	}
	near, err := m.sem.Search(ctx, r.q.Namespace, v, r.pool)
	if err != nil {
		r.res.Notes = append(r.res.Notes, fmt.Sprintf(embedFailedNoteFmt, err))
		return false, nil
	}
	r.qv = v
	for _, n := range near {
		r.cand(n.ID).set(holomem.ChannelSemantic, max(0, float64(n.Score)))
	}
	return true, nil
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

// rank combines channel scores into hits, best first, ties by id.
func (m *Memory) rank(cands map[int64]*candidate, w holomem.Weights) []holomem.Hit {
	hits := make([]holomem.Hit, 0, len(cands))
	for _, c := range cands {
		if c.fact == nil {
			continue
		}
		s := c.scores
		if s == nil {
			s = holomem.Scores{}
			c.scores = s
		}
		rel := w.Relevance(s)
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
