// Package faults is holomem's fault suite: tests that build the holomem
// binary and drive it through SIGKILLs (of serve, import, add, update,
// supersede), corruption, a cut, deleted or emptied write-ahead log, the database deleted or
// replaced under serve, a full and a read-only file system, checking that nothing acknowledged is lost and that
// `holomem verify` finds every damage. It has no code of its own.
//
// Short form (CI): HOLOMEM_FAULTS=1 go test ./internal/testkit/faults/
// Long form (the figures in docs/reliability.md): bash scripts/reliability/faults.sh
// (HOLOMEM_FAULT_TRIALS=100).
package faults
