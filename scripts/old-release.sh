#!/usr/bin/env bash
# Prints the path of a debug build of the tagged release v0.1.0, building it the first
# time only (a git worktree of its commit, its own scratch path) into
# ${TESSERA_OLD_BUILDS:-~/.cache/tessera-old-builds}/v0.1.0. For the upgrade fixtures
# (scripts/make_upgrade_fixtures.sh) and the mixed-version cluster
# (scripts/mixed-cluster.sh); never a step of .ci/run. A first build takes about ten
# minutes on two cores.
set -euo pipefail
cd "$(dirname "$0")/.."
release=v0.1.0
# The tag's commit, for a clone without tags.
release_commit=49e8332c37bafb0c414b1b504936dc5ffa65a82b
cache="${TESSERA_OLD_BUILDS:-$HOME/.cache/tessera-old-builds}/$release"
if [ ! -x "$cache/tessera" ]; then
    mkdir -p "$cache"
    if [ ! -d "$cache/src" ]; then git worktree add --detach "$cache/src" "$release_commit" >&2; fi
    echo "Building $release once (cached in $cache)…" >&2
    (cd "$cache/src" && TESSERA_VERSION="$release" TESSERA_COMMIT="$release_commit" \
        swift build --product tessera --scratch-path "$cache/build" >&2)
    cp "$cache/build/debug/tessera" "$cache/tessera"
fi
"$cache/tessera" --version | grep -q "^$release " || { echo "$cache/tessera is not $release: $("$cache/tessera" --version)" >&2; exit 1; }
echo "$cache/tessera"
