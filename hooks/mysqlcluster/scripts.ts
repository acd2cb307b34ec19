// The shell scripts the MySQL pods run (bash, as in the official mysql image). Member 0 is the primary; members
// 1..N-1 replicate from it with GTIDs. test/mysqlcluster-real.test.ts runs these same texts against real servers.
//
// They read only their environment:
//   POD_NAME              the pod's name, <cluster>-<ordinal> (the downward API)
//   MYSQL_ROOT_PASSWORD   config only: written into the client option file, never onto a command line
//   REPLICATION_PASSWORD  replication only: the password of the `replication` user
//   PRIMARY_HOST, PRIMARY_PORT  replication only: member 0's stable DNS name and port
//   MYSQL_PORT            the local server's port (3306)
//   CONF_DIR              where the server's extra option file goes (/etc/mysql/conf.d)
//   CLIENT_DIR            where the client option file goes (an in-memory volume)
//
// The SQL stays within what MySQL 8.0.23+ and MariaDB 10.5+ both accept (START REPLICA, SHOW REPLICA STATUS,
// CREATE USER IF NOT EXISTS, the REPLICATION SLAVE privilege). The one statement they do not share is the one
// that points a replica at its source: MySQL's CHANGE REPLICATION SOURCE TO ... SOURCE_AUTO_POSITION=1 (GTIDs,
// and the source's public key for caching_sha2_password without TLS), MariaDB's CHANGE MASTER TO ...
// MASTER_USE_GTID=slave_pos. The script asks the server which it is. Options only one of them knows are
// written with the `loose-` prefix, which the other ignores.
//
// Written with String.raw and without any `${`, so that what TypeScript holds is byte for byte what bash runs.

/**
 * The member ordinal, from POD_NAME, and the client that reads the password from the option file. Column names
 * stay on (no -N) unless asked: SHOW REPLICA STATUS\G is read by them.
 */
const common = String.raw`ordinal=$(printf '%s' "$POD_NAME" | sed 's/.*-//')
case "$ordinal" in ''|*[!0-9]*) echo "cannot read a member ordinal from POD_NAME=$POD_NAME" >&2; exit 1 ;; esac
sql() { mysql --defaults-extra-file="$CLIENT_DIR/root.cnf" -B "$@"; }
`;

/** Init container: the server's replication options and the client option file (the root password). */
export const CONFIG_SCRIPT =
  String.raw`set -eu
` +
  common +
  String.raw`umask 077
cat > "$CONF_DIR/replication.cnf" <<EOF
# Written by metaops for member $ordinal (0 is the primary): a unique server id, a binary log and GTIDs.
[mysqld]
server-id=$((100 + ordinal))
log-bin=mysql-bin
loose-log-slave-updates=ON
loose-gtid-mode=ON
loose-enforce-gtid-consistency=ON
EOF
quote() { printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g'; }
{
  echo '[client]'
  echo 'user=root'
  printf 'password="%s"\n' "$(quote "$MYSQL_ROOT_PASSWORD")"
  echo 'host=127.0.0.1'
  echo "port=$MYSQL_PORT"
  echo 'protocol=TCP'
} > "$CLIENT_DIR/root.cnf"
echo "member $ordinal configured"
`;

/**
 * Sidecar: on member 0, makes the server writable and the `replication` user exist with the Secret's password
 * (once: it is written to the binary log, and so reaches the replicas); on the others, points the server at
 * member 0, starts replication, restarts it if it stops, and keeps the server read-only.
 */
export const REPLICATION_SCRIPT =
  String.raw`set -u
trap 'kill $! 2>/dev/null; exit 0' TERM INT
` +
  common +
  String.raw`pause() { sleep "$1" & wait $!; }
quote() { printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e "s/'/''/g"; }
until sql -e 'SELECT 1' >/dev/null 2>&1; do pause 2; done
if sql -N -e 'SELECT VERSION()' | grep -qi mariadb; then flavour=mariadb; else flavour=mysql; fi
password=$(quote "$REPLICATION_PASSWORD")
primary() {
  sql <<SQL
SET GLOBAL read_only = OFF;
CREATE USER IF NOT EXISTS 'replication'@'%' IDENTIFIED BY '$password';
ALTER USER 'replication'@'%' IDENTIFIED BY '$password';
GRANT REPLICATION SLAVE ON *.* TO 'replication'@'%';
SQL
}
replica() {
  status=$(sql -e 'SHOW REPLICA STATUS\G') || return 1
  if [ -z "$status" ]; then
    if [ "$flavour" = mariadb ]; then
      change="CHANGE MASTER TO MASTER_HOST='$PRIMARY_HOST', MASTER_PORT=$PRIMARY_PORT, MASTER_USER='replication', MASTER_PASSWORD='$password', MASTER_CONNECT_RETRY=5, MASTER_USE_GTID=slave_pos"
    else
      change="CHANGE REPLICATION SOURCE TO SOURCE_HOST='$PRIMARY_HOST', SOURCE_PORT=$PRIMARY_PORT, SOURCE_USER='replication', SOURCE_PASSWORD='$password', SOURCE_CONNECT_RETRY=5, SOURCE_AUTO_POSITION=1, GET_SOURCE_PUBLIC_KEY=1"
    fi
    printf '%s;\nSTART REPLICA;\n' "$change" | sql || return 1
    echo "member $ordinal replicates from $PRIMARY_HOST:$PRIMARY_PORT"
  elif ! printf '%s\n' "$status" | grep -Eq '_IO_Running: Yes' || ! printf '%s\n' "$status" | grep -Eq '_SQL_Running: Yes'; then
    sql -e 'START REPLICA' || return 1
  fi
  sql -e 'SET GLOBAL super_read_only = ON' 2>/dev/null || sql -e 'SET GLOBAL read_only = ON'
}
if [ "$ordinal" = 0 ]; then
  until primary; do pause 5; done
  echo "member 0 is the primary"
  while :; do pause 3600; done
fi
while :; do
  replica || echo "member $ordinal: replication not set up yet, retrying" >&2
  pause 10
done
`;

/**
 * Readiness of the sidecar: member 0 is writable and has the replication user; another member's replication
 * threads both run. A member that is not replicating is not Ready, so it leaves the read Service.
 */
export const REPLICATION_PROBE =
  String.raw`set -u
` +
  common +
  String.raw`if [ "$ordinal" = 0 ]; then
  [ "$(sql -N -e 'SELECT @@global.read_only')" = 0 ] && [ "$(sql -N -e "SELECT COUNT(*) FROM mysql.user WHERE user = 'replication'")" -ge 1 ]
else
  status=$(sql -e 'SHOW REPLICA STATUS\G') && printf '%s\n' "$status" | grep -Eq '_IO_Running: Yes' && printf '%s\n' "$status" | grep -Eq '_SQL_Running: Yes'
fi
`;

/**
 * Readiness of the server: a query as root with the password from the option file. Unlike `mysqladmin ping`
 * (which succeeds on "Access denied"), this fails on an authentication error.
 */
export const SERVER_PROBE = ['mysql', '--defaults-extra-file=/etc/mysql-client/root.cnf', '-N', '-B', '-e', 'SELECT 1'];
