//go:build race

package graph_test

// raceEnabled is true under -race, where measurement loops run 20-50 times
// slower; they shrink there (the race detector needs the code paths, not
// the sample sizes).
const raceEnabled = true
