//go:build race

package mcpserver_test

// raceEnabled is set under the race detector, which makes the tests that
// store megabytes take minutes: they store less then.
const raceEnabled = true
