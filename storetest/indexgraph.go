package storetest

import (
	"errors"
	"slices"
	"testing"

	"github.com/holomem/holomem"
)

// testIndexGraph covers the storage the vector index owns: a saved graph
// reads back in (level, from, to) order, a save replaces, a delete
// clears, deleting a fact drops its links, and none of it shows as edges.
func testIndexGraph(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	a, b, c := create(t, s, fact("alpha")), create(t, s, fact("beta")), create(t, s, fact("gamma"))
	other := create(t, s, &holomem.Fact{Namespace: "other", Content: "delta"})
	if _, err := s.IndexGraph(ctx, holomem.DefaultNamespace); !errors.Is(err, holomem.ErrNotFound) {
		t.Fatalf("IndexGraph before a save = %v, want ErrNotFound", err)
	}
	if ls, err := s.IndexLinks(ctx, holomem.DefaultNamespace); err != nil || len(ls) != 0 {
		t.Fatalf("IndexLinks before a save = %v, %v", ls, err)
	}
	links := []holomem.IndexLink{
		{Level: 2, From: b.ID, To: a.ID},
		{Level: 1, From: c.ID, To: a.ID},
		{Level: 1, From: a.ID, To: c.ID},
		{Level: 1, From: a.ID, To: b.ID},
		{Level: holomem.IndexMaxLevel, From: a.ID, To: b.ID},
	}
	if err := s.SaveIndexGraph(ctx, holomem.DefaultNamespace, `{"entry":1}`, links); err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(links)
	slices.SortFunc(want, func(x, y holomem.IndexLink) int {
		if x.Level != y.Level {
			return x.Level - y.Level
		}
		if x.From != y.From {
			return int(x.From - y.From)
		}
		return int(x.To - y.To)
	})
	if got, err := s.IndexLinks(ctx, holomem.DefaultNamespace); err != nil || !slices.Equal(got, want) {
		t.Fatalf("IndexLinks = %v, %v; want %v", got, err, want)
	}
	if d, err := s.IndexGraph(ctx, holomem.DefaultNamespace); err != nil || d != `{"entry":1}` {
		t.Fatalf("IndexGraph = %q, %v", d, err)
	}
	if es, err := s.FindEdges(ctx, holomem.EdgeFilter{Namespace: holomem.DefaultNamespace}); err != nil || len(es) != 0 {
		t.Errorf("the index's links show as edges: %v, %v", es, err)
	}
	if st, err := s.Stats(ctx, ""); err != nil || len(st.Edges) != 0 {
		t.Errorf("stats count the index's links as edges: %v, %v", st.Edges, err)
	}
	// Another namespace's graph is apart.
	if err := s.SaveIndexGraph(ctx, "other", "o", nil); err != nil {
		t.Fatal(err)
	}
	if ls, err := s.IndexLinks(ctx, "other"); err != nil || len(ls) != 0 {
		t.Errorf("IndexLinks(other) = %v, %v", ls, err)
	}
	// Refused saves change nothing.
	for _, tt := range []struct {
		name string
		l    holomem.IndexLink
		want error
	}{
		{"LevelZero", holomem.IndexLink{Level: 0, From: a.ID, To: b.ID}, holomem.ErrInvalid},
		{"LevelTooHigh", holomem.IndexLink{Level: holomem.IndexMaxLevel + 1, From: a.ID, To: b.ID}, holomem.ErrInvalid},
		{"SelfLoop", holomem.IndexLink{Level: 1, From: a.ID, To: a.ID}, holomem.ErrInvalid},
		{"OtherNamespace", holomem.IndexLink{Level: 1, From: a.ID, To: other.ID}, holomem.ErrInvalid},
		{"UnknownFact", holomem.IndexLink{Level: 1, From: a.ID, To: other.ID + 100}, holomem.ErrNotFound},
	} {
		if err := s.SaveIndexGraph(ctx, holomem.DefaultNamespace, "x", []holomem.IndexLink{tt.l}); !errors.Is(err, tt.want) {
			t.Errorf("%s: SaveIndexGraph = %v, want %v", tt.name, err, tt.want)
		}
	}
	if got, err := s.IndexLinks(ctx, holomem.DefaultNamespace); err != nil || !slices.Equal(got, want) {
		t.Fatalf("IndexLinks after refused saves = %v, %v; want %v", got, err, want)
	}
	// Deleting a fact deletes the links that touch it.
	if err := s.DeleteFact(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	want = slices.DeleteFunc(want, func(l holomem.IndexLink) bool { return l.From == c.ID || l.To == c.ID })
	if got, err := s.IndexLinks(ctx, holomem.DefaultNamespace); err != nil || !slices.Equal(got, want) {
		t.Fatalf("IndexLinks after deleting fact %d = %v, %v; want %v", c.ID, got, err, want)
	}
	// A save replaces; a delete clears one namespace.
	if err := s.SaveIndexGraph(ctx, holomem.DefaultNamespace, "v2", want[:1]); err != nil {
		t.Fatal(err)
	}
	if got, err := s.IndexLinks(ctx, holomem.DefaultNamespace); err != nil || !slices.Equal(got, want[:1]) {
		t.Fatalf("IndexLinks after a second save = %v, %v; want %v", got, err, want[:1])
	}
	if err := s.DeleteIndexGraph(ctx, holomem.DefaultNamespace); err != nil {
		t.Fatal(err)
	}
	if _, err := s.IndexGraph(ctx, holomem.DefaultNamespace); !errors.Is(err, holomem.ErrNotFound) {
		t.Errorf("IndexGraph after delete = %v, want ErrNotFound", err)
	}
	if ls, err := s.IndexLinks(ctx, holomem.DefaultNamespace); err != nil || len(ls) != 0 {
		t.Errorf("IndexLinks after delete = %v, %v", ls, err)
	}
	if d, err := s.IndexGraph(ctx, "other"); err != nil || d != "o" {
		t.Errorf("IndexGraph(other) after deleting default = %q, %v", d, err)
	}
	if err := s.DeleteIndexGraph(ctx, "none"); err != nil {
		t.Errorf("DeleteIndexGraph of a namespace without a graph = %v", err)
	}
}
