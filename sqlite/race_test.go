//go:build race

package sqlite_test

const raceEnabled = true
