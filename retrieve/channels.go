package retrieve

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/hrr"
	"github.com/holomem/holomem/text"
	"github.com/holomem/holomem/vec"
)

// A scorer runs one channel of recall. The channels themselves (names,
// default weights, when they run) are the table of [holomem.Channels];
// scorers maps each to the code that scores it. Recall calls them in the
// table's order: first every gather, then every score of the channels
// that run on every query, then, with the weights fused so far, the
// occasional channels' score.
type scorer struct {
	// gather adds the channel's candidates before they are loaded (fts and
	// semantic search) and reports whether the channel runs on this recall.
	gather func(ctx context.Context, r *recallRun) (bool, error)
	// score sets the channel's score on the loaded candidates and reports
	// whether the channel ran. For an occasional channel w are the weights
	// of the channels scored before it (ppr seeds from their ranking).
	score func(ctx context.Context, r *recallRun, w holomem.Weights) (bool, error)
	// page, when set, is used instead of score while the channel weighs 0:
	// it then cannot move the ranking, so only the page's hits are scored,
	// for the explanation (jaccard).
	page func(r *recallRun, hits []holomem.Hit)
}

// builtinScorers score holomem's own channels.
var builtinScorers = map[holomem.Channel]scorer{
	holomem.ChannelFTS:      {gather: gatherFTS, score: scoreFTS},
	holomem.ChannelJaccard:  {score: scoreJaccard, page: pageJaccard},
	holomem.ChannelHRR:      {score: scoreHRR},
	holomem.ChannelSemantic: {gather: gatherSemantic, score: scoreSemantic},
	holomem.ChannelPPR:      {score: scorePPR},
	holomem.ChannelTime:     {score: scoreTimeChannel},
}

// scorers is builtinScorers with the registered ones (registerChannel),
// replaced whole on registration so that recall reads it without a lock.
var (
	scorers   atomic.Pointer[map[holomem.Channel]scorer]
	scorersMu sync.Mutex
)

func init() { scorers.Store(&builtinScorers) }

// scorerOf returns the channel's scorer; a channel without one never runs.
func scorerOf(c holomem.Channel) (scorer, bool) {
	s, ok := (*scorers.Load())[c]
	return s, ok
}

// registerChannel adds a channel to the table of [holomem.Channels] and
// its scorer to recall; the returned function removes both.
func registerChannel(spec holomem.ChannelSpec, s scorer) (func(), error) {
	if s.gather == nil && s.score == nil {
		return nil, fmt.Errorf("%w: channel %s has no scorer", holomem.ErrInvalid, spec.Name)
	}
	unregister, err := holomem.RegisterChannel(spec)
	if err != nil {
		return nil, err
	}
	scorersMu.Lock()
	defer scorersMu.Unlock()
	next := maps.Clone(*scorers.Load())
	next[spec.Name] = s
	scorers.Store(&next)
	return func() {
		scorersMu.Lock()
		defer scorersMu.Unlock()
		next := maps.Clone(*scorers.Load())
		delete(next, spec.Name)
		scorers.Store(&next)
		unregister()
	}, nil
}

// perCandidate is the scorer of a channel that scores each loaded
// candidate on its own: f returns the score of one.
func perCandidate(f func(r *recallRun, c *candidate) float64) scorer {
	return scorer{score: func(_ context.Context, r *recallRun, _ holomem.Weights) (bool, error) {
		for _, c := range r.cands {
			if c.fact != nil {
				c.set(r.channel, f(r, c))
			}
		}
		return true, nil
	}}
}

// scoreFTS re-scores the candidates by BM25 over stems (scoreBM25). The
// records the query references match it exactly.
func scoreFTS(_ context.Context, r *recallRun, _ holomem.Weights) (bool, error) {
	if r.lq != nil {
		r.m.scoreBM25(r.lq, r.cands, r.lx)
	}
	r.clk.done(StageBM25)
	r.setRefs(holomem.ChannelFTS)
	return true, nil
}

// scoreJaccard is the overlap of the query's and each candidate's stem sets.
func scoreJaccard(_ context.Context, r *recallRun, _ holomem.Weights) (bool, error) {
	for _, c := range r.cands {
		if c.fact != nil {
			c.set(holomem.ChannelJaccard, text.JaccardSorted(r.a.stemSet, r.m.terms.get(c.fact).contentSet))
		}
	}
	r.clk.done(StageJaccard)
	r.setRefs(holomem.ChannelJaccard)
	return true, nil
}

// pageJaccard is scoreJaccard for the page's hits only.
func pageJaccard(r *recallRun, hits []holomem.Hit) {
	for i := range hits {
		v := 1.0
		if !r.a.isRef(hits[i].Fact.ID) {
			v = text.JaccardSorted(r.a.stemSet, r.m.terms.get(hits[i].Fact).contentSet)
		}
		hits[i].Scores[holomem.ChannelJaccard] = v
	}
	r.clk.done(StageJaccard)
}

// scoreHRR scores each candidate's holographic vector against the key of
// the query's words and entities (aliases resolved).
func scoreHRR(ctx context.Context, r *recallRun, _ holomem.Weights) (bool, error) {
	if r.m.opts.DisableHRR {
		return false, nil
	}
	key := hrr.QueryKey(r.a.tokens, r.m.entityKeysOf(ctx, r.q.Namespace, r.a.entities))
	r.clk.done(StageEntities)
	for _, c := range r.cands {
		if c.fact != nil && hrr.Check(c.fact.HRR) == nil {
			c.set(holomem.ChannelHRR, hrr.Relevance(key.Score(c.fact.HRR)))
		}
	}
	r.clk.done(StageHRR)
	return true, nil
}

// scoreSemantic scores the candidates the nearest-neighbour search did not
// find (found by full text only) by their vectors' cosine to the query's.
func scoreSemantic(_ context.Context, r *recallRun, _ holomem.Weights) (bool, error) {
	if r.qv == nil {
		return false, nil
	}
	for _, c := range r.cands {
		if c.fact != nil && c.scores[holomem.ChannelSemantic] == 0 {
			if v := r.m.sem.VectorOf(r.q.Namespace, c.fact.ID); v != nil {
				c.set(holomem.ChannelSemantic, max(0, float64(vec.Dot(r.qv, v))))
			}
		}
	}
	r.clk.done(StageSemantic)
	return true, nil
}

// scorePPR runs Personalized PageRank when the query asks for it.
func scorePPR(ctx context.Context, r *recallRun, w holomem.Weights) (bool, error) {
	if !r.q.PPR {
		return false, nil
	}
	return true, r.m.addPPR(ctx, r.cands, r.q, w)
}

// scoreTimeChannel runs the time channel when the query names a period.
func scoreTimeChannel(_ context.Context, r *recallRun, _ holomem.Weights) (bool, error) {
	if !r.a.hasPeriod {
		return false, nil
	}
	scoreTime(r.cands, r.a.period)
	r.res.Notes = append(r.res.Notes, timeNote(r.a.period))
	return true, nil
}
