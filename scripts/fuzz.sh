#!/usr/bin/env bash
# Fuzzes the QR encoder with libFuzzer for SECONDS (default 30): builds Tests/fuzz/QRCodeFuzz.swift
# with Sources/TesseraCore/QRCode.swift (which has no dependencies) using the Swift toolchain's
# -sanitize=fuzzer,address, seeds it with links like the ones the server encodes, and runs it.
# Exits non-zero on a crash, a failed invariant or a memory error (libFuzzer keeps the input
# as crash-* in the work directory and prints it).
#   scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
work="$(mktemp -d "${TMPDIR:-/tmp}/tessera-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT
swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name QRFuzz \
    Sources/TesseraCore/QRCode.swift Tests/fuzz/QRCodeFuzz.swift -o "$work/qrcode-fuzz" 2>&1 | grep -v "Cannot export local symbol" || true
mkdir -p "$work/corpus"
printf '%s' "https://id.example.com/t/demo/authenticate?request=Zm9vYmFyYmF6cXV4MTIzNDU2" > "$work/corpus/login"
printf '%s' "https://id.example.com/t/demo/activate?code=YWN0aXZhdGlvbi1jb2RlLWZvci1hbGljZQ" > "$work/corpus/activation"
printf '%s' "x" > "$work/corpus/short"
cd "$work"
./qrcode-fuzz -max_total_time="$seconds" -max_len=400 -seed=20261123 -print_final_stats=1 corpus 2>&1 | tail -15
