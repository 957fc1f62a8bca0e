#!/usr/bin/env bash
# A rolling upgrade's middle, measured (issue 33; its figures go in the note, it is not a
# step of .ci/run):
#
#   scripts/mixed-cluster.sh [BINARY] [SECONDS]
#
# BINARY is today's tessera (default .build/debug/tessera), SECONDS how long the load runs
# (default 20). On a throwaway PostgreSQL (scripts/postgres.sh): a node of the release
# v0.1.0 (scripts/old-release.sh, built once and cached) starts first and creates the
# schema it knows; a node of BINARY starts beside it on the same database and migrates it
# forward (additive migrations); both sit behind nginx, round-robin, with one public URL
# and one master key. `tessera bench` runs through nginx. Reports the schema before and
# after, the bench's completed flows and errors, and the requests each node answered by
# status (from its /metrics). Exits 1 on any bench error or any 5xx.
set -euo pipefail
cd "$(dirname "$0")/.."
binary="$(readlink -f "${1:-.build/debug/tessera}")"
seconds="${2:-20}"
[ -x "$binary" ] || { echo "no tessera binary at $binary" >&2; exit 2; }
[ -x /usr/sbin/nginx ] || { echo "needs Debian's nginx" >&2; exit 2; }
old="$(scripts/old-release.sh)"

work="$(mktemp -d /tmp/tessera-mixed.XXXXXX)"
cluster="/tmp/tessera-test-postgres.mixed-$$"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    sleep 1
    for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
    scripts/postgres.sh stop "$cluster" || true
    rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

database="$(scripts/postgres.sh start "$cluster" $$ | tail -1)"
psql_tessera() { PGPASSWORD=tessera psql --no-psqlrc -qAt --dbname="${database/tessera:tessera@/tessera@}" -c "$1"; }
token="mixed-cluster-admin-token-$RANDOM$RANDOM$RANDOM"
metrics_token="mixed-cluster-metrics-token-$RANDOM$RANDOM"
proxy_port="$(free_port)"
public="http://127.0.0.1:$proxy_port"

ports=()
start_node() { # $1 name, $2 binary
    local port
    port="$(free_port)"
    mkdir -p "$work/$1"
    [ -f "$work/old/master.key" ] && [ "$1" != old ] && cp "$work/old/master.key" "$work/$1/master.key"
    TESSERA_ADMIN_TOKEN="$token" TESSERA_METRICS_TOKEN="$metrics_token" "$2" serve --port "$port" --public-url "$public" --trusted-proxy 127.0.0.1 \
        --data-dir "$work/$1" --database "$database" --database-connections 8 --log-level error >"$work/$1.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 300); do
        curl -fsS -o /dev/null "http://127.0.0.1:$port/openapi.json" 2>/dev/null && break
        sleep 0.1
    done
    curl -fsS -o /dev/null "http://127.0.0.1:$port/openapi.json"
    ports+=("$port")
}
start_node old "$old"
echo "schema after $("$old" --version | cut -d' ' -f1): $(psql_tessera 'SELECT max(version) FROM schema_migrations')"
start_node new "$binary"
echo "schema after $("$binary" --version | cut -d' ' -f1): $(psql_tessera 'SELECT max(version) FROM schema_migrations')"

mkdir -p "$work/nginx"
cat >"$work/nginx/nginx.conf" <<EOF
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $work/nginx/body;
    proxy_temp_path $work/nginx/proxy;
    upstream tessera {
        server 127.0.0.1:${ports[0]};
        server 127.0.0.1:${ports[1]};
        keepalive 16;
    }
    server {
        listen 127.0.0.1:$proxy_port;
        location / {
            proxy_pass http://tessera;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$http_host;
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
            proxy_buffering off;
            proxy_read_timeout 90s;
            proxy_next_upstream off;
        }
    }
}
EOF
/usr/sbin/nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" -g "daemon off;" &
pids+=($!)
sleep 0.5

TESSERA_SERVER="$public" TESSERA_ADMIN_TOKEN="$token" "$binary" bench --tenant mixed --devices 8 --concurrency 8 \
    --duration "$seconds" --json >"$work/bench.json" 2>/dev/null
python3 - "$work/bench.json" "$metrics_token" "http://127.0.0.1:${ports[0]}" "http://127.0.0.1:${ports[1]}" <<'EOF'
import json, re, sys, urllib.request
report = json.load(open(sys.argv[1]))
metrics_token = sys.argv[2]
print(f"bench through nginx: {report.get('completed')} flows completed, errors {report.get('errors', {})}")
failed = bool(report.get("errors"))
for name, url in zip(("v0.1.0", "today"), sys.argv[3:]):
    request = urllib.request.Request(url + "/metrics", headers={"Authorization": "Bearer " + metrics_token})
    text = urllib.request.urlopen(request, timeout=10).read().decode()
    counts = {}
    for line in text.splitlines():
        match = re.match(r'tessera_http_requests_total\{.*status="(\d+)".*\} (\d+)', line)
        if match:
            counts[match[1]] = counts.get(match[1], 0) + int(float(match[2]))
    print(f"{name} node answered: {dict(sorted(counts.items()))}")
    failed |= any(status.startswith("5") for status in counts)
sys.exit(1 if failed else 0)
EOF
