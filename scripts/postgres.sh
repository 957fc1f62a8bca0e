#!/usr/bin/env bash
# A throwaway PostgreSQL server for the test suite's second pass.
#
#   scripts/postgres.sh [start]   installs Debian's postgresql package if needed, creates
#                                 a new cluster in $TESSERA_TEST_PG_DIR (default
#                                 /tmp/tessera-test-postgres; whatever an earlier run
#                                 left there is stopped and removed first), starts it on
#                                 127.0.0.1:$TESSERA_TEST_PG_PORT (default 15432) with
#                                 the role `tessera` (password `tessera`, allowed to
#                                 create databases: every test server makes its own) and
#                                 prints the URL to put in TESSERA_TEST_DATABASE_URL.
#   scripts/postgres.sh stop      stops that cluster and removes its directory.
#
# The cluster belongs to the test run: the machine's own clusters are never touched, and
# the thousands of databases one run creates go away with it instead of piling up (a
# cluster that had collected them once took longer to recover than pg_ctl waits).
# It runs with fsync off: it is thrown away after the run, and the tests kill Tessera,
# never PostgreSQL.
set -euo pipefail

dir="${TESSERA_TEST_PG_DIR:-/tmp/tessera-test-postgres}"
port="${TESSERA_TEST_PG_PORT:-15432}"
action="${1:-start}"

sudo=""
if [ "$(id -u)" != "0" ]; then sudo="sudo"; fi
# initdb and the server refuse to run as root; root runs them as `postgres`.
as_owner() {
    if [ "$(id -u)" = "0" ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

if [ -z "$(ls /usr/lib/postgresql 2>/dev/null)" ]; then
    echo "Installing PostgreSQL…" >&2
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null
fi
bin="/usr/lib/postgresql/$(ls /usr/lib/postgresql | sort -n | tail -1)/bin"

stop_cluster() {
    if [ -f "$dir/postmaster.pid" ]; then
        as_owner "$bin/pg_ctl" -D "$dir" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
}

case "$action" in
    stop)
        stop_cluster
        exit 0
        ;;
    start) ;;
    *)
        echo "usage: scripts/postgres.sh [start|stop]" >&2
        exit 2
        ;;
esac

stop_cluster
if "$bin/pg_isready" -q -h 127.0.0.1 -p "$port"; [ $? -ne 2 ]; then
    echo "Port $port already has a server on it; set TESSERA_TEST_PG_PORT to a free port." >&2
    exit 1
fi
mkdir -p "$dir"
chmod 700 "$dir"
if [ "$(id -u)" = "0" ]; then chown postgres: "$dir"; fi

as_owner "$bin/initdb" -D "$dir" -U postgres -E UTF8 --no-locale \
    --auth-local=trust --auth-host=scram-sha-256 >"$dir.initdb.log" 2>&1 || {
    cat "$dir.initdb.log" >&2
    exit 1
}
rm -f "$dir.initdb.log"
# The suite runs many servers at once, each with its own small pool.
cat >>"$dir/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
max_connections = 400
fsync = off
full_page_writes = off
EOF
as_owner "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 120 start >/dev/null || {
    cat "$dir/server.log" >&2
    exit 1
}
psql_admin() { as_owner psql -h "$dir" -p "$port" -U postgres -d postgres -qAtc "$1"; }
psql_admin "CREATE ROLE tessera LOGIN PASSWORD 'tessera' CREATEDB" >&2
psql_admin "CREATE DATABASE tessera OWNER tessera" >&2
echo "postgres://tessera:tessera@127.0.0.1:$port/tessera?sslmode=disable"
