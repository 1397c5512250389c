package postgres

// RaceEnabled tells the external tests whether -race is on (heavy cases
// shrink under it so `go test -race ./...` stays fast).
const RaceEnabled = raceEnabled
