package hnsw

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/holomem/holomem/vec"
)

// Link is one node's neighbour list on one level, in the form holomem
// stores as edges: level 0 becomes similar_to edges, upper levels edges of
// their own kind.
type Link struct {
	Level int
	From  int64
	To    []int64 // in the graph's order; at most 2*M on level 0, M above
}

// Export returns every non-empty neighbour list, sorted by level and then
// From. Together with [Graph.Entry] and the vectors it is enough for
// [Graph.Import] to restore the same graph. The slices are copies.
func (g *Graph) Export() []Link {
	g.mu.RLock()
	defer g.mu.RUnlock()
	var out []Link
	for s, id := range g.mu.ids {
		if g.mu.dead[s] {
			continue
		}
		for l := 0; l <= int(g.mu.levels[s]); l++ {
			nb := g.neighboursLocked(uint32(s), l)
			if len(nb) == 0 {
				continue
			}
			to := make([]int64, len(nb))
			for i, x := range nb {
				to[i] = g.mu.ids[x]
			}
			out = append(out, Link{Level: l, From: id, To: to})
		}
	}
	slices.SortFunc(out, func(a, b Link) int {
		return cmp.Or(cmp.Compare(a.Level, b.Level), cmp.Compare(a.From, b.From))
	})
	return out
}

// Import replaces the graph's contents with ids[i] -> vecs[i], linked as
// links say, entering at entry. It trusts nothing: it returns an error
// wrapping [ErrCorrupt] for duplicate or unknown ids, a link on a level
// above its node's level (levels follow from the id, see [Level]), a link to
// a node that does not reach that level, self or duplicate links, a list
// over capacity, a list given twice, an entry point that is missing or not
// on the top level, or (with two or more nodes) a node without bottom-layer
// links, which is what an unbuilt or half-saved graph looks like. Vector
// problems also wrap [vec.ErrDim] or [vec.ErrInvalid]. On error the graph is
// unchanged.
func (g *Graph) Import(entry int64, links []Link, ids []int64, vecs [][]float32) error {
	if g.dim == 0 {
		return fmt.Errorf("import: %w", errZero)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	st, err := g.importState(entry, links, ids, vecs)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	g.mu.state = st
	return nil
}

// importState validates and builds a state without touching g.mu.state.
// It uses g's configuration, so g.mu must be held.
func (g *Graph) importState(entry int64, links []Link, ids []int64, vecs [][]float32) (state, error) {
	if len(ids) != len(vecs) {
		return state{}, fmt.Errorf("%w: %d ids for %d vectors", ErrCorrupt, len(ids), len(vecs))
	}
	// Build into a scratch graph sharing g's parameters.
	t := &Graph{dim: g.dim, cfg: g.cfg, m0: g.m0}
	t.resetLocked()
	for i, id := range ids {
		if err := vec.CheckDim(vecs[i], g.dim); err != nil {
			return state{}, fmt.Errorf("%w: vector of %d: %w", ErrCorrupt, id, err)
		}
		if _, ok := t.mu.slot[id]; ok {
			return state{}, fmt.Errorf("%w: id %d given twice", ErrCorrupt, id)
		}
		t.allocLocked(id, vecs[i])
	}
	if len(ids) == 0 {
		if len(links) > 0 {
			return state{}, fmt.Errorf("%w: %d links but no nodes", ErrCorrupt, len(links))
		}
		return t.mu.state, nil
	}
	es, ok := t.mu.slot[entry]
	if !ok {
		return state{}, fmt.Errorf("%w: entry point %d is not a node", ErrCorrupt, entry)
	}
	top := 0
	for _, l := range t.mu.levels {
		top = max(top, int(l))
	}
	if int(t.mu.levels[es]) != top {
		return state{}, fmt.Errorf("%w: entry point %d is on level %d, top is %d", ErrCorrupt, entry, t.mu.levels[es], top)
	}
	t.mu.entry, t.mu.top = int64(es), top
	type key struct {
		level int
		from  uint32
	}
	done := make(map[key]bool, len(links))
	list := make([]uint32, 0, g.m0)
	for _, ln := range links {
		from, ok := t.mu.slot[ln.From]
		if !ok {
			return state{}, fmt.Errorf("%w: link from unknown id %d", ErrCorrupt, ln.From)
		}
		if ln.Level < 0 || ln.Level > int(t.mu.levels[from]) {
			return state{}, fmt.Errorf("%w: link from %d on level %d, its level is %d", ErrCorrupt, ln.From, ln.Level, t.mu.levels[from])
		}
		k := key{ln.Level, from}
		if done[k] {
			return state{}, fmt.Errorf("%w: links of %d on level %d given twice", ErrCorrupt, ln.From, ln.Level)
		}
		done[k] = true
		if c := g.capacity(ln.Level); len(ln.To) > c {
			return state{}, fmt.Errorf("%w: %d links from %d on level %d, capacity %d", ErrCorrupt, len(ln.To), ln.From, ln.Level, c)
		}
		list = list[:0]
		for _, id := range ln.To {
			to, ok := t.mu.slot[id]
			switch {
			case !ok:
				return state{}, fmt.Errorf("%w: link from %d to unknown id %d", ErrCorrupt, ln.From, id)
			case to == from:
				return state{}, fmt.Errorf("%w: %d links to itself", ErrCorrupt, id)
			case int(t.mu.levels[to]) < ln.Level:
				return state{}, fmt.Errorf("%w: link %d->%d on level %d, above %d's level %d", ErrCorrupt, ln.From, id, ln.Level, id, t.mu.levels[to])
			case slices.Contains(list, to):
				return state{}, fmt.Errorf("%w: link %d->%d on level %d given twice", ErrCorrupt, ln.From, id, ln.Level)
			}
			list = append(list, to)
		}
		t.setNeighboursLocked(from, ln.Level, list)
	}
	if len(ids) >= 2 {
		for s, id := range t.mu.ids {
			if t.mu.n0[s] == 0 {
				return state{}, fmt.Errorf("%w: node %d has no links on level 0", ErrCorrupt, id)
			}
		}
	}
	return t.mu.state, nil
}
