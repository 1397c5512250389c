// Package index is the vector index a holomem process holds over one
// embedding model's vectors: per namespace a contiguous matrix (int8
// pre-selection with float rescoring from 20k vectors) and, once built, an
// HNSW graph (package hnsw) whose bottom layer is persisted as similar_to
// edges of the store and whose other layers in storage the index owns. It keeps recall honest with a canary and says how every search ran
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
// # Persistence
//
// [Index.Build] builds every namespace's graph and stores its bottom layer
// as similar_to edges with origin "hnsw": the memory's neighbour graph,
// which recall's graph channel walks too, so the index is built over edges
// that exist anyway. The upper layers, the entry point and the build's
// counts are index structure only; they go to the index's own storage
// ([holomem.IndexGraphStore]) in one transaction written last, so an
// interrupted build leaves nothing a load would trust. A persisted graph that fails validation
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
