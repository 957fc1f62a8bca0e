#!/usr/bin/env python3
"""Sorts perf samples of the server into parts of a login's work.

    profile_breakdown.py STACKS [BENCH_JSON]

STACKS is `perf script -F ip,sym` output (one call stack per sample, leaf first, blank
line between samples). Each sample goes to the first part below whose pattern appears
anywhere in its stack, so a retain inside row decoding counts as row decoding. With the
bench's --json result, each part is also given in milliseconds per flow.
"""

import json
import re
import sys

PARTS = [
    ("fsync (each commit on disk)", r"fdatasync|fsync"),
    ("WAL writes", r"__libc_pwrite|pwrite64"),
    ("database file reads", r"__libc_pread|pread64"),
    ("row decoding (Codable)", r"SQLRowDecoder|DirectSQLiteRow|JSONCoding|JSONText"),
    ("SQL building and binds", r"SQLKit.*serialize|SQLQueryEncoder|SQLInsertBuilder|SQLiteDataEncoder"),
    ("SQLite engine", r"sqlite3"),
    ("signatures and hashes (BoringSSL)", r"ecp_nistz256|CCryptoBoringSSL|BoringSSL|sha256_block|ECDSA|P256"),
    ("QR code and login page", r"QRCode|ReedSolomon|QRPenalty|Pages|HTMLResponse"),
    ("JSON and JOSE coding", r"JSONDecoder|JSONEncoder|JSONSerialization|CompactJWS|Base64URL"),
    ("thread hand-offs and wake-ups", r"futex|finish_task_switch|__schedule|swift_task_switch|epoll_wait|try_to_wake_up"),
    ("HTTP (SwiftNIO, Hummingbird)", r"NIOPosix|NIOCore|NIOHTTP|Hummingbird|HTTPTypes|writev|readv|tcp_|sock_"),
    ("request handling (Tessera's own code)", r"Tessera"),
    ("Swift runtime and allocation", r"swift_|malloc|free|_int_|swift::"),
    ("other", r""),
]


def main() -> None:
    stacks = [block for block in open(sys.argv[1]).read().split("\n\n") if block.strip()]
    patterns = [(name, re.compile(pattern)) for name, pattern in PARTS]
    counts = {name: 0 for name, _ in PARTS}
    for block in stacks:
        frames = " ".join(line.strip().split(" ", 1)[-1] for line in block.strip().splitlines())
        for name, pattern in patterns:
            if pattern.search(frames):
                counts[name] += 1
                break
    total = len(stacks)
    per_flow = None
    if len(sys.argv) > 2:
        result = json.load(open(sys.argv[2]))
        per_flow = result.get("cpu_ms", {}).get("server_ms_per_flow")
        print(
            "login at %.1f/s, %d workers: server %.2f ms CPU per login, bench %.2f ms"
            % (result["flows_per_second"], result["concurrency"], per_flow or 0, result.get("cpu_ms", {}).get("bench_ms_per_flow", 0))
        )
    print("%d samples" % total)
    print("| part of the work | share | ms per login |")
    print("|---|---|---|")
    for name, _ in PARTS:
        share = counts[name] / total if total else 0
        width = int(round(share * 40))
        cost = "%.2f" % (share * per_flow) if per_flow else "-"
        print("| %s | %5.1f %% %s | %s |" % (name, share * 100, "█" * width, cost))


if __name__ == "__main__":
    main()
