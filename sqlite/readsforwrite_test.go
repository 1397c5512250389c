package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/holomem/holomem"
)

// readsForWriteStore is a store with facts about a few people, linked to
// their entities.
func readsForWriteStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "rfw.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	names := []string{"Alice Moreau", "Bob Lee", "Chen Wei"}
	for i := range 30 {
		f := &holomem.Fact{Content: fmt.Sprintf("%s deployed the billing service to Frankfurt on day %d", names[i%3], i)}
		if _, err := s.CreateFact(t.Context(), f); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// hygieneReads runs the reads Remember's checks make, and returns what
// they found.
func hygieneReads(ctx context.Context, s *Store) (map[string]any, error) {
	out := map[string]any{}
	changes, next, err := s.FactChangeLog(ctx, 0)
	if err != nil {
		return nil, fmt.Errorf("FactChangeLog: %w", err)
	}
	out["changes"], out["next"] = changes, next
	if out["recent"], err = s.RecentFactIDsByEntities(ctx, "default", []string{"Alice Moreau", "Chen Wei"}, 5); err != nil {
		return nil, fmt.Errorf("RecentFactIDsByEntities: %w", err)
	}
	if out["entities"], err = s.EntitiesOf(ctx, []int64{1, 2, 3}); err != nil {
		return nil, fmt.Errorf("EntitiesOf: %w", err)
	}
	if out["similar"], err = s.SimilarFacts(ctx, "default", []string{"billing", "frankfurt", "alice"}, 10, 100); err != nil {
		return nil, fmt.Errorf("SimilarFacts: %w", err)
	}
	if out["search"], err = s.SearchText(ctx, "default", "billing Frankfurt", 10); err != nil {
		return nil, fmt.Errorf("SearchText: %w", err)
	}
	docs, df, err := s.TermStats(ctx, []string{"billing", "frankfurt", "nowhere"})
	if err != nil {
		return nil, fmt.Errorf("TermStats: %w", err)
	}
	out["docs"], out["df"] = docs, df
	facts, _, err := s.FindFacts(ctx, holomem.FactFilter{IDs: []int64{4, 5, 6}, Lean: true})
	if err != nil {
		return nil, fmt.Errorf("FindFacts: %w", err)
	}
	var contents []string
	for _, f := range facts {
		contents = append(contents, f.Content)
	}
	out["facts"] = contents
	return out, nil
}

// TestReadsForWrite_onWriter: reads marked with holomem.ReadsForWrite give
// the answers of the read pool without using it (its one connection is
// held here, so an unmarked read times out), the second time through
// statements prepared on the write connection; while a write holds that
// connection they read from the pool.
func TestReadsForWrite_onWriter(t *testing.T) {
	s := readsForWriteStore(t)
	want, err := hygieneReads(t.Context(), s) // also prepares the pool's statements
	if err != nil {
		t.Fatal(err)
	}
	s.rdb.SetMaxOpenConns(1)
	held, err := s.rdb.BeginTx(t.Context(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	_, err = hygieneReads(short, s)
	cancel()
	if err == nil {
		t.Fatal("an unmarked read worked with the pool's connection held: the test cannot tell which connection a read used")
	}
	bounded, cancelAll := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancelAll()
	ctx := holomem.ReadsForWrite(bounded, true)
	for pass := range 2 {
		got, err := hygieneReads(ctx, s)
		if err != nil {
			t.Fatalf("pass %d: marked reads: %v", pass, err)
		}
		for k, v := range want {
			if !reflect.DeepEqual(got[k], v) {
				t.Errorf("pass %d: %s = %v, want %v", pass, k, got[k], v)
			}
		}
	}
	n := 0
	s.wrstmts.Range(func(_, _ any) bool { n++; return true })
	if n == 0 {
		t.Error("no read statement was prepared on the write connection")
	}
	held.Rollback()

	// With the write connection taken, marked reads use the pool.
	s.wmu.Lock()
	got, err := hygieneReads(ctx, s)
	s.wmu.Unlock()
	if err != nil {
		t.Fatalf("marked reads while the writer is busy: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("marked reads while the writer is busy: %v, want %v", got, want)
	}
}

// TestReadsForWrite_writesAndReaders: a marked context handed to a write
// does not deadlock it (the write's own reads leave the write
// connection), and marked reads beside writes and unmarked reads from
// several goroutines all finish (run with -race).
func TestReadsForWrite_writesAndReaders(t *testing.T) {
	s := readsForWriteStore(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	marked := holomem.ReadsForWrite(ctx, true)
	if !holomem.IsReadForWrite(marked) || holomem.IsReadForWrite(holomem.ReadsForWrite(marked, false)) {
		t.Fatal("ReadsForWrite does not set and clear its mark")
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 6 {
		wg.Go(func() {
			for i := range 25 {
				var err error
				switch g % 3 {
				case 0:
					_, err = s.CreateFact(marked, &holomem.Fact{Content: fmt.Sprintf("Bob Lee moved the billing service to Dublin, step %d.%d", g, i)})
				case 1:
					_, err = hygieneReads(marked, s)
				case 2:
					_, err = hygieneReads(ctx, s)
				}
				if err != nil {
					errs <- fmt.Errorf("goroutine %d, round %d: %w", g, i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	changes, _, err := s.FactChangeLog(marked, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) < 30+2*25 {
		t.Errorf("feed has %d changes after 80 creates", len(changes))
	}
}
