#!/usr/bin/env bash
# Runs a command (`npm start`, `npm test`, the other suites) on a Node.js that metaops supports: the `node` on PATH
# when it satisfies package.json's `engines` (>=22), else the line CI and the image run (26), installed once from
# the npm registry by scripts/node.sh into ~/.cache/metaops/node/ and put first on PATH, with a line saying so.
# Why: Node 20 (end of life April 2026) runs the code but breaks it where it matters (an AbortSignal.timeout()
# combined with AbortSignal.any() can be garbage-collected and never fire, so an S3 call's deadline is lost), and a
# dependency needs 22. METAOPS_NODE=system keeps the Node on PATH, whatever it is.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
min=$(sed -nE 's/^\s*"node": ">=([0-9]+).*/\1/p' "$here/../package.json" | head -n 1)
have=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "${METAOPS_NODE:-}" != system ] && [ "$have" -lt "${min:-22}" ]; then
  dir=$(bash "$here/node.sh")
  echo "metaops: Node.js $(node --version 2>/dev/null || echo '(none)') is older than the supported ${min:-22}; running on $("$dir/node" --version) from $dir (scripts/with-node.sh; METAOPS_NODE=system to keep yours)" >&2
  export PATH="$dir:$PATH"
fi
exec "$@"
