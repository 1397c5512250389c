package storetest

import (
	"errors"
	"slices"
	"testing"

	"github.com/holomem/holomem"
)

func testEdgesCreate(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	a, b := create(t, s, fact("issue 1")), create(t, s, fact("fix for issue 1"))
	e := &holomem.Edge{From: a.ID, To: b.ID, Kind: holomem.EdgeCausal, Weight: 0.7, Origin: holomem.OriginImport}
	created, err := s.CreateEdge(ctx, e)
	if err != nil || !created {
		t.Fatalf("CreateEdge = %v, %v", created, err)
	}
	if e.CreatedAt.IsZero() {
		t.Errorf("CreatedAt not filled")
	}
	again := &holomem.Edge{From: a.ID, To: b.ID, Kind: holomem.EdgeCausal, Weight: 0.9, Origin: holomem.OriginAuto}
	created, err = s.CreateEdge(ctx, again)
	if err != nil || created {
		t.Fatalf("duplicate CreateEdge = %v, %v; want false, nil", created, err)
	}
	es, err := s.FindEdges(ctx, holomem.EdgeFilter{FactID: a.ID})
	if err != nil || len(es) != 1 || es[0].Weight != 0.9 || es[0].Origin != holomem.OriginImport || !es[0].CreatedAt.Equal(e.CreatedAt) {
		t.Fatalf("after duplicate: %v, %v; want weight 0.9, first origin and time", es, err)
	}
	// The same pair with another kind, and the reverse direction, are other edges.
	n, err := s.CreateEdges(ctx, []*holomem.Edge{
		{From: a.ID, To: b.ID, Kind: holomem.EdgeTemporal, Weight: 1},
		{From: b.ID, To: a.ID, Kind: holomem.EdgeCausal, Weight: 1},
		{From: a.ID, To: b.ID, Kind: holomem.EdgeCausal, Weight: 0.5},
		{From: a.ID, To: b.ID, Kind: "my-kind_2", Weight: 0},
	})
	if err != nil || n != 3 {
		t.Fatalf("CreateEdges = %d, %v; want 3 new", n, err)
	}
	es, _ = s.FindEdges(ctx, holomem.EdgeFilter{})
	if len(es) != 4 {
		t.Errorf("edges = %v, want 4", es)
	}
	for i := 1; i < len(es); i++ {
		p, q := es[i-1], es[i]
		if p.From > q.From || p.From == q.From && (p.To > q.To || p.To == q.To && p.Kind >= q.Kind) {
			t.Errorf("FindEdges not ordered by (from, to, kind): %v", es)
		}
	}
	for _, e := range es {
		if e.Origin == "" {
			t.Errorf("edge %v has no origin", e)
		}
	}
}

func testEdgesErrors(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	a, b := create(t, s, fact("a")), create(t, s, fact("b"))
	other := create(t, s, &holomem.Fact{Content: "c", Namespace: "other"})
	tests := []struct {
		name string
		e    *holomem.Edge
		want error
	}{
		{"SelfLoop", &holomem.Edge{From: a.ID, To: a.ID, Kind: holomem.EdgeCausal}, holomem.ErrInvalid},
		{"UnknownFrom", &holomem.Edge{From: 9999, To: a.ID, Kind: holomem.EdgeCausal}, holomem.ErrNotFound},
		{"UnknownTo", &holomem.Edge{From: a.ID, To: 9999, Kind: holomem.EdgeCausal}, holomem.ErrNotFound},
		{"BadKind", &holomem.Edge{From: a.ID, To: b.ID, Kind: "Bad Kind"}, holomem.ErrInvalid},
		{"EmptyKind", &holomem.Edge{From: a.ID, To: b.ID}, holomem.ErrInvalid},
		{"NegativeWeight", &holomem.Edge{From: a.ID, To: b.ID, Kind: holomem.EdgeCausal, Weight: -1}, holomem.ErrInvalid},
		{"ZeroIDs", &holomem.Edge{Kind: holomem.EdgeCausal}, holomem.ErrInvalid},
		{"AcrossNamespaces", &holomem.Edge{From: a.ID, To: other.ID, Kind: holomem.EdgeCausal}, holomem.ErrInvalid},
		{"Nil", nil, holomem.ErrInvalid},
	}
	for _, tt := range tests {
		_, err := s.CreateEdge(ctx, tt.e)
		wantErr(t, tt.name, err, tt.want)
	}
	// A failing edge rolls the whole batch back.
	_, err := s.CreateEdges(ctx, []*holomem.Edge{{From: a.ID, To: b.ID, Kind: holomem.EdgeCausal}, {From: a.ID, To: 9999, Kind: holomem.EdgeCausal}})
	wantErr(t, "batch with an unknown fact", err, holomem.ErrNotFound)
	if es, _ := s.FindEdges(ctx, holomem.EdgeFilter{}); len(es) != 0 {
		t.Errorf("failed batch left edges %v", es)
	}
	wantErr(t, "DeleteEdge unknown", s.DeleteEdge(ctx, a.ID, b.ID, holomem.EdgeCausal), holomem.ErrNotFound)
}

func testEdgesFindAndDelete(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	a, b, c := create(t, s, fact("a")), create(t, s, fact("b")), create(t, s, fact("c"))
	x, y := create(t, s, &holomem.Fact{Content: "x", Namespace: "team"}), create(t, s, &holomem.Fact{Content: "y", Namespace: "team"})
	_, err := s.CreateEdges(ctx, []*holomem.Edge{
		{From: a.ID, To: b.ID, Kind: holomem.EdgeSimilar, Weight: 0.9, Origin: holomem.OriginAuto},
		{From: b.ID, To: c.ID, Kind: holomem.EdgeSimilar, Weight: 0.8, Origin: holomem.OriginAuto},
		{From: c.ID, To: a.ID, Kind: holomem.EdgeCausal, Weight: 1, Origin: holomem.OriginImport},
		{From: x.ID, To: y.ID, Kind: holomem.EdgeSimilar, Weight: 0.5, Origin: holomem.OriginAuto},
	})
	if err != nil {
		t.Fatal(err)
	}
	type pair struct{ from, to int64 }
	pairs := func(es []*holomem.Edge) []pair {
		var out []pair
		for _, e := range es {
			out = append(out, pair{e.From, e.To})
		}
		return out
	}
	tests := []struct {
		name   string
		filter holomem.EdgeFilter
		want   []pair
	}{
		{"FactID", holomem.EdgeFilter{FactID: a.ID}, []pair{{a.ID, b.ID}, {c.ID, a.ID}}},
		{"From", holomem.EdgeFilter{From: b.ID}, []pair{{b.ID, c.ID}}},
		{"To", holomem.EdgeFilter{To: a.ID}, []pair{{c.ID, a.ID}}},
		{"Kinds", holomem.EdgeFilter{Kinds: []holomem.EdgeKind{holomem.EdgeCausal, holomem.EdgeTemporal}}, []pair{{c.ID, a.ID}}},
		{"Origin", holomem.EdgeFilter{Origin: holomem.OriginAuto, Namespace: holomem.DefaultNamespace}, []pair{{a.ID, b.ID}, {b.ID, c.ID}}},
		{"Namespace", holomem.EdgeFilter{Namespace: "team"}, []pair{{x.ID, y.ID}}},
		{"Limit", holomem.EdgeFilter{Kinds: []holomem.EdgeKind{holomem.EdgeSimilar}, Limit: 2}, []pair{{a.ID, b.ID}, {b.ID, c.ID}}},
	}
	for _, tt := range tests {
		es, err := s.FindEdges(ctx, tt.filter)
		if err != nil {
			t.Fatal(err)
		}
		if got := pairs(es); !slices.Equal(got, tt.want) {
			t.Errorf("%s: FindEdges = %v, want %v", tt.name, got, tt.want)
		}
	}
	if err := s.DeleteEdge(ctx, a.ID, b.ID, holomem.EdgeSimilar); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "delete twice", s.DeleteEdge(ctx, a.ID, b.ID, holomem.EdgeSimilar), holomem.ErrNotFound)
	for _, f := range []holomem.EdgeFilter{{}, {Limit: 1}, {Kinds: []holomem.EdgeKind{"Bad Kind"}}} {
		if n, err := s.DeleteEdges(ctx, f); !errors.Is(err, holomem.ErrInvalid) || n != 0 {
			t.Errorf("DeleteEdges(%+v) = %d, %v; want ErrInvalid", f, n, err)
		}
	}
	if es, _ := s.FindEdges(ctx, holomem.EdgeFilter{}); len(es) != 3 {
		t.Errorf("a rejected DeleteEdges changed the edges: %d left, want 3", len(es))
	}
	// Kind, origin and namespace all apply: the team's similar_to edge stays.
	n, err := s.DeleteEdges(ctx, holomem.EdgeFilter{Kinds: []holomem.EdgeKind{holomem.EdgeSimilar}, Origin: holomem.OriginImport})
	if err != nil || n != 0 {
		t.Errorf("DeleteEdges(similar_to, import) = %d, %v; want 0", n, err)
	}
	n, err = s.DeleteEdges(ctx, holomem.EdgeFilter{Kinds: []holomem.EdgeKind{holomem.EdgeSimilar}, Origin: holomem.OriginAuto, Namespace: holomem.DefaultNamespace})
	if err != nil || n != 1 {
		t.Errorf("DeleteEdges(similar_to, auto, default) = %d, %v; want 1", n, err)
	}
	es, _ := s.FindEdges(ctx, holomem.EdgeFilter{})
	if got := pairs(es); !slices.Equal(got, []pair{{c.ID, a.ID}, {x.ID, y.ID}}) {
		t.Errorf("left = %v", got)
	}
	if n, err = s.DeleteEdges(ctx, holomem.EdgeFilter{Namespace: "team"}); err != nil || n != 1 {
		t.Errorf("DeleteEdges(team) = %d, %v; want 1", n, err)
	}
	// A supersedes edge mirrors SupersededBy.
	if _, err := s.CreateEdge(ctx, &holomem.Edge{From: b.ID, To: a.ID, Kind: holomem.EdgeSupersedes, Weight: 1}); err != nil {
		t.Fatal(err)
	}
	if got := find(t, s, a.ID); got.SupersededBy != b.ID {
		t.Errorf("supersedes edge: SupersededBy = %d, want %d", got.SupersededBy, b.ID)
	}
	if err := s.DeleteEdge(ctx, b.ID, a.ID, holomem.EdgeSupersedes); err != nil {
		t.Fatal(err)
	}
	if got := find(t, s, a.ID); got.SupersededBy != 0 {
		t.Errorf("after deleting the supersedes edge SupersededBy = %d, want 0", got.SupersededBy)
	}
	// DeleteEdges of supersedes edges unhides their facts too.
	if _, err := s.CreateEdge(ctx, &holomem.Edge{From: b.ID, To: a.ID, Kind: holomem.EdgeSupersedes, Weight: 1}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.DeleteEdges(ctx, holomem.EdgeFilter{Kinds: []holomem.EdgeKind{holomem.EdgeSupersedes}, Namespace: holomem.DefaultNamespace}); err != nil || n != 1 {
		t.Errorf("DeleteEdges(supersedes) = %d, %v; want 1", n, err)
	}
	if got := find(t, s, a.ID); got.SupersededBy != 0 {
		t.Errorf("after DeleteEdges(supersedes) SupersededBy = %d, want 0", got.SupersededBy)
	}
}
