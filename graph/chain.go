package graph

import (
	"cmp"
	"slices"
)

// Direction says which way [Chain] walks edges.
type Direction int

// Directions for [Chain]. The zero value and unknown values mean Both.
const (
	// Forward follows edges from From to To: issue -> the PR that fixed it.
	Forward Direction = iota + 1
	// Backward follows edges from To to From: PR -> the issue it fixed.
	Backward
	// Both follows edges either way, so it also reaches siblings such as
	// another issue fixed by the same PR.
	Both
)

// String returns "forward", "backward" or "both".
func (d Direction) String() string {
	switch d {
	case Forward:
		return "forward"
	case Backward:
		return "backward"
	default:
		return "both"
	}
}

// Hop is one edge walked by a [Path].
type Hop struct {
	Kind string
	// Backward is true when the edge was walked against its direction
	// (from its To to its From).
	Backward bool
}

// Path is how [Chain] reached a node: IDs[0] is the start, the last id the
// node reached, and Hops[i] is the edge between IDs[i] and IDs[i+1].
type Path struct {
	IDs  []int64
	Hops []Hop
}

// End returns the id the path reaches.
func (p Path) End() int64 { return p.IDs[len(p.IDs)-1] }

// Depth returns the number of edges walked.
func (p Path) Depth() int { return len(p.Hops) }

// Chain returns every node reachable from start over edges of the given
// kinds (nil or empty: all kinds) in direction dir, at most maxDepth edges
// away (<= 0: no limit). Each node appears once, with a shortest path; the
// order is by depth, then id. Among equally short paths the one through the
// smallest ids wins, so the result is deterministic. The start itself is
// not included; an unknown start gives nil.
func Chain(g *Graph, start int64, kinds []string, dir Direction, maxDepth int) []Path {
	s, ok := g.index[start]
	if !ok {
		return nil
	}
	allow := make([]bool, len(g.kinds))
	for i, k := range g.kinds {
		allow[i] = len(kinds) == 0 || slices.Contains(kinds, k)
	}
	fwd, bwd := dir != Backward, dir != Forward

	type step struct {
		node int32
		hop  Hop
	}
	paths := map[int32]*Path{s: {IDs: []int64{start}}}
	frontier := []int32{s}
	var out []Path
	for depth := 1; len(frontier) > 0 && (maxDepth <= 0 || depth <= maxDepth); depth++ {
		var next []int32
		for _, u := range frontier {
			var steps []step
			if fwd {
				for _, a := range g.out.of(u) {
					if allow[a.kind] {
						steps = append(steps, step{a.node, Hop{g.kinds[a.kind], false}})
					}
				}
			}
			if bwd {
				for _, a := range g.in.of(u) {
					if allow[a.kind] {
						steps = append(steps, step{a.node, Hop{g.kinds[a.kind], true}})
					}
				}
			}
			slices.SortStableFunc(steps, func(a, b step) int { return cmp.Compare(a.node, b.node) })
			parent := paths[u]
			for _, st := range steps {
				if _, seen := paths[st.node]; seen {
					continue
				}
				p := &Path{
					IDs:  append(slices.Clip(parent.IDs), g.ids[st.node]),
					Hops: append(slices.Clip(parent.Hops), st.hop),
				}
				paths[st.node] = p
				next = append(next, st.node)
			}
		}
		slices.Sort(next)
		for _, v := range next {
			out = append(out, *paths[v])
		}
		frontier = next
	}
	return out
}
