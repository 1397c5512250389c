package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/holomem/holomem"
)

// Feeder is a store with a change feed.
type Feeder interface {
	holomem.Store
	holomem.ChangeFeeder
}

// Raw is what the feed tests that go behind a store's back need: the
// database itself.
type Raw struct {
	// RolledBack runs stmts in a transaction of its own on the database
	// and rolls it back.
	RolledBack func(t *testing.T, stmts ...string)
	// FeedRows counts the rows the feed holds.
	FeedRows func(t *testing.T) int64
	// MinRows and MaxRows bound FeedRows after 56,000 changes: the feed
	// keeps a bounded history.
	MinRows, MaxRows int64
}

// RunRaw runs the feed tests that need raw access to the database, each
// on a new store from open with its database.
func RunRaw(t *testing.T, open func(t *testing.T) (Feeder, Raw)) {
	t.Run("Rollback", func(t *testing.T) {
		s, raw := open(t)
		testFeedRollback(t, s, raw)
	})
	t.Run("Pruned", func(t *testing.T) {
		s, raw := open(t)
		testFeedPruned(t, s, raw)
	})
}

// Cursor returns the feed's cursor of now, failing tb on error.
func Cursor(tb testing.TB, s holomem.ChangeFeeder) int64 {
	tb.Helper()
	c, err := s.FactChangeCursor(tb.Context())
	if err != nil {
		tb.Fatalf("FactChangeCursor: %v", err)
	}
	return c
}

// ChangedIDs calls FactChanges, failing tb on error.
func ChangedIDs(tb testing.TB, s holomem.ChangeFeeder, since int64) ([]int64, int64) {
	tb.Helper()
	ids, next, err := s.FactChanges(tb.Context(), since)
	if err != nil {
		tb.Fatalf("FactChanges(%d): %v", since, err)
	}
	return ids, next
}

// CreateN stores n facts "<prefix> fact <i>" in one batch and returns
// their ids.
func CreateN(tb testing.TB, s holomem.Store, n int, prefix string) []int64 {
	tb.Helper()
	fs := make([]*holomem.Fact, n)
	for i := range fs {
		fs[i] = &holomem.Fact{Content: fmt.Sprintf("%s fact %d", prefix, i)}
	}
	if _, err := s.CreateFacts(tb.Context(), fs); err != nil {
		tb.Fatal(err)
	}
	ids := make([]int64, n)
	for i, f := range fs {
		ids[i] = f.ID
	}
	return ids
}

// testFeedRollback: a write rolled back leaves nothing in the feed, and
// no gap that would read as pruned.
func testFeedRollback(t *testing.T, s Feeder, raw Raw) {
	ctx := t.Context()
	ids := CreateN(t, s, 3, "rollback")
	cur := Cursor(t, s)
	raw.RolledBack(t, "UPDATE facts SET trust = 0.1", "DELETE FROM fact_entities", "DELETE FROM facts")
	if got, _ := ChangedIDs(t, s, cur); len(got) != 0 {
		t.Errorf("changes after a rollback: %v; want none", got)
	}
	// A failed write of the store itself.
	if _, err := s.UpdateFact(ctx, ids[2]+1, holomem.FactUpdate{Trust: ptr(0.2)}); !errors.Is(err, holomem.ErrNotFound) {
		t.Fatalf("update of a missing fact: %v", err)
	}
	if _, err := s.RecordFeedback(ctx, ids[1], true); err != nil {
		t.Fatal(err)
	}
	if got, _ := ChangedIDs(t, s, cur); !slices.Equal(got, []int64{ids[1]}) {
		t.Errorf("changes after the rollback and one write: %v; want [%d]", got, ids[1])
	}
}

// testFeedPruned: the feed keeps a bounded history; a follower behind it
// gets ErrChangesPruned and a cursor that works.
func testFeedPruned(t *testing.T, s Feeder, raw Raw) {
	ctx := t.Context()
	start := Cursor(t, s)
	ids := CreateN(t, s, 1000, "prune")
	var last int64
	for range 55 {
		last = Cursor(t, s)
		if err := s.MarkRetrieved(ctx, ids); err != nil {
			t.Fatal(err)
		}
	}
	if rows := raw.FeedRows(t); rows > raw.MaxRows || rows < raw.MinRows {
		t.Errorf("the feed holds %d rows; want %d to %d", rows, raw.MinRows, raw.MaxRows)
	}
	got, next, err := s.FactChanges(ctx, start)
	if !errors.Is(err, holomem.ErrChangesPruned) || got != nil {
		t.Fatalf("FactChanges from before the pruning = %d ids, %v; want ErrChangesPruned", len(got), err)
	}
	if got, _ := ChangedIDs(t, s, next); len(got) != 0 {
		t.Errorf("changes since the cursor ErrChangesPruned gave: %d", len(got))
	}
	if got, _ := ChangedIDs(t, s, last); len(got) != len(ids) {
		t.Errorf("changes of the last mark: %d ids; want %d", len(got), len(ids))
	}
}

// BenchFeedUpToDate is what a warm process pays per recall to learn that
// nothing changed, with marks changes of 1,000 facts in the feed.
func BenchFeedUpToDate(b *testing.B, s Feeder, marks int) {
	ctx := b.Context()
	ids := CreateN(b, s, 1000, "bench")
	for range marks {
		if err := s.MarkRetrieved(ctx, ids); err != nil {
			b.Fatal(err)
		}
	}
	cur := Cursor(b, s)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		got, next, err := s.FactChanges(ctx, cur)
		if err != nil || len(got) != 0 {
			b.Fatalf("FactChanges = %v, %d, %v", got, next, err)
		}
		cur = next
	}
}

// Copy is a follower's copy of every fact of a store, kept up to date
// from the change feed alone: Key of each fact by id.
type Copy struct {
	Key   func(f *holomem.Fact) string
	Facts map[int64]string
}

// Load reads the facts ids (all when nil), superseded ones included, into
// the copy; those of ids that no longer exist leave it.
func (c *Copy) Load(tb testing.TB, s holomem.Store, ids []int64) {
	tb.Helper()
	if c.Facts == nil {
		c.Facts = map[int64]string{}
	}
	f := holomem.FactFilter{IncludeSuperseded: true}
	if ids != nil {
		f.IDs = ids
		for _, id := range ids {
			delete(c.Facts, id)
		}
	}
	fs, _, err := s.FindFacts(tb.Context(), f)
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range fs {
		c.Facts[f.ID] = c.Key(f)
	}
}

// Check fails tb unless the copy equals the store, which holds n facts.
func (c *Copy) Check(tb testing.TB, s holomem.Store, n int) {
	tb.Helper()
	fs, _, err := s.FindFacts(tb.Context(), holomem.FactFilter{IncludeSuperseded: true})
	if err != nil {
		tb.Fatal(err)
	}
	if len(fs) != n || len(c.Facts) != n {
		tb.Fatalf("copy has %d facts, store %d; want %d", len(c.Facts), len(fs), n)
	}
	for _, f := range fs {
		if got, want := c.Facts[f.ID], c.Key(f); got != want {
			tb.Errorf("fact %d: copy %q, store %q", f.ID, got, want)
		}
	}
}
