#!/usr/bin/env bash
# Gets a PostgreSQL 15 server ready for the test suite's second pass and prints the URL
# to put in TESSERA_TEST_DATABASE_URL: installs Debian's postgresql package if needed,
# starts the cluster on 127.0.0.1:5432, and creates the role `tessera` (allowed to
# create databases: every test server gets a fresh one) with its database.
set -euo pipefail

sudo=""
if [ "$(id -u)" != "0" ]; then sudo="sudo"; fi
as_postgres() { $sudo su postgres -c "$1"; }

if ! command -v pg_ctlcluster >/dev/null 2>&1 || [ -z "$(ls /usr/lib/postgresql 2>/dev/null)" ]; then
    echo "Installing PostgreSQL…" >&2
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null
fi
version="$(ls /usr/lib/postgresql | sort -n | tail -1)"
if ! pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main"' | grep -q .; then
    $sudo pg_createcluster "$version" main >&2
fi
# The suite runs many servers at once, each with its own small pool.
conf="/etc/postgresql/$version/main/postgresql.conf"
if ! grep -q "^max_connections = 400" "$conf"; then
    echo "max_connections = 400" | $sudo tee -a "$conf" >/dev/null
    if pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" && $4 == "online"' | grep -q .; then
        $sudo pg_ctlcluster "$version" main restart >&2
    fi
fi
if ! pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" && $4 == "online"' | grep -q .; then
    $sudo pg_ctlcluster "$version" main start >&2
fi
for _ in $(seq 1 30); do
    if as_postgres "psql -Atqc 'SELECT 1'" >/dev/null 2>&1; then break; fi
    sleep 1
done
if [ "$(as_postgres "psql -Atqc \"SELECT 1 FROM pg_roles WHERE rolname = 'tessera'\"")" != "1" ]; then
    as_postgres "psql -qc \"CREATE ROLE tessera LOGIN PASSWORD 'tessera' CREATEDB\"" >&2
fi
if [ "$(as_postgres "psql -Atqc \"SELECT 1 FROM pg_database WHERE datname = 'tessera'\"")" != "1" ]; then
    as_postgres "psql -qc 'CREATE DATABASE tessera OWNER tessera'" >&2
fi
echo "postgres://tessera:tessera@127.0.0.1:5432/tessera?sslmode=disable"
