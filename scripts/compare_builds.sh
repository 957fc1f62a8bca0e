#!/bin/bash
# Two builds of tessera, measured alternately on this machine: each round starts a fresh
# SQLite server from each binary and drives it with the same bench (the second binary's):
# login (16 workers, 15 s) and refresh (16 workers, 10 s). Alternating keeps a noisy
# machine's drift out of the comparison; docs/PERFORMANCE.md's before-and-after table
# comes from it.
#
#   scripts/compare_builds.sh OLD_BINARY NEW_BINARY [ROUNDS]     (default 3 rounds)
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
trap '[ -n "$SERVER" ] && kill $SERVER 2>/dev/null; [ -n "$DATA" ] && rm -rf "$DATA"' EXIT
line() {
    python3 -c "
import json, sys
d = json.load(sys.stdin); c = d['cpu_ms']; l = d['latency_ms']
print('%-4s %-8s %7.1f/s  p50 %6.1f  p99 %6.1f  server %.2f ms (user %.2f, system %.2f)  bench %.2f ms' % (
    '$1', d['flow'], d['flows_per_second'], l['p50'], l['p99'], c['server_ms_per_flow'], c['server_user_ms_per_flow'],
    c['server_system_ms_per_flow'], c['bench_ms_per_flow']))"
}
for _ in $(seq "$ROUNDS"); do
    for which in old new; do
        binary=$OLD
        [ $which = new ] && binary=$NEW
        DATA=$(mktemp -d /tmp/tessera-compare-XXXXXX)
        "$binary" serve --port $PORT --data-dir "$DATA" --rate-limit-per-address 0 --rate-limit-per-client 0 --log-level error >/dev/null 2>&1 &
        SERVER=$!
        for _ in $(seq 50); do curl -sf "$TESSERA_SERVER/ready" >/dev/null && break; sleep 0.2; done
        "$NEW" bench --devices 50 --flow login --duration 3 --concurrency 4 >/dev/null 2>&1
        "$NEW" bench --devices 50 --flow login --concurrency 16 --duration 15 --json 2>/dev/null | line $which
        "$NEW" bench --devices 50 --flow refresh --concurrency 16 --duration 10 --json 2>/dev/null | line $which
        kill $SERVER
        wait $SERVER 2>/dev/null || true
        SERVER=
        rm -rf "$DATA"
        DATA=
    done
done
