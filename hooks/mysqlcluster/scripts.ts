// The shell scripts the MySQL pods run (bash, as in the official mysql image). Member 0 is the primary; members
// 1..N-1 replicate from it with GTIDs. test/mysqlcluster-real.test.ts runs these same texts against real servers.
//
// They read only their environment:
//   POD_NAME              the pod's name, <cluster>-<ordinal> (the downward API)
//   MYSQL_ROOT_PASSWORD   config only: written into the client option file, never onto a command line
//   REPLICATION_PASSWORD  replication only: the password of the `replication` user
//   PRIMARY_HOST, PRIMARY_PORT  replication only: member 0's stable DNS name and port
//   PEER_HOST_FORMAT      replication only: the members' DNS names, as a printf format of the ordinal
//                         (<statefulset>-%s.<headless>); member 0 asks members 1..8 what they hold
//   PEERS_FILE            replication only: the ordinals of the members that may hold data, as the hook last wrote
//                         them (a key of the cluster's Secret, mounted, so it follows a scale without a restart)
//   PEER_TRIES, PEER_TIMEOUT  replication only, optional: rounds (12) and seconds a peer's answer may take (10)
//   WATCH_SECONDS         replication only, optional: how often member 0's open sidecar looks whether its server
//                         started again or is read-only again (1)
//   TERMINATION_LOG       replication only: where member 0 says why it will not open (/dev/termination-log, which
//                         the kubelet reports as the container's termination message)
//   MYSQL_HOST, MYSQL_PORT  the local server's address and port (127.0.0.1, 3306)
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
// Every member's server starts read-only (the option file says so); member 0's sidecar first closes it to root too
// (MySQL super_read_only, MariaDB tx_read_only), and opens it for writes only once it has checked that no other
// member holds a transaction or a cluster history id (metaops.history) it lacks (a data directory lost and initialised
// again, a volume restored from an old backup). Otherwise it stays read-only and its sidecar exits with a message that
// starts with PRIMARY_BEHIND or PRIMARY_UNVERIFIED; the kubelet restarts it (checking again), and the hook reads
// the message from the pod's status (sync.ts primaryRefusal).
//
// Written with String.raw and without any `${`, so that what TypeScript holds is byte for byte what bash runs.

/** The start of member 0's termination message when a replica holds transactions it lacks. */
export const PRIMARY_BEHIND = 'primary-behind:';
/**
 * The start of member 0's termination message when it has no data and a member that may hold data cannot be asked
 * (its name does not resolve, it does not answer, or another server answers at its address).
 */
export const PRIMARY_UNVERIFIED = 'primary-unverified:';

/**
 * The member ordinal, from POD_NAME, and the client that reads the password from the option file. Column names
 * stay on (no -N) unless asked: SHOW REPLICA STATUS\G is read by them.
 */
const common = String.raw`ordinal=$(printf '%s' "$POD_NAME" | sed 's/.*-//')
case "$ordinal" in ''|*[!0-9]*) echo "cannot read a member ordinal from POD_NAME=$POD_NAME" >&2; exit 1 ;; esac
sql() { mysql --defaults-extra-file="$CLIENT_DIR/root.cnf" -B "$@"; }
`;

/**
 * Where a replica's sidecar records the last position of member 0's it has caught up with (REPLICATION_SCRIPT
 * catch_up): on the pod's in-memory volume, so that it lasts as long as the pod (container restarts included) and a new
 * pod, as on a new volume, starts without it.
 */
const CAUGHT_UP = String.raw`caught_up_file="$CLIENT_DIR/caught-up"
`;

/**
 * Which server this is (MySQL or MariaDB: flavour_of), the transactions it holds (position) and whether it lacks
 * one of a position (lacks): shared by the sidecar and its readiness probe.
 */
const GTIDS = String.raw`# The transactions this server holds: MySQL's gtid_executed, MariaDB's gtid_current_pos (one domain-server-seq per
# replication domain); empty for a data directory that never took a logged transaction.
flavour_of() {
  if sql -N -e 'SELECT VERSION()' | grep -qi mariadb; then flavour=mariadb; else flavour=mysql; fi
  if [ "$flavour" = mariadb ]; then own_query='@@global.gtid_current_pos'; else own_query="REPLACE(@@global.gtid_executed, '\n', '')"; fi
}
position() { sql --connect-timeout=3 -N -e "SELECT $own_query"; }
# MariaDB: whether position $2 lacks a transaction position $1 has: 0 it does, 1 it does not, 2 a position cannot be
# read. A domain is held only as far as the same server wrote it: a higher sequence number, or the domain's last
# transaction written by another server id (a history of its own, not one that is ahead), means lacking.
lacks_mariadb() {
  local IFS=, theirs=$1 mine=$2 entry d own domain server seq
  for entry in $theirs; do
    case "$entry" in *[!0-9-]*|'') return 2 ;; esac
    IFS=-; set -- $entry; IFS=,
    [ "$#" -eq 3 ] || return 2
    domain=$1; server=$2; seq=$3; own=''
    for d in $mine; do
      IFS=-; set -- $d; IFS=,
      if [ "$#" -eq 3 ] && [ "$1" = "$domain" ] && [ "$2" = "$server" ]; then own=$3; fi
    done
    if [ -z "$own" ] || [ "$seq" -gt "$own" ]; then return 0; fi
  done
  return 1
}
# Whether this server (MariaDB: its position own_position) lacks a transaction of position $1: 0 it does, 1 it does
# not, 2 cannot tell.
lacks() {
  if [ "$flavour" = mariadb ]; then lacks_mariadb "$1" "$own_position"; return; fi
  case "$1" in *[!0-9A-Za-z:,_-]*) return 2 ;; esac
  local subset
  subset=$(sql -N -e "SELECT GTID_SUBSET('$1', REPLACE(@@global.gtid_executed, '\n', ''))") || return 2
  case "$subset" in 0) return 0 ;; 1) return 1 ;; *) return 2 ;; esac
}
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
# Read-only until the replication sidecar opens member 0 (replication threads and root are not held back).
read_only=ON
EOF
# One option value whatever the password holds: a newline or carriage return written as the option file's own escape
# (\n, \r), never as a line of its own (the file would take it as another option: plugin-dir, default-auth...).
quote() { printf '%s' "$1" | sed -z -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\n/\\n/g' -e 's/\r/\\r/g'; }
{
  echo '[client]'
  echo 'user=root'
  printf 'password="%s"\n' "$(quote "$MYSQL_ROOT_PASSWORD")"
  echo "host=$MYSQL_HOST"
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
PEER_TRIES=$(printenv PEER_TRIES || echo 12)
PEER_TIMEOUT=$(printenv PEER_TIMEOUT || echo 10)
PEERS_FILE=$(printenv PEERS_FILE || echo /nonexistent)
WATCH_SECONDS=$(printenv WATCH_SECONDS || echo 1)
` +
  common +
  GTIDS +
  CAUGHT_UP +
  String.raw`pause() { sleep "$1" & wait $!; }
quote() { printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e "s/'/''/g"; }
until sql -e 'SELECT 1' >/dev/null 2>&1; do pause 2; done
flavour_of
password=$(quote "$REPLICATION_PASSWORD")
# The cluster's history: an id member 0 writes (as the comment of the table metaops.history, through the binary
# log, so that every replica holds it too) when it first opens after checking its peers. A data directory without it
# was never opened by a checked member 0: initialised again after a loss (whatever root wrote to it since), or
# written by a metaops before this one. A member that holds another history (or one member 0 lacks) holds
# transactions member 0 does not, whatever the GTID positions say (MariaDB's carry no server identity of their own).
history_query="COALESCE((SELECT table_comment FROM information_schema.tables WHERE table_schema = 'metaops' AND table_name = 'history'), '')"
# While member 0 is not open: no client writes, root included. MySQL: super_read_only binds every account. MariaDB
# has none that binds root (read_only does not bind READ ONLY ADMIN, which root holds): read-only transactions by
# default (tx_read_only), which refuse every statement that writes, DDL included, as root too.
if [ "$flavour" = mariadb ]; then
  gate='SET GLOBAL tx_read_only = ON'; ungate='SET SESSION tx_read_only = OFF; SET GLOBAL tx_read_only = OFF'
else
  gate='SET GLOBAL super_read_only = ON'; ungate='SET GLOBAL super_read_only = OFF'
fi
# Member 0 will not open: the reason where the kubelet reports it (the termination message), then exit.
refuse() {
  printf '%s\n' "$1" > "$TERMINATION_LOG" 2>/dev/null || true
  echo "member 0 stays read-only: $1" >&2
  exit 3
}
# Member 0 opens only when no other member holds a transaction it lacks. The members that may hold data are those
# PEERS_FILE lists (the hook writes the ordinals 1..size-1 and those of every data volume of the cluster; a file that
# is missing lists 1..8): each is asked, for up to PEER_TRIES rounds five seconds apart, as the server that answers
# at its name with its own server id (100 + ordinal; another server at a stale address is not it), within
# PEER_TIMEOUT seconds. A member whose name does not resolve (its pod has no address yet: Pending, or on a lost
# node), that refuses, times out, or answers as another server cannot be asked: unknown. An empty member 0 never
# opens while a member is unknown, nor one with data but without the cluster's history (writes made while unverified);
# one with both opens (a restart of the whole cluster may start member 0 first),
# without waiting for a member whose name does not resolve.
# A member 1..8 not listed is asked when its name resolves (a pod still running after a scale-down) and skipped
# when it does not.
check_primary() {
  own_position=$(position) || return 1
  own_history=$(sql --connect-timeout=3 -N -e "SELECT $history_query") || return 1
  # Data counts only with the history: writes taken while unverified do not make member 0 one that may open alone.
  local verified=''
  if [ -n "$own_position" ] && [ -n "$own_history" ]; then verified=yes; fi
  local i host out id pos theirs listed peers behind='' unknown='' round tries=$PEER_TRIES why shown
  if [ -r "$PEERS_FILE" ]; then listed=$(tr -c '0-9' ' ' < "$PEERS_FILE"); else listed='1 2 3 4 5 6 7 8'; fi
  peers=''
  for i in 1 2 3 4 5 6 7 8; do
    host=$(printf "$PEER_HOST_FORMAT" "$i")
    case " $listed " in
      *" $i "*) peers="$peers $i" ;;
      *) getent hosts "$host" >/dev/null 2>&1 && peers="$peers $i" ;;
    esac
  done
  round=1
  while [ -n "$peers" ]; do
    local waiting='' reasons=''
    for i in $peers; do
      host=$(printf "$PEER_HOST_FORMAT" "$i")
      if ! getent hosts "$host" >/dev/null 2>&1; then
        why="$host does not resolve (its pod has no address)"
        # A verified member 0 does not wait for a pod that is not there: it opens whatever that member holds.
        if [ -n "$verified" ]; then unknown="$unknown $why;"; continue; fi
      elif ! out=$(timeout "$PEER_TIMEOUT" mysql --defaults-extra-file="$CLIENT_DIR/root.cnf" -B -N --connect-timeout=3 -h "$host" -e "SELECT @@global.server_id, $own_query, $history_query" 2>/dev/null); then
        why="$host does not answer"
      else
        id=$(printf '%s\n' "$out" | cut -f1)
        pos=$(printf '%s\n' "$out" | cut -s -f2)
        theirs=$(printf '%s\n' "$out" | cut -s -f3)
        if [ "$id" != "$((100 + i))" ]; then
          why="$host answers as server id $id, not member $i (a stale address)"
        elif [ -n "$theirs" ] && [ "$theirs" != "$own_history" ]; then
          behind="$behind $host has $pos of the cluster's history $theirs, which member 0 does not hold;"
          continue
        else
          lacks "$pos"
          case $? in
            0) behind="$behind $host has $pos;" ;;
            2) unknown="$unknown $host answers a position that cannot be read;" ;;
          esac
          continue
        fi
      fi
      waiting="$waiting $i"; reasons="$reasons $why;"
    done
    peers=$waiting
    if [ -z "$peers" ]; then break; fi
    if [ "$round" -ge "$tries" ]; then unknown="$unknown$reasons"; break; fi
    round=$((round + 1))
    pause 5
  done
  shown=$own_position; [ -n "$shown" ] || shown='no transactions'
  if [ -n "$behind" ]; then refuse "primary-behind: member 0 has $shown;$behind"; fi
  if [ -z "$own_position" ] && [ -n "$unknown" ]; then refuse "primary-unverified: member 0 has no transactions and cannot ask every member that may hold data:$unknown"; fi
  if [ -z "$verified" ] && [ -n "$unknown" ]; then refuse "primary-unverified: member 0 has $shown but was never opened after a check (no cluster history: initialised again, or written while unverified) and cannot ask every member that may hold data:$unknown"; fi
  if [ -n "$unknown" ]; then echo "member 0 holds $shown and opens without asking:$unknown" >&2; fi
  return 0
}
primary() {
  if [ "$(sql -N -e 'SELECT @@global.read_only')" != 0 ]; then
    sql -e "$gate" || return 1
    check_primary || return 1
  fi
  local id
  id=$(sql -N -e 'SELECT UUID()') || return 1
  sql <<SQL
$ungate;
CREATE DATABASE IF NOT EXISTS metaops;
CREATE TABLE IF NOT EXISTS metaops.history (id INT PRIMARY KEY) COMMENT = 'cluster-$id';
SET GLOBAL read_only = OFF;
CREATE USER IF NOT EXISTS 'replication'@'%' IDENTIFIED BY '$password';
ALTER USER 'replication'@'%' IDENTIFIED BY '$password';
GRANT REPLICATION SLAVE ON *.* TO 'replication'@'%';
SQL
}
# A replica points at member 0 when it has no source yet, and again once at each start of this sidecar: the Secret's
# replication password (this pod's) may not be the one its volume's source configuration holds (a cluster created again
# over its volumes with a Secret that holds the root password alone gets a new one, which member 0 sets when it opens).
# With GTIDs the position is kept.
pointed=''
replica() {
  status=$(sql -e 'SHOW REPLICA STATUS\G') || return 1
  if [ -z "$status" ] || [ -z "$pointed" ]; then
    [ -z "$status" ] || sql -e 'STOP REPLICA' || return 1
    if [ "$flavour" = mariadb ]; then
      change="CHANGE MASTER TO MASTER_HOST='$PRIMARY_HOST', MASTER_PORT=$PRIMARY_PORT, MASTER_USER='replication', MASTER_PASSWORD='$password', MASTER_CONNECT_RETRY=5, MASTER_USE_GTID=slave_pos"
    else
      change="CHANGE REPLICATION SOURCE TO SOURCE_HOST='$PRIMARY_HOST', SOURCE_PORT=$PRIMARY_PORT, SOURCE_USER='replication', SOURCE_PASSWORD='$password', SOURCE_CONNECT_RETRY=5, SOURCE_AUTO_POSITION=1, GET_SOURCE_PUBLIC_KEY=1"
    fi
    printf '%s;\nSTART REPLICA;\n' "$change" | sql || return 1
    pointed=1
    echo "member $ordinal replicates from $PRIMARY_HOST:$PRIMARY_PORT"
  elif ! printf '%s\n' "$status" | grep -Eq '_IO_Running: Yes' || ! printf '%s\n' "$status" | grep -Eq '_SQL_Running: Yes'; then
    sql -e 'START REPLICA' || return 1
  fi
  sql -e 'SET GLOBAL super_read_only = ON' 2>/dev/null || sql -e 'SET GLOBAL read_only = ON'
}
# When the local server started, in seconds since the epoch (its Uptime counted back from now); fails while it does
# not answer. A server restarted in place (the kubelet restarts the mysql container alone: OOM, a liveness probe)
# comes back read-only from the option file, without the gate, and perhaps on a data directory initialised again.
started() {
  local up
  up=$(sql --connect-timeout=3 -N -e "SHOW GLOBAL STATUS LIKE 'Uptime'" 2>/dev/null | cut -s -f2) || return 1
  case "$up" in ''|*[!0-9]*) return 1 ;; esac
  echo $(( $(date +%s) - up ))
}
# Member 0 opened: when the server it checked started is taken before the check, so that a restart during or just
# after the check is seen by the watch below.
open_primary() {
  while :; do
    since=$(started) || since=''
    primary && break
    pause 5
  done
  echo "member 0 is the primary"
}
if [ "$ordinal" = 0 ]; then
  open_primary
  # Watch the server: one that is read-only again (a restart brings the option file's read_only back, however soon
  # after its last start: the start time alone cannot tell a restart within seconds), that started again since it
  # was checked, or that stopped answering meanwhile (a restart may have gone unseen) is checked again as on the
  # sidecar's own start: gated, peers asked, opened or refused.
  while :; do
    pause "$WATCH_SECONDS"
    if ! now=$(started); then since=''; continue; fi
    if [ -n "$since" ] && [ "$now" -le $((since + 2)) ] &&
      [ "$(sql --connect-timeout=3 -N -e 'SELECT @@global.read_only' 2>/dev/null)" = 0 ]; then continue; fi
    echo "member 0's server started again, is read-only again or was not reachable: checking its peers before it takes writes" >&2
    open_primary
  done
fi
# A replica serves reads (its probe passes) only once it holds what member 0 held at a point since this pod started:
# a member whose data directory was lost comes back empty and copies the cluster's whole history through replication,
# and until it has, it would answer the read Service's clients with missing databases and empty tables. Each round it
# takes member 0's position as a target (asked as the server that answers at PRIMARY_HOST with server id 100), and
# once its own position holds that target, records it (caught_up_file) and takes a new one. The probe asks that its
# position still holds the target recorded last: under ordinary lag it does (a position only grows), while a data
# directory emptied under it (or a new pod, without a record) does not until it has copied that far.
target=''; have_target=''; recorded=''
catch_up() {
  own_position=$(position) || return 1
  if [ -z "$have_target" ]; then
    local out
    out=$(timeout "$PEER_TIMEOUT" mysql --defaults-extra-file="$CLIENT_DIR/root.cnf" -B -N --connect-timeout=3 -h "$PRIMARY_HOST" -P "$PRIMARY_PORT" -e "SELECT @@global.server_id, $own_query" 2>/dev/null) || return 1
    [ "$(printf '%s\n' "$out" | cut -f1)" = 100 ] || return 1
    target=$(printf '%s\n' "$out" | cut -s -f2); have_target=1
  fi
  lacks "$target"
  case $? in
    1)
      printf '%s\n' "$target" > "$caught_up_file.new" && mv -f "$caught_up_file.new" "$caught_up_file" || return 1
      [ -n "$recorded" ] || echo "member $ordinal holds what member 0 held ($target): it serves reads"
      have_target=''; recorded=1 ;;
    2) have_target='' ;;
  esac
}
while :; do
  if replica; then catch_up; else echo "member $ordinal: replication not set up yet, retrying" >&2; fi
  # Until it first caught up, it looks again soon: its readiness waits on it.
  if [ -n "$recorded" ]; then pause 10; else pause 2; fi
done
`;

/**
 * Readiness of the sidecar: member 0 is writable and has the replication user; another member's replication
 * threads both run, or its SQL thread runs and has applied everything it received while its IO thread is connecting
 * again (member 0 restarting: the replica holds every transaction it was sent, and serves reads meanwhile), once it has
 * replicated anything at all and unless member 0 refused its credentials (Access denied, 1045: member 0 may take
 * writes this replica never gets); or, whatever its IO thread says (refused with 1045 by a member 0 whose volume was
 * lost, stopped with 1236 by one rolled back to an older copy), its SQL thread has applied everything it received and
 * member 0 answers as the primary (server id 100), read-only, at a position this replica holds all of
 * (source_closed_behind: no member takes writes, so nothing newer exists to be missed); and it still holds the
 * position of member 0's its sidecar last recorded it caught up with (catch_up): a replica on a lost (emptied)
 * volume, or a new pod that has not caught up once, is not Ready while it copies. A member that is not replicating,
 * or not caught up, is not Ready, so it leaves the read Service.
 */
export const REPLICATION_PROBE =
  String.raw`set -u
` +
  common +
  GTIDS +
  CAUGHT_UP +
  String.raw`# Whether this replica still holds the position of member 0's its sidecar recorded last (REPLICATION_SCRIPT catch_up).
caught_up() {
  local reached
  reached=$(cat "$caught_up_file" 2>/dev/null) || return 1
  flavour_of
  own_position=$(position) || return 1
  lacks "$reached"
  [ $? -eq 1 ]
}
# Whether member 0 answers as the primary, read-only (its sidecar keeps it closed: nothing takes writes), at a position
# this replica lacks nothing of: a member 0 whose volume was lost or rolled back refuses or stops the replica's IO
# thread, and the replica still holds the newest data there is.
source_closed_behind() {
  local out theirs
  flavour_of
  out=$(timeout 3 mysql --defaults-extra-file="$CLIENT_DIR/root.cnf" -B -N --connect-timeout=2 -h "$PRIMARY_HOST" -P "$PRIMARY_PORT" -e "SELECT @@global.server_id, @@global.read_only, $own_query" 2>/dev/null) || return 1
  [ "$(printf '%s\n' "$out" | cut -f1)" = 100 ] && [ "$(printf '%s\n' "$out" | cut -s -f2)" = 1 ] || return 1
  theirs=$(printf '%s\n' "$out" | cut -s -f3)
  own_position=$(position) || return 1
  lacks "$theirs"
  [ $? -eq 1 ]
}
if [ "$ordinal" = 0 ]; then
  [ "$(sql -N -e 'SELECT @@global.read_only')" = 0 ] && [ "$(sql -N -e "SELECT COUNT(*) FROM mysql.user WHERE user = 'replication'")" -ge 1 ]
else
  status=$(sql -e 'SHOW REPLICA STATUS\G') && has() { printf '%s\n' "$status" | grep -Eq "$1"; } && has '_SQL_Running: Yes' &&
    { has '_IO_Running: Yes' || { has '_SQL_Running_State: .*read all relay log' && has '(Executed_Gtid_Set|Gtid_IO_Pos): [^ ]' &&
      { { has '_IO_Running: Connecting' && ! has 'Last_IO_Errno: 1045$'; } || source_closed_behind; }; }; } && caught_up
fi
`;

/**
 * Readiness of the server: a query as root with the password from the option file. Unlike `mysqladmin ping`
 * (which succeeds on "Access denied"), this fails on an authentication error.
 */
export const SERVER_PROBE = ['mysql', '--defaults-extra-file=/etc/mysql-client/root.cnf', '-N', '-B', '-e', 'SELECT 1'];
