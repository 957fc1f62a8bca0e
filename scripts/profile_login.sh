#!/bin/bash
# Where a login's server CPU goes: perf samples the server (release build, SQLite) while
# tessera bench drives logins, and scripts/profile_breakdown.py sorts every sample into
# one part of the work by its call stack. Prints the table docs/PERFORMANCE.md shows.
#
#   scripts/profile_login.sh [seconds]        (default 12; needs perf, run as root)
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_SAMPLE=${1:-12}
command -v perf >/dev/null || { echo "perf is not installed (apt-get install linux-perf)" >&2; exit 1; }
B=.build/release/tessera
swift build -c release --product tessera >/dev/null 2>&1 || swift build -c release --product tessera
PORT=18101
DATA=$(mktemp -d /tmp/tessera-profile-XXXXXX)
export TESSERA_ADMIN_TOKEN=profile-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
export TESSERA_SERVER=http://127.0.0.1:$PORT
SERVER=
trap '[ -n "$SERVER" ] && kill $SERVER 2>/dev/null; rm -rf "$DATA"' EXIT
$B serve --port $PORT --data-dir "$DATA/db" --rate-limit-per-address 0 --rate-limit-per-client 0 --log-level error >/dev/null 2>&1 &
SERVER=$!
for _ in $(seq 50); do curl -sf "$TESSERA_SERVER/ready" >/dev/null && break; sleep 0.2; done
$B bench --devices 50 --flow login --duration 3 --concurrency 4 >/dev/null 2>&1   # warm-up; creates the tenant
$B bench --devices 50 --flow login --concurrency 16 --duration $((SECONDS_TO_SAMPLE + 6)) --json > "$DATA/bench.json" 2>/dev/null &
BENCH=$!
sleep 3
perf record -F 999 -g -p $SERVER -o "$DATA/perf.data" -- sleep "$SECONDS_TO_SAMPLE" >/dev/null 2>&1
wait $BENCH
perf script -i "$DATA/perf.data" -F ip,sym 2>/dev/null > "$DATA/stacks.txt"
python3 scripts/profile_breakdown.py "$DATA/stacks.txt" "$DATA/bench.json"
cp "$DATA/stacks.txt" "${PROFILE_STACKS:-/dev/null}"
