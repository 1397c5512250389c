#!/usr/bin/env bash
# The fault suite's long form: the README's Reliability figures.
# HOLOMEM_FAULT_TRIALS (default 100) SIGKILL trials per scenario; the disk
# full and read-only cases need root (they mount a small tmpfs).
set -euo pipefail
cd "$(dirname "$0")/../.."
export HOLOMEM_FAULTS=1 HOLOMEM_FAULT_TRIALS="${HOLOMEM_FAULT_TRIALS:-100}"
go test -count=1 -timeout 3h -v -run 'TestFault' ./internal/testkit/faults/ | grep -E '^(--- |ok|FAIL|PASS)|FIGURE'
