package graph

import (
	"cmp"
	"container/heap"
	"math"
	"slices"
)

// Defaults for [PPROptions].
const (
	// DefaultDamping is the probability of following an edge at each step;
	// 1 - DefaultDamping is the probability of jumping back to the seeds
	// (docs/design.md §3.5: 0.5).
	DefaultDamping = 0.5
	// DefaultMaxIter bounds the power iteration.
	DefaultMaxIter = 50
	// DefaultTol is the L1 change between two rounds below which iteration stops.
	DefaultTol = 1e-9
)

// PPROptions tune [PersonalizedPageRank]. The zero value uses the defaults.
type PPROptions struct {
	// Damping is the probability of following an edge at each step, in
	// (0, 1). Zero or any value outside (0, 1) means DefaultDamping.
	Damping float64
	// MaxIter is the largest number of rounds; <= 0 means DefaultMaxIter.
	MaxIter int
	// Tol stops iteration once the L1 change of a round is below it;
	// <= 0 means DefaultTol.
	Tol float64
	// Hops, when > 0, restricts the walk to nodes within Hops edges of the
	// seeds, which bounds the work on big graphs. Mass leaving that
	// neighbourhood is dropped, so scores are lower bounds of the exact ones
	// (see the package doc). 0 walks the whole graph.
	Hops int
	// Limit, when > 0, returns only the Limit best nodes. 0 returns all
	// nodes with a positive score.
	Limit int
}

func (o PPROptions) withDefaults() PPROptions {
	if !(o.Damping > 0 && o.Damping < 1) {
		o.Damping = DefaultDamping
	}
	if o.MaxIter <= 0 {
		o.MaxIter = DefaultMaxIter
	}
	if !(o.Tol > 0) {
		o.Tol = DefaultTol
	}
	return o
}

// Rank is one node's PageRank score.
type Rank struct {
	ID    int64
	Score float64
}

// PersonalizedPageRank ranks nodes by the stationary mass of a random walk
// that restarts at the seeds. seeds maps node ids to teleport weights (for
// recall, the cosine of the top semantic hits); weights that are not
// positive and finite are ignored, and the rest are normalised to sum 1.
// Seeds that are not nodes of g keep their teleport mass and reach nothing.
//
// The result is sorted by score descending, then id ascending, and holds
// only positive scores. It is nil when no seed is usable. Without Hops the
// scores sum to 1 (up to Tol).
func PersonalizedPageRank(g *Graph, seeds map[int64]float64, opts PPROptions) []Rank {
	opts = opts.withDefaults()
	type seed struct {
		id int64
		w  float64
	}
	var ss []seed
	maxW := 0.0
	for id, w := range seeds {
		if w > 0 && !math.IsInf(w, 0) {
			ss = append(ss, seed{id, w})
			maxW = max(maxW, w)
		}
	}
	if len(ss) == 0 {
		return nil
	}
	slices.SortFunc(ss, func(a, b seed) int { return cmp.Compare(a.id, b.id) })
	total := 0.0
	for i := range ss {
		ss[i].w /= maxW // keeps the sum finite for huge weights
		total += ss[i].w
	}

	// The working set: graph nodes (all, or the neighbourhood of the
	// seeds), then the seeds the graph does not know as arc-less nodes.
	var (
		adj  csr
		ids  []int64
		slot func(id int64) (int32, bool)
	)
	if opts.Hops > 0 {
		adj, ids = g.neighbourhood(seedIndexes(g, seeds), opts.Hops)
		local := make(map[int64]int32, len(ids))
		for i, id := range ids {
			local[id] = int32(i)
		}
		slot = func(id int64) (int32, bool) { i, ok := local[id]; return i, ok }
	} else {
		adj, ids = g.und, g.ids
		slot = func(id int64) (int32, bool) { i, ok := g.index[id]; return i, ok }
	}
	n := len(ids)
	teleport := make([]float64, n, n+len(ss))
	var extra []int64
	var seedSlots []int32
	for _, s := range ss {
		i, ok := slot(s.id)
		if !ok {
			i = int32(len(teleport))
			teleport = append(teleport, 0)
			extra = append(extra, s.id)
		}
		teleport[i] += s.w / total
		seedSlots = append(seedSlots, i)
	}
	slices.Sort(seedSlots)
	seedSlots = slices.Compact(seedSlots)

	r := iterate(adj, n, teleport, seedSlots, opts)

	nodeID := func(i int) int64 {
		if i < n {
			return ids[i]
		}
		return extra[i-n]
	}
	return top(r, nodeID, opts.Limit)
}

func seedIndexes(g *Graph, seeds map[int64]float64) []int32 {
	var out []int32
	for id, w := range seeds {
		if i, ok := g.index[id]; ok && w > 0 && !math.IsInf(w, 0) {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

// iterate runs the power iteration. Nodes at positions >= n have no arcs.
func iterate(adj csr, n int, teleport []float64, seedSlots []int32, opts PPROptions) []float64 {
	d := opts.Damping
	r := slices.Clone(teleport)
	next := make([]float64, len(r))
	for range opts.MaxIter {
		clear(next)
		dangling := 0.0
		for u, m := range r {
			if m == 0 {
				continue
			}
			if u >= n || adj.deg[u] == 0 {
				dangling += m
				continue
			}
			f := d * m / adj.deg[u]
			lo, hi := adj.off[u], adj.off[u+1]
			nbr, w := adj.nbr[lo:hi], adj.w[lo:hi]
			for j, v := range nbr {
				next[v] += f * w[j]
			}
		}
		jump := 1 - d + d*dangling
		for _, i := range seedSlots {
			next[i] += jump * teleport[i]
		}
		diff := 0.0
		for i, v := range next {
			diff += math.Abs(v - r[i])
		}
		r, next = next, r
		if diff < opts.Tol {
			break
		}
	}
	return r
}

// neighbourhood returns the sub-adjacency of the nodes within hops of the
// seeds, in id order. Degrees stay those of the whole graph, so mass sent
// to nodes outside is dropped instead of being spread over fewer arcs.
func (g *Graph) neighbourhood(seeds []int32, hops int) (csr, []int64) {
	seen := make(map[int32]int32, len(seeds)*16)
	frontier := slices.Clone(seeds)
	for _, s := range seeds {
		seen[s] = 0
	}
	for depth := 0; depth < hops && len(frontier) > 0; depth++ {
		var next []int32
		for _, u := range frontier {
			for _, v := range g.und.nbr[g.und.off[u]:g.und.off[u+1]] {
				if _, ok := seen[v]; !ok {
					seen[v] = 0
					next = append(next, v)
				}
			}
		}
		frontier = next
	}
	nodes := make([]int32, 0, len(seen))
	for u := range seen {
		nodes = append(nodes, u)
	}
	slices.Sort(nodes)
	for i, u := range nodes {
		seen[u] = int32(i)
	}
	sub := csr{off: make([]int32, len(nodes)+1), deg: make([]float64, len(nodes))}
	ids := make([]int64, len(nodes))
	for i, u := range nodes {
		ids[i] = g.ids[u]
		sub.deg[i] = g.und.deg[u]
		lo, hi := g.und.off[u], g.und.off[u+1]
		for j, v := range g.und.nbr[lo:hi] {
			if lv, ok := seen[v]; ok {
				sub.nbr = append(sub.nbr, lv)
				sub.w = append(sub.w, g.und.w[int(lo)+j])
			}
		}
		sub.off[i+1] = int32(len(sub.nbr))
	}
	return sub, ids
}

// better orders ranks by score descending, then id ascending.
func better(a, b Rank) bool {
	return a.Score > b.Score || (a.Score == b.Score && a.ID < b.ID)
}

// top returns the positive scores, best first; limit > 0 keeps the best limit.
func top(r []float64, id func(int) int64, limit int) []Rank {
	if limit <= 0 {
		out := make([]Rank, 0, len(r))
		for i, s := range r {
			if s > 0 {
				out = append(out, Rank{id(i), s})
			}
		}
		slices.SortFunc(out, func(a, b Rank) int {
			if better(a, b) {
				return -1
			}
			if better(b, a) {
				return 1
			}
			return 0
		})
		return out
	}
	h := make(rankHeap, 0, limit)
	for i, s := range r {
		if s <= 0 {
			continue
		}
		x := Rank{id(i), s}
		if len(h) < limit {
			heap.Push(&h, x)
		} else if better(x, h[0]) {
			h[0] = x
			heap.Fix(&h, 0)
		}
	}
	out := make([]Rank, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(Rank)
	}
	return out
}

// rankHeap is a min-heap of the worst kept rank first.
type rankHeap []Rank

func (h rankHeap) Len() int           { return len(h) }
func (h rankHeap) Less(i, j int) bool { return better(h[j], h[i]) }
func (h rankHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *rankHeap) Push(x any)        { *h = append(*h, x.(Rank)) }
func (h *rankHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
