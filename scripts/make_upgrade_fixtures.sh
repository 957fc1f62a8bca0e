#!/usr/bin/env bash
# Writes the upgrade test's fixtures (Tests/Fixtures/upgrade/v0.1.0/, issue 33) with the
# tagged release v0.1.0 itself: real data an operator of that release has, for today's
# server to open (UpgradeTests). Run it again only to remake them; the test never builds
# the old release.
#
#   scripts/make_upgrade_fixtures.sh
#
# Takes v0.1.0's build from scripts/old-release.sh (built once, cached) and then, on SQLite and on a throwaway PostgreSQL (scripts/postgres.sh):
# starts `tessera serve` of v0.1.0 on a fixed port (the issuer URLs in the data name it),
# creates a tenant whose sessions live a year, a public service and a user, activates a
# terminal device for the user (`tessera device activate`, PIN 246810) and logs in with it
# for tokens (`tessera device token`: an in-app login, bearer tokens, refresh token kept in
# the device's store). Keeps the data directory (the SQLite file or, for PostgreSQL, a
# pg_dump in plain SQL), the device's store and fixture.json (the names and ids, the
# port, the PIN, the admin token and when it was written). The data's master key is in
# the fixtures: it protects nothing but this test data.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
old="$(scripts/old-release.sh)"
# The release and its commit, as the old binary names them (`v0.1.0 (commit …)`).
release="$("$old" --version | sed -E 's/ .*//')"
release_commit="$("$old" --version | sed -E 's/.*commit ([0-9a-f]+)\).*/\1/')"
out="$root/Tests/Fixtures/upgrade/$release"
pin=246810
redirect="http://127.0.0.1/fixture/callback"
token="upgrade-fixture-admin-token-0123456789"

work="$(mktemp -d /tmp/tessera-fixtures.XXXXXX)"
cluster="/tmp/tessera-test-postgres.fixtures-$$"
server=""
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null || true
    scripts/postgres.sh stop "$cluster" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# One backend's fixtures: $1 sqlite|postgres, $2 the port, $3 the database URL (postgres).
make_one() {
    local backend="$1" port="$2" database="${3:-}" dir="$work/$1"
    mkdir -p "$dir/data"
    local base="http://127.0.0.1:$port"
    TESSERA_ADMIN_TOKEN="$token" "$old" serve --port "$port" --data-dir "$dir/data" \
        ${database:+--database "$database"} --log-level error >"$dir/server.log" 2>&1 &
    server=$!
    for _ in $(seq 1 150); do
        curl -fsS "$base/ready" >/dev/null 2>&1 && break
        sleep 0.1
    done
    curl -fsS "$base/ready" >/dev/null
    export TESSERA_SERVER="$base" TESSERA_ADMIN_TOKEN="$token"
    "$old" admin tenant create fixture >/dev/null
    "$old" admin tenant update fixture --session-lifetime 31536000 --session-idle-lifetime 31536000 >/dev/null
    local service
    service="$("$old" admin service create --tenant fixture --name "Fixture app" --public --redirect-uri "$redirect" \
        --policy device+pin --json)"
    local client_id
    client_id="$(python3 -c 'import json, sys; print(json.load(sys.stdin)["client_id"])' <<<"$service")"
    "$old" admin user create --tenant fixture --username alice --attribute email=alice@example.com >/dev/null
    local invitation
    invitation="$("$old" admin invite --tenant fixture --username alice | sed -n "s/^url: //p")"
    "$old" device activate "$invitation" --pin "$pin" --alias fixture --store "$dir/device" >/dev/null
    "$old" device token --user alice --client-id "$client_id" --redirect-uri "$redirect" --pin "$pin" --no-dpop \
        --store "$dir/device" >/dev/null
    local written
    written="$(date +%s)"
    kill -TERM "$server"
    wait "$server" || true
    server=""

    local target="$out/$backend"
    rm -rf "$target"
    mkdir -p "$target"
    cp -a "$dir/device" "$target/device"
    mkdir -p "$target/data"
    cp "$dir/data/master.key" "$target/data/"
    if [ "$backend" = sqlite ]; then
        cp "$dir/data/tessera.sqlite" "$target/data/"
    else
        local bin
        bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
        PGPASSWORD=tessera "$bin/pg_dump" --format=plain --no-owner --no-privileges --file="$target/tessera.sql" \
            "${database/tessera:tessera@/tessera@}"
    fi
    python3 - "$target/fixture.json" <<EOF
import json, sys
json.dump({
    "release": "$release", "commit": "$release_commit", "backend": "$backend", "written_at": $written,
    "port": $port, "tenant": "fixture", "user": "alice", "client_id": "$client_id", "redirect_uri": "$redirect",
    "pin": "$pin", "admin_token": "$token",
}, open(sys.argv[1], "w"), indent=2)
open(sys.argv[1], "a").write("\n")
EOF
    echo "$target"
}

make_one sqlite 32100
database="$(scripts/postgres.sh start "$cluster" $$ | tail -1)"
make_one postgres 32101 "$database"
