package retrieve

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/sqlite"
)

// The row a sync takes from this process's own write is the row the
// store's lean read returns: the row cache must not depend on who wrote.
func TestLive_ownRowAsStored(t *testing.T) {
	ctx := t.Context()
	for _, disableHRR := range []bool{false, true} {
		s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "holomem.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		m, err := New(s, Options{LiveIndex: true, DisableHRR: disableHRR})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		if err := m.WarmText(ctx); err != nil {
			t.Fatal(err)
		}
		facts := []*holomem.Fact{
			{Content: "Alice deploys the billing service on Fridays"},
			{Content: "The staging database runs on db-2", Tags: []string{"Infra", "db", "infra"}, Category: "config",
				Source: "cli", ExternalKey: "note:7", Trust: 0.6, Anchor: &holomem.Anchor{Path: "docs/db.md"}},
			{Content: "Release notes live in CHANGELOG.md", Tags: []string{}, CreatedAt: time.Date(2024, 3, 1, 12, 0, 0, 123456789, time.FixedZone("x", 3600))},
			{Content: "Kubernetes aka k8s runs the billing service for Alice"},
			{Content: "The k8s cluster of the billing service has 3 nodes", Tags: []string{"grafana"}},
			{Content: "grafana dashboards show the billing latency"},
		}
		for _, f := range facts {
			r, err := m.Remember(ctx, f)
			if err != nil || !r.Created {
				t.Fatalf("remember %q: %v, %v", f.Content, r, err)
			}
			if !m.live.sync(ctx) {
				t.Fatal("sync failed")
			}
			cached, miss := m.live.rows.facts([]int64{f.ID}, false)
			if len(miss) != 0 {
				t.Fatalf("HRR off %v: #%d is not in the row cache after its own sync", disableHRR, f.ID)
			}
			stored, _, err := s.FindFacts(ctx, holomem.FactFilter{IDs: []int64{f.ID}, Lean: true, WithHRR: !disableHRR, IncludeSuperseded: true})
			if err != nil || len(stored) != 1 {
				t.Fatalf("find #%d: %v, %v", f.ID, stored, err)
			}
			if got, want := cached[f.ID], stored[0]; !reflect.DeepEqual(got, want) {
				t.Errorf("HRR off %v: cached own row\n%+v\nstored lean row\n%+v", disableHRR, got, want)
			}
			ents, miss := m.live.rows.entities([]int64{f.ID})
			want, err := s.EntitiesOf(ctx, []int64{f.ID})
			if err != nil {
				t.Fatal(err)
			}
			if len(miss) != 0 || !reflect.DeepEqual(ents[f.ID], want[f.ID]) {
				t.Errorf("#%d %q: cached own entities %q (missing %v), stored %q", f.ID, f.Content, ents[f.ID], miss, want[f.ID])
			}
		}
	}
}

// countingStore counts the facts FindFacts reads by id.
type countingStore struct {
	*sqlite.Store
	byID map[int64]int
}

func (c *countingStore) FindFacts(ctx context.Context, filter holomem.FactFilter) ([]*holomem.Fact, int, error) {
	for _, id := range filter.IDs {
		c.byID[id]++
	}
	return c.Store.FindFacts(ctx, filter)
}

// A warm process's own adds reach its text index and row cache without
// being read back, and hygiene and recall find them there.
func TestLive_ownWritesNotReadBack(t *testing.T) {
	ctx := t.Context()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "holomem.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	cs := &countingStore{Store: s, byID: map[int64]int{}}
	m, err := New(cs, Options{LiveIndex: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	if err := m.WarmText(ctx); err != nil {
		t.Fatal(err)
	}
	var own []int64
	for _, c := range []string{
		"Alice deploys the billing service on Fridays",
		"Bob rotates the billing service tokens every month",
		"Alice deploys the billing service on Friday",
	} {
		r, err := m.Remember(ctx, &holomem.Fact{Content: c})
		if err != nil {
			t.Fatal(err)
		}
		own = append(own, r.Fact.ID)
		if len(own) == 3 && (len(r.NearDuplicates) != 1 || r.NearDuplicates[0].Fact.ID != own[0]) {
			t.Errorf("near-duplicates of the third add = %+v; want #%d", r.NearDuplicates, own[0])
		}
	}
	res, err := m.Recall(ctx, holomem.Query{Text: "billing tokens", NoTouch: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].Fact.ID != own[1] {
		t.Errorf("recall of an own add = %+v; want #%d first", res.Hits, own[1])
	}
	for _, id := range own {
		if n := cs.byID[id]; n != 0 {
			t.Errorf("own add #%d was read back %d times", id, n)
		}
	}
}
