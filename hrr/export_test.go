package hrr

// RaceEnabled lets the external tests shrink their slowest loops under -race.
const RaceEnabled = raceEnabled
