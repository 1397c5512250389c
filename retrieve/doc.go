// Package retrieve is holomem's memory service: it implements
// [holomem.Memory] on top of a [holomem.Store] and an optional
// [holomem.Embedder].
//
// # Channels
//
// Recall gathers candidates from full-text search (the best 5 x limit, at
// least 50, of the facts sharing a content word with the query) and, when a
// model is present, from the in-memory vector index; scores every candidate
// on the fts, jaccard, hrr and semantic channels (each 0..1, plus ppr when
// asked); and combines them with [holomem.Weights]: relevance = sum of
// weight x score over the channels that ran (a channel that cannot run
// gives its share to the others in proportion, docs/design.md §3.4),
// score = relevance x trust x decay, where decay = floor + (1 - floor) x
// 0.5^(age/half-life) counts from the last content change. Ties are broken
// by id, so the same data and query always give the same ranking.
//
// # Derived data
//
// The service owns the derived data a store cannot compute itself: the
// compact HRR vector (written with every fact) and the embedding (written
// when a model is configured; `backfill` fills the gaps). The vector index
// is loaded from the store once, on the first semantic query, and kept in
// sync by this service's writes; writes made by another process are picked up
// by [Memory.Refresh].
//
// # Vector search
//
// The semantic channel asks package index (the vector index this process
// holds: matrix, HNSW lifecycle, canary, persistence as edges) for the
// nearest vectors; [Memory.Index] exposes it for `graph build` and doctor.
// Options.ExactBelow, DisableGraph, DisableGraphIncremental, CanaryMin and
// GraphM are passed to it as index.Config.
//
// # Algebra
//
// probe, related and reason scan each namespace's compact HRR vectors
// (1,025 bytes per fact) from an in-memory slab loaded on first use.
//
// # Concurrency
//
// A Memory is safe for concurrent use. Writes go through the store, which
// serialises them; the vector index has its own lock.
package retrieve
