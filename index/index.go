package index

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/hnsw"
	"github.com/holomem/holomem/vec"
)

// Index keeps every vector of one model in memory, per namespace,
// so a query never refetches vectors from the store (docs/design.md §6: fetching
// costs far more than the cosine). It is loaded once, on first use, and kept
// in sync by the Memory's writes. Each namespace is a [space]: a contiguous
// matrix and, once `graph build` has run, an HNSW graph (see index.go for
// the search policy and hnsw.go for the graph and its persistence).
type Index struct {
	store holomem.IndexStore
	model string
	dim   int
	cfg   config
	log   *slog.Logger
	now   func() time.Time

	mu struct {
		sync.RWMutex
		loaded bool
		spaces map[string]*space
		// journal records writes made while a refresh scans the store, so
		// the fresh copy does not lose them; nil when no refresh runs.
		journal []journalOp
	}
	// refreshMu lets one refresh, graph build or graph persist run at a time.
	refreshMu sync.Mutex
	// loadedAt is when the last refresh finished (under mu).
	loadedAt time.Time
}

// Config tunes an [Index]. The zero value is the default.
type Config struct {
	// ExactBelow is the number of vectors below which search scans exactly
	// instead of using the HNSW graph. Zero means 2000.
	ExactBelow int
	// NoGraph never loads or uses HNSW graphs: every search scans exactly
	// (one-shot CLI commands skip reading the graph edges). Build still
	// builds and persists them.
	NoGraph bool
	// NoIncremental stops writes from adding their vectors to a loaded
	// graph; they wait in the delta, which is scanned exactly, until the
	// next Build. By default (false) inserts are incremental.
	NoIncremental bool
	// CanaryMin is the recall@10 below which the recall canary makes a
	// namespace fall back to exact search. Zero means 0.9.
	CanaryMin float64
	// GraphM is the HNSW neighbour count M (the bottom layer keeps 2M).
	// Zero means hnsw.DefaultM (16).
	GraphM int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// config is Config with defaults filled in, plus the knobs tests tune.
type config struct {
	exactBelow  int
	incremental bool
	noGraph     bool
	canaryMin   float64
	int8From    int
	rescore     int
	rebuildMax  int
	workers     int
	graphM      int
}

// journalOp is one write seen during a refresh: v == nil removes.
type journalOp struct {
	ns string
	id int64
	v  []float32
}

// New returns an index over the vectors of model (dim dimensions) in
// store; nothing is read until the first search or [Index.Load]. log (may
// be nil) gets warnings about degraded modes.
func New(store holomem.IndexStore, model string, dim int, c Config, log *slog.Logger) *Index {
	cfg := config{
		exactBelow:  c.ExactBelow,
		incremental: !c.NoIncremental,
		noGraph:     c.NoGraph,
		canaryMin:   c.CanaryMin,
		int8From:    int8From,
		rescore:     int8Rescore,
		rebuildMax:  rebuildInMemoryMax,
		workers:     min(2, runtime.NumCPU()),
		graphM:      c.GraphM,
	}
	if cfg.exactBelow <= 0 {
		cfg.exactBelow = DefaultExactBelow
	}
	if cfg.canaryMin <= 0 {
		cfg.canaryMin = DefaultCanaryMin
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	now := c.Now
	if now == nil {
		now = time.Now
	}
	s := &Index{store: store, model: model, dim: dim, cfg: cfg, log: log, now: now}
	s.mu.spaces = map[string]*space{}
	return s
}

// Load reads all vectors of the model unless they are loaded already.
func (s *Index) Load(ctx context.Context) error {
	s.mu.RLock()
	loaded := s.mu.loaded
	s.mu.RUnlock()
	if loaded {
		return nil
	}
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	s.mu.RLock()
	loaded = s.mu.loaded
	s.mu.RUnlock()
	if loaded {
		return nil
	}
	return s.refreshLocked(ctx)
}

// Refresh rebuilds the index from the store: a forced reload that reads
// every vector again (never a cached copy), so writes made by other
// processes become visible. Writes made through this process while it scans
// are replayed onto the fresh copy. A namespace's in-memory graph is kept
// when the persisted graph is still the one it came from; otherwise the
// persisted graph is imported (and checked).
func (s *Index) Refresh(ctx context.Context) error {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	return s.refreshLocked(ctx)
}

// refreshLocked is refresh; s.refreshMu must be held.
func (s *Index) refreshLocked(ctx context.Context) error {
	s.mu.Lock()
	s.mu.journal = []journalOp{}
	old := maps.Clone(s.mu.spaces)
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
	for _, ns := range slices.Sorted(maps.Keys(st.Namespaces)) {
		sp := newSpace(s.dim)
		err := s.store.ScanEmbeddings(ctx, ns, s.model, func(id int64, v []float32) error {
			if err := sp.mat.Add(id, v); err != nil {
				sp.skipped++ // a vector of another shape is never compared
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("load vectors of %q: %w", ns, err)
		}
		if sp.skipped > 0 {
			sp.notes = append(sp.notes, fmt.Sprintf("%d vectors of model %s skipped: not %d finite dimensions; run `holomem backfill`", sp.skipped, s.model, s.dim))
		}
		sp.maybeInt8(s.cfg)
		spaces[ns] = sp
	}
	// Graphs: keep the in-memory one when the persisted graph did not change,
	// else import the persisted one.
	carry := map[string]*space{}
	if !s.cfg.noGraph {
		for _, ns := range slices.Sorted(maps.Keys(spaces)) {
			raw, err := s.graphMeta(ctx, ns)
			if err != nil {
				return err
			}
			if o := old[ns]; o != nil && o.graph != nil && raw != "" && o.stamp == raw {
				carry[ns] = o
				continue
			}
			if raw == "" {
				continue
			}
			if err := s.attachPersisted(ctx, ns, spaces[ns], raw); err != nil {
				return err
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, op := range s.mu.journal {
		sp := spaces[op.ns]
		if sp == nil {
			sp = newSpace(s.dim)
			spaces[op.ns] = sp
		}
		if op.v == nil {
			s.removeLocked(sp, op.id)
		} else {
			s.upsertLocked(sp, op.id, op.v)
		}
	}
	for ns, o := range carry {
		spaces[ns].adopt(o)
	}
	for _, sp := range spaces {
		sp.reconcile()
	}
	s.mu.spaces, s.mu.loaded, s.loadedAt = spaces, true, s.now()
	return nil
}

// graphMeta returns the stored graph description of ns, "" if none.
func (s *Index) graphMeta(ctx context.Context, ns string) (string, error) {
	raw, err := s.store.IndexGraph(ctx, ns)
	if errors.Is(err, holomem.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read graph meta of %q: %w", ns, err)
	}
	return raw, nil
}

// Loaded reports whether the vectors are loaded (a search or Load did it).
func (s *Index) Loaded() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mu.loaded
}

// Reset drops every loaded vector and graph; the next search loads again.
func (s *Index) Reset() {
	s.mu.Lock()
	s.mu.spaces, s.mu.loaded = map[string]*space{}, false
	s.mu.Unlock()
}

// Upsert adds or replaces one vector. Before the first load it does nothing:
// the load will read it from the store.
func (s *Index) Upsert(ns string, id int64, v []float32) {
	if vec.CheckDim(v, s.dim) != nil {
		return
	}
	v = slices.Clone(v)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.journal != nil {
		s.mu.journal = append(s.mu.journal, journalOp{ns, id, v})
	}
	if !s.mu.loaded {
		return
	}
	sp := s.mu.spaces[ns]
	if sp == nil {
		sp = newSpace(s.dim)
		s.mu.spaces[ns] = sp
	}
	s.upsertLocked(sp, id, v)
}

// Remove drops one vector (and its graph node).
func (s *Index) Remove(ns string, id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.journal != nil {
		s.mu.journal = append(s.mu.journal, journalOp{ns: ns, id: id})
	}
	if sp := s.mu.spaces[ns]; sp != nil {
		s.removeLocked(sp, id)
	}
}

// RemoveEverywhere drops one vector from every namespace that holds it:
// a fact deleted by another process, whose namespace is no longer known.
func (s *Index) RemoveEverywhere(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ns, sp := range s.mu.spaces {
		if s.mu.journal != nil {
			s.mu.journal = append(s.mu.journal, journalOp{ns: ns, id: id})
		}
		s.removeLocked(sp, id)
	}
}

// Search returns the k nearest vectors of the namespace by cosine (vectors
// are unit length, so the dot product), best first, ties by id. It scans
// exactly or walks the graph as [Index.searchSpace] decides.
func (s *Index) Search(ctx context.Context, ns string, q []float32, k int) ([]vec.Result, error) {
	res, _, err := s.SearchMode(ctx, ns, q, k)
	return res, err
}

// SearchMode is Search that also says which path answered.
func (s *Index) SearchMode(ctx context.Context, ns string, q []float32, k int) ([]vec.Result, Mode, error) {
	if err := s.Load(ctx); err != nil {
		return nil, "", err
	}
	if len(q) != s.dim {
		return nil, "", fmt.Errorf("%w: query vector has %d dimensions, the index %d", holomem.ErrInvalid, len(q), s.dim)
	}
	if err := vec.CheckDim(q, s.dim); err != nil {
		return nil, "", fmt.Errorf("%w: query vector: %w", holomem.ErrInvalid, err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	sp := s.mu.spaces[ns]
	if sp == nil || k <= 0 {
		return nil, ModeExact, nil
	}
	return s.searchSpace(sp, q, k)
}

// VectorOf returns the indexed vector of id, if any.
func (s *Index) VectorOf(ns string, id int64) []float32 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if sp := s.mu.spaces[ns]; sp != nil {
		if v, ok := sp.mat.Get(id); ok {
			return v
		}
	}
	return nil
}

// errGraphInvalid marks a persisted graph that failed its checks.
var errGraphInvalid = errors.New("invalid persisted graph")

// graphError reports whether err means the persisted graph cannot be
// trusted (as opposed to an I/O error or a cancelled context).
func graphError(err error) bool {
	return errors.Is(err, errGraphInvalid) || errors.Is(err, hnsw.ErrCorrupt) ||
		errors.Is(err, vec.ErrDim) || errors.Is(err, vec.ErrInvalid) || errors.Is(err, hnsw.ErrConfig)
}
