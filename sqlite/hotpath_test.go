package sqlite_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/holomem/holomem"
)

// TestRecentFactIDsByEntity: the newest facts of an entity, oldest first,
// at most limit, aliases resolved, nothing for an unknown name.
func TestRecentFactIDsByEntity(t *testing.T) {
	ctx := t.Context()
	s := mustOpen(t, filepath.Join(t.TempDir(), "h.db"))
	var ids []int64
	for i := range 7 {
		f := &holomem.Fact{Content: fmt.Sprintf("Alice deploys service number %d", i)}
		if _, err := s.CreateFact(ctx, f); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, f.ID)
	}
	if _, err := s.CreateFact(ctx, &holomem.Fact{Content: "Bob reviews the login flow"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		limit int
		want  []int64
	}{
		{"Alice", 3, ids[4:]},
		{"alice", 100, ids},
		{"Alice", 0, nil},
		{"Nobody", 5, nil},
	} {
		got, err := s.RecentFactIDsByEntity(ctx, "", tc.name, tc.limit)
		if err != nil {
			t.Fatalf("%s/%d: %v", tc.name, tc.limit, err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s/%d = %v, want %v", tc.name, tc.limit, got, tc.want)
		}
	}
}

// TestSearchText_MaxTermDocs: the bound leaves common words out of the
// relaxed search (keeping the rarest), and does not touch the all-term one.
func TestSearchText_MaxTermDocs(t *testing.T) {
	ctx := t.Context()
	s := mustOpen(t, filepath.Join(t.TempDir(), "h.db"))
	var facts []*holomem.Fact
	for i := range 20 {
		facts = append(facts, &holomem.Fact{Content: fmt.Sprintf("common word number %d", i)})
	}
	facts = append(facts, &holomem.Fact{Content: "a rare zebra"}, &holomem.Fact{Content: "common zebra together"})
	if _, err := s.CreateFacts(ctx, facts); err != nil {
		t.Fatal(err)
	}
	zebra := []int64{facts[20].ID, facts[21].ID}
	ids := func(ms []holomem.TextMatch) []int64 {
		var out []int64
		for _, m := range ms {
			out = append(out, m.ID)
		}
		slices.Sort(out)
		return out
	}
	unbounded, err := s.SearchText(ctx, "", "common zebra", 30)
	if err != nil {
		t.Fatal(err)
	}
	if len(unbounded) != 22 {
		t.Fatalf("unbounded relaxed search found %d facts, want 22", len(unbounded))
	}
	bounded, err := s.SearchText(ctx, "", "common zebra", 30, holomem.WithMaxTermDocs(5))
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(bounded); !slices.Equal(got, zebra) {
		t.Fatalf("bounded search = %v, want the zebra facts %v", got, zebra)
	}
	// All words common: the rarest is kept.
	onlyCommon, err := s.SearchText(ctx, "", "common word", 30, holomem.WithMaxTermDocs(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(onlyCommon) == 0 {
		t.Fatal("bounded search with only common words found nothing")
	}
}

// TestFindFacts_Lean: the same facts without entities, total = returned.
func TestFindFacts_Lean(t *testing.T) {
	ctx := t.Context()
	s := mustOpen(t, filepath.Join(t.TempDir(), "h.db"))
	a := &holomem.Fact{Content: "Alice prefers dark mode"}
	b := &holomem.Fact{Content: "Bob prefers light mode"}
	if _, err := s.CreateFacts(ctx, []*holomem.Fact{a, b}); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second call runs the prepared statement
		fs, total, err := s.FindFacts(ctx, holomem.FactFilter{IDs: []int64{a.ID, b.ID}, WithHRR: true, Lean: true})
		if err != nil {
			t.Fatal(err)
		}
		if total != 2 || len(fs) != 2 || fs[0].Content != a.Content || fs[1].ID != b.ID {
			t.Fatalf("lean = %d facts, total %d: %+v", len(fs), total, fs)
		}
		if fs[0].Entities != nil {
			t.Errorf("lean load attached entities %v", fs[0].Entities)
		}
	}
	full, _, err := s.FindFacts(ctx, holomem.FactFilter{IDs: []int64{a.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(full[0].Entities, []string{"Alice"}) {
		t.Errorf("full load entities = %v", full[0].Entities)
	}
}
