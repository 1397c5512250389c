package retrieve_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
)

// failingMarks is a store whose retrieval-count write fails while fail is set
// (a full disk, a read-only file).
type failingMarks struct {
	holomem.Store
	fail  atomic.Bool
	calls atomic.Int64
}

var errDiskFull = errors.New("database or disk is full")

func (s *failingMarks) MarkRetrieved(ctx context.Context, ids []int64) error {
	s.calls.Add(1)
	if s.fail.Load() {
		return errDiskFull
	}
	return s.Store.MarkRetrieved(ctx, ids)
}

func TestRecall_CountWriteFailureDoesNotFailRecall(t *testing.T) {
	_, st := testutil.MustOpenMemory(t, retrieve.Options{})
	fs := &failingMarks{Store: st}
	m, err := retrieve.New(fs, retrieve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	f := remember(t, m, "We deploy nginx with Ansible")
	fs.fail.Store(true)
	res, err := m.Recall(t.Context(), holomem.Query{Text: "nginx"})
	if err != nil {
		t.Fatalf("recall failed because the count write failed: %v", err)
	}
	if len(res.Hits) != 1 || res.Hits[0].Fact.ID != f.ID {
		t.Fatalf("hits = %v", ids(res.Hits))
	}
}

func TestRecall_BatchedCounts(t *testing.T) {
	_, st := testutil.MustOpenMemory(t, retrieve.Options{})
	fs := &failingMarks{Store: st}
	// An hour: the loop never fires during the test; Flush and Close write.
	m, err := retrieve.New(fs, retrieve.Options{RetrievalFlush: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	a := remember(t, m, "We deploy nginx with Ansible")
	b := remember(t, m, "nginx logs rotate daily")
	for range 3 {
		if _, err := m.Recall(t.Context(), holomem.Query{Text: "nginx Ansible"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.Recall(t.Context(), holomem.Query{Text: "rotate"}); err != nil {
		t.Fatal(err)
	}
	if n := fs.calls.Load(); n != 0 {
		t.Fatalf("recall wrote counts on the request path (%d writes)", n)
	}
	got := func(id int64) int64 {
		f, err := st.FindFactByID(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		return f.RetrievalCount
	}
	if got(a.ID) != 0 {
		t.Fatal("counts written before a flush")
	}
	// A failed flush keeps the counts for the next one.
	fs.fail.Store(true)
	if err := m.FlushRetrievals(t.Context()); !errors.Is(err, errDiskFull) {
		t.Fatalf("flush on a full disk: %v", err)
	}
	fs.fail.Store(false)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if got(a.ID) != 3 || got(b.ID) != 4 {
		t.Errorf("counts after close = %d, %d; want 3, 4", got(a.ID), got(b.ID))
	}
}
