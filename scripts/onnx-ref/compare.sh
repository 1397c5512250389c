#!/bin/sh
# Times the Go encoder and ONNX Runtime on the same model and token ids,
# one thread each, ROUNDS times alternately (Go, ORT, Go, ORT, ...) so that
# both see the same machine load, and prints the median over rounds of the
# per-case medians: wall and CPU ms per text, and the ratios Go/ORT.
#
# Usage: scripts/onnx-ref/compare.sh MODEL_DIR [ROUNDS]   (from the repo root)
#
# MODEL_DIR is a model made by `holomem bench embed --keep` or
# embed.GenerateModel (or a real one); ref.py builds its graph into
# scripts/onnx-ref/build/ once, and writes MODEL_DIR/inputs.json if absent.
set -eu
dir=${1:?usage: compare.sh MODEL_DIR [ROUNDS]}
rounds=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
name=$(basename "$(cd "$dir" && pwd)")
prefix="$here/build/$name"
sh "$here/setup.sh" >/dev/null
[ -f "$prefix.onnx" ] || /usr/bin/python3 "$here/ref.py" "$dir" "$prefix"
bin="$here/build/holomem"
(cd "$root" && go build -o "$bin" ./cmd/holomem)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
i=1
while [ "$i" -le "$rounds" ]; do
	"$bin" bench embed --speed-only "$dir" >>"$out/go.tsv"
	node "$here/time.js" "$prefix" >>"$out/ort.tsv"
	i=$((i + 1))
done
echo "model $dir, $rounds rounds, load average $(cut -d' ' -f1-3 /proc/loadavg)"
awk -F'\t' '
function median(list,   n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return a[int((n + 1) / 2)]
}
FNR == 1 { side++ }
{
	if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
	wall[side, $1] = wall[side, $1] " " $2
	cpu[side, $1] = cpu[side, $1] " " $3
}
END {
	printf "%-24s %12s %12s %12s %12s %9s %9s\n", "case", "Go wall", "ORT wall", "Go CPU", "ORT CPU", "wall G/O", "CPU G/O"
	for (i = 1; i <= n; i++) {
		k = order[i]
		gw = median(wall[1, k]); ow = median(wall[2, k]); gc = median(cpu[1, k]); oc = median(cpu[2, k])
		printf "%-24s %12.2f %12.2f %12.2f %12.2f %9.2f %9.2f\n", k, gw, ow, gc, oc, (ow > 0 ? gw / ow : 0), (oc > 0 ? gc / oc : 0)
	}
	print "(times in ms per text; load in ms; peak RSS in MB)"
}' "$out/go.tsv" "$out/ort.tsv"
