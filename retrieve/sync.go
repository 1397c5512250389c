package retrieve

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/hrr"
)

// vecSync follows the store's change feed for the in-memory vectors (the
// HRR cache and the embedding index), so a long-running process applies
// only the facts that other processes changed instead of reloading every
// vector after each write: at 100k facts a reload reads ~260 MB (HRR and
// a 384-d model's embeddings), a changed fact a few KB.
type vecSync struct {
	mu     sync.Mutex
	feed   holomem.ChangeFeeder
	cursor int64
	ready  bool
	stats  SyncStats
}

// SyncStats counts what [Memory.SyncChanges] did since the memory was
// made.
type SyncStats struct {
	// Syncs is the number of SyncChanges calls that read the feed.
	Syncs int64 `json:"syncs"`
	// Facts is the number of changed facts applied.
	Facts int64 `json:"facts"`
	// Bytes is what those facts' rows brought: content, HRR vectors and
	// embeddings (4 bytes a dimension).
	Bytes int64 `json:"bytes"`
	// FullReloads counts reloads of every vector: the first sync, and a
	// feed that could no longer say what changed (ErrChangesPruned).
	FullReloads int64 `json:"full_reloads"`
}

// SyncStats reports what [Memory.SyncChanges] has done so far.
func (m *Memory) SyncStats() SyncStats {
	m.sync.mu.Lock()
	defer m.sync.mu.Unlock()
	return m.sync.stats
}

// SyncChanges brings the in-memory vectors up to date with writes made by
// other processes (another replica, a CLI `add` beside a server). With a
// change feed it reads the ids changed since its cursor and applies those
// facts alone: new and edited vectors are put, deleted and superseded
// facts dropped, in the namespaces this process holds. Its first call, and
// a feed that pruned what the cursor needs, reload everything
// ([Memory.Refresh]). A store without a feed is reloaded every time.
func (m *Memory) SyncChanges(ctx context.Context) error {
	s := &m.sync
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.feed == nil {
		s.stats.FullReloads++
		return m.Refresh(ctx)
	}
	if !s.ready {
		// The cursor is taken before the reload, so a write committed in
		// between is applied again by the next sync rather than missed.
		cur, err := s.feed.FactChangeCursor(ctx)
		if err != nil {
			return fmt.Errorf("sync vectors: change cursor: %w", err)
		}
		if err := m.Refresh(ctx); err != nil {
			return err
		}
		s.cursor, s.ready = cur, true
		s.stats.FullReloads++
		return nil
	}
	for {
		ids, next, err := s.feed.FactChanges(ctx, s.cursor)
		if errors.Is(err, holomem.ErrChangesPruned) {
			if err := m.Refresh(ctx); err != nil {
				return err
			}
			s.cursor = next
			s.stats.FullReloads++
			return nil
		}
		if err != nil {
			return fmt.Errorf("sync vectors: %w", err)
		}
		s.stats.Syncs++
		if err := m.applyChanged(ctx, ids); err != nil {
			return err
		}
		done := next == s.cursor || len(ids) < holomem.MaxFactChanges
		s.cursor = next
		if done {
			return nil
		}
	}
}

// primeSync takes the feed's cursor while no vector is loaded yet: every
// later load then reads a store at least as new as the cursor, so the
// first SyncChanges need not reload. Once vectors are loaded without a
// cursor, the first sync reloads them (a write between that load and the
// cursor would otherwise be missed).
func (m *Memory) primeSync(ctx context.Context) {
	s := &m.sync
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.feed == nil || s.ready || m.hrr.loaded() || (m.sem != nil && m.sem.Loaded()) {
		return
	}
	if cur, err := s.feed.FactChangeCursor(ctx); err == nil {
		s.cursor, s.ready = cur, true
	}
}

// applyChanged reads the facts of ids (superseded ones included) and puts
// or drops their vectors; an id no longer in the store was deleted.
func (m *Memory) applyChanged(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	facts, _, err := m.store.FindFacts(ctx, holomem.FactFilter{
		IDs: ids, IncludeSuperseded: true, WithHRR: true, WithEmbedding: m.sem != nil, Lean: true,
	})
	if err != nil {
		return fmt.Errorf("sync vectors: read %d changed facts: %w", len(ids), err)
	}
	found := make(map[int64]*holomem.Fact, len(facts))
	for _, f := range facts {
		found[f.ID] = f
		m.sync.stats.Bytes += int64(len(f.Content) + len(f.HRR) + 4*len(f.Embedding))
	}
	m.sync.stats.Facts += int64(len(ids))
	for _, id := range ids {
		f := found[id]
		switch {
		case f == nil:
			m.hrr.dropEverywhere(id)
			if m.sem != nil {
				m.sem.RemoveEverywhere(id)
			}
		case f.SupersededBy != 0:
			m.hrr.drop(f.Namespace, id)
			if m.sem != nil {
				m.sem.Remove(f.Namespace, id)
			}
		default:
			if hrr.Check(f.HRR) == nil {
				m.hrr.put(f.Namespace, id, f.HRR)
			} else {
				m.hrr.drop(f.Namespace, id)
			}
			if m.sem == nil {
				break
			}
			if len(f.Embedding) > 0 && f.ModelID == m.emb.ModelID() {
				m.sem.Upsert(f.Namespace, id, f.Embedding)
			} else {
				m.sem.Remove(f.Namespace, id)
			}
		}
	}
	return nil
}
