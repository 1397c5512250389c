// Package graph is typed adjacency over int64 fact ids: Personalized PageRank
// for recall and causal chains for "which PR fixed this issue".
//
// It is a leaf: it knows nothing of holomem.Edge or stores. The retrieval
// layer converts edges to [Edge] values, builds a [Graph] with [New] and
// turns the results back into facts.
//
// # Model
//
// A [Graph] holds directed edges (from, to, kind, weight). Each kind has a
// weight chosen by the caller ([DefaultKindWeights]: causal 1.0, similar_to
// 0.5, temporal 0.3, supersedes 0.2); an edge's strength in PageRank is its
// own weight times its kind's weight. A Graph is immutable once built and
// safe for concurrent use.
//
// # Personalized PageRank
//
// [PersonalizedPageRank] runs power iteration: at each step a walker follows
// an edge with probability Damping (default 0.5) and jumps back to a seed
// with probability 1 - Damping, choosing the seed in proportion to its
// weight. The result is the stationary mass of every node the walk reaches.
//
// Edges are treated as undirected for PageRank. Direction in holomem encodes
// a convention, not relevance: causal edges point from issue to PR,
// supersedes edges from the new fact to the old one, similar_to edges are
// symmetric by nature. A directed walk would also pool mass in sinks (a PR
// with no outgoing edge) and could never walk from a recalled PR back to the
// issue it fixed. Relatedness is symmetric, so the walk is too.
//
// Self-loops are ignored, parallel edges add up, a node with no usable edge
// (dangling) sends its mass back to the seeds, and iteration stops after
// MaxIter rounds or when the L1 change falls below Tol, so cycles cannot
// keep it running. Nodes are visited in id order and ties are broken by id:
// the same graph and seeds always give the same ranking, whatever the order
// the edges were given in.
//
// On large graphs, [PPROptions.Hops] restricts the walk to the nodes within
// that many hops of the seeds. Mass that would leave that neighbourhood is
// dropped rather than returned, so every score is a lower bound of the exact
// one and the total lost is at most Damping^(Hops+1) (0.125 for the
// defaults and Hops 2): nodes further away are reached only after Hops+1
// consecutive edge-following steps.
//
// # Chains
//
// [Chain] walks edges of chosen kinds in their stored direction (Forward:
// issue -> PR), against it (Backward: PR -> issue) or both, breadth first,
// and returns one shortest path per reached node ordered by depth and then
// id. A visited set makes it safe on cycles.
//
// # Caveats
//
// Kind names are plain strings here; [DefaultKindWeights] repeats the names
// of holomem's built-in kinds, so a renamed kind must change in both places.
// Scores are only comparable within one call. Node and arc positions are
// int32, so a graph holds at most 2^31-1 arcs. Building is O(E log E) and
// allocation-heavy (about 1 s of CPU for 1M edges), so callers should build
// once and reuse the Graph until the edges change. PageRank runs on one
// goroutine; use Hops to bound its work on big graphs.
package graph
