#!/usr/bin/env python3
"""Checks the logs of a suite run made with TESSERA_TEST_LOG_DIR (scripts/test.sh's SQLite
pass; TesseraTesting's SuiteLogs writes them):

- every line of every server's log (servers.jsonl, child-*.jsonl) is one JSON object with
  ts, level, msg and logger;
- every request line (msg "request" or "request failed") carries request_id, method,
  route (a pattern, never a raw path), status and duration_ms as numbers, and tenant
  when its route names one;
- no secret the suite's clients sent or received (secrets.txt) appears in any log line.

    python3 scripts/check_logs.py DIRECTORY

Prints what it checked; exits 1 with the offending lines' places when something fails."""

import glob
import json
import os
import sys


def main():
    directory = sys.argv[1]
    logs = sorted(glob.glob(os.path.join(directory, "servers.jsonl")) + glob.glob(os.path.join(directory, "child-*.jsonl")))
    secrets_path = os.path.join(directory, "secrets.txt")
    secrets = set()
    if os.path.exists(secrets_path):
        with open(secrets_path, encoding="utf-8", errors="replace") as file:
            secrets = {line.rstrip("\n") for line in file if len(line.rstrip("\n")) >= 12}
    problems = []
    lines = requests = 0
    # Secrets (12 characters and more) are looked for in one pass over each line: an index
    # of every secret's first 8 characters, then a full compare where one matches.
    by_prefix = {}
    for secret in secrets:
        by_prefix.setdefault(secret[:8], []).append(secret)
    for path in logs:
        with open(path, encoding="utf-8", errors="strict") as file:
            for number, line in enumerate(file, 1):
                place = f"{os.path.basename(path)}:{number}"
                lines += 1
                try:
                    event = json.loads(line)
                except ValueError as error:
                    problems.append(f"{place}: not JSON ({error}): {line[:200]!r}")
                    continue
                if not isinstance(event, dict) or not all(key in event for key in ("ts", "level", "msg", "logger")):
                    problems.append(f"{place}: not an object with ts, level, msg and logger")
                    continue
                if event["msg"] in ("request", "request failed"):
                    requests += 1
                    missing = [key for key in ("request_id", "method", "route", "status", "duration_ms") if key not in event]
                    if missing:
                        problems.append(f"{place}: a request line without {', '.join(missing)}")
                    elif not isinstance(event["status"], int) or not isinstance(event["duration_ms"], (int, float)):
                        problems.append(f"{place}: status and duration_ms are not numbers")
                    elif "{tenant}" in event["route"] and "tenant" not in event:
                        problems.append(f"{place}: a tenant's route without its tenant")
                    for value in (event.get("route"), event.get("path")):
                        if isinstance(value, str) and "?" in value:
                            problems.append(f"{place}: a query in a request line")
                for start in range(0, max(len(line) - 7, 0)):
                    for secret in by_prefix.get(line[start:start + 8], ()):
                        if line.startswith(secret, start):
                            problems.append(f"{place}: a secret the suite made is in the log (its first 4 characters: {secret[:4]}…)")
    print(f"check_logs: {len(logs)} logs, {lines} lines, {requests} request lines, {len(secrets)} secrets looked for")
    if not logs or requests == 0:
        problems.append("no server logs were written")
    for problem in problems[:50]:
        print("  " + problem)
    if problems:
        print(f"check_logs: {len(problems)} problems")
        sys.exit(1)


if __name__ == "__main__":
    main()
