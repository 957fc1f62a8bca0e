#!/usr/bin/env bash
# A throwaway PostgreSQL server for the test suite's second pass (scripts/test.sh).
#
#   scripts/postgres.sh start DIR [PID]
#                                   DIR: a new, empty directory (mktemp -d); PID: the
#                                   process the cluster is for (default: the caller),
#                                   kept in DIR.owner. Installs
#                                   Debian's postgresql package if no server is installed,
#                                   creates a cluster in DIR, starts it on a free port of
#                                   127.0.0.1 with the role `tessera` (password `tessera`,
#                                   allowed to create databases: every test server makes
#                                   its own) and prints the URL for TESSERA_TEST_DATABASE_URL.
#   scripts/postgres.sh stop DIR    stops that cluster and removes DIR.
#   scripts/postgres.sh restart DIR restarts that cluster (fast: open sessions are ended),
#                                   on the same port, for the database-fault tests.
#   scripts/postgres.sh standby DIR PRIMARY [PID]
#                                   makes DIR a streaming standby of the cluster in PRIMARY
#                                   (pg_basebackup), on a port of its own, makes the primary
#                                   wait for it at each commit (synchronous replication), and
#                                   prints its URL. `stop DIR` removes it like any other.
#   scripts/postgres.sh halt DIR    stops that cluster and keeps it (a primary gone away).
#   scripts/postgres.sh promote DIR promotes that standby to a primary (a switch-over).
#
# The cluster belongs to one test run: the machine's own clusters are never touched, two
# runs at once do not meet, and the databases a run creates go away with it instead of
# piling up (a shared cluster that had collected thousands once took longer to recover
# than pg_ctl waits). Clusters of earlier runs whose owner process is gone (killed runs)
# are stopped and removed at the next start. It runs with fsync off: it is thrown away after the run, and
# the tests kill Tessera, never PostgreSQL.
set -euo pipefail

action="${1:-}"
dir="${2:-}"
owner="${3:-$PPID}"
case "$action" in
    start | stop | restart | halt | promote) ;;
    standby)
        primary="${3:-}"
        owner="${4:-$PPID}"
        ;;
    *) dir="" ;;
esac
if [ -z "$dir" ] || { [ "$action" = standby ] && [ -z "$primary" ]; }; then
    echo "usage: scripts/postgres.sh start DIR [PID] | stop DIR | restart DIR | standby DIR PRIMARY [PID] | halt DIR | promote DIR" >&2
    exit 2
fi
dir="${dir%/}"

sudo=""
if [ "$(id -u)" != "0" ]; then sudo="sudo"; fi
# initdb and the server refuse to run as root; root runs them as `postgres`.
as_owner() {
    if [ "$(id -u)" = "0" ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
# The newest installed server (client-only versions have no initdb).
server_bin() {
    for version in $(ls /usr/lib/postgresql 2>/dev/null | sort -rn); do
        if [ -x "/usr/lib/postgresql/$version/bin/initdb" ]; then
            echo "/usr/lib/postgresql/$version/bin"
            return
        fi
    done
}
# Whether the cluster in $1 has a server running: its postmaster.pid names a live
# postgres whose working directory is $1 (not some other process that got the pid).
running() {
    local pid
    pid="$(head -1 "$1/postmaster.pid" 2>/dev/null || true)"
    [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null || true)" = postgres ] &&
        [ "$(readlink "/proc/$pid/cwd" 2>/dev/null || true)" = "$(readlink -f "$1")" ]
}
stop_cluster() {
    local bin
    bin="$(server_bin)"
    if running "$1" && [ -n "$bin" ]; then
        as_owner "$bin/pg_ctl" -D "$1" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$1" "$1.owner"
}

if [ "$action" = stop ]; then
    stop_cluster "$dir"
    exit 0
fi
if [ "$action" = restart ]; then
    as_owner "$(server_bin)/pg_ctl" -D "$dir" -l "$dir/server.log" -m fast -w -t 60 restart >/dev/null
    exit 0
fi

if [ "$action" = halt ]; then
    as_owner "$(server_bin)/pg_ctl" -D "$dir" -m fast -w -t 60 stop >/dev/null
    exit 0
fi
if [ "$action" = promote ]; then
    as_owner "$(server_bin)/pg_ctl" -D "$dir" -w -t 60 promote >/dev/null
    exit 0
fi
# A free port of 127.0.0.1.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
if [ "$action" = standby ]; then
    primary="${primary%/}"
    bin="$(server_bin)"
    primary_port="$(sed -n 4p "$primary/postmaster.pid")"
    echo "$owner" >"$dir.owner"
    mkdir -p "$dir"
    chmod 700 "$dir"
    if [ "$(id -u)" = "0" ]; then chown postgres: "$dir"; fi
    # A copy of the primary that keeps streaming from it (-R writes primary_conninfo and
    # standby.signal); initdb's pg_hba lets the local postgres role replicate.
    as_owner "$bin/pg_basebackup" -h "$primary" -p "$primary_port" -U postgres -D "$dir" -R -X stream -c fast 2> >(grep -v "skipping special file" >&2) >/dev/null
    port="$(free_port)"
    printf "port = %s\nunix_socket_directories = '%s'\n" "$port" "$dir" | as_owner tee -a "$dir/postgresql.conf" >/dev/null
    if ! as_owner "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 120 start >/dev/null; then
        cat "$dir/server.log" >&2
        exit 1
    fi
    # The primary acknowledges a commit once the standby has it.
    as_owner "$bin/psql" -h "$primary" -p "$primary_port" -U postgres -d postgres -qAtc \
        "ALTER SYSTEM SET synchronous_standby_names = '*'" -c "SELECT pg_reload_conf()" >/dev/null
    for _ in $(seq 1 100); do
        state="$(as_owner "$bin/psql" -h "$primary" -p "$primary_port" -U postgres -d postgres -qAtc \
            "SELECT sync_state FROM pg_stat_replication LIMIT 1")"
        [ "$state" = sync ] && break
        sleep 0.1
    done
    if [ "$state" != sync ]; then
        echo "the standby did not become synchronous (state: ${state:-none})" >&2
        exit 1
    fi
    echo "postgres://tessera:tessera@127.0.0.1:$port/tessera?sslmode=disable"
    exit 0
fi

if [ -z "$(server_bin)" ]; then
    echo "Installing PostgreSQL…" >&2
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null
fi
bin="$(server_bin)"

# What killed runs left behind: clusters whose owner process is gone.
for stale in "$(dirname "$dir")"/tessera-test-postgres.*; do
    if [ -d "$stale" ] && [ "$stale" != "$dir" ]; then
        stale_owner="$(cat "$stale.owner" 2>/dev/null || true)"
        # (One without an owner yet may be another run's, just made: leave it a while.)
        if [ -z "$stale_owner" ] && [ -n "$(find "$stale" -maxdepth 0 -mmin -10)" ]; then continue; fi
        if [ -z "$stale_owner" ] || ! kill -0 "$stale_owner" 2>/dev/null; then
            stop_cluster "$stale" || true
        fi
    fi
done

echo "$owner" >"$dir.owner"
mkdir -p "$dir"
if [ -n "$(ls -A "$dir")" ]; then
    echo "$dir is not empty" >&2
    exit 1
fi
chmod 700 "$dir"
if [ "$(id -u)" = "0" ]; then chown postgres: "$dir"; fi
port="$(free_port)"

log="$(mktemp)"
if ! as_owner "$bin/initdb" -D "$dir" -U postgres -E UTF8 --no-locale \
    --auth-local=trust --auth-host=scram-sha-256 >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    exit 1
fi
rm -f "$log"
# The suite runs many servers at once, each with its own small pool (and the e-mail,
# webhook and feed tests several nodes each).
cat >>"$dir/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
max_connections = 1000
fsync = off
full_page_writes = off
EOF
if ! as_owner "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 120 start >/dev/null; then
    cat "$dir/server.log" >&2
    exit 1
fi
psql_admin() { as_owner "$bin/psql" -h "$dir" -p "$port" -U postgres -d postgres -qAtc "$1"; }
psql_admin "CREATE ROLE tessera LOGIN PASSWORD 'tessera' CREATEDB" >&2
psql_admin "CREATE DATABASE tessera OWNER tessera" >&2
echo "postgres://tessera:tessera@127.0.0.1:$port/tessera?sslmode=disable"
