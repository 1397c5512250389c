package hnsw

import (
	"fmt"
	"slices"

	"github.com/holomem/holomem/vec"
)

// item is a node with its score against the current query.
type item struct {
	score float32
	slot  uint32
}

// searcher is the scratch state of one search; graphs pool them.
type searcher struct {
	ids     []int64  // the graph's slot -> id, for tie-breaks
	visited []uint32 // visited[s] == epoch means seen in this search
	epoch   uint32
	cand    []item // max-heap: best candidate on top
	res     []item // min-heap: worst kept result on top
	visits  int    // vector comparisons in this search
}

func (g *Graph) getSearcher() *searcher {
	s, _ := g.pool.Get().(*searcher)
	if s == nil {
		s = &searcher{}
	}
	g.prepareLocked(s)
	return s
}

// prepareLocked readies s for a search over the current slots.
func (g *Graph) prepareLocked(s *searcher) {
	s.ids = g.mu.ids
	if n := len(g.mu.ids); len(s.visited) < n {
		s.visited = make([]uint32, n+n/4)
		s.epoch = 0
	}
	s.epoch++
	if s.epoch == 0 { // wrapped: old marks could collide
		clear(s.visited)
		s.epoch = 1
	}
	s.visits = 0
}

// better orders items by score, then by lower id, so that equal scores
// never depend on slot numbers or timing.
func (s *searcher) better(a, b item) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return s.ids[a.slot] < s.ids[b.slot]
}

func (s *searcher) sortBest(items []item) {
	slices.SortFunc(items, func(a, b item) int {
		switch {
		case s.better(a, b):
			return -1
		case s.better(b, a):
			return 1
		}
		return 0
	})
}

// Heap helpers. cand keeps the best on top; res keeps the worst on top.

func (s *searcher) pushCand(it item) {
	h := append(s.cand, it)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s.better(h[i], h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	s.cand = h
}

func (s *searcher) popCand() item {
	h := s.cand
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	i := 0
	for {
		b, l, r := i, 2*i+1, 2*i+2
		if l < n && s.better(h[l], h[b]) {
			b = l
		}
		if r < n && s.better(h[r], h[b]) {
			b = r
		}
		if b == i {
			break
		}
		h[i], h[b] = h[b], h[i]
		i = b
	}
	s.cand = h
	return top
}

func (s *searcher) pushRes(it item, ef int) {
	h := s.res
	if len(h) >= ef {
		if !s.better(it, h[0]) {
			return
		}
		h[0] = it
		s.res = h
		s.downRes(0)
		return
	}
	h = append(h, it)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s.better(h[p], h[i]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	s.res = h
}

func (s *searcher) downRes(i int) {
	h := s.res
	n := len(h)
	for {
		w, l, r := i, 2*i+1, 2*i+2
		if l < n && s.better(h[w], h[l]) {
			w = l
		}
		if r < n && s.better(h[w], h[r]) {
			w = r
		}
		if w == i {
			return
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
}

// greedyLocked walks level from ep to a local best for q, one node at a
// time. It stops early when the budget runs out.
func (g *Graph) greedyLocked(s *searcher, q []float32, ep item, level, budget int) item {
	for changed := true; changed; {
		changed = false
		for _, nb := range g.neighboursLocked(ep.slot, level) {
			if budget >= 0 && s.visits >= budget {
				return ep
			}
			s.visits++
			c := item{vec.Dot(q, g.vecLocked(nb)), nb}
			if s.better(c, ep) {
				ep, changed = c, true
			}
		}
	}
	return ep
}

// searchLayerLocked is the beam search of the HNSW paper (Algorithm 2) on
// one level, from entry points eps, keeping ef results. It returns the
// results best first in s.res (valid until the next search with s). A
// negative budget means no bound on comparisons.
func (g *Graph) searchLayerLocked(s *searcher, q []float32, eps []item, ef, level, budget int) []item {
	s.cand = s.cand[:0]
	s.res = s.res[:0]
	s.epoch++
	if s.epoch == 0 {
		clear(s.visited)
		s.epoch = 1
	}
	for _, ep := range eps {
		if s.visited[ep.slot] == s.epoch {
			continue
		}
		s.visited[ep.slot] = s.epoch
		s.pushCand(ep)
		s.pushRes(ep, ef)
	}
search:
	for len(s.cand) > 0 {
		c := s.popCand()
		if len(s.res) >= ef && s.better(s.res[0], c) {
			break // the best candidate is worse than every result kept
		}
		for _, nb := range g.neighboursLocked(c.slot, level) {
			if s.visited[nb] == s.epoch {
				continue
			}
			s.visited[nb] = s.epoch
			if budget >= 0 && s.visits >= budget {
				break search
			}
			s.visits++
			it := item{vec.Dot(q, g.vecLocked(nb)), nb}
			if len(s.res) < ef || s.better(it, s.res[0]) {
				s.pushCand(it)
				s.pushRes(it, ef)
			}
		}
	}
	s.sortBest(s.res)
	return s.res
}

// Search returns up to k ids whose vectors have the highest inner product
// with q, best first, ties broken by lower id. ef is the beam width on the
// bottom layer (ef <= 0 means Config.EfSearch; it is raised to k). The
// result is approximate; compare against an exact scan with [Recall]. It
// returns an error wrapping [vec.ErrDim] or [vec.ErrInvalid] for an unusable
// q, and no results for an empty graph.
func (g *Graph) Search(q []float32, k, ef int) ([]vec.Result, error) {
	res, _, err := g.SearchStats(q, k, ef)
	return res, err
}

// SearchStats is [Graph.Search] that also returns how many vectors were
// compared, for benchmarks and budget tuning.
func (g *Graph) SearchStats(q []float32, k, ef int) ([]vec.Result, int, error) {
	if g.dim == 0 {
		return nil, 0, fmt.Errorf("search: %w", errZero)
	}
	if err := vec.CheckDim(q, g.dim); err != nil {
		return nil, 0, fmt.Errorf("search: %w", err)
	}
	if k <= 0 {
		return nil, 0, nil
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	if ef <= 0 {
		ef = g.cfg.EfSearch
	}
	// More results than nodes cannot be found; clamping also keeps a huge
	// k or ef from user input out of allocations and the budget below.
	k = min(k, len(g.mu.slot))
	ef = min(max(ef, k), len(g.mu.slot))
	budget := g.cfg.MaxVisits
	if budget == 0 {
		budget = 100*ef + 1000
	}
	if len(g.mu.slot) == 0 {
		return nil, 0, nil
	}
	s := g.getSearcher()
	defer g.pool.Put(s)
	ep := uint32(g.mu.entry)
	s.visits++
	cur := item{vec.Dot(q, g.vecLocked(ep)), ep}
	for l := g.mu.top; l > 0; l-- {
		cur = g.greedyLocked(s, q, cur, l, budget)
	}
	res := g.searchLayerLocked(s, q, []item{cur}, ef, 0, budget)
	out := make([]vec.Result, 0, min(k, len(res)))
	for _, it := range res {
		if len(out) == k {
			break
		}
		out = append(out, vec.Result{ID: g.mu.ids[it.slot], Score: it.score})
	}
	s.ids = nil
	return out, s.visits, nil
}

// selectLocked is the neighbour-selection heuristic of the HNSW paper
// (Algorithm 4, without extending or keeping pruned candidates, as in
// hnswlib): walking candidates best first, keep one only if it is closer to
// the base than to every neighbour kept so far. Near-duplicates of a kept
// neighbour are dropped, so a cluster of copies cannot fill a node's list
// and trap searches. cands must be sorted best first; the kept slots are
// appended to dst.
func (g *Graph) selectLocked(dst []uint32, cands []item, m int) []uint32 {
	start := len(dst)
	for _, c := range cands {
		if len(dst)-start >= m {
			break
		}
		cv := g.vecLocked(c.slot)
		good := true
		for _, k := range dst[start:] {
			if vec.Dot(cv, g.vecLocked(k)) > c.score {
				good = false
				break
			}
		}
		if good {
			dst = append(dst, c.slot)
		}
	}
	return dst
}
