//go:build race

package hnsw_test

// raceEnabled shrinks test sizes: the race detector slows the build ~10x.
const raceEnabled = true
