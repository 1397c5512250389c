//go:build race

package backup

// raceEnabled is set under the race detector; the page-flip measurement
// skips then (minutes under it) and .ci/run runs it without.
const raceEnabled = true
