#!/usr/bin/env bash
# Runs Tessera's whole test suite. Installs what the tests need first:
#   zbar-tools (zbarimg decodes the login page's QR code) from Debian,
#   Authlib, joserfc and requests (the interop relying party) from PyPI.
# The servers the tests start use SQLite; with TESSERA_TEST_DATABASE_URL set to a
# PostgreSQL URL (see scripts/postgres.sh) each gets a fresh database there instead.
# Extra arguments go to `swift test` (e.g. --filter LockoutTests).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v zbarimg >/dev/null 2>&1; then
    sudo=""
    if [ "$(id -u)" != "0" ]; then sudo="sudo"; fi
    echo "Installing zbar-tools (zbarimg)…"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq zbar-tools >/dev/null
fi

if ! python3 -c "import authlib, joserfc, requests, cryptography" >/dev/null 2>&1; then
    echo "Installing the Python interop packages…"
    python3 -m pip install --quiet --disable-pip-version-check -r Tests/interop/requirements.txt
fi

swift build --build-tests
# A hung test must fail the run, not stall it: the suites set per-test time limits,
# and this bounds the whole run.
timeout --kill-after=30 1500 swift test --skip-build "$@"
