package sqlite_test

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/sqlite"
)

func cursor(tb testing.TB, s *sqlite.Store) int64 {
	tb.Helper()
	c, err := s.FactChangeCursor(tb.Context())
	if err != nil {
		tb.Fatalf("FactChangeCursor: %v", err)
	}
	return c
}

func changedIDs(tb testing.TB, s *sqlite.Store, since int64) ([]int64, int64) {
	tb.Helper()
	ids, next, err := s.FactChanges(tb.Context(), since)
	if err != nil {
		tb.Fatalf("FactChanges(%d): %v", since, err)
	}
	return ids, next
}

func rawDB(tb testing.TB, path string) *sql.DB {
	tb.Helper()
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { raw.Close() })
	return raw
}

// TestFactChanges_OtherHandle: a write through another Store handle on
// the file shows up in the feed.
func TestFactChanges_OtherHandle(t *testing.T) {
	ctx := t.Context()
	db := filepath.Join(t.TempDir(), "feed.db")
	s := mustOpen(t, db)
	x := &holomem.Fact{Content: "apple pie"}
	if _, err := s.CreateFact(ctx, x); err != nil {
		t.Fatal(err)
	}
	cur := cursor(t, s)
	other := mustOpen(t, db)
	if _, err := other.UpdateFact(ctx, x.ID, holomem.FactUpdate{Trust: ptr(0.8)}); err != nil {
		t.Fatal(err)
	}
	if ids, _ := changedIDs(t, s, cur); !slices.Equal(ids, []int64{x.ID}) {
		t.Errorf("after another handle's update: %v; want [%d]", ids, x.ID)
	}
}

// TestFactChanges_OtherProcesses: writes of another holomem process and of
// a foreign tool (plain SQL) show up in the feed.
func TestFactChanges_OtherProcesses(t *testing.T) {
	ctx := t.Context()
	db := filepath.Join(t.TempDir(), "feed.db")
	s := mustOpen(t, db)
	x := &holomem.Fact{Content: "apple pie"}
	if _, err := s.CreateFact(ctx, x); err != nil {
		t.Fatal(err)
	}
	cur := cursor(t, s)
	if err := helper(t, "writer", db, "p:3").Run(); err != nil {
		t.Fatalf("writer process: %v", err)
	}
	fs, _, err := s.FindFacts(ctx, holomem.FactFilter{AfterID: x.ID})
	if err != nil || len(fs) != 3 {
		t.Fatalf("facts of the writer process: %d, %v", len(fs), err)
	}
	ids, next := changedIDs(t, s, cur)
	if want := []int64{fs[0].ID, fs[1].ID, fs[2].ID}; !slices.Equal(ids, want) {
		t.Errorf("after another process's writes: %v; want %v", ids, want)
	}
	// The foreign tool deletes "apple pie" and sets every fact's trust.
	if err := helper(t, "foreign", db, "").Run(); err != nil {
		t.Fatalf("foreign tool: %v", err)
	}
	ids, _ = changedIDs(t, s, next)
	want := []int64{x.ID, fs[0].ID, fs[1].ID, fs[2].ID}
	if got := slices.Compact(slices.Sorted(slices.Values(ids))); !slices.Equal(got, want) {
		t.Errorf("after a foreign tool's update and delete: %v; want %v", ids, want)
	}
}

// TestFactChanges_Follower keeps a copy of every fact's content up to date
// from the feed alone while another process writes, and checks that the
// copy equals the store at the end: no change is missed.
func TestFactChanges_Follower(t *testing.T) {
	ctx := t.Context()
	db := filepath.Join(t.TempDir(), "follow.db")
	s := mustOpen(t, db)
	copyOf := map[int64]string{}
	load := func(ids []int64) {
		t.Helper()
		f := holomem.FactFilter{IncludeSuperseded: true}
		if ids != nil {
			f.IDs = ids
			for _, id := range ids {
				delete(copyOf, id)
			}
		}
		fs, _, err := s.FindFacts(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			copyOf[f.ID] = fmt.Sprintf("%s/%d", f.Content, f.RetrievalCount)
		}
	}
	cur := cursor(t, s)
	load(nil)
	w := helper(t, "writer", db, "f:200")
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- w.Wait() }()
	polls := 0
	for finished := false; !finished; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("writer process: %v", err)
			}
			finished = true
		default:
		}
		ids, next, err := s.FactChanges(ctx, cur)
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) > 0 {
			load(ids)
			// This process writes too: counters of what it saw.
			if err := s.MarkRetrieved(ctx, ids[:1]); err != nil {
				t.Fatal(err)
			}
		}
		cur = next
		polls++
	}
	ids, _ := changedIDs(t, s, cur)
	load(ids)
	want := map[int64]string{}
	fs, _, err := s.FindFacts(ctx, holomem.FactFilter{IncludeSuperseded: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		want[f.ID] = fmt.Sprintf("%s/%d", f.Content, f.RetrievalCount)
	}
	if len(want) != 200 || len(copyOf) != len(want) {
		t.Fatalf("copy has %d facts, store %d (want 200)", len(copyOf), len(want))
	}
	for id, c := range want {
		if copyOf[id] != c {
			t.Errorf("fact %d: copy %q, store %q", id, copyOf[id], c)
		}
	}
	t.Logf("%d polls", polls)
}

// TestFactChanges_Rollback: a write rolled back leaves nothing in the feed,
// and no gap that would read as pruned.
func TestFactChanges_Rollback(t *testing.T) {
	ctx := t.Context()
	db := filepath.Join(t.TempDir(), "rb.db")
	s := mustOpen(t, db)
	f := &holomem.Fact{Content: "Alice keeps the keys"}
	if _, err := s.CreateFact(ctx, f); err != nil {
		t.Fatal(err)
	}
	cur := cursor(t, s)
	tx, err := rawDB(t, db).BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"UPDATE facts SET trust = 0.1", "DELETE FROM fact_entities", "DELETE FROM facts"} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if ids, _ := changedIDs(t, s, cur); len(ids) != 0 {
		t.Errorf("changes after a rollback: %v; want none", ids)
	}
	// A failed write of the store itself.
	if _, err := s.UpdateFact(ctx, f.ID+1, holomem.FactUpdate{Trust: ptr(0.2)}); !errors.Is(err, holomem.ErrNotFound) {
		t.Fatalf("update of a missing fact: %v", err)
	}
	if _, err := s.RecordFeedback(ctx, f.ID, true); err != nil {
		t.Fatal(err)
	}
	if ids, _ := changedIDs(t, s, cur); !slices.Equal(ids, []int64{f.ID}) {
		t.Errorf("changes after the rollback and one write: %v; want [%d]", ids, f.ID)
	}
}

// TestFactChanges_Pruned: the feed keeps a bounded history; a follower
// behind it gets ErrChangesPruned and a cursor that works.
func TestFactChanges_Pruned(t *testing.T) {
	ctx := t.Context()
	db := filepath.Join(t.TempDir(), "prune.db")
	s := mustOpen(t, db)
	start := cursor(t, s)
	fs := make([]*holomem.Fact, 1000)
	for i := range fs {
		fs[i] = &holomem.Fact{Content: fmt.Sprintf("fact %d", i)}
	}
	if _, err := s.CreateFacts(ctx, fs); err != nil {
		t.Fatal(err)
	}
	all := make([]int64, len(fs))
	for i, f := range fs {
		all[i] = f.ID
	}
	var last int64
	for range 55 {
		last = cursor(t, s)
		if err := s.MarkRetrieved(ctx, all); err != nil {
			t.Fatal(err)
		}
	}
	var rows int64
	if err := rawDB(t, db).QueryRowContext(ctx, "SELECT count(*) FROM fact_changes").Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows > 50000+1024 || rows < 50000 {
		t.Errorf("the feed holds %d rows; want 50000 to 51024", rows)
	}
	ids, next, err := s.FactChanges(ctx, start)
	if !errors.Is(err, holomem.ErrChangesPruned) || ids != nil {
		t.Fatalf("FactChanges from before the oldest row = %d ids, %v; want ErrChangesPruned", len(ids), err)
	}
	if next != cursor(t, s) {
		t.Errorf("next cursor %d; want the head %d", next, cursor(t, s))
	}
	if ids, _ := changedIDs(t, s, next); len(ids) != 0 {
		t.Errorf("changes since the head: %d", len(ids))
	}
	if ids, _ := changedIDs(t, s, last); len(ids) != len(all) {
		t.Errorf("changes of the last mark: %d ids; want %d", len(ids), len(all))
	}
	// Right at the boundary: a follower whose next row is the oldest kept
	// misses nothing; one row further back, it reloads.
	head := cursor(t, s)
	if _, err := rawDB(t, db).ExecContext(ctx, "DELETE FROM fact_changes WHERE seq <= ?", head-5); err != nil {
		t.Fatal(err)
	}
	if ids, _ := changedIDs(t, s, head-5); len(ids) != 5 {
		t.Errorf("changes since %d: %d ids; want 5", head-5, len(ids))
	}
	if _, _, err := s.FactChanges(ctx, head-6); !errors.Is(err, holomem.ErrChangesPruned) {
		t.Errorf("FactChanges one before the oldest kept = %v; want ErrChangesPruned", err)
	}
}

// TestFactChanges_Migrated: a database of the schema before the feed gets
// it on open.
func TestFactChanges_Migrated(t *testing.T) {
	ctx := t.Context()
	raw, err := os.ReadFile(filepath.Join("testdata", "schema", "v7.db"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "m.db")
	if err := os.WriteFile(p, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	s := mustOpen(t, p)
	cur := cursor(t, s)
	if ids, _ := changedIDs(t, s, cur); len(ids) != 0 {
		t.Errorf("changes right after the migration: %v", ids)
	}
	if err := s.MarkRetrieved(ctx, []int64{2}); err != nil {
		t.Fatal(err)
	}
	if ids, _ := changedIDs(t, s, cur); !slices.Equal(ids, []int64{2}) {
		t.Errorf("changes after a write: %v; want [2]", ids)
	}
}

// BenchmarkFactChanges_UpToDate is what a warm process pays per recall to
// learn that nothing changed: a full feed (50k rows) and no new rows.
func BenchmarkFactChanges_UpToDate(b *testing.B) {
	ctx := b.Context()
	s := mustOpen(b, filepath.Join(b.TempDir(), "bench.db"))
	fs := make([]*holomem.Fact, 1000)
	ids := make([]int64, len(fs))
	for i := range fs {
		fs[i] = &holomem.Fact{Content: fmt.Sprintf("fact %d", i)}
	}
	if _, err := s.CreateFacts(ctx, fs); err != nil {
		b.Fatal(err)
	}
	for i, f := range fs {
		ids[i] = f.ID
	}
	for range 52 {
		if err := s.MarkRetrieved(ctx, ids); err != nil {
			b.Fatal(err)
		}
	}
	cur := cursor(b, s)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		got, next, err := s.FactChanges(ctx, cur)
		if err != nil || len(got) != 0 || next != cur {
			b.Fatalf("FactChanges = %v, %d, %v", got, next, err)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestFactChanges_Relink: deriving entities again records the facts
// whose links it wrote (holomem's connections skip the link trigger).
func TestFactChanges_Relink(t *testing.T) {
	ctx := t.Context()
	db := filepath.Join(t.TempDir(), "relink.db")
	s := mustOpen(t, db)
	var ids []int64
	for _, c := range []string{"Alice deploys nginx", "Bob reviews Alice's change"} {
		f := &holomem.Fact{Content: c}
		if _, err := s.CreateFact(ctx, f); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, f.ID)
	}
	if _, err := rawDB(t, db).ExecContext(ctx, "DELETE FROM fact_entities"); err != nil {
		t.Fatal(err)
	}
	cur := cursor(t, s)
	if _, err := s.RelinkEntities(ctx, 0, 10); err != nil {
		t.Fatal(err)
	}
	got, _ := changedIDs(t, s, cur)
	if !slices.Equal(slices.Compact(slices.Sorted(slices.Values(got))), ids) {
		t.Errorf("changes after relinking: %v; want %v", got, ids)
	}
}
