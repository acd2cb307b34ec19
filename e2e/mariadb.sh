#!/usr/bin/env bash
# Installs a MySQL-compatible server (Debian's MariaDB) for the MySQLCluster replication test, once.
# Needs root (apt-get). Prints the directory holding mariadbd/mysqld and the client on the last line of stdout.
# Exits non-zero with a reason on stderr when it cannot be installed; the test then skips loudly.
set -euo pipefail
find_server() {
  for d in /usr/sbin /usr/bin /usr/local/bin; do
    if [ -x "$d/mariadbd" ] || [ -x "$d/mysqld" ]; then echo "$d"; return 0; fi
  done
  return 1
}
have_all() { find_server >/dev/null && command -v mysql >/dev/null 2>&1 && command -v mariadb-install-db >/dev/null 2>&1; }
if have_all; then
  find_server
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "mariadb: not installed, and installing needs root and apt-get" >&2
  exit 1
fi
LOCK=${TMPDIR:-/tmp}/metaops-mariadb-install.lock
exec 9>"$LOCK"
flock 9
if ! have_all; then
  echo "mariadb: installing mariadb-server with apt-get" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 || true
  # --no-install-recommends: the server and client only. The package's own service is not started here
  # (no init system); the test runs its own servers on loopback.
  apt-get install -y -qq --no-install-recommends mariadb-server mariadb-client >&2
fi
find_server
