#!/usr/bin/env bash
# The feeds under the issue's load (issue 34; its figures go in the note, it is not a step
# of .ci/run):
#
#   scripts/feed-burst.sh [CHANGES] [LOGINS]
#
# Runs the suite's test "The feeds with writers on two nodes" (FeedBurstTests) with
# CHANGES audited changes (default 3000) and LOGINS logins (default 2000) on a throwaway
# PostgreSQL (scripts/postgres.sh): two nodes behind nginx, eight writers creating users on
# alternate nodes and eight devices logging in through the proxy, while a consumer pages
# both feeds every half second from alternate nodes. It passes when the consumer read
# every entry the database holds, each once, in increasing `seq`; it prints how long the
# writers took and how many rounds the consumer read. The nodes are the test build's,
# in the test's process.
set -euo pipefail
cd "$(dirname "$0")/.."
changes="${1:-3000}"
logins="${2:-2000}"
database="/tmp/tessera-test-postgres.feed-burst-$$"
trap 'scripts/postgres.sh stop "$database" >/dev/null 2>&1 || true' EXIT
url="$(scripts/postgres.sh start "$database" $$ | tail -1)"
swift build --build-tests >&2
TESSERA_TEST_DATABASE_URL="$url" TESSERA_FEED_CHANGES="$changes" TESSERA_FEED_LOGINS="$logins" \
    swift test --skip-build --filter FeedBurstTests 2>&1 | grep -E "feed burst|✔|✘|Expectation"
