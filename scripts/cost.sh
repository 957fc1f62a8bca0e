#!/usr/bin/env bash
# The cost guard: counts the instructions the server spends per login and per refresh,
# and compares them with the budget committed beside this script (scripts/cost-budget).
#
# It runs the release build (packaging/release.sh) of `tessera serve` on SQLite under
# valgrind's callgrind with counting off (--instr-atstart=no), and drives it with
# `tessera bench` (outside valgrind): a warm-up, then LOGINS logins and REFRESHES refresh
# rotations, one at a time, with counting switched on and dumped around each run by
# callgrind_control (bench's --before-run and --after-run). Instruction counts do not
# depend on the machine's load the way timings do; they move when the code does.
#
# The run fails when a figure is more than 10 % over its budget, and also when it is more
# than 10 % under it: then the budget is lowered (scripts/cost.sh --update writes the new
# figures), so that it follows the code.
#
# Usage: scripts/cost.sh [--update] [BINARY]   (BINARY: the release build's tessera)
# TESSERA_COST_SERVE_ARGS adds options to `tessera serve` for a measurement (e.g. tracing:
# "--otlp-endpoint http://127.0.0.1:4318 --trace-ratio 0.01"; the budget is without them).
# Needs valgrind (installed from Debian when missing). About 3 minutes on a 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/.."
update=0
if [ "${1:-}" = "--update" ]; then
    update=1
    shift
fi
binary="${1:-.build/release/tessera}"
binary="$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")"
budget_file="scripts/cost-budget"
logins=200
refreshes=500
tolerance=10

if ! command -v valgrind >/dev/null 2>&1; then
    sudo=""
    if [ "$(id -u)" != "0" ]; then sudo="sudo"; fi
    echo "Installing valgrind (callgrind counts the instructions)…"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq valgrind >/dev/null
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/tessera-cost.XXXXXX")"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    if [ -z "${TESSERA_COST_KEEP:-}" ]; then rm -rf "$work"; else echo "kept $work" >&2; fi
}
trap cleanup EXIT

# Valgrind 3.19 (Debian 12) cannot read the DWARF 5 debug information Swift writes: it
# runs a copy without it (the symbols stay, for a look with callgrind_annotate).
strip --strip-debug -o "$work/tessera" "$binary"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
token="cost-guard-admin-token-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export TESSERA_SERVER="http://127.0.0.1:$port" TESSERA_ADMIN_TOKEN="$token"
# One address sends every flow: no per-address or per-client rate limits (as a measured
# server runs, docs/PERFORMANCE.md), and no purge during the run.
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/callgrind.out" \
    "$work/tessera" serve --port "$port" --data-dir "$work/data" --log-level error \
    --rate-limit-per-address 0 --rate-limit-per-client 0 --purge-interval 0 ${TESSERA_COST_SERVE_ARGS:-} \
    >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 600); do
    if "$binary" health --url "$TESSERA_SERVER" --timeout 2 2>/dev/null; then break; fi
    if ! kill -0 "$server_pid" 2>/dev/null; then cat "$work/server.log"; echo "the server under valgrind exited" >&2; exit 1; fi
    sleep 0.5
done
"$binary" health --url "$TESSERA_SERVER" --timeout 5

# bench FLOW COUNT DUMP: COUNT flows of FLOW with counting on, then dumped as DUMP.
bench() {
    "$binary" bench --tenant cost --devices 1 --concurrency 1 --flow "$1" --count "$2" --json \
        --before-run "callgrind_control --instr=on $server_pid >/dev/null" \
        --after-run "callgrind_control --dump=$3 $server_pid >/dev/null && callgrind_control --instr=off $server_pid >/dev/null" \
        >"$work/$3.json" 2>"$work/$3.log" || { cat "$work/$3.log" "$work/server.log" >&2; exit 1; }
    python3 - "$work/$3.json" "$2" <<'EOF'
import json, sys
report = json.load(open(sys.argv[1]))
if report.get("completed") != int(sys.argv[2]) or report.get("errors"):
    sys.exit(f"the bench did not complete every flow: {report}")
EOF
}
# Warm-up, not counted: the first flows fill caches and the runtime's metadata.
"$binary" bench --tenant cost --devices 1 --concurrency 1 --flow login --count 20 >/dev/null 2>&1
bench login "$logins" login
bench refresh "$refreshes" refresh

# A dump's instructions: the `totals:` line of the file it wrote (all threads in one,
# callgrind's default). Not `summary:`, which valgrind 3.19 gets wrong after the first
# dump (it subtracts the dump before).
total() {
    local sum=0 value
    for file in "$work"/callgrind.out.*; do
        grep -q "^desc: Trigger: dump $1\$" "$file" || continue
        value="$(sed -n 's/^totals: \([0-9]*\).*/\1/p' "$file" | head -1)"
        sum=$((sum + value))
    done
    echo "$sum"
}
login_total="$(total login)"
refresh_total="$(total refresh)"
per_login=$((login_total / logins))
per_refresh=$((refresh_total / refreshes))
echo "instructions per login:   $per_login  ($logins logins, $login_total in all)"
echo "instructions per refresh: $per_refresh  ($refreshes refreshes, $refresh_total in all)"
if [ "$per_login" = 0 ] || [ "$per_refresh" = 0 ]; then
    echo "no instructions were counted: did callgrind_control reach the server?" >&2
    exit 1
fi

if [ "$update" = 1 ]; then
    {
        echo "# Instructions the server spends (callgrind, the release build on SQLite): scripts/cost.sh"
        echo "# fails more than $tolerance % above or below. Written by scripts/cost.sh --update."
        echo "login $per_login"
        echo "refresh $per_refresh"
    } >"$budget_file"
    echo "wrote $budget_file"
    exit 0
fi

status=0
check() {
    local name=$1 measured=$2 budget
    budget="$(sed -n "s/^$name \([0-9]*\)$/\1/p" "$budget_file")"
    if [ -z "$budget" ]; then echo "$budget_file has no budget for $name" >&2; status=1; return; fi
    local percent=$(( (measured - budget) * 1000 / budget ))
    # The sign apart: -0.8 % is -8 per mille, whose integer tenth is 0 (no sign of its own).
    local sign="+" magnitude=$percent shown
    if [ "$percent" -lt 0 ]; then sign="-"; magnitude=$((-percent)); fi
    shown="$sign$((magnitude / 10)).$((magnitude % 10))"
    if [ "$percent" -gt $((tolerance * 10)) ]; then
        echo "FAIL $name: $measured instructions, $shown % over the budget of $budget (more than $tolerance %)" >&2
        status=1
    elif [ "$percent" -lt $((-tolerance * 10)) ]; then
        echo "FAIL $name: $measured instructions, $shown % under the budget of $budget: lower it (scripts/cost.sh --update) and commit it" >&2
        status=1
    else
        echo "ok   $name: $shown % against the budget of $budget"
    fi
}
check login "$per_login"
check refresh "$per_refresh"
exit "$status"
