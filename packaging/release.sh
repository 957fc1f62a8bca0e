#!/usr/bin/env bash
# Builds the one release binary both packages are made from and prints its path:
# `tessera`, optimised, the Swift standard library and Foundation linked in
# (--static-swift-stdlib), for this machine (amd64). The OpenAPI document and the page
# templates are compiled into it; it reads no other file of this repository at run time.
# Needs libcurl4-openssl-dev: the Foundation networking linked in statically links libcurl.
# Usage: packaging/release.sh   (about 13 minutes cold on a 2-core machine, less again)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f /usr/include/x86_64-linux-gnu/curl/curl.h ] && [ ! -f /usr/include/curl/curl.h ]; then
    sudo=""
    if [ "$(id -u)" != "0" ]; then sudo="sudo"; fi
    echo "Installing libcurl4-openssl-dev (linked by the static Foundation networking)…" >&2
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libcurl4-openssl-dev >/dev/null
fi
swift build -c release --product tessera --static-swift-stdlib >&2
echo "$(swift build -c release --static-swift-stdlib --show-bin-path)/tessera"
