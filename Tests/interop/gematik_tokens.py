"""The gematik profile's token encryption from the client's side, with joserfc: the
client makes a 256-bit token_key, sends it with its PKCE verifier inside a key_verifier
(a JWE, ECDH-ES + A256GCM, to the tenant's puk_idp_enc), and decrypts the tokens that
come back (dir + A256GCM, cty NJWT), then verifies the ID token against the JWKS.
Refused: no key_verifier, one to another key, a code_verifier that differs from the
key_verifier's. Environment: TESSERA_ISSUER, CLIENT_ID, CLIENT_SECRET, REDIRECT_URI.
"""
import json
import os
import secrets
import sys
import urllib.parse

import login_page
import requests
from authlib.common.security import generate_token
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from joserfc import jwe, jwt
from joserfc.jwk import ECKey, KeySet, OctKey

TIMEOUT = 45


def check(condition, message):
    if not condition:
        raise SystemExit("FAILED: " + message)


def b64url(data: bytes) -> str:
    import base64
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def main() -> int:
    issuer = os.environ["TESSERA_ISSUER"]
    client = (os.environ["CLIENT_ID"], os.environ["CLIENT_SECRET"])
    redirect_uri = os.environ["REDIRECT_URI"]
    metadata = requests.get(issuer + "/.well-known/openid-configuration", timeout=TIMEOUT).json()
    puk_idp_enc = requests.get(metadata["uri_puk_idp_enc"], timeout=TIMEOUT).json()
    check(puk_idp_enc["use"] == "enc" and puk_idp_enc["crv"] == "P-256", f"puk_idp_enc: {puk_idp_enc}")
    enc_key = ECKey.import_key(puk_idp_enc)

    verifier = generate_token(48)
    query = {
        "response_type": "code", "client_id": client[0], "redirect_uri": redirect_uri, "scope": "openid", "state": "g1",
        "nonce": "n1", "code_challenge": create_s256_code_challenge(verifier), "code_challenge_method": "S256",
    }
    location = login_page.login(metadata["authorization_endpoint"] + "?" + urllib.parse.urlencode(query))
    code = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(location).query))["code"]
    grant = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri}

    def key_verifier(token_key: bytes, code_verifier: str, to=enc_key) -> str:
        body = json.dumps({"token_key": b64url(token_key), "code_verifier": code_verifier}).encode()
        return jwe.encrypt_compact({"alg": "ECDH-ES", "enc": "A256GCM", "cty": "JSON"}, body, to, algorithms=["ECDH-ES", "A256GCM"])

    token_key = secrets.token_bytes(32)
    for label, fields in [
        ("no key_verifier", {"code_verifier": verifier}),
        ("a key_verifier to another key", {"key_verifier": key_verifier(token_key, verifier, to=ECKey.generate_key("P-256"))}),
        ("a differing code_verifier", {"key_verifier": key_verifier(token_key, verifier), "code_verifier": verifier + "x"}),
    ]:
        answer = requests.post(metadata["token_endpoint"], data={**grant, **fields}, auth=client, timeout=TIMEOUT)
        check(answer.status_code == 400 and answer.json()["error"] == "invalid_request", f"{label}: {answer.status_code} {answer.text}")

    answer = requests.post(metadata["token_endpoint"], data={**grant, "key_verifier": key_verifier(token_key, verifier)}, auth=client, timeout=TIMEOUT)
    check(answer.status_code == 200, f"token: {answer.status_code} {answer.text}")
    body = answer.json()
    key = OctKey.import_key(token_key)
    # gematik's token JWEs carry exp in their header, a member joserfc's strict check does not know.
    registry = jwe.JWERegistry(algorithms=["dir", "A256GCM"], strict_check_header=False)
    plain = {}
    for name in ("access_token", "id_token", "refresh_token"):
        check(body[name].count(".") == 4, f"{name} is a JWE")
        opened = jwe.decrypt_compact(body[name], key, registry=registry)
        check(int(opened.protected["exp"]) > 0, f"{name} header has exp")
        check(opened.protected["cty"] == "NJWT" and opened.protected["alg"] == "dir", f"{name} header: {opened.protected}")
        plain[name] = opened.plaintext.decode("ascii")
    keys = KeySet.import_key_set(requests.get(metadata["jwks_uri"], timeout=TIMEOUT).json())
    id_token = jwt.decode(plain["id_token"], keys, algorithms=["ES256"])
    check(id_token.claims["nonce"] == "n1" and id_token.claims["iss"] == issuer, f"id token: {id_token.claims}")
    userinfo = requests.get(metadata["userinfo_endpoint"], headers={"Authorization": "Bearer " + plain["access_token"]}, timeout=TIMEOUT)
    check(userinfo.status_code == 200, f"userinfo with the decrypted token: {userinfo.status_code}")
    print("RESULT " + json.dumps({"sub": id_token.claims["sub"]}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
