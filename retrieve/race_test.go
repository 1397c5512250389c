//go:build race

package retrieve

// raceEnabled is set when the tests run under the race detector, which
// makes the large equality checks take minutes: they run smaller then.
const raceEnabled = true
