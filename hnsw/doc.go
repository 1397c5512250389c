// Package hnsw is an in-memory approximate nearest-neighbour index over
// int64 ids: a hierarchical navigable small world graph (Malkov and
// Yashunin, 2016) scored by inner product.
//
// # Model
//
// Every node lives on levels 0..L. L comes from a hash of the id alone
// (splitmix64, then geometric with mL = 1/ln(M); see [Level]), so the same
// ids always produce the same layers, and an imported graph can be checked
// against them. Level 0 keeps up to 2*M neighbours per node, upper levels M.
// Neighbours are chosen with the paper's diversity heuristic: a candidate is
// kept only if it is closer to the node than to any neighbour already kept,
// so a cluster of near-duplicates cannot fill a list and trap the search.
//
// [Graph.Search] descends greedily from the entry point to level 0 and runs a
// beam search of width ef there. Every search has a budget of vector
// comparisons (Config.MaxVisits), so a damaged graph costs bounded time;
// the result is then merely worse, which is what a recall canary built on
// [Recall] is for. Scores are exact inner products; ties rank the lower id
// first.
//
// # Determinism
//
// No randomness and no timing enters the graph: the same sequence of
// [Graph.Add] calls, or the same input to [Graph.Build] (whatever its worker
// count), yields the same links, which tests check through [Graph.Export].
// Build inserts in batches that search the graph as it stood before the
// batch, in parallel, then link in input order; it gives a different (equally
// good) graph than one-by-one Adds of the same vectors.
//
// # Persistence
//
// holomem stores the graph as edges: [Graph.Export] returns each node's
// neighbour list per level, and [Graph.Import] rebuilds the graph from those
// lists, the vectors and the entry point, after validating them (errors wrap
// [ErrCorrupt]). [Graph.MarshalBinary] is a compact, versioned
// ([EncodingVersion]) single-blob form with the same checks on decoding.
//
// # Caveats
//
// The graph holds a copy of each vector (4*dim bytes) plus about 4*2*M bytes
// of links per node. [Graph.Delete] repairs the lists that pointed at the
// deleted node, which scans all links (O(N*M)); heavy churn is better served
// by a rebuild. There is no exact fallback here: callers compare
// [Graph.Len] and [Graph.EdgeCount] and decide when to scan instead. Scores
// are inner products; store unit vectors to rank by cosine.
package hnsw
