package retrieve

import (
	"context"
	"time"
)

// Stage names one step of [Memory.Recall] for [Stages].
type Stage int

// The steps of recall, in the order they run.
const (
	StageFTS      Stage = iota // full-text search (all-term, then relaxed)
	StageSemantic              // query embedding and nearest neighbours
	StageLoad                  // loading the candidates' rows
	StageBM25                  // term statistics and BM25 re-scoring of the candidates
	StageEntities              // entity extraction and alias resolution of the query
	StageJaccard               // token overlap of every candidate
	StageHRR                   // holographic score of every candidate
	StagePPR                   // personalized PageRank and causal follow
	StageRank                  // combining, decay, sorting
	StageTouch                 // the retrieval-count write
	numStages
)

var stageNames = [numStages]string{"fts", "semantic", "load", "bm25", "entities", "jaccard", "hrr", "ppr", "rank", "touch"}

func (s Stage) String() string {
	if s < 0 || s >= numStages {
		return "unknown"
	}
	return stageNames[s]
}

// AllStages lists every stage in order.
func AllStages() []Stage {
	out := make([]Stage, numStages)
	for i := range out {
		out[i] = Stage(i)
	}
	return out
}

// Stages accumulates the wall time recall spends in each stage, over every
// recall made with a context from [WithStages]. Benchmarks use it to show
// where a query's time goes; it is not safe for concurrent recalls.
type Stages struct {
	d     [numStages]time.Duration
	Calls int
}

// Get returns the total time spent in st.
func (s *Stages) Get(st Stage) time.Duration {
	if st < 0 || st >= numStages {
		return 0
	}
	return s.d[st]
}

type stagesKey struct{}

// WithStages returns a context under which Recall adds its per-stage time
// to s. Without it recall reads no clock for tracing.
func WithStages(ctx context.Context, s *Stages) context.Context {
	return context.WithValue(ctx, stagesKey{}, s)
}

// stageClock measures consecutive stages; a nil clock does nothing.
type stageClock struct {
	s    *Stages
	last time.Time
}

func startStages(ctx context.Context) *stageClock {
	s, _ := ctx.Value(stagesKey{}).(*Stages)
	if s == nil {
		return nil
	}
	s.Calls++
	return &stageClock{s: s, last: time.Now()}
}

// done charges the time since the previous mark to st.
func (c *stageClock) done(st Stage) {
	if c == nil {
		return
	}
	now := time.Now()
	c.s.d[st] += now.Sub(c.last)
	c.last = now
}
