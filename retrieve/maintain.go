package retrieve

import (
	"context"
	"time"

	"github.com/holomem/holomem"
)

// changeSettle is how long Maintain waits after a change notification
// before syncing, so a burst of writes costs one sync.
const changeSettle = 50 * time.Millisecond

// canaryEvery is the sample of the canary Maintain runs after each refresh.
const canaryEvery = 50

// Maintain keeps a long-running process's memory current until ctx is
// done: every refresh interval (0: never) it applies the facts other
// processes changed ([Memory.SyncChanges]: by the store's change feed, a
// full reload only without one), so facts written elsewhere appear,
// and runs the recall canary on every namespace searched through HNSW (a
// namespace whose recall dropped falls back to exact search, and the
// memory's logger says so). When the store is a [holomem.ChangeNotifier] it also
// syncs shortly after another process writes. Failures are logged, not
// returned: serving goes on with the index it has. The caller runs it in
// a goroutine it waits for.
func (m *Memory) Maintain(ctx context.Context, refresh time.Duration) {
	m.primeSync(ctx)
	changed := make(chan struct{}, 1)
	if n, ok := holomem.As[holomem.ChangeNotifier](m.store); ok {
		// The signal is coalesced, so a burst of writes costs one sync.
		unsubscribe := n.Subscribe(func(string) {
			select {
			case changed <- struct{}{}:
			default:
			}
		})
		defer unsubscribe()
	}
	var tick <-chan time.Time
	if refresh > 0 {
		t := time.NewTicker(refresh)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-changed:
			// Let the rest of a burst arrive before syncing.
			select {
			case <-ctx.Done():
				return
			case <-time.After(changeSettle):
			}
			select {
			case <-changed:
			default:
			}
			if err := m.SyncChanges(ctx); err != nil && ctx.Err() == nil {
				m.log.Warn("sync after another process's write", "err", err)
			}
		case <-tick:
			if err := m.SyncChanges(ctx); err != nil && ctx.Err() == nil {
				m.log.Warn("sync vector index", "err", err)
			}
			m.checkCanary(ctx)
		}
	}
}

// checkCanary runs the recall canary on every namespace searched through
// HNSW; the canary itself makes a namespace whose recall dropped fall back
// to exact search.
func (m *Memory) checkCanary(ctx context.Context) {
	idx, err := m.sem.Status(ctx)
	if err != nil {
		return
	}
	for _, st := range idx {
		if st.Mode != holomem.IndexHNSW {
			continue
		}
		c, err := m.sem.Canary(ctx, st.Namespace, canaryEvery)
		if err == nil && c.Tripped {
			m.log.Warn("ANN recall dropped; searching exactly until `holomem graph build`", "namespace", st.Namespace, "recall", c.Recall)
		}
	}
}
