package retrieve

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// retrievals keeps the retrieval counts recall owes the store. Counting is
// bookkeeping: a recall must answer even when the write fails (disk full,
// read-only file, another writer holding the lock), and a long-running
// process must not put a write transaction on every read's path. So in a
// long-running process ([Options.RetrievalFlush] > 0) recall only adds ids
// here and a background loop writes them in one batch per interval and on
// Close; in a one-shot process the write happens at once, still
// best-effort. Counts lost to a crash between flushes are an accepted loss:
// they rank nothing, they inform curation.
type retrievals struct {
	mu      sync.Mutex
	pending map[int64]int64 // fact id -> retrievals not yet written

	stop chan struct{}
	done chan struct{}
}

// add records one retrieval of each id.
func (r *retrievals) add(ids []int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pending == nil {
		r.pending = map[int64]int64{}
	}
	for _, id := range ids {
		r.pending[id]++
	}
}

// take removes and returns the pending counts.
func (r *retrievals) take() map[int64]int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.pending
	r.pending = nil
	return p
}

// putBack returns counts whose write failed, so the next flush retries them.
func (r *retrievals) putBack(p map[int64]int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pending == nil {
		r.pending = map[int64]int64{}
	}
	for id, n := range p {
		r.pending[id] += n
	}
}

// maxPendingRetrievals bounds what a store that keeps refusing writes can
// make a process hold: beyond it, failed counts are dropped, not retried.
const maxPendingRetrievals = 100_000

// FlushRetrievals writes the retrieval counts recall has queued. A long
// running process calls it on shutdown (Close does); a failed write keeps
// the counts queued for the next attempt and is returned for logging.
func (m *Memory) FlushRetrievals(ctx context.Context) error {
	p := m.counts.take()
	if len(p) == 0 {
		return nil
	}
	// Store.MarkRetrieved adds one per id: write count level by level
	// (ids retrieved at least once, at least twice, ...), in id order so
	// the write is deterministic.
	ids := make([]int64, 0, len(p))
	var most int64
	for id, n := range p {
		ids = append(ids, id)
		most = max(most, n)
	}
	slices.Sort(ids)
	done := map[int64]int64{}
	for level := int64(1); level <= most; level++ {
		batch := ids[:0:0]
		for _, id := range ids {
			if p[id] >= level {
				batch = append(batch, id)
			}
		}
		if err := m.store.MarkRetrieved(ctx, batch); err != nil {
			rest := map[int64]int64{}
			for id, n := range p {
				if n > done[id] {
					rest[id] = n - done[id]
				}
			}
			if len(rest) <= maxPendingRetrievals {
				m.counts.putBack(rest)
			}
			return fmt.Errorf("flush retrieval counts: %w", err)
		}
		for _, id := range batch {
			done[id]++
		}
	}
	return nil
}

// countRetrievals records that ids were returned by recall: queued when a
// flush loop runs, else written now. Either way a failure is logged, never
// returned: recall's answer does not depend on it.
func (m *Memory) countRetrievals(ctx context.Context, ids []int64) {
	if m.opts.RetrievalFlush > 0 {
		m.counts.add(ids)
		return
	}
	if err := m.store.MarkRetrieved(ctx, ids); err != nil {
		m.log.Warn("retrieval counts not saved (recall answered anyway)", "err", err)
	}
}

// startFlusher runs the background flush loop until stopFlusher.
func (m *Memory) startFlusher() {
	m.counts.stop = make(chan struct{})
	m.counts.done = make(chan struct{})
	go func() {
		defer close(m.counts.done)
		t := time.NewTicker(m.opts.RetrievalFlush)
		defer t.Stop()
		for {
			select {
			case <-m.counts.stop:
				return
			case <-t.C:
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				if err := m.FlushRetrievals(ctx); err != nil {
					m.log.Warn("retrieval counts not saved; retrying later", "err", err)
				}
				cancel()
			}
		}
	}()
}

// stopFlusher ends the loop and writes what is left.
func (m *Memory) stopFlusher() error {
	if m.counts.stop == nil {
		return nil
	}
	close(m.counts.stop)
	<-m.counts.done
	m.counts.stop = nil
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return m.FlushRetrievals(ctx)
}
