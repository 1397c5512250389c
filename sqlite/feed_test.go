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
	"github.com/holomem/holomem/storetest"
)

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
	cur := storetest.Cursor(t, s)
	other := mustOpen(t, db)
	if _, err := other.UpdateFact(ctx, x.ID, holomem.FactUpdate{Trust: ptr(0.8)}); err != nil {
		t.Fatal(err)
	}
	if ids, _ := storetest.ChangedIDs(t, s, cur); !slices.Equal(ids, []int64{x.ID}) {
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
	cur := storetest.Cursor(t, s)
	if err := helper(t, "writer", db, "p:3").Run(); err != nil {
		t.Fatalf("writer process: %v", err)
	}
	fs, _, err := s.FindFacts(ctx, holomem.FactFilter{AfterID: x.ID})
	if err != nil || len(fs) != 3 {
		t.Fatalf("facts of the writer process: %d, %v", len(fs), err)
	}
	ids, next := storetest.ChangedIDs(t, s, cur)
	if want := []int64{fs[0].ID, fs[1].ID, fs[2].ID}; !slices.Equal(ids, want) {
		t.Errorf("after another process's writes: %v; want %v", ids, want)
	}
	// The foreign tool deletes "apple pie" and sets every fact's trust.
	if err := helper(t, "foreign", db, "").Run(); err != nil {
		t.Fatalf("foreign tool: %v", err)
	}
	ids, _ = storetest.ChangedIDs(t, s, next)
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
	copyOf := storetest.Copy{Key: func(f *holomem.Fact) string { return fmt.Sprintf("%s/%d", f.Content, f.RetrievalCount) }}
	load := func(ids []int64) { t.Helper(); copyOf.Load(t, s, ids) }
	cur := storetest.Cursor(t, s)
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
	ids, _ := storetest.ChangedIDs(t, s, cur)
	load(ids)
	copyOf.Check(t, s, 200)
	t.Logf("%d polls", polls)
}

// TestFactChanges_Raw runs the feed tests of storetest that go behind
// the store's back.
func TestFactChanges_Raw(t *testing.T) {
	storetest.RunRaw(t, func(t *testing.T) (storetest.Feeder, storetest.Raw) {
		db := filepath.Join(t.TempDir(), "raw.db")
		return mustOpen(t, db), storetest.Raw{
			RolledBack: func(t *testing.T, stmts ...string) {
				tx, err := rawDB(t, db).BeginTx(t.Context(), nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, q := range stmts {
					if _, err := tx.ExecContext(t.Context(), q); err != nil {
						t.Fatalf("%s: %v", q, err)
					}
				}
				if err := tx.Rollback(); err != nil {
					t.Fatal(err)
				}
			},
			FeedRows: func(t *testing.T) int64 {
				var rows int64
				if err := rawDB(t, db).QueryRowContext(t.Context(), "SELECT count(*) FROM fact_changes").Scan(&rows); err != nil {
					t.Fatal(err)
				}
				return rows
			},
			MinRows: 50000, MaxRows: 50000 + 1024,
		}
	})
}

// TestFactChanges_PrunedBoundary: a follower whose next row is the oldest
// kept misses nothing; one row further back, it reloads from the head.
func TestFactChanges_PrunedBoundary(t *testing.T) {
	ctx := t.Context()
	db := filepath.Join(t.TempDir(), "prune.db")
	s := mustOpen(t, db)
	ids := storetest.CreateN(t, s, 20, "boundary")
	for range 2 {
		if err := s.MarkRetrieved(ctx, ids); err != nil {
			t.Fatal(err)
		}
	}
	head := storetest.Cursor(t, s)
	if _, err := rawDB(t, db).ExecContext(ctx, "DELETE FROM fact_changes WHERE seq <= ?", head-5); err != nil {
		t.Fatal(err)
	}
	if ids, _ := storetest.ChangedIDs(t, s, head-5); len(ids) != 5 {
		t.Errorf("changes since %d: %d ids; want 5", head-5, len(ids))
	}
	ids, next, err := s.FactChanges(ctx, head-6)
	if !errors.Is(err, holomem.ErrChangesPruned) || ids != nil {
		t.Errorf("FactChanges one before the oldest kept = %d ids, %v; want ErrChangesPruned", len(ids), err)
	}
	if next != head {
		t.Errorf("next cursor %d; want the head %d", next, head)
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
	cur := storetest.Cursor(t, s)
	if ids, _ := storetest.ChangedIDs(t, s, cur); len(ids) != 0 {
		t.Errorf("changes right after the migration: %v", ids)
	}
	if err := s.MarkRetrieved(ctx, []int64{2}); err != nil {
		t.Fatal(err)
	}
	if ids, _ := storetest.ChangedIDs(t, s, cur); !slices.Equal(ids, []int64{2}) {
		t.Errorf("changes after a write: %v; want [2]", ids)
	}
}

// BenchmarkFactChanges_UpToDate is what a warm process pays per recall to
// learn that nothing changed: a full feed (50k rows) and no new rows.
func BenchmarkFactChanges_UpToDate(b *testing.B) {
	storetest.BenchFeedUpToDate(b, mustOpen(b, filepath.Join(b.TempDir(), "bench.db")), 52)
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
	cur := storetest.Cursor(t, s)
	if _, err := s.RelinkEntities(ctx, 0, 10); err != nil {
		t.Fatal(err)
	}
	got, _ := storetest.ChangedIDs(t, s, cur)
	if !slices.Equal(slices.Compact(slices.Sorted(slices.Values(got))), ids) {
		t.Errorf("changes after relinking: %v; want %v", got, ids)
	}
}
