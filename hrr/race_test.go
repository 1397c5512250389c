//go:build race

package hrr

// raceEnabled is true under -race, where the vector loops run 20-50 times
// slower; slow measurements shrink or skip.
const raceEnabled = true
