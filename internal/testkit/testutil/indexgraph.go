package testutil

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/index"
	"github.com/holomem/holomem/vec"
)

// graphModel and graphDim are the vectors [BuildGraph] writes.
const (
	graphModel = "testutil-graph@1"
	graphDim   = 16
	graphFacts = 400
)

// GraphSnapshot is what a store's stored HNSW graph of the default
// namespace answers and holds, to compare before and after a migration or
// a copy.
type GraphSnapshot struct {
	Desc   string
	Links  []holomem.IndexLink
	Bottom int
	// Queries are the vectors of the facts whose contents are Contents.
	Queries  [][]float32
	Contents []string
	Results  [][]int64
}

// BuildGraph stores 400 facts with seeded clustered vectors in the
// default namespace of s, builds and persists their HNSW graph with
// package index and returns what it holds and answers. It fails unless
// the graph has upper layers (the part kept apart from the edges).
func BuildGraph(tb testing.TB, s holomem.Store) *GraphSnapshot {
	tb.Helper()
	ctx := tb.Context()
	r := rand.New(rand.NewPCG(5, 9))
	unit := func() []float32 {
		v := make([]float32, graphDim)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		vec.Normalize(v)
		return v
	}
	centres := make([][]float32, 20)
	for i := range centres {
		centres[i] = unit()
	}
	facts := make([]*holomem.Fact, graphFacts)
	vecs := make([][]float32, graphFacts)
	for i := range facts {
		c, d := centres[r.IntN(len(centres))], unit()
		v := make([]float32, graphDim)
		for j := range v {
			v[j] = c[j] + 0.75*d[j]
		}
		vec.Normalize(v)
		vecs[i] = v
		facts[i] = &holomem.Fact{Content: fmt.Sprintf("graph note %d", i)}
	}
	if _, err := s.CreateFacts(ctx, facts); err != nil {
		tb.Fatal(err)
	}
	byID := make(map[int64][]float32, len(facts))
	for i, f := range facts {
		byID[f.ID] = vecs[i]
	}
	if err := s.SetEmbeddings(ctx, graphModel, byID); err != nil {
		tb.Fatal(err)
	}
	if _, err := graphIndex(s).Build(ctx, nil); err != nil {
		tb.Fatal(err)
	}
	snap := &GraphSnapshot{Queries: vecs[:40]}
	for _, f := range facts[:40] {
		snap.Contents = append(snap.Contents, f.Content)
	}
	snap.Desc, snap.Links, snap.Bottom = storedGraph(tb, s)
	if len(snap.Links) == 0 || snap.Bottom == 0 {
		tb.Fatalf("the built graph has %d upper-layer links and %d similar_to edges", len(snap.Links), snap.Bottom)
	}
	snap.Results = graphResults(tb, s, snap.Queries)
	return snap
}

func graphIndex(s holomem.Store) *index.Index {
	return index.New(s, graphModel, graphDim, index.Config{ExactBelow: 1}, nil)
}

func storedGraph(tb testing.TB, s holomem.Store) (string, []holomem.IndexLink, int) {
	tb.Helper()
	ctx := tb.Context()
	desc, err := s.IndexGraph(ctx, holomem.DefaultNamespace)
	if err != nil {
		tb.Fatalf("stored graph description: %v", err)
	}
	links, err := s.IndexLinks(ctx, holomem.DefaultNamespace)
	if err != nil {
		tb.Fatal(err)
	}
	es, err := s.FindEdges(ctx, holomem.EdgeFilter{Kinds: []holomem.EdgeKind{holomem.EdgeSimilar}, Origin: holomem.OriginHNSW})
	if err != nil {
		tb.Fatal(err)
	}
	return desc, links, len(es)
}

// graphResults loads the stored graph into a fresh index and returns its
// top 10 for each query. It fails unless every search walks the graph and
// the load trusted it (no notes).
func graphResults(tb testing.TB, s holomem.Store, queries [][]float32) [][]int64 {
	tb.Helper()
	ctx := tb.Context()
	idx := graphIndex(s)
	if err := idx.Load(ctx); err != nil {
		tb.Fatal(err)
	}
	sts, err := idx.Status(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	for _, st := range sts {
		if len(st.Notes) > 0 || st.Nodes == 0 {
			tb.Fatalf("the stored graph was not trusted: %+v", st)
		}
	}
	out := make([][]int64, len(queries))
	for i, q := range queries {
		res, mode, err := idx.SearchMode(ctx, holomem.DefaultNamespace, q, 10)
		if err != nil {
			tb.Fatal(err)
		}
		if mode != index.ModeHNSW {
			tb.Fatalf("query %d ran in mode %s, want the stored graph", i, mode)
		}
		for _, r := range res {
			out[i] = append(out[i], r.ID)
		}
	}
	return out
}

// CheckGraph fails unless s holds the graph snap describes (description,
// upper-layer links, bottom-layer edge count) and a fresh index loading
// it answers snap's queries the same.
func CheckGraph(tb testing.TB, s holomem.Store, snap *GraphSnapshot) {
	tb.Helper()
	desc, links, bottom := storedGraph(tb, s)
	if desc != snap.Desc || !slices.Equal(links, snap.Links) || bottom != snap.Bottom {
		tb.Fatalf("stored graph: description %q, %d links, %d edges; want %q, %d, %d", desc, len(links), bottom, snap.Desc, len(snap.Links), snap.Bottom)
	}
	got := graphResults(tb, s, snap.Queries)
	for i := range got {
		if !slices.Equal(got[i], snap.Results[i]) {
			tb.Fatalf("query %d: %v, before %v", i, got[i], snap.Results[i])
		}
	}
}

// CheckMigratedGraph is CheckGraph after a store moved an old-style graph
// (layer edges "hnsw_lN" of origin hnsw, an "hnsw:NS" meta description)
// into the index's tables: no such edge or meta is left, and a user's own
// edge of kind "hnsw_l2" (origin user) survives.
func CheckMigratedGraph(tb testing.TB, s holomem.Store, snap *GraphSnapshot) {
	tb.Helper()
	CheckGraph(tb, s, snap)
	ctx := context.Background()
	es, err := s.FindEdges(ctx, holomem.EdgeFilter{})
	if err != nil {
		tb.Fatal(err)
	}
	user := 0
	for _, e := range es {
		switch {
		case e.Kind == "hnsw_l2" && e.Origin == holomem.OriginUser:
			user++
		case e.Kind != holomem.EdgeSimilar:
			tb.Fatalf("edge %+v left after the migration", e)
		}
	}
	if user != 1 {
		tb.Errorf("the user's hnsw_l2 edge: %d after the migration, want 1", user)
	}
	if v, err := s.Meta(ctx, "hnsw:default"); err == nil {
		tb.Errorf("meta hnsw:default left after the migration: %q", v)
	}
}
