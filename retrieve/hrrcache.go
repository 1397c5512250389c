package retrieve

import (
	"context"
	"sync"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/hrr"
)

// hrrCache keeps each namespace's compact HRR vectors (1 KB per fact) in
// one contiguous slab, loaded on the first probe/related/reason and kept in
// sync by the Memory's writes, so the algebra scans memory instead of
// decoding every row from SQLite (38 ms vs ~5 ms per probe at 10k facts).
// Superseded facts are left out, as the algebra ignores them.
type hrrCache struct {
	store holomem.VectorStore
	facts holomem.FactStore // nil: vectors come from the loaded namespace only

	mu     sync.RWMutex
	spaces map[string]*hrrSpace
	byID   map[string]int // vectors each read by id, per namespace not loaded
}

type hrrSpace struct {
	ids  []int64
	pos  map[int64]int
	data []byte // len(ids) * hrr.EncodedLen
}

func newHRRCache(store holomem.VectorStore) *hrrCache {
	c := &hrrCache{store: store, spaces: map[string]*hrrSpace{}}
	c.facts, _ = store.(holomem.FactStore)
	return c
}

// hrrByIDMax is the most candidates each reads from the store by id while
// their namespace is not loaded, and hrrByIDBudget the most it reads that
// way per namespace before loading it. A one-shot process (the CLI's
// probe) then reads the few vectors it scores, not every vector of the
// namespace (a gigabyte at a million facts), while a process that keeps
// asking loads them once and scores from memory: reading 450 vectors by
// id cost more CPU than scoring 10,000 in memory.
const (
	hrrByIDMax    = 2048
	hrrByIDBudget = hrrByIDMax
)

// space returns the namespace's vectors, loading them first if needed.
func (c *hrrCache) space(ctx context.Context, ns string) (*hrrSpace, error) {
	c.mu.RLock()
	sp := c.spaces[ns]
	c.mu.RUnlock()
	if sp != nil {
		return sp, nil
	}
	fresh := &hrrSpace{pos: map[int64]int{}}
	err := c.store.ScanHRR(ctx, ns, false, func(id int64, v []byte) error {
		if hrr.Check(v) == nil {
			fresh.add(id, v)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if sp = c.spaces[ns]; sp == nil {
		c.spaces[ns], sp = fresh, fresh
	}
	c.mu.Unlock()
	return sp, nil
}

// scan calls fn for every cached vector of the namespace, loading it first
// if needed. fn runs under the read lock and must not keep v.
func (c *hrrCache) scan(ctx context.Context, ns string, fn func(id int64, v []byte) error) error {
	sp, err := c.space(ctx, ns)
	if err != nil {
		return err
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	for i, id := range sp.ids {
		if err := fn(id, sp.data[i*hrr.EncodedLen:(i+1)*hrr.EncodedLen]); err != nil {
			return err
		}
	}
	return nil
}

// each calls fn, in the order of ids, for those of ids the namespace holds
// a vector for (superseded facts and facts without a valid vector have
// none), loading the namespace first if needed: the algebra scores its
// candidates this way. fn runs under the read lock and must not keep v.
func (c *hrrCache) each(ctx context.Context, ns string, ids []int64, fn func(id int64, v []byte) error) error {
	c.mu.Lock()
	byID := c.spaces[ns] == nil && c.facts != nil && len(ids) <= hrrByIDMax && c.byID[ns]+len(ids) <= hrrByIDBudget
	if byID {
		if c.byID == nil {
			c.byID = map[string]int{}
		}
		c.byID[ns] += len(ids)
	}
	c.mu.Unlock()
	if byID {
		return c.eachStored(ctx, ns, ids, fn)
	}
	sp, err := c.space(ctx, ns)
	if err != nil {
		return err
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, id := range ids {
		i, ok := sp.pos[id]
		if !ok {
			continue
		}
		if err := fn(id, sp.data[i*hrr.EncodedLen:(i+1)*hrr.EncodedLen]); err != nil {
			return err
		}
	}
	return nil
}

// eachStored is each over vectors read from the store by id: those of
// the namespace's facts that are not superseded and hold a valid vector,
// as the loaded namespace would.
func (c *hrrCache) eachStored(ctx context.Context, ns string, ids []int64, fn func(id int64, v []byte) error) error {
	if len(ids) == 0 {
		return nil
	}
	facts, _, err := c.facts.FindFacts(ctx, holomem.FactFilter{Namespace: &ns, IDs: ids, WithHRR: true, Lean: true})
	if err != nil {
		return err
	}
	byID := make(map[int64][]byte, len(facts))
	for _, f := range facts {
		if hrr.Check(f.HRR) == nil {
			byID[f.ID] = f.HRR
		}
	}
	for _, id := range ids {
		if v, ok := byID[id]; ok {
			if err := fn(id, v); err != nil {
				return err
			}
		}
	}
	return nil
}

func (sp *hrrSpace) add(id int64, v []byte) {
	if i, ok := sp.pos[id]; ok {
		copy(sp.data[i*hrr.EncodedLen:], v)
		return
	}
	sp.pos[id] = len(sp.ids)
	sp.ids = append(sp.ids, id)
	sp.data = append(sp.data, v...)
}

// put records a new or changed vector; a namespace not loaded yet will
// read it from the store when it loads.
func (c *hrrCache) put(ns string, id int64, v []byte) {
	if hrr.Check(v) != nil {
		c.drop(ns, id)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if sp := c.spaces[ns]; sp != nil {
		sp.add(id, v)
	}
}

// drop removes a fact (deleted or superseded).
func (c *hrrCache) drop(ns string, id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sp := c.spaces[ns]
	if sp == nil {
		return
	}
	i, ok := sp.pos[id]
	if !ok {
		return
	}
	last := len(sp.ids) - 1
	if i != last {
		sp.ids[i] = sp.ids[last]
		copy(sp.data[i*hrr.EncodedLen:(i+1)*hrr.EncodedLen], sp.data[last*hrr.EncodedLen:])
		sp.pos[sp.ids[i]] = i
	}
	sp.ids = sp.ids[:last]
	sp.data = sp.data[:last*hrr.EncodedLen]
	delete(sp.pos, id)
}

// loaded reports whether any namespace's vectors are loaded.
func (c *hrrCache) loaded() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.spaces) > 0
}

// dropEverywhere removes a deleted fact, whose namespace is no longer
// known, from every loaded namespace.
func (c *hrrCache) dropEverywhere(id int64) {
	c.mu.RLock()
	var nss []string
	for ns, sp := range c.spaces {
		if _, ok := sp.pos[id]; ok {
			nss = append(nss, ns)
		}
	}
	c.mu.RUnlock()
	for _, ns := range nss {
		c.drop(ns, id)
	}
}

// reset forgets everything (Refresh: another process may have written).
func (c *hrrCache) reset() {
	c.mu.Lock()
	c.spaces = map[string]*hrrSpace{}
	c.byID = nil
	c.mu.Unlock()
}
