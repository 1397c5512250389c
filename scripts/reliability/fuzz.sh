#!/usr/bin/env bash
# Runs every fuzz target at holomem's doors for FUZZTIME each (default 20s):
# HTTP bodies and the web forms, MCP lines and tool arguments, the importers, the model
# parsers, the vector decoders, full-text queries. .ci/run calls it; a
# longer run: FUZZTIME=5m bash scripts/reliability/fuzz.sh
# Each target has a committed seed corpus in its package's
# testdata/fuzz/FuzzXxx/ (inputs a short fuzzing run found interesting), run
# by plain `go test` too. A failure leaves its input there: commit it with
# the fix, it becomes part of the seed corpus.
set -euo pipefail
cd "$(dirname "$0")/../.."
FUZZTIME="${FUZZTIME:-20s}"
targets=(
  "./web/ FuzzServer_Decode"
  "./web/ FuzzServer_Query"
  "./web/ FuzzUI_Forms"
  "./mcpserver/ FuzzGuardLines"
  "./mcpserver/ FuzzToolArguments"
  "./importer/ FuzzJSONL"
  "./importer/ FuzzGitHub"
  "./importer/ FuzzMarkdownNote"
  "./importer/ FuzzGitLog"
  "./embed/ FuzzReadSafetensorsHeader"
  "./embed/ FuzzReadConfig"
  "./spm/ FuzzFromModelProto"
  "./spm/ FuzzFromTokenizerJSON"
  "./hnsw/ FuzzUnmarshalBinary"
  "./hrr/ FuzzUnmarshal"
  "./vec/ FuzzUnmarshal"
  "./sqlite/ FuzzSearchText"
  "./text/ FuzzTokens"
)
for t in "${targets[@]}"; do
  set -- $t
  echo "-- fuzz $1 $2 ($FUZZTIME)"
  # Go's fuzz coordinator can end a starved worker with only "context
  # deadline exceeded" and no failing input; that run is repeated once. A
  # real failure writes its input under testdata/fuzz and fails again.
  if ! out=$(go test -run '^$' -fuzz "^$2\$" -fuzztime "$FUZZTIME" "$1" 2>&1); then
    echo "$out"
    if echo "$out" | grep -q 'context deadline exceeded' && ! echo "$out" | grep -q 'Failing input written'; then
      echo "-- $2: the fuzz engine timed out without a failing input; running it again"
      go test -run '^$' -fuzz "^$2\$" -fuzztime "$FUZZTIME" "$1"
    else
      exit 1
    fi
  else
    echo "$out" | tail -3
  fi
done
