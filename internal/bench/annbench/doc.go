// Package annbench is the engine of `holomem bench ann`: it measures the
// hnsw index against exact scans (vec.Matrix, float32 and int8 with
// rescoring) on synthetic or .fvecs data and prints one table of build time,
// recall@k, query latency percentiles, RSS and bytes per vector, plus an
// optional ef sweep.
//
// # Data
//
// [Synthetic] makes "uniform" unit vectors (the hard case: in 384
// dimensions nearest neighbours are barely nearer than anything else) or
// "clustered" ones (centres plus noise, closer to how sentence embeddings
// bunch by topic). Queries come from the same distribution as the base
// vectors. [ReadFvecs] and [WriteFvecs] handle the .fvecs files of the
// standard ANN benchmark sets.
//
// # Caveats
//
// Latencies are wall-clock times of single queries on a possibly shared
// machine; compare runs made under the same load. RSS is the whole process,
// including the base vectors and the exact-scan matrix held for ground
// truth, so it overstates what the index alone needs; "index B/vec" is the
// index's own memory per vector beyond the vector.
package annbench
