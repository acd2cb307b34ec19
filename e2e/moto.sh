#!/usr/bin/env bash
# Installs moto (an S3/IAM-compatible server) from PyPI into a virtual environment outside the clone, once.
# Prints the path of moto_server on the last line of stdout.
set -euo pipefail
MOTO_VERSION=5.2.5
VENV=${METAOPS_MOTO_VENV:-$HOME/.cache/metaops/moto-$MOTO_VERSION}
mkdir -p "$(dirname "$VENV")"
# Several test files may ask at once on a new machine: one install at a time.
exec 9>"$VENV.lock"
flock 9
if [ ! -x "$VENV/bin/moto_server" ]; then
  echo "moto: installing moto[server]==$MOTO_VERSION into $VENV" >&2
  rm -rf "$VENV"
  python3 -m venv "$VENV" >&2
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "moto[server]==$MOTO_VERSION" >&2
fi
echo "$VENV/bin/moto_server"
