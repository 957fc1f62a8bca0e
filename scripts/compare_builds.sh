#!/bin/bash
# Two builds of tessera, measured alternately on this machine: each round starts a fresh
# SQLite server from each binary and drives it with the same bench (the second binary's):
# login (16 workers, 15 s) and refresh (16 workers, 10 s). Alternating keeps a noisy
# machine's drift out of the comparison; docs/PERFORMANCE.md's before-and-after table
# comes from it.
#
#   scripts/compare_builds.sh OLD_BINARY NEW_BINARY [ROUNDS]     (default 3 rounds)
#
# With COMPARE_DATABASE=postgres://… (a role that may CREATE DATABASE, on this machine)
# each server runs on a new PostgreSQL database of that cluster instead, dropped after its
# round, and each line also gives the CPU of the cluster's processes per flow.
# With COMPARE_RATE=R the logins start at R per second in all (half the top rate shows
# what waking idle threads costs), and latency counts from when each was due.
#
# For example, a release build of an earlier commit:
#   git worktree add /tmp/old 10282cf && (cd /tmp/old && swift build -c release --product tessera)
#   scripts/compare_builds.sh /tmp/old/.build/release/tessera .build/release/tessera
set -euo pipefail
OLD=${1:?old binary}
NEW=${2:?new binary}
ROUNDS=${3:-3}
PORT=18102
export TESSERA_ADMIN_TOKEN=compare-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
export TESSERA_SERVER=http://127.0.0.1:$PORT
SERVER=
DATA=
DBNAME=
BASE=${COMPARE_DATABASE:-}
RATE=()
[ -n "${COMPARE_RATE:-}" ] && RATE=(--rate "$COMPARE_RATE")
drop() {
    if [ -n "$DBNAME" ]; then psql -q "$BASE" -c "DROP DATABASE IF EXISTS $DBNAME WITH (FORCE)" >/dev/null || true; fi
    DBNAME=
}
trap '[ -n "$SERVER" ] && kill $SERVER 2>/dev/null; [ -n "$DATA" ] && rm -rf "$DATA"; drop' EXIT
# The CPU seconds of every process the postgres user runs (0 without PostgreSQL).
pgcpu() {
    if [ -z "$BASE" ]; then echo 0; return; fi
    for p in $(pgrep -u postgres); do awk '{print $14 + $15 + $16 + $17}' "/proc/$p/stat" 2>/dev/null || true; done |
        awk -v hz="$(getconf CLK_TCK)" '{s += $1} END {printf "%.3f", s / hz}'
}
# One bench run's line: $1 old or new, the rest the bench's arguments.
run() {
    local which=$1 before after
    shift
    before=$(pgcpu)
    "$NEW" bench "$@" --json 2>/dev/null > "$DATA.json"
    after=$(pgcpu)
    python3 -c "
import json
d = json.load(open('$DATA.json')); c = d['cpu_ms']; l = d['latency_ms']
statements = c.get('server_statements_per_flow')
postgres = ($after - $before) * 1000 / max(d['completed'], 1)
print('%-4s %-8s %7.1f/s  p50 %6.1f  p99 %6.1f  server %.2f ms (user %.2f, system %.2f)  bench %.2f ms%s%s' % (
    '$which', d['flow'], d['flows_per_second'], l['p50'], l['p99'], c['server_ms_per_flow'], c['server_user_ms_per_flow'],
    c['server_system_ms_per_flow'], c['bench_ms_per_flow'],
    '  statements %.1f' % statements if statements is not None else '',
    '  postgres %.2f ms' % postgres if '$BASE' else ''))"
    rm -f "$DATA.json"
}
for _ in $(seq "$ROUNDS"); do
    for which in old new; do
        binary=$OLD
        [ $which = new ] && binary=$NEW
        DATA=$(mktemp -d /tmp/tessera-compare-XXXXXX)
        DB=()
        if [ -n "$BASE" ]; then
            DBNAME=compare_$(date +%s)_$RANDOM
            psql -q "$BASE" -c "CREATE DATABASE $DBNAME" >/dev/null
            DB=(--database "${BASE%/*}/$DBNAME?sslmode=disable")
        fi
        "$binary" serve --port $PORT --data-dir "$DATA" "${DB[@]}" --rate-limit-per-address 0 --rate-limit-per-client 0 --log-level error >/dev/null 2>&1 &
        SERVER=$!
        for _ in $(seq 50); do curl -sf "$TESSERA_SERVER/ready" >/dev/null && break; sleep 0.2; done
        "$NEW" bench --devices 50 --flow login --duration 3 --concurrency 4 >/dev/null 2>&1
        run $which --devices 50 --flow login --concurrency 16 --duration 15 "${RATE[@]}"
        run $which --devices 50 --flow refresh --concurrency 16 --duration 10
        kill $SERVER
        wait $SERVER 2>/dev/null || true
        SERVER=
        rm -rf "$DATA"
        DATA=
        drop
    done
done
