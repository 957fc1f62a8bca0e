"""A service's server driving OpenID CIBA (poll mode) with requests and joserfc.

Discovers the issuer, refuses to go on unless it announces CIBA, checks two refusals
(an unknown user, an unknown auth_req_id), starts a backchannel authentication for
LOGIN_HINT with a binding message, prints its auth_req_id, polls the token endpoint
at the announced interval (obeying slow_down), and verifies the ID token offline
against the JWKS. Environment: TESSERA_ISSUER, CLIENT_ID, CLIENT_SECRET, LOGIN_HINT,
BINDING_MESSAGE.
"""
import json
import os
import sys
import time

import requests
from joserfc import jwt
from joserfc.jwk import KeySet

GRANT = "urn:openid:params:grant-type:ciba"


def main() -> int:
    issuer = os.environ["TESSERA_ISSUER"]
    client_id = os.environ["CLIENT_ID"]
    auth = (client_id, os.environ["CLIENT_SECRET"])
    metadata = requests.get(issuer + "/.well-known/openid-configuration", timeout=30).json()
    assert metadata["issuer"] == issuer, metadata["issuer"]
    assert "poll" in metadata["backchannel_token_delivery_modes_supported"], metadata
    assert GRANT in metadata["grant_types_supported"], metadata["grant_types_supported"]
    endpoint = metadata["backchannel_authentication_endpoint"]
    token_endpoint = metadata["token_endpoint"]
    # A JWKS fetched before the login: the ID token is then checked without calling the issuer.
    keys = KeySet.import_key_set(requests.get(metadata["jwks_uri"], timeout=30).json())

    refusals = {}
    unknown = requests.post(endpoint, data={"scope": "openid", "login_hint": "no-such-user"}, auth=auth, timeout=30)
    refusals["unknown_user"] = [unknown.status_code, unknown.json()["error"]]
    bogus = requests.post(token_endpoint, data={"grant_type": GRANT, "auth_req_id": "bogus"}, auth=auth, timeout=30)
    refusals["unknown_auth_req_id"] = [bogus.status_code, bogus.json()["error"]]

    started = requests.post(
        endpoint,
        data={
            "scope": "openid email",
            "login_hint": os.environ["LOGIN_HINT"],
            "binding_message": os.environ["BINDING_MESSAGE"],
        },
        auth=auth,
        timeout=30,
    )
    assert started.status_code == 200, started.text
    body = started.json()
    auth_req_id = body["auth_req_id"]
    interval = body.get("interval", 5)
    deadline = time.time() + body["expires_in"]
    print("AUTH_REQ_ID " + auth_req_id, flush=True)

    polls = []
    while True:
        if time.time() > deadline:
            raise SystemExit("the request expired before the user answered")
        time.sleep(interval)
        answer = requests.post(token_endpoint, data={"grant_type": GRANT, "auth_req_id": auth_req_id}, auth=auth, timeout=30)
        if answer.status_code == 200:
            tokens = answer.json()
            break
        error = answer.json()["error"]
        polls.append(error)
        if error == "slow_down":
            interval += 5
        elif error != "authorization_pending":
            raise SystemExit(f"the token endpoint answered {error}")

    id_token = jwt.decode(tokens["id_token"], keys, algorithms=["ES256"])
    jwt.JWTClaimsRegistry(
        iss={"essential": True, "value": issuer},
        aud={"essential": True, "value": client_id},
        exp={"essential": True},
        iat={"essential": True},
        sub={"essential": True},
        auth_time={"essential": True},
    ).validate(id_token.claims)
    assert id_token.header["alg"] == "ES256"
    assert tokens["token_type"] == "Bearer" and tokens["access_token"], tokens

    again = requests.post(token_endpoint, data={"grant_type": GRANT, "auth_req_id": auth_req_id}, auth=auth, timeout=30)
    refusals["redeemed_twice"] = [again.status_code, again.json()["error"]]
    print("RESULT " + json.dumps({"claims": id_token.claims, "polls": polls, "refusals": refusals}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
