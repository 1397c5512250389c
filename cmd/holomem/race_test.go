//go:build race

package main

// raceEnabled is set under the race detector; tests that measure (not
// race) a large loop skip then and run in .ci/run without it.
const raceEnabled = true
