#!/usr/bin/env bash
# What tracing costs a login: `tessera bench` logins against the release build of
# `tessera serve` on SQLite without tracing, then exporting to an OTLP receiver
# (Tests/interop/otlp_receiver.py, decoding and counting) at --trace-ratio 0, 0.01 and 1,
# interleaved ROUNDS times, each on a fresh server; prints each run's logins per second,
# latency and the server's CPU per login (from its /metrics), and the receiver's span count.
# docs/PERFORMANCE.md has the figures. Not part of the suite (a measurement, not a check).
#
# Usage: scripts/trace-cost.sh [BINARY] [ROUNDS]   (BINARY: the release build's tessera)
set -euo pipefail
cd "$(dirname "$0")/.."
BINARY=${1:-.build/release/tessera}
ROUNDS=${2:-2}
PORT=18103
export TESSERA_ADMIN_TOKEN=trace-cost-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
export TESSERA_SERVER=http://127.0.0.1:$PORT
SERVER=
RECEIVER=
WORK=$(mktemp -d /tmp/tessera-trace-cost-XXXXXX)
trap '[ -n "$SERVER" ] && kill $SERVER 2>/dev/null; [ -n "$RECEIVER" ] && kill $RECEIVER 2>/dev/null; rm -rf "$WORK"' EXIT
mkdir -p "$WORK/otlp"
python3 Tests/interop/otlp_receiver.py "$WORK/otlp" --count-only &
RECEIVER=$!
for _ in $(seq 50); do [ -f "$WORK/otlp/port" ] && break; sleep 0.1; done
OTLP="http://127.0.0.1:$(cat "$WORK/otlp/port")"
line() {
    python3 -c "
import json, sys
d = json.load(sys.stdin); c = d['cpu_ms']; l = d['latency_ms']
print('%-6s %7.1f/s  p50 %6.1f  p99 %6.1f  server %.3f ms per login (user %.3f, system %.3f)' % (
    '$1', d['flows_per_second'], l['p50'], l['p99'], c['server_ms_per_flow'], c['server_user_ms_per_flow'], c['server_system_ms_per_flow']))"
}
for _ in $(seq "$ROUNDS"); do
    for ratio in off 0 0.01 1; do
        DATA="$WORK/data-$ratio"
        rm -rf "$DATA"
        tracing=()
        [ "$ratio" != off ] && tracing=(--otlp-endpoint "$OTLP" --trace-ratio "$ratio")
        "$BINARY" serve --port $PORT --data-dir "$DATA" --rate-limit-per-address 0 --rate-limit-per-client 0 --purge-interval 0 \
            --log-level error "${tracing[@]}" >/dev/null 2>&1 &
        SERVER=$!
        for _ in $(seq 50); do curl -sf "$TESSERA_SERVER/ready" >/dev/null && break; sleep 0.2; done
        before=$(cat "$WORK/otlp/count" 2>/dev/null || echo 0)
        "$BINARY" bench --devices 64 --flow login --duration 3 --concurrency 8 >/dev/null 2>&1
        "$BINARY" bench --devices 64 --flow login --concurrency 32 --duration 20 --json 2>/dev/null | line "$ratio"
        kill $SERVER
        wait $SERVER 2>/dev/null || true
        SERVER=
        sleep 1
        echo "       spans received: $(( $(cat "$WORK/otlp/count" 2>/dev/null || echo 0) - before ))"
    done
done
