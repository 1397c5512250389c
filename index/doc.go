// Package index is the vector index a holomem process holds over one
// embedding model's vectors: per namespace a contiguous matrix (int8
// pre-selection with float rescoring from 20k vectors) and, once built, an
// HNSW graph (package hnsw) whose layers are persisted as edges of the
// store. It keeps recall honest with a canary and says how every search ran
// ([Mode]). Package retrieve asks it for nearest neighbours and keeps it in
// step with writes; recall and scoring stay in retrieve.
//
// # Search modes
//
// [ModeExact] scans every vector: below Config.ExactBelow (2,000) vectors,
// or without a built graph (a greedy walk over an empty graph silently
// returns garbage). [ModeHNSW] walks the graph and scans the "delta"
// (vectors written since the graph was built) exactly, merging by score then
// id. [ModeFallback] scans exactly because the graph failed a check.
//
// # Lifecycle
//
// The index loads every vector of the model on first use ([Index.Load]) and
// is kept in sync by the owner's writes ([Index.Upsert], [Index.Remove]).
// [Index.Refresh] reloads from the store (writes of other processes); writes
// made meanwhile are journalled and replayed onto the fresh copy.
//
// # Persistence as edges
//
// [Index.Build] builds every namespace's graph and stores its bottom layer
// as similar_to edges with origin "hnsw" and layer L as hnsw_lL edges, with
// a meta value "hnsw:<namespace>" written last, so an interrupted build
// leaves nothing a load would trust. A persisted graph that fails validation
// on load is reported and rebuilt in memory (up to 50,000 vectors) or the
// namespace falls back to exact search; it is never trusted silently.
// Incremental edits are written back by [Index.Persist].
//
// # Canary
//
// [Index.Canary] compares the graph's answers with an exact scan on a
// deterministic sample and falls back to exact search when recall@10 drops
// below Config.CanaryMin (0.9). It runs after each build and each load of a
// persisted graph.
//
// # Concurrency
//
// An Index is safe for concurrent use; one refresh, build or persist runs
// at a time.
package index
