#!/usr/bin/env bash
# A PostgreSQL switch-over under load, measured (issue 33; its figures go in the note,
# it is not a step of .ci/run):
#
#   scripts/switch-over.sh [BINARY] [SECONDS]
#
# BINARY is a tessera build (default .build/release/tessera), SECONDS how long the load
# runs (default 20). Starts a primary and a synchronous streaming standby of it
# (scripts/postgres.sh, Debian's PostgreSQL), two `tessera serve` nodes whose database
# URL names both hosts with target_session_attrs=read-write, `tessera bench` on each,
# and a writer that creates users through the admin API one after another and notes
# each one acknowledged (201). A third of the way in the primary stops and the standby
# is promoted. Reports what the benches saw (completed flows, errors by kind), the
# writer's answers by status, how long no write was acknowledged, and whether every
# acknowledged user is there afterwards (read back through the node, from the new
# primary). Exits 1 if an acknowledged write is missing or any answer was a 500.
set -euo pipefail
cd "$(dirname "$0")/.."
binary="${1:-.build/release/tessera}"
seconds="${2:-20}"
[ -x "$binary" ] || { echo "no tessera binary at $binary (packaging/release.sh builds one)" >&2; exit 2; }
binary="$(readlink -f "$binary")"

work="$(mktemp -d /tmp/tessera-switch-over.XXXXXX)"
primary="/tmp/tessera-test-postgres.switch-primary-$$"
standby="/tmp/tessera-test-postgres.switch-standby-$$"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    sleep 1
    for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    scripts/postgres.sh stop "$standby" || true
    scripts/postgres.sh stop "$primary" || true
    rm -rf "$work"
}
trap cleanup EXIT

primary_url="$(scripts/postgres.sh start "$primary" $$ | tail -1)"
standby_url="$(scripts/postgres.sh standby "$standby" "$primary" $$ | tail -1)"
port_of() { python3 -c 'import sys, urllib.parse; print(urllib.parse.urlsplit(sys.argv[1]).port)' "$1"; }
database="postgres://tessera:tessera@127.0.0.1:$(port_of "$primary_url"),127.0.0.1:$(port_of "$standby_url")/tessera?sslmode=disable&target_session_attrs=read-write"
echo "database: ${database/tessera:tessera@/tessera:…@}"

token="switch-over-admin-token-$RANDOM$RANDOM$RANDOM"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
servers=()
for node in a b; do
    mkdir -p "$work/$node"
    [ "$node" = b ] && cp "$work/a/master.key" "$work/b/master.key"
    port="$(free_port)"
    TESSERA_ADMIN_TOKEN="$token" "$binary" serve --port "$port" --data-dir "$work/$node" --database "$database" \
        --database-connections 8 --log-level notice >"$work/$node.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 150); do
        curl -fsS "http://127.0.0.1:$port/ready" >/dev/null 2>&1 && break
        sleep 0.1
    done
    curl -fsS "http://127.0.0.1:$port/ready" >/dev/null
    servers+=("http://127.0.0.1:$port")
done

# The benches, one per node.
for index in 0 1; do
    TESSERA_SERVER="${servers[$index]}" TESSERA_ADMIN_TOKEN="$token" "$binary" bench --tenant "switch-$index" \
        --devices 4 --concurrency 4 --duration "$seconds" --json >"$work/bench-$index.json" 2>"$work/bench-$index.err" &
    pids+=($!)
done
# The writer: users created one at a time on the first node, each acknowledged one noted.
python3 - "${servers[0]}" "$token" "$seconds" "$work/writes.json" <<'EOF' &
import json, sys, time, urllib.error, urllib.request
server, token, seconds, out = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
def call(method, path, body=None):
    request = urllib.request.Request(server + path, method=method, headers=headers,
                                     data=None if body is None else json.dumps(body).encode())
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, {}
    except Exception as error:
        return type(error).__name__, {}
status, tenant = call("POST", "/admin/tenants", {"name": "switch-writes"})
assert status == 201, status
acknowledged, statuses, last_ack, longest_gap, longest_call, n = [], {}, time.monotonic(), 0.0, 0.0, 0
end = time.monotonic() + seconds
while time.monotonic() < end:
    n += 1
    asked = time.monotonic()
    status, user = call("POST", f"/admin/tenants/{tenant['name']}/users", {"username": f"writer-{n}"})
    statuses[str(status)] = statuses.get(str(status), 0) + 1
    now = time.monotonic()
    longest_call = max(longest_call, now - asked)
    if status == 201:
        acknowledged.append(user["id"])
        longest_gap = max(longest_gap, now - last_ack)
        last_ack = now
    else:
        time.sleep(0.05)
longest_gap = max(longest_gap, time.monotonic() - last_ack)
json.dump({"tenant": tenant["name"], "acknowledged": acknowledged, "statuses": statuses,
           "longest_gap_seconds": round(longest_gap, 2), "longest_call_seconds": round(longest_call, 2)}, open(out, "w"))
EOF
writer=$!
pids+=($writer)

sleep "$((seconds / 3))"
started="$(date +%s.%N)"
scripts/postgres.sh halt "$primary"
halted="$(date +%s.%N)"
scripts/postgres.sh promote "$standby"
promoted="$(date +%s.%N)"
awk -v a="$started" -v b="$halted" -v c="$promoted" \
    'BEGIN { printf "switch-over: primary stopped in %.2f s, standby promoted %.2f s later\n", b - a, c - b }'
wait "$writer"
for index in 0 1; do wait "${pids[$((index + 2))]}" || true; done

# Every acknowledged write is there, read back through a node from the new primary.
python3 - "${servers[1]}" "$token" "$work/writes.json" "$work" <<'EOF'
import json, sys, urllib.error, urllib.request
server, token, writes, work = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3])), sys.argv[4]
def get(path):
    request = urllib.request.Request(server + path, headers={"Authorization": "Bearer " + token})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
missing = [user for user in writes["acknowledged"] if get(f"/admin/tenants/{writes['tenant']}/users/{user}") != 200]
failed = False
for index in (0, 1):
    try:
        report = json.load(open(f"{work}/bench-{index}.json"))
    except Exception:
        report = {"unreadable": open(f"{work}/bench-{index}.err").read()[-500:]}
    errors = report.get("errors", {})
    print(f"node {index}: bench completed {report.get('completed')} flows, errors {errors}")
    failed |= any("500" in kind or "server_error" in kind for kind in errors)
print(f"writer: {len(writes['acknowledged'])} users acknowledged, answers {writes['statuses']}, "
      f"longest time without an acknowledged write {writes['longest_gap_seconds']} s, longest answer {writes['longest_call_seconds']} s")
print(f"acknowledged writes missing after the switch-over: {len(missing)}")
failed |= bool(missing) or "500" in writes["statuses"]
sys.exit(1 if failed else 0)
EOF
for node in a b; do
    grep -h -E "database host switched|no database host|answers again|listening again" "$work/$node.log" | sed "s/^/node $node: /" | cut -c1-220 || true
done
