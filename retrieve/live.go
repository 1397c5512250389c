package retrieve

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/leaf/rowcodec"
	"github.com/holomem/holomem/lexindex"
)

// live is what a long-running process (serve, mcp) keeps in memory about
// facts so that recall and write-time hygiene do not go back to SQL for
// every query: an inverted index of every fact's stems (recall's
// candidates and BM25 statistics, hygiene's similar facts) and a cache of
// recently used candidate rows with their entities. Both follow the
// store's change feed ([holomem.ChangeFeeder]): before each use, the ids
// of facts changed since the last look (by this process or any other) are
// read in one indexed query and re-read, so a `holomem add` from a shell is
// found by the next recall of a running server, as it was when every
// recall queried FTS5. The process's own adds are not read back: the
// store says which feed entry each made, and the sync that meets the entry
// applies the fact the process holds (see noteOwn).
//
// A one-shot process does not build it: reading every fact costs more than
// the few queries such a process answers.
type live struct {
	feed holomem.ChangeFeeder
	// ownFeed is feed when it tells this process's own writes apart (nil
	// otherwise): see noteOwn.
	ownFeed holomem.OwnChangeFeeder
	store   holomem.Store
	// withHRR: cached rows carry their HRR vector (the hrr channel is on).
	withHRR bool
	log     interface {
		Info(string, ...any)
		Warn(string, ...any)
	}

	idx  *lexindex.Index
	rows rowCache

	// mu serialises loading and syncing; cursor is the feed position the
	// index and cache reflect (under mu).
	mu     sync.Mutex
	cursor int64
	// own holds, by feed entry, the facts this process created and has not
	// met in the feed yet (under mu): sync applies them from here instead
	// of reading them back (see noteOwn). rereads counts the syncs and
	// loads that read facts from the store.
	own     map[holomem.FactChange]*cachedRow
	rereads uint64
	// ready is set once the index holds every fact; until then recall
	// uses the store's full-text search. healthy is the last sync's
	// outcome: after a failed one the row cache may miss a drop, so reads
	// go to the store until a sync succeeds.
	ready, healthy atomic.Bool
}

// liveLoadPage is how many facts one read of the initial load takes.
const liveLoadPage = 5000

// load reads every fact into a fresh index. The cursor is taken first, so
// writes that land while the facts are read are applied again by the next
// sync (applying a change twice is harmless: the fact is re-read).
func (l *live) load(ctx context.Context, progress holomem.Progress) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.loadLocked(ctx, progress)
}

func (l *live) loadLocked(ctx context.Context, progress holomem.Progress) error {
	l.ready.Store(false)
	l.rereads++
	clear(l.own)
	cursor, err := l.feed.FactChangeCursor(ctx)
	if err != nil {
		return fmt.Errorf("live index: change cursor: %w", err)
	}
	t0 := time.Now()
	idx := lexindex.New()
	// The first rows also fill the row cache (with their HRR vectors, which
	// recall scores), while they fit in one of its generations: a store of
	// ~10k facts then answers its first queries without reading a row.
	l.rows.reset()
	gen, fill := l.rows.generation(), true
	var readErr error
	done := 0
	facts := func(yield func(lexindex.Fact) bool) {
		var after int64
		for {
			page, _, err := l.store.FindFacts(ctx, holomem.FactFilter{
				AfterID: after, IncludeSuperseded: true, Lean: true, Limit: liveLoadPage,
				WithHRR: fill && l.withHRR,
			})
			if err != nil {
				readErr = err
				return
			}
			if fill {
				fill = l.fillRows(ctx, gen, page)
			}
			for _, f := range page {
				if !yield(lexindex.Fact{
					ID: f.ID, Namespace: f.Namespace, Superseded: f.SupersededBy != 0,
					Content: f.Content, Tags: f.Tags,
				}) {
					return
				}
			}
			done += len(page)
			if progress != nil {
				progress("text index", done, 0)
			}
			if len(page) < liveLoadPage {
				return
			}
			after = page[len(page)-1].ID
		}
	}
	if err := idx.Load(ctx, facts, 0); err != nil {
		return fmt.Errorf("live index: %w", err)
	}
	if readErr != nil {
		return fmt.Errorf("live index: read facts: %w", readErr)
	}
	l.idx = idx
	l.cursor = cursor
	l.healthy.Store(true)
	l.ready.Store(true)
	// Reading every fact left garbage several times the index's size;
	// give it back now rather than carry it as the process's footprint.
	debug.FreeOSMemory()
	l.log.Info("text index loaded", "facts", done, "took", time.Since(t0).Round(time.Millisecond))
	return nil
}

// docOf is the index's view of a fact.
func docOf(f *holomem.Fact) lexindex.Doc {
	return lexindex.Doc{
		ID: f.ID, Namespace: f.Namespace, Superseded: f.SupersededBy != 0,
		Terms: lexindex.TermsOf(f.Content, f.Tags),
	}
}

// sync applies the changes the feed reports since the last sync. It
// reports false when the index cannot be trusted (a failed read): the
// caller then uses the store's search. Changes pruned from the feed (the
// process fell far behind) make it reload everything.
func (l *live) sync(ctx context.Context) bool {
	if !l.ready.Load() {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.ready.Load() {
		return false
	}
	ok := l.syncLocked(ctx)
	l.healthy.Store(ok)
	return ok
}

func (l *live) syncLocked(ctx context.Context) bool {
	changes, next, err := l.changes(ctx)
	if errors.Is(err, holomem.ErrChangesPruned) {
		l.log.Info("text index: too many changes by other processes; reloading")
		if err := l.loadLocked(ctx, nil); err != nil {
			l.log.Warn("text index reload failed; recall uses the store's search", "err", err)
			return false
		}
		return true
	}
	if err != nil {
		l.log.Warn("text index: reading the change feed failed; this recall uses the store's search", "err", err)
		return false
	}
	if len(changes) == 0 {
		l.advance(next)
		return true
	}
	ids, mine := l.sortChanges(changes)
	l.rows.drop(ids)
	if len(ids) > len(mine) {
		if !l.reread(ctx, ids, mine) {
			return false
		}
	}
	for _, r := range mine {
		l.idx.Put(docOf(r.fact))
		l.rows.putOwn(r)
	}
	l.advance(next)
	return true
}

// changes reads the feed after the cursor.
func (l *live) changes(ctx context.Context) ([]holomem.FactChange, int64, error) {
	if l.ownFeed != nil {
		return l.ownFeed.FactChangeLog(ctx, l.cursor)
	}
	ids, next, err := l.feed.FactChanges(ctx, l.cursor)
	changes := make([]holomem.FactChange, len(ids))
	for i, id := range ids {
		changes[i] = holomem.FactChange{ID: id}
	}
	return changes, next, err
}

// sortChanges returns the distinct ids of changes, sorted, and the facts
// of those whose every change here is this process's own (see noteOwn),
// by id; it takes those entries out of own. A fact another writer
// changed too is read from the store, which holds the last state, and
// its own entries still to come are forgotten: once the store's state is
// in the index, a fact held from before must not replace it.
func (l *live) sortChanges(changes []holomem.FactChange) (ids []int64, mine []*cachedRow) {
	var held map[int64]*cachedRow
	foreign := map[int64]bool{}
	for _, c := range changes {
		ids = append(ids, c.ID)
		if r, ok := l.own[c]; ok {
			delete(l.own, c)
			if held == nil {
				held = map[int64]*cachedRow{}
			}
			held[c.ID] = r
		} else {
			foreign[c.ID] = true
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	for c := range l.own {
		if foreign[c.ID] {
			delete(l.own, c)
		}
	}
	for _, id := range ids {
		if r := held[id]; r != nil && !foreign[id] {
			mine = append(mine, r)
		}
	}
	return ids, mine
}

// reread reads the facts of ids other than mine's from the store into
// the index (deleting those gone).
func (l *live) reread(ctx context.Context, ids []int64, mine []*cachedRow) bool {
	l.rereads++
	if len(mine) > 0 {
		ids = slices.DeleteFunc(slices.Clone(ids), func(id int64) bool {
			_, ok := slices.BinarySearchFunc(mine, id, func(r *cachedRow, id int64) int { return cmp.Compare(r.fact.ID, id) })
			return ok
		})
	}
	facts, _, err := l.store.FindFacts(ctx, holomem.FactFilter{IDs: ids, IncludeSuperseded: true, Lean: true})
	if err != nil {
		l.log.Warn("text index: re-reading changed facts failed; this recall uses the store's search", "err", err)
		return false
	}
	found := make(map[int64]bool, len(facts))
	for _, f := range facts {
		found[f.ID] = true
		l.idx.Put(docOf(f))
	}
	for _, id := range ids {
		if !found[id] {
			l.idx.Delete(id)
		}
	}
	return true
}

// advance moves the cursor to next and forgets own entries before it: the
// feed reports no entry below its cursor again.
func (l *live) advance(next int64) {
	l.cursor = next
	for c := range l.own {
		if c.At < next {
			delete(l.own, c)
		}
	}
}

// maxOwn bounds the facts own holds: a process that writes without ever
// syncing (no recall, no hygiene query) leaves the rest to the feed.
const maxOwn = 1024

// ownEpoch returns what noteOwn needs to tell that no sync read facts from
// the store in between, and whether the index can take own writes now.
func (l *live) ownEpoch() (uint64, bool) {
	if l.ownFeed == nil || !l.ready.Load() {
		return 0, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rereads, true
}

// noteOwn records that this process's write made the feed entry c for f
// (just created), so that the sync that meets c applies f from memory
// instead of reading the row back (a fifth of an add's CPU went there).
// epoch is ownEpoch's answer from before the write: when a sync or load
// read facts from the store since, it may have read f already, and a
// change another writer made after f's, so f is left to the feed. Changes
// of other writers are read as before whenever they fall: a fact with
// one is read from the store (see sortChanges).
func (l *live) noteOwn(epoch uint64, c holomem.FactChange, f *holomem.Fact) {
	if c.ID == 0 || c.ID != f.ID {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.ready.Load() || l.rereads != epoch || len(l.own) >= maxOwn || c.At < l.cursor {
		return
	}
	if l.own == nil {
		l.own = make(map[holomem.FactChange]*cachedRow)
	}
	// The store linked f's entities in the insert's transaction, in the
	// order EntitiesOf reads them; later links are changes of their own.
	l.own[c] = &cachedRow{fact: leanFact(f, l.withHRR), entities: slices.Clone(f.Entities), hasEntities: true}
}

// leanFact is f as the store's lean read returns it (FindFacts with Lean,
// and WithHRR when withHRR): no entities and no embedding, tags as stored.
// It shares nothing the caller may change.
func leanFact(f *holomem.Fact, withHRR bool) *holomem.Fact {
	cp := *f
	cp.Entities, cp.Embedding = nil, nil
	cp.Tags = rowcodec.SplitTags(rowcodec.JoinTags(f.Tags))
	cp.HRR = nil
	if withHRR && len(f.HRR) > 0 {
		cp.HRR = bytes.Clone(f.HRR)
	}
	if f.Anchor != nil {
		a := *f.Anchor
		cp.Anchor = &a
	}
	return &cp
}

// cache returns the row cache when it can be trusted (nil otherwise).
func (m *Memory) liveRows() *rowCache {
	if l := m.live; l != nil && l.ready.Load() && l.healthy.Load() {
		return &l.rows
	}
	return nil
}

// liveIndex syncs the text index with the change feed and returns it when
// recall can use it (nil: use the store's search).
func (m *Memory) liveIndex(ctx context.Context) *lexindex.Index {
	if m.live == nil || !m.live.sync(ctx) {
		return nil
	}
	m.live.mu.Lock()
	defer m.live.mu.Unlock()
	return m.live.idx
}

// rowCacheBytes bounds the row cache: each of its two generations holds
// up to half of it (~5k rows with their HRR vectors). serve's memory at
// 100k facts (<= 150 MB, issue 10) bounds it: the text index takes ~65 MB
// there.
const rowCacheBytes = 16 << 20

// rowCache holds candidate facts (lean, with their HRR vector) and their
// entities by id, in two generations like termCache, bounded in bytes.
// Entries are dropped by the change feed; gen counts the drops so that a
// row read from the store while a sync dropped it is not put back stale.
type rowCache struct {
	mu       sync.Mutex
	gen      uint64
	cur, old map[int64]*cachedRow
	// curBytes is the size of cur's rows.
	curBytes int
}

type cachedRow struct {
	fact *holomem.Fact
	// entities are the fact's entities once read (hasEntities).
	entities    []string
	hasEntities bool
}

// size estimates the memory a row holds.
func (r *cachedRow) size() int {
	n := 256 + len(r.fact.Content) + len(r.fact.HRR) + len(r.fact.Category) + len(r.fact.Source) + len(r.fact.Namespace)
	for _, t := range r.fact.Tags {
		n += 16 + len(t)
	}
	for _, e := range r.entities {
		n += 16 + len(e)
	}
	return n
}

func (c *rowCache) reset() {
	c.mu.Lock()
	c.gen++
	c.cur, c.old, c.curBytes = nil, nil, 0
	c.mu.Unlock()
}

func (c *rowCache) drop(ids []int64) {
	c.mu.Lock()
	c.gen++
	for _, id := range ids {
		if r := c.cur[id]; r != nil {
			c.curBytes -= r.size()
			delete(c.cur, id)
		}
		delete(c.old, id)
	}
	c.mu.Unlock()
}

// putOwn caches own, the row of this process's own write, which a sync
// just dropped from the cache and applies instead of reading it back.
func (c *rowCache) putOwn(own *cachedRow) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r := c.getLocked(own.fact.ID); r != nil {
		c.resizeLocked(r, func() { *r = *own })
		return
	}
	c.putLocked(own.fact.ID, own)
}

// generation is the drop count to pass to put after reading from the store.
func (c *rowCache) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// getLocked returns the entry for id, moving it to the current generation.
func (c *rowCache) getLocked(id int64) *cachedRow {
	if r := c.cur[id]; r != nil {
		return r
	}
	r := c.old[id]
	if r != nil {
		delete(c.old, id)
		c.putLocked(id, r)
	}
	return r
}

// putLocked adds r as id's entry in the current generation (which must
// not hold id), starting a new generation when it is full.
func (c *rowCache) putLocked(id int64, r *cachedRow) {
	if c.cur == nil {
		c.cur = make(map[int64]*cachedRow)
	}
	if c.curBytes >= rowCacheBytes/2 {
		c.old, c.cur, c.curBytes = c.cur, make(map[int64]*cachedRow, len(c.cur)), 0
	}
	c.cur[id] = r
	c.curBytes += r.size()
}

// resizeLocked accounts for a change of the current generation's row r
// made by fn.
func (c *rowCache) resizeLocked(r *cachedRow, fn func()) {
	c.curBytes -= r.size()
	fn()
	c.curBytes += r.size()
}

// facts returns the cached facts of ids and the ids it lacks: copies, or
// with shared the cached facts themselves, which the caller must not
// change (the cache replaces a fact, never changes it).
func (c *rowCache) facts(ids []int64, shared bool) (hit map[int64]*holomem.Fact, miss []int64) {
	hit = make(map[int64]*holomem.Fact, len(ids))
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		if r := c.getLocked(id); r == nil {
			miss = append(miss, id)
		} else if shared {
			hit[id] = r.fact
		} else {
			f := *r.fact
			hit[id] = &f
		}
	}
	return hit, miss
}

// putFacts caches facts read from the store while the cache was at
// generation gen; nothing is cached when a sync dropped rows since.
func (c *rowCache) putFacts(gen uint64, facts []*holomem.Fact) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	for _, f := range facts {
		cp := *f
		if r := c.getLocked(f.ID); r != nil {
			c.resizeLocked(r, func() { r.fact = &cp })
		} else {
			c.putLocked(f.ID, &cachedRow{fact: &cp})
		}
	}
}

// fillRows caches page's facts and their entities (see fill); a failed
// entity read only stops the filling.
func (l *live) fillRows(ctx context.Context, gen uint64, page []*holomem.Fact) bool {
	ids := make([]int64, len(page))
	for i, f := range page {
		ids[i] = f.ID
	}
	ents, err := l.store.EntitiesOf(ctx, ids)
	if err != nil {
		return false
	}
	more := l.rows.fill(gen, page)
	l.rows.putEntities(gen, ents, ids)
	return more
}

// fill caches facts read by the initial load at generation gen while the
// current generation has room, and reports whether it still has.
func (c *rowCache) fill(gen uint64, facts []*holomem.Fact) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return false
	}
	for _, f := range facts {
		if c.curBytes >= rowCacheBytes/2 {
			return false
		}
		if c.cur[f.ID] == nil {
			cp := *f
			c.putLocked(f.ID, &cachedRow{fact: &cp})
		}
	}
	return c.curBytes < rowCacheBytes/2
}

// entities returns the cached entities of ids and the ids it lacks.
func (c *rowCache) entities(ids []int64) (hit map[int64][]string, miss []int64) {
	hit = make(map[int64][]string, len(ids))
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		if r := c.getLocked(id); r != nil && r.hasEntities {
			hit[id] = slices.Clone(r.entities)
		} else {
			miss = append(miss, id)
		}
	}
	return hit, miss
}

// putEntities caches entities read at generation gen for rows the cache
// holds (a fact without a cached row is not worth a row for its entities).
func (c *rowCache) putEntities(gen uint64, ents map[int64][]string, ids []int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	for _, id := range ids {
		if r := c.getLocked(id); r != nil {
			c.resizeLocked(r, func() { r.entities, r.hasEntities = slices.Clone(ents[id]), true })
		}
	}
}

// liveSearch ranks the namespace's facts sharing a stem with lq from the
// in-memory index: the best pool of them by BM25, scores scaled so the
// best is 1 (fusion re-scores them with scoreBM25 anyway).
func liveSearch(lx *lexindex.Index, ns string, lq *lexicalQuery, superseded bool, pool int) []holomem.TextMatch {
	hits := lx.Search(ns, lexindex.Query{
		Stems: lq.stems, Prefixes: lq.prefixes, IDF: lq.idf, IncludeSuperseded: superseded,
	}, pool)
	out := make([]holomem.TextMatch, len(hits))
	best := 0.0
	for _, h := range hits {
		best = max(best, h.Score)
	}
	for i, h := range hits {
		out[i] = holomem.TextMatch{ID: h.ID, Score: 1}
		if best > 0 {
			out[i].Score = h.Score / best
		}
	}
	return out
}

// loadFacts reads facts by id (lean; with their HRR vector when withHRR),
// from the row cache when it can be trusted. superseded false leaves out
// facts another fact superseded, as the store's filter does. The caller
// owns the facts.
func (m *Memory) loadFacts(ctx context.Context, ids []int64, withHRR, superseded bool) ([]*holomem.Fact, error) {
	return m.loadFactsShared(ctx, ids, withHRR, superseded, false)
}

// loadFactsShared is loadFacts that, with shared, may return the row
// cache's own facts, which the caller must not change: write-time hygiene
// reads ~60 candidates and returns a few, and copying every one of them
// out of the cache was a twentieth of an add.
func (m *Memory) loadFactsShared(ctx context.Context, ids []int64, withHRR, superseded, shared bool) ([]*holomem.Fact, error) {
	rows := m.liveRows()
	if rows == nil {
		facts, _, err := m.store.FindFacts(ctx, holomem.FactFilter{
			IDs: ids, WithHRR: withHRR, IncludeSuperseded: superseded, Lean: true,
		})
		return facts, err
	}
	gen := rows.generation()
	hit, miss := rows.facts(ids, shared)
	if len(miss) > 0 {
		// The cache keeps rows whatever their state, so it reads
		// superseded ones too and filters below.
		facts, _, err := m.store.FindFacts(ctx, holomem.FactFilter{
			IDs: miss, WithHRR: !m.opts.DisableHRR, IncludeSuperseded: true, Lean: true,
		})
		if err != nil {
			return nil, err
		}
		rows.putFacts(gen, facts)
		for _, f := range facts {
			hit[f.ID] = f
		}
	}
	out := make([]*holomem.Fact, 0, len(hit))
	for _, id := range ids {
		if f := hit[id]; f != nil && (superseded || f.SupersededBy == 0) {
			out = append(out, f)
		}
	}
	return out, nil
}

// entitiesOf reads the entities of facts, from the row cache when it can
// be trusted.
func (m *Memory) entitiesOf(ctx context.Context, ids []int64) (map[int64][]string, error) {
	rows := m.liveRows()
	if rows == nil {
		return m.store.EntitiesOf(ctx, ids)
	}
	gen := rows.generation()
	hit, miss := rows.entities(ids)
	if len(miss) == 0 {
		return hit, nil
	}
	ents, err := m.store.EntitiesOf(ctx, miss)
	if err != nil {
		return nil, err
	}
	rows.putEntities(gen, ents, miss)
	for _, id := range miss {
		hit[id] = ents[id]
	}
	return hit, nil
}
