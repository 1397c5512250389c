package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/pgtest"
	"github.com/holomem/holomem/postgres"
	"github.com/holomem/holomem/storetest"
)

func connect(tb testing.TB, addr string) *pgx.Conn {
	tb.Helper()
	c, err := pgx.Connect(tb.Context(), addr)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close(context.Background()) })
	return c
}

var createN = storetest.CreateN

// TestFactChanges_Raw runs the feed tests of storetest that go behind
// the store's back.
func TestFactChanges_Raw(t *testing.T) {
	storetest.RunRaw(t, func(t *testing.T) (storetest.Feeder, storetest.Raw) {
		addr := pgtest.ExclusiveAddr(t)
		s := mustOpen(t, addr)
		return s, storetest.Raw{
			RolledBack: func(t *testing.T, stmts ...string) {
				tx, err := connect(t, addr).Begin(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				for _, q := range stmts {
					if _, err := tx.Exec(t.Context(), q); err != nil {
						t.Fatalf("%s: %v", q, err)
					}
				}
				if err := tx.Rollback(t.Context()); err != nil {
					t.Fatal(err)
				}
			},
			FeedRows: func(t *testing.T) int64 {
				var rows int64
				if err := s.Pool().QueryRow(t.Context(), "SELECT count(*) FROM fact_changes").Scan(&rows); err != nil {
					t.Fatal(err)
				}
				return rows
			},
			MaxRows: 50000 + 2048,
		}
	})
}

// TestFactChanges_OutOfOrderCommits: the transaction with the smaller id
// commits last. A feed ordered by a sequence would let a follower move
// past it; the xid watermark reports it once it commits, and the later
// one as soon as it has committed.
func TestFactChanges_OutOfOrderCommits(t *testing.T) {
	ctx := t.Context()
	addr := pgtest.ExclusiveAddr(t)
	s := mustOpen(t, addr)
	ids := createN(t, s, 2, "order")
	a, b := ids[0], ids[1]
	cur := storetest.Cursor(t, s)

	tx1, err := connect(t, addr).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx1.Rollback(context.Background())
	tx2, err := connect(t, addr).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx2.Rollback(context.Background())
	var x1, x2 int64
	if err := tx1.QueryRow(ctx, "UPDATE facts SET trust = 0.1 WHERE id = $1 RETURNING pg_current_xact_id()::text::bigint", a).Scan(&x1); err != nil {
		t.Fatal(err)
	}
	if err := tx2.QueryRow(ctx, "UPDATE facts SET trust = 0.2 WHERE id = $1 RETURNING pg_current_xact_id()::text::bigint", b).Scan(&x2); err != nil {
		t.Fatal(err)
	}
	if x1 >= x2 {
		t.Fatalf("xids %d, %d: want the first below the second", x1, x2)
	}
	if err := tx2.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	first, next := storetest.ChangedIDs(t, s, cur)
	if !slices.Contains(first, b) || slices.Contains(first, a) {
		t.Errorf("with the older transaction open: %v; want %d (committed) and not %d", first, b, a)
	}
	if next > x1 {
		t.Errorf("next cursor %d passed the open transaction %d", next, x1)
	}
	if err := tx1.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	second, next := storetest.ChangedIDs(t, s, next)
	if !slices.Contains(second, a) {
		t.Errorf("after the older transaction committed: %v; want %d", second, a)
	}
	if next <= x2 {
		t.Errorf("next cursor %d; want past both transactions (%d)", next, x2)
	}
	if third, _ := storetest.ChangedIDs(t, s, next); len(third) != 0 {
		t.Errorf("changes after both were reported: %v", third)
	}
}

// TestFactChanges_Follower keeps a copy of every fact from the feed alone
// while writers on two Store handles (two replicas) create, update and
// delete facts concurrently, and checks that the copy equals the store at
// the end: no change is missed.
func TestFactChanges_Follower(t *testing.T) {
	ctx := t.Context()
	addr := pgtest.ExclusiveAddr(t)
	s := mustOpen(t, addr)
	other := mustOpen(t, addr)
	copyOf := storetest.Copy{Key: func(f *holomem.Fact) string {
		return fmt.Sprintf("%s/%.2f/%d", f.Content, f.Trust, f.RetrievalCount)
	}}
	load := func(ids []int64) { t.Helper(); copyOf.Load(t, s, ids) }
	cur := storetest.Cursor(t, s)
	load(nil)

	const perWriter = 40
	var wg sync.WaitGroup
	errc := make(chan error, 4)
	for w, st := range []*postgres.Store{s, other, other, s} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				f := &holomem.Fact{Content: fmt.Sprintf("writer %d fact %d", w, i)}
				if _, err := st.CreateFact(ctx, f); err != nil {
					errc <- err
					return
				}
				var err error
				switch i % 4 {
				case 1:
					_, err = st.RecordFeedback(ctx, f.ID, i%8 == 1)
				case 2:
					err = st.MarkRetrieved(ctx, []int64{f.ID})
				case 3:
					err = st.DeleteFact(ctx, f.ID)
				}
				if err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	polls := 0
	for finished := false; !finished; polls++ {
		select {
		case <-done:
			finished = true
		default:
		}
		ids, next := storetest.ChangedIDs(t, s, cur)
		if len(ids) > 0 {
			load(ids)
		}
		cur = next
	}
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	ids, _ := storetest.ChangedIDs(t, s, cur)
	load(ids)
	copyOf.Check(t, s, 4*perWriter*3/4)
	t.Logf("%d polls", polls)
}

// BenchmarkFactChanges_UpToDate is what a warm process pays per recall to
// learn that nothing changed (one round trip).
func BenchmarkFactChanges_UpToDate(b *testing.B) {
	storetest.BenchFeedUpToDate(b, mustOpen(b, pgtest.Addr(b)), 10)
}
