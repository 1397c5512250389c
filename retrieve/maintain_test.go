package retrieve_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
)

// notifyingStore is a store that tells subscribers about writes the way
// postgres.Store's LISTEN/NOTIFY does; the test fires it by hand.
type notifyingStore struct {
	holomem.Store
	mu  sync.Mutex
	fns []func(string)
}

func (s *notifyingStore) Subscribe(fn func(string)) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fns = append(s.fns, fn)
	return func() {}
}

func (s *notifyingStore) notify(ns string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, fn := range s.fns {
		fn(ns)
	}
}

// TestMemory_Maintain: a long-running memory picks up a vector another
// process wrote when the store says so, without a refresh interval.
func TestMemory_Maintain(t *testing.T) {
	emb := testutil.MustTinyEmbedder(t)
	base := testutil.MustOpenStore(t)
	s := &notifyingStore{Store: base}
	server, err := retrieve.New(s, retrieve.Options{Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	other, err := retrieve.New(base, retrieve.Options{Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ctx := t.Context()
	remember(t, server, "the backup runs every night")
	vectors := func() int {
		st, err := server.Status(ctx, holomem.DefaultNamespace)
		if err != nil || st.Index == nil {
			t.Fatalf("status = %+v, %v", st, err)
		}
		return st.Index.Vectors
	}
	if got := vectors(); got != 1 {
		t.Fatalf("vectors before = %d", got)
	}
	done := make(chan struct{})
	mctx, cancel := context.WithCancel(ctx)
	go func() {
		defer close(done)
		server.Maintain(mctx, 0)
	}()
	remember(t, other, "we deploy nginx with Ansible")
	// Subscribe runs when Maintain starts; notify until the reload shows.
	// The limit only detects a hang (a count of 10 ms sleeps was 5 s of
	// wall clock, short on a loaded machine under -race); the loop ends as
	// soon as the reload shows.
	for deadline := time.Now().Add(time.Minute); vectors() != 2; {
		if time.Now().After(deadline) {
			t.Fatal("the notified write never reached the index")
		}
		s.notify(holomem.DefaultNamespace)
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
}
