#!/bin/sh
# Installs what the reference scripts need, from a fresh clone: Debian's
# python3-numpy and python3-onnx (for ref.py, run by /usr/bin/python3) and
# onnxruntime-node from package-lock.json (for run.js and time.js). Each
# step is skipped when already done. Run from anywhere.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if ! /usr/bin/python3 -c 'import numpy, onnx' 2>/dev/null; then
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get update -q
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q python3-numpy python3-onnx
fi
if [ ! -d "$here/node_modules/onnxruntime-node" ]; then
	# --ignore-scripts: the install script only fetches GPU binaries; the
	# CPU provider ships in the package.
	(cd "$here" && npm ci --ignore-scripts --no-audit --no-fund)
fi
/usr/bin/python3 -c 'import numpy, onnx; print("numpy", numpy.__version__, "onnx", onnx.__version__)'
(cd "$here" && node -e 'console.log("onnxruntime-node", require("onnxruntime-node/package.json").version)')
