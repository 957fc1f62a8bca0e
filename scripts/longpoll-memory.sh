#!/bin/bash
# What 10,000 open device long polls cost a server (docs/PERFORMANCE.md): a fresh
# release-build server on SQLite with its long-poll caps raised for the run, and
# `tessera bench --flow long-poll` holding the polls open beside it.
#
#   scripts/longpoll-memory.sh [BINARY] [POLLS] [DEVICES] [SECONDS]
#
# BINARY defaults to the static release build (packaging/release.sh). Both processes
# need an open-file limit above POLLS (each poll is a connection at both ends).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-.build/x86_64-unknown-linux-gnu/release/tessera}
POLLS=${2:-10000}
DEVICES=${3:-1000}
SECONDS_HELD=${4:-60}
PER_DEVICE=$(((POLLS + DEVICES - 1) / DEVICES))
NEED=$((POLLS + 1024))
HARD=$(ulimit -Hn)
if [ "$HARD" != unlimited ] && [ "$HARD" -lt "$NEED" ]; then echo "the open-file limit's ceiling ($HARD) is below $NEED" >&2; exit 1; fi
ulimit -n "$NEED"
PORT=18300
DATA=$(mktemp -d /tmp/tessera-longpoll-XXXXXX)
export TESSERA_ADMIN_TOKEN=longpoll-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
export TESSERA_SERVER=http://127.0.0.1:$PORT
SERVER=
finish() {
    if [ -n "$SERVER" ]; then kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true; fi
    rm -rf "$DATA"
}
trap finish EXIT
# The rate limits are per address and per client; every poll comes from one address here.
$B serve --port $PORT --data-dir "$DATA" --rate-limit-per-address 0 --rate-limit-per-client 0 \
    --long-polls-per-node 0 --long-polls-per-device "$PER_DEVICE" --log-level error >/dev/null 2>&1 &
SERVER=$!
for _ in $(seq 50); do curl -sf "$TESSERA_SERVER/ready" >/dev/null && break; sleep 0.2; done
$B bench --devices "$DEVICES" --concurrency "$POLLS" --duration "$SECONDS_HELD" --flow long-poll
echo "server VmHWM (peak resident): $(awk '/VmHWM/ {print $2, $3}' /proc/$SERVER/status)"
