package hnsw

import (
	"slices"

	"github.com/holomem/holomem/vec"
)

// Delete removes id from the graph and reports whether it was present.
//
// Every node that linked to id gets a new neighbour list chosen by the
// selection heuristic from its remaining links plus id's links (the repair
// hnswlib does on update), so no tombstones stay behind and Export never
// names a deleted id. Finding those nodes scans all links, so Delete costs
// O(N*M); it is meant for occasional deletions, not bulk churn (rebuild for
// that). The slot is reused by a later Add.
func (g *Graph) Delete(id int64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	s, ok := g.mu.slot[id]
	if !ok {
		return false
	}
	type fix struct {
		u     uint32
		level int
	}
	var isolated []fix
	var cands []item
	var sel []uint32
	top := int(g.mu.levels[s])
	for l := 0; l <= top; l++ {
		dl := slices.Clone(g.neighboursLocked(s, l))
		for u := range g.mu.ids {
			u := uint32(u)
			if u == s || g.mu.dead[u] || int(g.mu.levels[u]) < l {
				continue
			}
			list := g.neighboursLocked(u, l)
			if !slices.Contains(list, s) {
				continue
			}
			base := g.vecLocked(u)
			cands = cands[:0]
			add := func(x uint32) {
				if x == s || x == u {
					return
				}
				for _, c := range cands {
					if c.slot == x {
						return
					}
				}
				cands = append(cands, item{vec.Dot(base, g.vecLocked(x)), x})
			}
			for _, x := range list {
				add(x)
			}
			for _, x := range dl {
				add(x)
			}
			g.sortItemsLocked(cands)
			sel = g.selectLocked(sel[:0], cands, g.capacity(l))
			// Fill the list back up with the best candidates the
			// heuristic pruned: losing links on every deletion would
			// slowly starve the graph and strand nodes.
			for _, c := range cands {
				if len(sel) >= g.capacity(l) {
					break
				}
				if !slices.Contains(sel, c.slot) {
					sel = append(sel, c.slot)
				}
			}
			g.setNeighboursLocked(u, l, sel)
			if len(sel) == 0 {
				isolated = append(isolated, fix{u, l})
			}
		}
	}
	for l := 0; l <= top; l++ {
		g.setNeighboursLocked(s, l, nil)
	}
	delete(g.mu.slot, id)
	g.mu.dead[s] = true
	g.mu.upper[s] = nil
	g.mu.levels[s] = 0
	g.mu.free = append(g.mu.free, s)
	if g.mu.entry == int64(s) {
		g.pickEntryLocked()
	}
	for _, f := range isolated {
		g.reconnectLocked(f.u, f.level)
	}
	return true
}

// pickEntryLocked makes the live node with the highest level (lowest id on
// ties) the entry point, or empties the graph's entry.
func (g *Graph) pickEntryLocked() {
	g.mu.entry, g.mu.top = -1, 0
	for s, id := range g.mu.ids {
		if g.mu.dead[s] {
			continue
		}
		l := int(g.mu.levels[s])
		if g.mu.entry < 0 || l > g.mu.top || (l == g.mu.top && id < g.mu.ids[g.mu.entry]) {
			g.mu.entry, g.mu.top = int64(s), l
		}
	}
}

// reconnectLocked gives u fresh links on level by searching for its own
// vector, for the rare node a deletion left without neighbours.
func (g *Graph) reconnectLocked(u uint32, level int) {
	if g.mu.entry < 0 || g.mu.entry == int64(u) && g.mu.top == level {
		return
	}
	p := plan{v: slices.Clone(g.vecLocked(u)), level: level}
	s := g.getSearcher()
	g.planLocked(s, &p)
	g.pool.Put(s)
	if level >= len(p.found) {
		return
	}
	cands := slices.DeleteFunc(p.found[level], func(it item) bool { return it.slot == u })
	sel := g.selectLocked(nil, cands, g.cfg.M)
	g.setNeighboursLocked(u, level, sel)
	for _, nb := range sel {
		g.addLinkLocked(nb, u, level)
	}
}
