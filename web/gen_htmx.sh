#!/usr/bin/env bash
# Fetches htmx from the npm registry (package htmx.org, pinned), checks the
# tarball against the committed SHA-256 and copies the minified script and
# its licence into assets/. Run by `go generate ./web`; the results are
# committed, so building holomem needs neither npm nor the network.
set -euo pipefail
cd "$(dirname "$0")"

VERSION=2.0.11
SHA256=165a2655073e9e6e55e307a7c74e8ebcdb76afb7701f9c16cfd106a13add408e

command -v npm >/dev/null || { echo "gen_htmx.sh: npm is needed to fetch htmx.org@$VERSION" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "htmx.org@$VERSION" >/dev/null)
tgz="$tmp/htmx.org-$VERSION.tgz"
got=$(sha256sum "$tgz" | cut -d' ' -f1)
if [ "$got" != "$SHA256" ]; then
  echo "gen_htmx.sh: htmx.org-$VERSION.tgz has SHA-256 $got, want $SHA256: refusing it" >&2
  exit 1
fi
tar -xzf "$tgz" -C "$tmp" package/dist/htmx.min.js package/LICENSE
cp "$tmp/package/dist/htmx.min.js" assets/htmx.min.js
cp "$tmp/package/LICENSE" assets/htmx.LICENSE
echo "htmx.org@$VERSION -> web/assets/htmx.min.js (+ htmx.LICENSE)"
