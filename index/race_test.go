//go:build race

package index_test

// raceEnabled shrinks the index tests: the race detector slows graph
// builds and SQLite writes about 10x.
const raceEnabled = true
