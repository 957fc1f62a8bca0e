"""SCIM 2.0 from the outside: scim2-tester's whole check against a fresh tenant, then the
requests Microsoft Entra ID sends (capitalised ops, "False" for active, a path-less
replace with dotted names, a filtered e-mail path, member removal by value).

Environment: SCIM_BASE ({issuer}/scim/v2), SCIM_TOKEN (a provisioner key).
Prints RESULT {json}: the tester's counts by status and every result that is not SUCCESS.
"""
import collections
import json
import os

import requests
from httpx2 import Client
from scim2_client.engines.httpx2 import SyncSCIMClient
from scim2_tester import Status, check_server

TIMEOUT = 30


def check(condition, message):
    if not condition:
        raise SystemExit("FAILED: " + message)


def main():
    base = os.environ["SCIM_BASE"]
    headers = {"Authorization": "Bearer " + os.environ["SCIM_TOKEN"]}
    client = SyncSCIMClient(Client(base_url=base, headers=headers, timeout=TIMEOUT))
    results = check_server(client)
    counts = collections.Counter(result.status.name for result in results)
    problems = [
        {"status": r.status.name, "resource": str(r.resource_type), "title": r.title, "reason": (r.reason or "")[:300]}
        for r in results if r.status != Status.SUCCESS
    ]

    scim = {"Content-Type": "application/scim+json", **headers}
    made = requests.post(base + "/Users", headers=scim, timeout=TIMEOUT, json={
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "userName": "entra.user@contoso.example",
        "active": True, "externalId": "0001", "meta": {"resourceType": "User"}, "roles": [],
        "emails": [{"value": "entra.user@contoso.example", "type": "work", "primary": True}]})
    check(made.status_code == 201, f"Entra's create: {made.status_code} {made.text}")
    user = made.json()
    found = requests.get(base + "/Users", headers=scim, timeout=TIMEOUT,
                         params={"filter": 'userName eq "entra.user@contoso.example"'}).json()
    check(found["totalResults"] == 1 and found["Resources"][0]["id"] == user["id"], f"filter by userName: {found}")
    patched = requests.patch(f"{base}/Users/{user['id']}", headers=scim, timeout=TIMEOUT, json={
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
        "Operations": [
            {"op": "Replace", "path": "active", "value": "False"},
            {"op": "replace", "value": {"name.givenName": "Entra", "name.familyName": "User"}},
            {"op": "Add", "path": 'emails[type eq "work"].value', "value": "e.user@contoso.example"},
        ]})
    check(patched.status_code in (200, 204), f"Entra's PATCH: {patched.status_code} {patched.text}")
    after = requests.get(f"{base}/Users/{user['id']}", headers=scim, timeout=TIMEOUT).json()
    check(after["active"] is False and after["name"]["givenName"] == "Entra", f"after the PATCH: {after}")
    check(after["emails"][0]["value"] == "e.user@contoso.example", "the work e-mail replaced")

    print("RESULT " + json.dumps({"counts": counts, "problems": problems, "entra_user": user["id"]}), flush=True)


if __name__ == "__main__":
    main()
