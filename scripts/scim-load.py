#!/usr/bin/env python3
"""Creates many users over SCIM and reports the time (a measurement, not a CI step).

    scripts/scim-load.py --base http://127.0.0.1:8080/t/demo/scim/v2 --token tsk_… [--users 10000] [--workers 8]

Each user is a POST /Users as Entra ID sends it (userName, name, displayName, a work
e-mail, externalId, active). Afterwards it times a few userName lookups (what a directory
does before every change), a deactivation by PATCH, and one page of the unfiltered list.
"""
import argparse
import concurrent.futures
import statistics
import threading
import time
import uuid

import requests

local = threading.local()


def session(token):
    if not hasattr(local, "session"):
        local.session = requests.Session()
        local.session.headers.update({"Authorization": "Bearer " + token, "Content-Type": "application/scim+json"})
    return local.session


def create(base, token, index, prefix):
    body = {
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "userName": f"{prefix}-{index:06d}@contoso.example",
        "externalId": str(uuid.uuid4()), "active": True, "displayName": f"User {index}",
        "name": {"givenName": "User", "familyName": f"{index:06d}"},
        "emails": [{"value": f"{prefix}-{index:06d}@contoso.example", "type": "work", "primary": True}],
    }
    started = time.perf_counter()
    answer = session(token).post(base + "/Users", json=body, timeout=60)
    if answer.status_code != 201:
        raise SystemExit(f"user {index}: {answer.status_code} {answer.text[:200]}")
    return time.perf_counter() - started, answer.json()["id"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--users", type=int, default=10000)
    parser.add_argument("--workers", type=int, default=8)
    arguments = parser.parse_args()
    prefix = uuid.uuid4().hex[:8]
    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(arguments.workers) as pool:
        results = list(pool.map(lambda i: create(arguments.base, arguments.token, i, prefix), range(arguments.users)))
    elapsed = time.perf_counter() - started
    latencies = sorted(r[0] for r in results)
    print(f"created {arguments.users} users in {elapsed:.1f} s ({arguments.users / elapsed:.0f}/s, {arguments.workers} workers)")
    print(f"POST /Users latency: median {statistics.median(latencies) * 1000:.1f} ms, "
          f"p99 {latencies[int(len(latencies) * 0.99) - 1] * 1000:.1f} ms")
    s = session(arguments.token)
    lookups = []
    for index in range(0, arguments.users, max(1, arguments.users // 20)):
        t = time.perf_counter()
        found = s.get(arguments.base + "/Users", params={"filter": f'userName eq "{prefix}-{index:06d}@contoso.example"'}, timeout=60)
        lookups.append(time.perf_counter() - t)
        assert found.json()["totalResults"] == 1, found.text[:200]
    print(f"userName eq lookup: median {statistics.median(lookups) * 1000:.1f} ms over {len(lookups)}")
    t = time.perf_counter()
    patched = s.patch(f"{arguments.base}/Users/{results[0][1]}", json={
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations": [{"op": "Replace", "path": "active", "value": "False"}]},
        timeout=60)
    print(f"PATCH active=False: {patched.status_code} in {(time.perf_counter() - t) * 1000:.1f} ms")
    t = time.perf_counter()
    page = s.get(arguments.base + "/Users", params={"count": 100}, timeout=120).json()
    print(f"GET /Users (first 100 of {page['totalResults']}): {(time.perf_counter() - t) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
