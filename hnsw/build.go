package hnsw

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/holomem/holomem/vec"
)

// maxBatch bounds how many vectors Build inserts against one frozen graph.
const maxBatch = 256

// plan is what the read-only phase of an insertion found for one vector.
type plan struct {
	id    int64
	v     []float32
	level int
	found [][]item // found[l]: candidates on level l, best first
}

// sortItemsLocked sorts items best first: score, then lower id.
func (g *Graph) sortItemsLocked(items []item) {
	ids := g.mu.ids
	slices.SortFunc(items, func(a, b item) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		case ids[a.slot] < ids[b.slot]:
			return -1
		case ids[a.slot] > ids[b.slot]:
			return 1
		}
		return 0
	})
}

// planLocked runs the search half of an insertion (HNSW Algorithm 1, lines
// 1-10) without changing the graph, so many plans can run in parallel under
// a read lock or an otherwise idle write lock.
func (g *Graph) planLocked(s *searcher, p *plan) {
	p.found = p.found[:0]
	if g.mu.entry < 0 {
		return
	}
	g.prepareLocked(s)
	ep := uint32(g.mu.entry)
	cur := item{vec.Dot(p.v, g.vecLocked(ep)), ep}
	for l := g.mu.top; l > p.level; l-- {
		cur = g.greedyLocked(s, p.v, cur, l, -1)
	}
	top := min(p.level, g.mu.top)
	p.found = slices.Grow(p.found, top+1)[:top+1]
	eps := []item{cur}
	for l := top; l >= 0; l-- {
		res := g.searchLayerLocked(s, p.v, eps, g.cfg.EfConstruction, l, -1)
		p.found[l] = append(p.found[l][:0], res...)
		eps = p.found[l]
	}
	s.ids = nil
}

// insertLocked is the connecting half of an insertion: it gives p a slot,
// picks its neighbours on each level from the plan's candidates plus the
// vectors inserted earlier in the same batch (mates), and links both ways.
// It returns the new slot. g.mu must be held for writing.
func (g *Graph) insertLocked(p *plan, mates []uint32) uint32 {
	s := g.allocLocked(p.id, p.v)
	v := g.vecLocked(s)
	var cands []item
	var sel []uint32
	for l := p.level; l >= 0; l-- {
		cands = cands[:0]
		if l < len(p.found) {
			cands = append(cands, p.found[l]...)
		}
		for _, m := range mates {
			if int(g.mu.levels[m]) >= l {
				cands = append(cands, item{vec.Dot(v, g.vecLocked(m)), m})
			}
		}
		if len(cands) == 0 {
			continue
		}
		g.sortItemsLocked(cands)
		cands = cands[:min(len(cands), g.cfg.EfConstruction)]
		sel = g.selectLocked(sel[:0], cands, g.cfg.M)
		g.setNeighboursLocked(s, l, sel)
		for _, nb := range sel {
			g.addLinkLocked(nb, s, l)
		}
	}
	if g.mu.entry < 0 || p.level > g.mu.top {
		g.mu.entry = int64(s)
		g.mu.top = p.level
	}
	return s
}

// addLinkLocked adds a link from nb to s on level, re-running the selection
// heuristic over nb's links when the list is full.
func (g *Graph) addLinkLocked(nb, s uint32, level int) {
	list := g.neighboursLocked(nb, level)
	if slices.Contains(list, s) {
		return
	}
	c := g.capacity(level)
	if len(list) < c {
		buf := append(slices.Clone(list), s)
		g.setNeighboursLocked(nb, level, buf)
		return
	}
	base := g.vecLocked(nb)
	cands := make([]item, 0, len(list)+1)
	for _, x := range list {
		cands = append(cands, item{vec.Dot(base, g.vecLocked(x)), x})
	}
	cands = append(cands, item{vec.Dot(base, g.vecLocked(s)), s})
	g.sortItemsLocked(cands)
	g.setNeighboursLocked(nb, level, g.selectLocked(make([]uint32, 0, c), cands, c))
}

// growLocked reserves room for n more nodes, so a bulk build does not copy
// the vectors and links repeatedly as they grow.
func (g *Graph) growLocked(n int) {
	n -= len(g.mu.free)
	if n <= 0 {
		return
	}
	g.mu.ids = slices.Grow(g.mu.ids, n)
	g.mu.vecs = slices.Grow(g.mu.vecs, n*g.dim)
	g.mu.levels = slices.Grow(g.mu.levels, n)
	g.mu.dead = slices.Grow(g.mu.dead, n)
	g.mu.n0 = slices.Grow(g.mu.n0, n)
	g.mu.links0 = slices.Grow(g.mu.links0, n*g.m0)
	g.mu.upper = slices.Grow(g.mu.upper, n)
}

// Add inserts v under id. It returns an error wrapping [ErrExists] if id is
// already present, or [vec.ErrDim]/[vec.ErrInvalid] if v is unusable. The
// vector is copied. The same sequence of Adds always builds the same graph.
func (g *Graph) Add(id int64, v []float32) error {
	if g.dim == 0 {
		return fmt.Errorf("add %d: %w", id, errZero)
	}
	if err := vec.CheckDim(v, g.dim); err != nil {
		return fmt.Errorf("add %d: %w", id, err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.mu.slot[id]; ok {
		return fmt.Errorf("add %d: %w", id, ErrExists)
	}
	p := plan{id: id, v: v, level: g.level(id)}
	s := g.getSearcher()
	g.planLocked(s, &p)
	g.pool.Put(s)
	g.insertLocked(&p, nil)
	return nil
}

// Build inserts many vectors: ids[i] gets vecs[i]. It validates everything
// first and changes nothing on error (errors wrap [ErrExists], [vec.ErrDim]
// or [vec.ErrInvalid]).
//
// Insertion runs in batches: every vector of a batch searches the graph as
// it was before the batch, in parallel on up to workers goroutines (<= 0
// means 1), then the batch is linked in input order, each vector also
// considering the ones linked before it in the batch. Batches grow with the
// graph (size/16, at most 256), so results are close to one-by-one
// insertion. The graph depends only on the input order, never on workers or
// timing; it is not the same graph as the same vectors passed to Add one by
// one.
//
// Build holds the write lock throughout. It checks ctx between batches; on
// cancellation it returns ctx's error and the vectors inserted so far stay
// in the graph. Config.Progress is called after each batch.
func (g *Graph) Build(ctx context.Context, ids []int64, vecs [][]float32, workers int) error {
	if g.dim == 0 {
		return fmt.Errorf("build: %w", errZero)
	}
	if len(ids) != len(vecs) {
		return fmt.Errorf("build: %d ids for %d vectors: %w", len(ids), len(vecs), vec.ErrDim)
	}
	seen := make(map[int64]struct{}, len(ids))
	for i, v := range vecs {
		if err := vec.CheckDim(v, g.dim); err != nil {
			return fmt.Errorf("build: vector %d (id %d): %w", i, ids[i], err)
		}
		if _, ok := seen[ids[i]]; ok {
			return fmt.Errorf("build: id %d given twice: %w", ids[i], ErrExists)
		}
		seen[ids[i]] = struct{}{}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, id := range ids {
		if _, ok := g.mu.slot[id]; ok {
			return fmt.Errorf("build: %d: %w", id, ErrExists)
		}
	}
	g.growLocked(len(ids))
	workers = max(workers, 1)
	searchers := make([]*searcher, workers)
	for i := range searchers {
		searchers[i] = &searcher{}
	}
	plans := make([]plan, maxBatch)
	mates := make([]uint32, 0, maxBatch)
	for done := 0; done < len(ids); {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("build: %w", err)
		}
		b := min(max(len(g.mu.slot)/16, 1), maxBatch, len(ids)-done)
		batch := plans[:b]
		for i := range batch {
			id := ids[done+i]
			batch[i].id, batch[i].v, batch[i].level = id, vecs[done+i], g.level(id)
		}
		if w := min(workers, b); w <= 1 {
			for i := range batch {
				g.planLocked(searchers[0], &batch[i])
			}
		} else {
			var next atomic.Int64
			var wg sync.WaitGroup
			for _, s := range searchers[:w] {
				wg.Go(func() {
					for i := int(next.Add(1)) - 1; i < b; i = int(next.Add(1)) - 1 {
						g.planLocked(s, &batch[i])
					}
				})
			}
			wg.Wait()
		}
		mates = mates[:0]
		for i := range batch {
			mates = append(mates, g.insertLocked(&batch[i], mates))
		}
		done += b
		if g.cfg.Progress != nil {
			g.cfg.Progress(done, len(ids))
		}
	}
	return nil
}
