package graph

import (
	"cmp"
	"math"
	"slices"
)

// Edge is one directed, typed, weighted link between two node ids.
type Edge struct {
	From, To int64
	Kind     string
	// Weight is the edge's own strength, >= 0; it is multiplied by its
	// kind's weight for PageRank.
	Weight float64
}

// DefaultKindWeights returns the kind weights holomem uses for PageRank:
// causal 1.0, similar_to 0.5, temporal 0.3, supersedes 0.2. Kinds it does
// not list (user kinds) weigh 0 and PageRank ignores them. The names repeat holomem's built-in
// edge kinds; keep them in step.
func DefaultKindWeights() map[string]float64 {
	return map[string]float64{
		"causal":     1.0,
		"similar_to": 0.5,
		"temporal":   0.3,
		"supersedes": 0.2,
	}
}

// Graph is typed adjacency over int64 ids, built once by [New]. It is
// immutable and safe for concurrent use.
type Graph struct {
	ids   []int64 // node ids, ascending; a node's index is its position
	index map[int64]int32
	kinds []string // interned kind names, ascending
	edges int

	// Directed adjacency for chains (CSR): the arcs of node i are
	// arcs[off[i]:off[i+1]], sorted by (node, kind).
	out, in adjacency

	// Undirected weighted adjacency for PageRank, parallel arcs merged.
	und csr
}

type arc struct {
	node int32
	kind int32
}

type adjacency struct {
	off  []int32
	arcs []arc
}

func (a *adjacency) of(i int32) []arc { return a.arcs[a.off[i]:a.off[i+1]] }

// csr is weighted adjacency: the neighbours of node i are nbr[off[i]:off[i+1]]
// with weights w[...]; deg[i] is the sum of those weights.
type csr struct {
	off []int32
	nbr []int32
	w   []float64
	deg []float64
}

// New builds a graph from edges. kindWeights gives each kind's weight for
// PageRank: a nil map weighs every kind 1, and a kind missing from a non-nil
// map weighs 0 (the edge is kept for [Chain] but PageRank ignores it).
// Self-loops and edges whose weight is negative, NaN or infinite are
// dropped; their endpoints still become nodes.
func New(edges []Edge, kindWeights map[string]float64) *Graph {
	g := &Graph{index: make(map[int64]int32)}
	ids := make([]int64, 0, 2*len(edges))
	kinds := make(map[string]bool)
	for _, e := range edges {
		ids = append(ids, e.From, e.To)
		if usable(e) {
			kinds[e.Kind] = true
		}
	}
	slices.Sort(ids)
	g.ids = slices.Compact(ids)
	for i, id := range g.ids {
		g.index[id] = int32(i)
	}
	for k := range kinds {
		g.kinds = append(g.kinds, k)
	}
	slices.Sort(g.kinds)
	kindIdx := make(map[string]int32, len(g.kinds))
	kindW := make([]float64, len(g.kinds))
	for i, k := range g.kinds {
		kindIdx[k] = int32(i)
		kindW[i] = 1
		if kindWeights != nil {
			kindW[i] = kindWeights[k]
			if math.IsNaN(kindW[i]) || math.IsInf(kindW[i], 0) || kindW[i] < 0 {
				kindW[i] = 0
			}
		}
	}

	n := len(g.ids)
	type link struct {
		f, t, k int32
		w       float64 // PageRank strength; 0 when PageRank ignores the edge
	}
	links := make([]link, 0, len(edges))
	outN := make([]int32, n+1)
	inN := make([]int32, n+1)
	undN := make([]int32, n+1)
	for _, e := range edges {
		if !usable(e) {
			continue
		}
		l := link{f: g.index[e.From], t: g.index[e.To], k: kindIdx[e.Kind]}
		if w := e.Weight * kindW[l.k]; w > 0 && !math.IsInf(w, 0) {
			l.w = w
			undN[l.f+1]++
			undN[l.t+1]++
		}
		outN[l.f+1]++
		inN[l.t+1]++
		links = append(links, l)
	}
	for i := range n {
		outN[i+1] += outN[i]
		inN[i+1] += inN[i]
		undN[i+1] += undN[i]
	}
	outs := make([]arc, len(links))
	ins := make([]arc, len(links))
	type warc struct {
		node int32
		w    float64
	}
	und := make([]warc, undN[n])
	outP, inP, undP := slices.Clone(outN), slices.Clone(inN), slices.Clone(undN)
	for _, l := range links {
		outs[outP[l.f]] = arc{l.t, l.k}
		outP[l.f]++
		ins[inP[l.t]] = arc{l.f, l.k}
		inP[l.t]++
		if l.w > 0 {
			und[undP[l.f]] = warc{l.t, l.w}
			undP[l.f]++
			und[undP[l.t]] = warc{l.f, l.w}
			undP[l.t]++
		}
	}
	g.out = pack(outs, outN)
	g.in = pack(ins, inN)
	g.edges = len(g.out.arcs)

	g.und = csr{off: make([]int32, n+1), deg: make([]float64, n)}
	g.und.nbr = make([]int32, 0, len(und))
	g.und.w = make([]float64, 0, len(und))
	for i := range n {
		as := und[undN[i]:undN[i+1]]
		// Sorting by weight too makes the merged sums independent of the
		// order the edges came in, so results are bit-for-bit repeatable.
		slices.SortFunc(as, func(a, b warc) int {
			return cmp.Or(cmp.Compare(a.node, b.node), cmp.Compare(a.w, b.w))
		})
		for j, a := range as {
			if j > 0 && as[j-1].node == a.node {
				g.und.w[len(g.und.w)-1] += a.w
			} else {
				g.und.nbr = append(g.und.nbr, a.node)
				g.und.w = append(g.und.w, a.w)
			}
		}
		g.und.off[i+1] = int32(len(g.und.nbr))
		for _, w := range g.und.w[g.und.off[i]:] {
			g.und.deg[i] += w
		}
	}
	return g
}

func usable(e Edge) bool {
	return e.From != e.To && !math.IsNaN(e.Weight) && !math.IsInf(e.Weight, 0) && e.Weight >= 0
}

// pack sorts each node's arcs (arcs[off[i]:off[i+1]]) by (node, kind),
// drops duplicates and compacts the result in place.
func pack(arcs []arc, off []int32) adjacency {
	a := adjacency{off: make([]int32, len(off))}
	w := 0
	for i := range len(off) - 1 {
		seg := arcs[off[i]:off[i+1]]
		slices.SortFunc(seg, func(x, y arc) int {
			return cmp.Or(cmp.Compare(x.node, y.node), cmp.Compare(x.kind, y.kind))
		})
		for j, x := range seg {
			if j > 0 && seg[j-1] == x {
				continue
			}
			arcs[w] = x
			w++
		}
		a.off[i+1] = int32(w)
	}
	a.arcs = arcs[:w:w]
	return a
}

// Len returns the number of nodes.
func (g *Graph) Len() int { return len(g.ids) }

// EdgeCount returns the number of distinct directed (from, to, kind) edges
// kept; self-loops and edges with unusable weights are not counted.
func (g *Graph) EdgeCount() int { return g.edges }

// Has reports whether id is a node of the graph.
func (g *Graph) Has(id int64) bool {
	_, ok := g.index[id]
	return ok
}

// Nodes returns the node ids in ascending order.
func (g *Graph) Nodes() []int64 { return slices.Clone(g.ids) }

// Kinds returns the edge kinds present, in ascending order.
func (g *Graph) Kinds() []string { return slices.Clone(g.kinds) }
