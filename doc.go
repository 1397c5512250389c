// Package holomem is long-term memory for AI agents: the domain types and the
// interfaces every other package speaks.
//
// # Model
//
// A [Fact] is a short piece of text an agent wants to find again (a user
// preference, a project setting, an imported issue). Facts live in a
// namespace, carry a trust score that feedback moves, and have derived data
// (entities, a holographic vector, an embedding) that adapters compute.
// An [Edge] links two facts with a kind (similar_to, causal, temporal,
// supersedes or a user kind).
//
// A [Store] persists facts and edges (package sqlite). A [Memory] is the
// agent-facing service on top of a Store (package retrieve): it remembers
// facts with write-time hygiene and recalls them through several independent
// channels whose scores are combined as [Weights] say. An [Embedder] turns
// text into sentence vectors (package embed); without one, recall runs on the
// other channels and says so in [Result.Channels].
//
// # Errors
//
// Callers test outcomes with errors.Is against the sentinels in errors.go:
// [ErrNotFound], [ErrInvalid], [ErrConflict], [ErrNoEmbedder], [ErrSchema].
package holomem
