package retrieve

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/vec"
)

// semanticIndex keeps every vector of one model in memory, per namespace,
// so a query never refetches vectors from the store (DESIGN.md 6: fetching
// costs far more than the cosine). It is loaded once, on first use, and kept
// in sync by the Memory's writes.
type semanticIndex struct {
	store      holomem.Store
	model      string
	dim        int
	exactBelow int

	mu struct {
		sync.RWMutex
		loaded bool
		spaces map[string]*space
		// journal records writes made while a refresh scans the store, so
		// the fresh copy does not lose them; nil when no refresh runs.
		journal []journalOp
	}
	// refreshMu lets one refresh run at a time.
	refreshMu sync.Mutex
	// loadedAt is when the last refresh finished (under mu).
	loadedAt time.Time
}

// journalOp is one write seen during a refresh: v == nil removes.
type journalOp struct {
	ns string
	id int64
	v  []float32
}

// space is one namespace's vectors: ids in ascending order and a row per id.
type space struct {
	ids  []int64
	rows [][]float32
	pos  map[int64]int
}

func newSemanticIndex(store holomem.Store, model string, dim, exactBelow int) *semanticIndex {
	s := &semanticIndex{store: store, model: model, dim: dim, exactBelow: exactBelow}
	s.mu.spaces = map[string]*space{}
	return s
}

// load reads all vectors of the model unless they are loaded already.
func (s *semanticIndex) load(ctx context.Context) error {
	s.mu.RLock()
	loaded := s.mu.loaded
	s.mu.RUnlock()
	if loaded {
		return nil
	}
	return s.refresh(ctx)
}

// refresh rebuilds the index from the store: a forced reload that reads
// every vector again (never a cached copy), so writes made by other
// processes become visible. Writes made through this process while it scans
// are replayed onto the fresh copy.
func (s *semanticIndex) refresh(ctx context.Context) error {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	s.mu.Lock()
	s.mu.journal = []journalOp{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.mu.journal = nil
		s.mu.Unlock()
	}()
	spaces := map[string]*space{}
	// Namespaces are not in the scan callback, so load per namespace known to the store.
	st, err := s.store.Stats(ctx, "")
	if err != nil {
		return fmt.Errorf("load vectors: %w", err)
	}
	for ns := range st.Namespaces {
		sp := &space{pos: map[int64]int{}}
		err := s.store.ScanEmbeddings(ctx, ns, s.model, func(id int64, v []float32) error {
			if len(v) != s.dim {
				return nil // a vector of another shape is never compared
			}
			sp.pos[id] = len(sp.ids)
			sp.ids = append(sp.ids, id)
			sp.rows = append(sp.rows, append([]float32(nil), v...))
			return nil
		})
		if err != nil {
			return fmt.Errorf("load vectors of %q: %w", ns, err)
		}
		spaces[ns] = sp
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, op := range s.mu.journal {
		if op.v == nil {
			removeFrom(spaces, op.ns, op.id)
		} else {
			upsertInto(spaces, op.ns, op.id, op.v)
		}
	}
	s.mu.spaces, s.mu.loaded, s.loadedAt = spaces, true, time.Now()
	return nil
}

func (s *semanticIndex) reset() {
	s.mu.Lock()
	s.mu.spaces, s.mu.loaded = map[string]*space{}, false
	s.mu.Unlock()
}

// upsert adds or replaces one vector. Before the first load it does nothing:
// the load will read it from the store.
func (s *semanticIndex) upsert(ns string, id int64, v []float32) {
	if len(v) != s.dim {
		return
	}
	v = append([]float32(nil), v...)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.journal != nil {
		s.mu.journal = append(s.mu.journal, journalOp{ns, id, v})
	}
	if s.mu.loaded {
		upsertInto(s.mu.spaces, ns, id, v)
	}
}

func upsertInto(spaces map[string]*space, ns string, id int64, v []float32) {
	sp := spaces[ns]
	if sp == nil {
		sp = &space{pos: map[int64]int{}}
		spaces[ns] = sp
	}
	if i, ok := sp.pos[id]; ok {
		sp.rows[i] = v
		return
	}
	sp.pos[id] = len(sp.ids)
	sp.ids = append(sp.ids, id)
	sp.rows = append(sp.rows, v)
}

func (s *semanticIndex) remove(ns string, id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.journal != nil {
		s.mu.journal = append(s.mu.journal, journalOp{ns: ns, id: id})
	}
	removeFrom(s.mu.spaces, ns, id)
}

func removeFrom(spaces map[string]*space, ns string, id int64) {
	sp := spaces[ns]
	if sp == nil {
		return
	}
	i, ok := sp.pos[id]
	if !ok {
		return
	}
	last := len(sp.ids) - 1
	sp.ids[i], sp.rows[i] = sp.ids[last], sp.rows[last]
	sp.pos[sp.ids[i]] = i
	sp.ids, sp.rows = sp.ids[:last], sp.rows[:last]
	delete(sp.pos, id)
}

// search returns the k nearest vectors of the namespace by cosine (vectors
// are unit length, so the dot product), best first, ties by id.
func (s *semanticIndex) search(ctx context.Context, ns string, q []float32, k int) ([]vec.Result, error) {
	if err := s.load(ctx); err != nil {
		return nil, err
	}
	if len(q) != s.dim {
		return nil, fmt.Errorf("%w: query vector has %d dimensions, the index %d", holomem.ErrInvalid, len(q), s.dim)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	sp := s.mu.spaces[ns]
	if sp == nil || k <= 0 {
		return nil, nil
	}
	top := make([]vec.Result, 0, k+1)
	for i, row := range sp.rows {
		r := vec.Result{ID: sp.ids[i], Score: vec.Dot(q, row)}
		if len(top) == k && !vec.Better(r, top[k-1]) {
			continue
		}
		top = insertSorted(top, r, k)
	}
	return top, nil
}

// vectorOf returns the indexed vector of id, if any.
func (s *semanticIndex) vectorOf(ns string, id int64) []float32 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if sp := s.mu.spaces[ns]; sp != nil {
		if i, ok := sp.pos[id]; ok {
			return sp.rows[i]
		}
	}
	return nil
}

// insertSorted inserts r into top (best first) and keeps at most k.
func insertSorted(top []vec.Result, r vec.Result, k int) []vec.Result {
	i := len(top)
	for i > 0 && vec.Better(r, top[i-1]) {
		i--
	}
	top = append(top, vec.Result{})
	copy(top[i+1:], top[i:])
	top[i] = r
	if len(top) > k {
		top = top[:k]
	}
	return top
}
