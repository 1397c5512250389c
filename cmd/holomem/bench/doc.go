// Package bench holds the scenarios of `holomem bench`: the programs that
// print the figures in docs/benchmarks.md (store throughput and latency, encoder
// speed, ANN recall, hook and MCP round trips, import throughput). They are
// apart from the user commands, as litestream keeps its test tooling apart
// from its CLI, so reading cmd/holomem finds only what a user runs.
//
// Each scenario builds its own synthetic store in a temporary directory and
// removes it afterwards; none touches the user's database.
package bench
