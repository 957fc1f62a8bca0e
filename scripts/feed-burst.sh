#!/usr/bin/env bash
# The feeds under the issue's load, measured on the release build (issue 34; its figures
# go in the note, it is not a step of .ci/run):
#
#   scripts/feed-burst.sh [BINARY] [CHANGES] [LOGINS]
#
# BINARY is a tessera build (default .build/release/tessera), CHANGES the audited changes
# (default 3000), LOGINS the logins (default 2000). Starts a throwaway PostgreSQL
# (scripts/postgres.sh) and two `tessera serve` nodes on it. Then, at once: `tessera bench`
# on each node runs LOGINS/2 logins (its devices enrolled first), eight writers create
# CHANGES users (audited) on alternate nodes, and a consumer pages GET /admin/audit/feed
# and /admin/history/feed every half second from alternate nodes until the writers are
# done, then once more. Reports how long the load took, what the consumer read, and
# whether its sets equal the database's (SELECT id of both tables) with no entry twice and
# every seq increasing. Exits 1 when they differ. The suite's FeedBurstTests checks the
# same at a smaller volume in the PostgreSQL pass.
set -euo pipefail
cd "$(dirname "$0")/.."
binary="${1:-.build/release/tessera}"
changes="${2:-3000}"
logins="${3:-2000}"
[ -x "$binary" ] || { echo "no tessera binary at $binary (packaging/release.sh builds one)" >&2; exit 2; }
binary="$(readlink -f "$binary")"

work="$(mktemp -d /tmp/tessera-feed-burst.XXXXXX)"
database_dir="/tmp/tessera-test-postgres.feed-burst-$$"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    sleep 1
    for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    scripts/postgres.sh stop "$database_dir" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

database="$(scripts/postgres.sh start "$database_dir" $$ | tail -1)"
token="feed-burst-admin-token-$RANDOM$RANDOM$RANDOM"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
servers=()
for node in a b; do
    port="$(free_port)"
    TESSERA_ADMIN_TOKEN="$token" "$binary" serve --port "$port" --data-dir "$work/data" --database "$database" \
        --database-connections 16 --log-level warning >"$work/$node.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 150); do
        curl -fsS "http://127.0.0.1:$port/ready" >/dev/null 2>&1 && break
        sleep 0.1
    done
    curl -fsS "http://127.0.0.1:$port/ready" >/dev/null
    servers+=("http://127.0.0.1:$port")
done

python3 - "$binary" "$token" "$changes" "$logins" "$database" "$work" "${servers[@]}" <<'PYTHON'
import json, subprocess, sys, threading, time, urllib.error, urllib.request
binary, token, changes, logins, database, work = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
servers = sys.argv[7:]
headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}

def call(server, method, path, body=None):
    request = urllib.request.Request(server + path, method=method, headers=headers,
                                     data=None if body is None else json.dumps(body).encode())
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.status, json.loads(response.read() or b"{}")

call(servers[0], "POST", "/admin/tenants", {"name": "burst"})
# The benches enrol their devices first; the load starts once both are running flows.
benches = []
for index, server in enumerate(servers):
    environment = {"TESSERA_SERVER": server, "TESSERA_ADMIN_TOKEN": token, "PATH": "/usr/bin:/bin"}
    benches.append(subprocess.Popen(
        [binary, "bench", "--tenant", f"burst-logins-{index}", "--devices", "32", "--concurrency", "8", "--count", str(logins // 2), "--json"],
        env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
time.sleep(3)

failures = []
def writer(number):
    for index in range(number, changes, 8):
        try:
            status, _ = call(servers[index % 2], "POST", "/admin/tenants/burst/users", {"username": f"user-{index}"})
            if status != 201:
                failures.append(status)
        except Exception as error:
            failures.append(repr(error))

started = time.monotonic()
threads = [threading.Thread(target=writer, args=(number,)) for number in range(8)]
for thread in threads:
    thread.start()

seen = {"audit": [], "history": []}
seqs = {"audit": [], "history": []}
cursors = {"audit": None, "history": None}
rounds = 0
def consume():
    global rounds
    server = servers[rounds % 2]
    rounds += 1
    for feed in ["audit", "history"]:
        while True:
            path = f"/admin/{feed}/feed?limit=1000" + (f"&cursor={cursors[feed]}" if cursors[feed] else "")
            _, page = call(server, "GET", path)
            seen[feed] += [entry["id"] for entry in page["entries"]]
            seqs[feed] += [entry["seq"] for entry in page["entries"]]
            cursors[feed] = page["next_cursor"]
            if len(page["entries"]) < 1000:
                break

while any(thread.is_alive() for thread in threads) or any(bench.poll() is None for bench in benches):
    consume()
    time.sleep(0.5)
elapsed = time.monotonic() - started
consume()
reports = [json.loads(bench.communicate()[0] or "{}") for bench in benches]

def ids(table):
    out = subprocess.run(["psql", database, "-At", "-c", f"SELECT id FROM {table}"], capture_output=True, text=True, check=True).stdout
    return [line for line in out.splitlines() if line]

stored = {"audit": ids("audit_log"), "history": ids("authentication_history")}
ok = not failures
print(f"load: {changes} audited changes ({len(failures)} failed) and {sum(r.get('completed', 0) for r in reports)} logins "
      f"({sum(sum(r.get('errors', {}).values()) for r in reports)} failed) on two nodes in {elapsed:.1f} s "
      f"(logins {', '.join(str(round(r.get('seconds', 0), 1)) + ' s' for r in reports)})")
for feed in ["audit", "history"]:
    twice = len(seen[feed]) - len(set(seen[feed]))
    increasing = all(a < b for a, b in zip(seqs[feed], seqs[feed][1:]))
    same = set(seen[feed]) == set(stored[feed])
    ok = ok and twice == 0 and increasing and same
    print(f"{feed}: the consumer read {len(seen[feed])} in {rounds} rounds, the database holds {len(stored[feed])}; "
          f"equal sets: {same}; read twice: {twice}; seq increasing: {increasing}")
sys.exit(0 if ok else 1)
PYTHON
