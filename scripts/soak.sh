#!/bin/bash
# Issue 39's soak: does a server's memory grow under a steady load? A fresh release-build
# server (SQLite, or PostgreSQL with a URL), its top login rate measured for 15 s, then
# logins at half that rate for MINUTES minutes (default 30) with the server's resident
# memory (VmRSS) read every 30 s. Prints the series, the bench's line for the whole soak
# (rate, p50/p99/p99.9, failures, CPU per login), and the growth after the warm-up (the
# first 5 minutes).
#
#   scripts/soak.sh [BINARY] [MINUTES] [postgres://… a role that may CREATE DATABASE]
#
# BINARY defaults to the static release build (packaging/release.sh). SOAK_RATE=R soaks
# at R logins per second instead of half the top rate (to compare two builds at one rate).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-.build/x86_64-unknown-linux-gnu/release/tessera}
MINUTES=${2:-30}
BASE=${3:-}
PORT=18400
DATA=$(mktemp -d /tmp/tessera-soak-XXXXXX)
export TESSERA_ADMIN_TOKEN=soak-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
export TESSERA_SERVER=http://127.0.0.1:$PORT
SERVER=
SAMPLER=
DBNAME=
finish() {
    if [ -n "$SAMPLER" ]; then kill $SAMPLER 2>/dev/null || true; fi
    if [ -n "$SERVER" ]; then kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true; fi
    if [ -n "$DBNAME" ]; then psql -q "$BASE" -c "DROP DATABASE IF EXISTS $DBNAME WITH (FORCE)" >/dev/null || true; fi
    rm -rf "$DATA"
}
trap finish EXIT
DB=()
if [ -n "$BASE" ]; then
    DBNAME=soak_$(date +%s)_$RANDOM
    psql -q "$BASE" -c "CREATE DATABASE $DBNAME" >/dev/null
    DB=(--database "${BASE%/*}/$DBNAME?sslmode=disable")
fi
# One address sends every flow: the per-address and per-client limits are off for it.
$B serve --port $PORT --data-dir "$DATA" "${DB[@]}" --rate-limit-per-address 0 --rate-limit-per-client 0 \
    --log-level error >/dev/null 2>&1 &
SERVER=$!
for _ in $(seq 50); do curl -sf "$TESSERA_SERVER/ready" >/dev/null && break; sleep 0.2; done
curl -sf "$TESSERA_SERVER/ready" >/dev/null || { echo "the server did not start" >&2; exit 1; }
# A bench that fails shows what it said (its progress lines left out) and ends the script.
failed() { echo "tessera bench failed:" >&2; tr '\r' '\n' < "$DATA/bench.err" | grep -v '^ *$' | tail -20 >&2; exit 1; }
line() {
    python3 -c "
import json, sys
d = json.load(sys.stdin); l = d['latency_ms']; c = d['cpu_ms']
errors = sum(d['errors'].values()) if d['errors'] else 0
print('%s: %d logins, %.1f/s, p50 %.2f, p99 %.2f, p99.9 %.2f, max %.2f ms, failures %d, server %.2f ms CPU per login' % (
    sys.argv[1], d['completed'], d['flows_per_second'], l['p50'], l['p99'], l['p99.9'], l['max'], errors, c['server_ms_per_flow'])
    + (' (%s)' % ', '.join('%s: %d' % kv for kv in sorted(d['errors'].items())) if errors else ''))" "$1"
}
$B bench --devices 64 --concurrency 32 --duration 15 --flow login --json 2> "$DATA/bench.err" > "$DATA/top.json" || failed
line "top rate" < "$DATA/top.json"
HALF=${SOAK_RATE:-$(python3 -c "import json; print(max(1, round(json.load(open('$DATA/top.json'))['flows_per_second'] / 2)))")}
echo "soak: $MINUTES minutes at $HALF logins per second"
(
    start=$(date +%s)
    while true; do
        echo "$(( $(date +%s) - start )) $(awk '/VmRSS/ {print $2}' /proc/$SERVER/status)"
        sleep 30
    done
) > "$DATA/rss" &
SAMPLER=$!
$B bench --devices 64 --concurrency 32 --duration $((MINUTES * 60)) --rate "$HALF" --flow login --json \
    2> "$DATA/bench.err" > "$DATA/soak.json" || failed
echo "$(( MINUTES * 60 )) $(awk '/VmRSS/ {print $2}' /proc/$SERVER/status)" >> "$DATA/rss"
kill $SAMPLER; SAMPLER=
line "soak at $HALF/s" < "$DATA/soak.json"
python3 - "$DATA/rss" <<'EOF'
import sys
rows = [tuple(map(int, l.split())) for l in open(sys.argv[1]) if len(l.split()) == 2]
print("resident memory (MiB) by second:", ", ".join("%d: %.1f" % (t, k / 1024) for t, k in rows))
warm = [k for t, k in rows if t >= 300]
if warm:
    print("after the warm-up (from 300 s): %.1f → %.1f MiB, lowest %.1f, highest %.1f" % (
        warm[0] / 1024, warm[-1] / 1024, min(warm) / 1024, max(warm) / 1024))
EOF
