#!/bin/bash
# The figures of docs/PERFORMANCE.md: tessera bench against a fresh release-build
# server on this machine.
#
#   scripts/measure_bench.sh sqlite
#   scripts/measure_bench.sh postgres postgres://tessera:tessera@127.0.0.1:5432/tessera
#   TESSERA_BINARY=.build/x86_64-unknown-linux-gnu/release/tessera scripts/measure_bench.sh sqlite
#
# For PostgreSQL, the URL names a database on the machine's default cluster (Debian's
# 15/main) whose role may CREATE DATABASE (docs/PERFORMANCE.md shows how to create
# it); each part runs on a new database, dropped when the script ends. Run as
# root (or as a user who may `su postgres`) so the CHECKPOINT before a measurement can
# run.
#
# It prints one line per run: login at full speed (64 devices, 32 workers, as issue 14
# states its figures), login at half that rate (--rate), refresh, ciba, and login at
# half rate with 1,000 and then 1,000,000 activations in the tenant (tessera seed,
# timed). A CHECKPOINT (PostgreSQL) and 10 s of quiet come before each half-rate run.
# On PostgreSQL each line also gives the CPU of PostgreSQL's own processes per flow
# (same machine only).
set -euo pipefail
cd "$(dirname "$0")/.."
BACKEND=${1:?sqlite or postgres}
PGBASE=${2:-}
# TESSERA_BINARY measures a binary built already (the static one of packaging/release.sh).
B=${TESSERA_BINARY:-.build/release/tessera}
if [ -z "${TESSERA_BINARY:-}" ]; then
    # Incremental: quick when up to date; shown again only when it fails.
    swift build -c release --product tessera >/dev/null 2>&1 || swift build -c release --product tessera
fi
PORT=18100
DATA=$(mktemp -d /tmp/tessera-bench-XXXXXX)
export TESSERA_ADMIN_TOKEN=bench-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
export TESSERA_SERVER=http://127.0.0.1:$PORT
WORK=$(mktemp -d /tmp/tessera-bench-work-XXXXXX)
SERVER=
CREATED=()
# Stops the server and drops every database this run created (a million activations
# take gigabytes).
finish() {
    if [ -n "$SERVER" ]; then kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true; fi
    for name in ${CREATED[@]+"${CREATED[@]}"}; do
        psql -q "${PGBASE}" -c "DROP DATABASE IF EXISTS $name WITH (FORCE)" >/dev/null || true
    done
    rm -rf "$DATA" "$WORK"
}
trap finish EXIT

summary() {
    python3 -c "
import json, sys
raw = sys.stdin.read()
if not raw.strip(): sys.exit(1)  # the bench failed and said why
d = json.loads(raw); l = d['latency_ms']; c = d['cpu_ms']
errors = sum(d['errors'].values()) if d['errors'] else 0
postgres = ' postgres %.2f' % c['postgres_ms_per_flow'] if 'postgres_ms_per_flow' in c else ''
print('%-8s %-18s c=%-3s %8.1f/s  p50 %7.2f  p90 %7.2f  p99 %7.2f  p99.9 %7.2f  errors %s  cpu ms/flow: server %.2f (user %.2f, system %.2f) bench %.2f%s' % (
    '$BACKEND', d['flow'] + '${1:-}', d['concurrency'], d['flows_per_second'], l['p50'], l['p90'], l['p99'], l['p99.9'], errors,
    c['server_ms_per_flow'], c['server_user_ms_per_flow'], c['server_system_ms_per_flow'], c['bench_ms_per_flow'], postgres))"
}
start() {
    [ -n "$SERVER" ] && kill $SERVER && wait $SERVER 2>/dev/null || true
    rm -rf "$DATA"/*
    DB=()
    if [ "$BACKEND" = postgres ]; then
        local name=bench_$(date +%s)_$RANDOM
        psql -q "${PGBASE}" -c "CREATE DATABASE $name" >/dev/null
        CREATED+=("$name")
        DB=(--database "${PGBASE%/*}/$name?sslmode=disable")
    fi
    # One address sends every flow: the per-address rate limit is off for the measurement.
    $B serve --port $PORT --data-dir "$DATA" "${DB[@]}" --rate-limit-per-address 0 --rate-limit-per-client 0 --log-level error >/dev/null 2>&1 &
    SERVER=$!
    for _ in $(seq 50); do curl -sf "$TESSERA_SERVER/ready" >/dev/null && return; sleep 0.2; done
    echo "the server did not start" >&2; exit 1
}
settle() {
    if [ "$BACKEND" = postgres ]; then
        psql -q "${DB[1]}" -c CHECKPOINT >/dev/null 2>&1 || su postgres -c "psql -q -c CHECKPOINT" >/dev/null
    fi
    sleep 10
}
# On PostgreSQL on this machine: the CPU seconds of every process the postgres user runs
# (the backends, and the checkpointer and WAL writer), read around each run and added to
# the bench's JSON as postgres_ms_per_flow.
pgcpu() {
    for p in $(pgrep -u postgres); do awk '{print $14 + $15 + $16 + $17}' "/proc/$p/stat" 2>/dev/null || true; done |
        awk -v hz="$(getconf CLK_TCK)" '{s += $1} END {printf "%.3f", s / hz}'
}
# A bench that fails shows what it printed on stderr (its progress lines are left out)
# and stops the script.
bench() {
    local before=0 after
    if [ "$BACKEND" = postgres ]; then before=$(pgcpu); fi
    if ! $B bench --devices 64 --json "$@" 2> "$WORK/bench.err" > "$WORK/run.json"; then
        echo "tessera bench $* failed:" >&2
        tr '\r' '\n' < "$WORK/bench.err" | grep -v '^ *$' | tail -20 >&2
        return 1
    fi
    if [ "$BACKEND" != postgres ]; then cat "$WORK/run.json"; return; fi
    after=$(pgcpu)
    python3 -c "
import json; d = json.load(open('$WORK/run.json'))
d['cpu_ms']['postgres_ms_per_flow'] = ($after - $before) * 1000 / max(d['completed'], 1)
print(json.dumps(d))"
}

start
bench --flow login --duration 3 --concurrency 4 >/dev/null   # warm-up; creates the tenant
bench --flow login --concurrency 32 --duration 15 > "$WORK/login.json"
summary < "$WORK/login.json"
HALF=$(python3 -c "import json; print(round(json.load(open('$WORK/login.json'))['flows_per_second'] / 2))")
# As before the seeded runs: the saturated run's WAL is checkpointed before this one, not during it.
settle
bench --flow login --concurrency 32 --duration 15 --rate "$HALF" | summary "@$HALF/s"
bench --flow refresh --concurrency 32 --duration 15 | summary
bench --flow ciba --concurrency 32 --duration 15 | summary

start
bench --flow login --duration 2 --concurrency 4 >/dev/null   # the tenant and 64 devices
$B seed --data-dir "$DATA" "${DB[@]}" --tenant bench --activations 936 2>&1 | tr '\r' '\n' | tail -1
settle
bench --flow login --concurrency 32 --duration 20 --rate "$HALF" | summary "@$HALF/s,1k"
$B seed --data-dir "$DATA" "${DB[@]}" --tenant bench --activations 999000 2>&1 | tr '\r' '\n' | tail -1
settle
bench --flow login --concurrency 32 --duration 20 --rate "$HALF" | summary "@$HALF/s,1M"
