// Package vec provides the float32 vector math holomem uses for sentence
// embeddings, a versioned binary encoding for vectors, and [Matrix], an
// in-process store of vectors that answers exact top-k queries by scanning.
//
// # Kernels
//
// [Dot] and [DotInt8] run AVX2/FMA assembly on amd64 CPUs that have it,
// chosen once at start-up with golang.org/x/sys/cpu, and a portable Go loop
// elsewhere (or with the purego build tag). The kernels sum in a different
// order than the loop and FMA rounds once per multiply-add, so the two paths
// may differ in the last bits (tests bound the difference). On one machine
// every call is deterministic.
//
// # Matrix
//
// A [Matrix] keeps rows contiguous so a scan streams memory: at 100k x 384 a
// float32 scan reads 154 MB and is bound by memory bandwidth. With
// [Matrix.EnableInt8] it also keeps each row quantised to int8 with a
// per-row scale (max |x| / 127); [Matrix.SearchInt8] scans those 4x smaller
// rows, keeps k*r candidates and rescores them exactly in float32. Searches
// fan out over goroutines ([Matrix.SetWorkers]) and merge by [Better], a
// total order (score, then id), so results never depend on timing.
//
// # Caveats
//
// Scores are inner products. Store unit vectors (see [Normalize]) to rank by
// cosine. Vectors with NaN or ±Inf are rejected at the API boundary because
// they would break the ordering. Dimension mismatches at the Matrix API
// return errors wrapping [ErrDim]; the low-level [Dot] panics on them, as a
// programmer error.
//
// # Encoding
//
// [Marshal] writes a version byte ([EncodingVersion]), a uint32 dimension and
// the little-endian float32 bits; [Unmarshal] rejects anything else with
// [ErrCorrupt].
package vec
