package postgres_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/pgtest"
	"github.com/holomem/holomem/postgres"
)

// TestFactCounts: the counts that triggers keep in fact_counts (read by
// recall's BM25 and the "found elsewhere" hint instead of counting rows)
// equal what counting fact_search says, after one-by-one and batched adds
// from concurrent connections, supersede, an edit and deletes.
func TestFactCounts(t *testing.T) {
	ctx := t.Context()
	addr := pgtest.Addr(t)
	s := mustOpen(t, addr)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ns := []string{"default", "team"}[w%2]
			for i := range 20 {
				if _, err := s.CreateFact(ctx, &holomem.Fact{Namespace: ns, Content: fmt.Sprintf("writer %d fact %d about Kafka", w, i)}); err != nil {
					errs <- err
					return
				}
			}
			batch := []*holomem.Fact{
				{Namespace: ns, Content: fmt.Sprintf("writer %d batch one", w)},
				{Namespace: "third", Content: fmt.Sprintf("writer %d batch two", w)},
			}
			if _, err := s.CreateFacts(ctx, batch); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	older := &holomem.Fact{Content: "The old deploy note"}
	newer := &holomem.Fact{Content: "The new deploy note"}
	for _, f := range []*holomem.Fact{older, newer} {
		if _, err := s.CreateFact(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Supersede(ctx, older.ID, newer.ID); err != nil {
		t.Fatal(err)
	}
	c := "writer edited"
	if _, err := s.UpdateFact(ctx, 3, holomem.FactUpdate{Content: &c}); err != nil {
		t.Fatal(err)
	}
	// Deleting the newer fact makes the older one live again.
	for _, id := range []int64{newer.ID, 5} {
		if err := s.DeleteFact(ctx, id); err != nil {
			t.Fatal(err)
		}
	}

	conn, err := pgx.Connect(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, _ := conn.Query(ctx, "SELECT DISTINCT namespace FROM fact_search ORDER BY namespace")
	want, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Namespaces(ctx)
	if err != nil || !slices.Equal(got, want) || len(want) != 3 {
		t.Fatalf("Namespaces = %v, %v; want %v", got, err, want)
	}
	for _, ns := range want {
		var facts, live, kept, keptLive int64
		if err := conn.QueryRow(ctx, "SELECT count(*), count(*) FILTER (WHERE live) FROM fact_search WHERE namespace = $1", ns).Scan(&facts, &live); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRow(ctx, "SELECT sum(facts), sum(live) FROM fact_counts WHERE namespace = $1", ns).Scan(&kept, &keptLive); err != nil {
			t.Fatal(err)
		}
		if kept != facts || keptLive != live {
			t.Errorf("namespace %s: kept %d facts, %d live; counted %d, %d", ns, kept, keptLive, facts, live)
		}
	}
	var all, kept int64
	_ = conn.QueryRow(ctx, "SELECT count(*) FROM fact_search").Scan(&all)
	_ = conn.QueryRow(ctx, "SELECT sum(facts) FROM fact_counts").Scan(&kept)
	if all != kept || all != 4*22+2-2 {
		t.Errorf("all facts: kept %d, counted %d, want %d", kept, all, 4*22+2-2)
	}
}

// TestClose_analyzesAfterBulkWrite: a Store that created >= 1000 facts in
// batches (an import, a copy) runs ANALYZE when it closes, so the planner
// does not plan on the empty tables' estimates until autovacuum comes by.
func TestClose_analyzesAfterBulkWrite(t *testing.T) {
	ctx := t.Context()
	addr := pgtest.Addr(t)
	s, err := postgres.Open(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	analyzed := func() bool {
		conn, err := pgx.Connect(ctx, addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		var at *time.Time
		if err := conn.QueryRow(ctx, "SELECT last_analyze FROM pg_stat_user_tables WHERE relname = 'facts' AND schemaname = current_schema()").Scan(&at); err != nil {
			t.Fatal(err)
		}
		return at != nil
	}
	var fs []*holomem.Fact
	for i := range 1200 {
		fs = append(fs, &holomem.Fact{Content: fmt.Sprintf("bulk fact %d", i)})
	}
	if _, err := s.CreateFacts(ctx, fs); err != nil {
		t.Fatal(err)
	}
	if analyzed() {
		t.Fatal("facts analyzed before Close")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// The statistics collector reports asynchronously.
	for range 50 {
		if analyzed() {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Error("Close after 1200 batched facts did not ANALYZE facts")
}
