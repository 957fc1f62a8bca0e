#!/usr/bin/env bash
# Fuzzes with libFuzzer for SECONDS each (default 30) the parsers and encoders the project
# wrote by hand and that take outside input, each built with the Swift toolchain's
# -sanitize=fuzzer,address together with its one source file (they import nothing):
#   qr    Tests/fuzz/QRCodeFuzz.swift on Sources/TesseraQRCode/QRCode.swift, seeded with links
#         like the ones the server encodes;
#   cbor  Tests/fuzz/CBORFuzz.swift on Sources/TesseraCrypto/WebAuthn/CBOR.swift, seeded with
#         a WebAuthn attestation object and a COSE key.
# Exits non-zero on a crash, a failed invariant or a memory error (libFuzzer keeps the input
# as crash-* in the work directory and prints it).
#   scripts/fuzz.sh [SECONDS] [qr|cbor ...]     (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(qr cbor); fi
work="$(mktemp -d "${TMPDIR:-/tmp}/tessera-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT

hex() { python3 -c 'import sys; sys.stdout.buffer.write(bytes.fromhex(sys.argv[1]))' "$1"; }

build() {  # build NAME MODULE SOURCE… HARNESS
    local name="$1" module="$2"
    shift 2
    swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name "$module" "$@" -o "$work/$name-fuzz" 2>&1 \
        | grep -v "Cannot export local symbol" || true
    mkdir -p "$work/$name-corpus"
}

for target in "${targets[@]}"; do
    case "$target" in
    qr)
        build qr QRFuzz Sources/TesseraQRCode/QRCode.swift Tests/fuzz/QRCodeFuzz.swift
        printf '%s' "https://id.example.com/t/demo/authenticate?request=Zm9vYmFyYmF6cXV4MTIzNDU2" > "$work/qr-corpus/login"
        printf '%s' "https://id.example.com/t/demo/activate?code=YWN0aXZhdGlvbi1jb2RlLWZvci1hbGljZQ" > "$work/qr-corpus/activation"
        printf '%s' "x" > "$work/qr-corpus/short"
        max_len=400
        ;;
    cbor)
        build cbor CBORFuzz Sources/TesseraCrypto/WebAuthn/CBOR.swift Tests/fuzz/CBORFuzz.swift
        # {"fmt": "none", "attStmt": {}, "authData": h'…'} and an ES256 COSE key.
        hex 'a363666d74646e6f6e656761747453746d74a068617574684461746158250102030405060708091011121314151617181920212223242526272829303132410000002a' \
            > "$work/cbor-corpus/attestation"
        hex "a5010203262001215820$(printf '11%.0s' {1..32})225820$(printf '22%.0s' {1..32})" > "$work/cbor-corpus/cose-key"
        hex 'fb3ff199999999999a' > "$work/cbor-corpus/float"
        # Once crashed the harness: map keys that are one map written in two orders.
        hex 'a4f7f70120a30120f7f72c0000a3f7f701202c00f7' > "$work/cbor-corpus/reordered-keys"
        max_len=2048
        ;;
    *)
        echo "unknown fuzz target: $target (qr, cbor)" >&2
        exit 2
        ;;
    esac
    echo "== $target"
    (cd "$work" && "./$target-fuzz" -max_total_time="$seconds" -max_len="$max_len" -seed=20261123 -print_final_stats=1 "$target-corpus" 2>&1 | tail -15)
done
