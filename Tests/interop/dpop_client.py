"""DPoP (RFC 9449) from the outside: proofs built and keys made with joserfc.

The script signs in like a browser (the Swift test approves the AUTHENTICATION_URL it
prints), then uses the token endpoint, userinfo and, for a confidential client,
introspection with DPoP proofs: the server's nonce, DPoP-bound tokens (`cnf.jkt`,
`token_type` DPoP), and the refusals: a replayed proof, a wrong `htu` or `htm`, a proof
without `ath`, another key, a bound token used as a bearer token, a private key in the
header, and (public client) a refresh token used with another key, which stays usable.

Environment: TESSERA_ISSUER, CLIENT_ID, CLIENT_SECRET (empty: a public client),
REDIRECT_URI, ALGORITHM (ES256, EdDSA or RS256). Prints RESULT {json}.
"""
import base64
import hashlib
import json
import os
import sys
import time
import urllib.parse
import warnings

import login_page
import requests
from authlib.common.security import generate_token
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from joserfc import jwt
from joserfc.jwk import ECKey, OKPKey, RSAKey

warnings.filterwarnings("ignore", message="EdDSA is deprecated")
TIMEOUT = 45


def check(condition, message):
    if not condition:
        raise SystemExit("FAILED: " + message)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def new_key(algorithm):
    if algorithm == "ES256":
        # A key whose JWK joserfc writes with a coordinate shorter than 32 bytes (it drops
        # leading zero bytes, for about one key in 150): the server must take it as the
        # same point, and bind to the thumbprint of the members as sent.
        while True:
            key = ECKey.generate_key("P-256")
            public = key.as_dict(private=False)
            if len(public["x"]) < 43 or len(public["y"]) < 43:
                return key
    if algorithm == "EdDSA":
        return OKPKey.generate_key("Ed25519")
    return RSAKey.generate_key(2048)


class Client:
    def __init__(self):
        self.issuer = os.environ["TESSERA_ISSUER"]
        self.client_id = os.environ["CLIENT_ID"]
        self.secret = os.environ.get("CLIENT_SECRET") or None
        self.redirect_uri = os.environ["REDIRECT_URI"]
        self.algorithm = os.environ["ALGORITHM"]
        self.key = new_key(self.algorithm)
        self.metadata = requests.get(self.issuer + "/.well-known/openid-configuration", timeout=TIMEOUT).json()
        self.nonce = None

    def proof(self, method, url, token=None, key=None, with_nonce=True, header_extra=None, **claims):
        key = key or self.key
        body = {"jti": generate_token(20), "htm": method, "htu": url, "iat": int(time.time())}
        if with_nonce and self.nonce:
            body["nonce"] = self.nonce
        if token:
            body["ath"] = b64url(hashlib.sha256(token.encode("ascii")).digest())
        body.update(claims)
        header = {"typ": "dpop+jwt", "alg": self.algorithm, "jwk": key.as_dict(private=False)}
        header.update(header_extra or {})
        return jwt.encode(header, body, key, algorithms=[self.algorithm])

    def token_request(self, data, proof):
        auth = (self.client_id, self.secret) if self.secret else None
        if not self.secret:
            data = {**data, "client_id": self.client_id}
        answer = requests.post(self.metadata["token_endpoint"], data=data, auth=auth, headers={"DPoP": proof}, timeout=TIMEOUT)
        if "DPoP-Nonce" in answer.headers:
            self.nonce = answer.headers["DPoP-Nonce"]
        return answer

    def userinfo(self, token, proof, scheme="DPoP"):
        return requests.get(
            self.metadata["userinfo_endpoint"], headers={"Authorization": f"{scheme} {token}", "DPoP": proof}, timeout=TIMEOUT)

    def code(self):
        verifier = generate_token(48)
        query = {
            "response_type": "code", "client_id": self.client_id, "redirect_uri": self.redirect_uri, "scope": "openid",
            "state": generate_token(10), "nonce": generate_token(10),
            "code_challenge": create_s256_code_challenge(verifier), "code_challenge_method": "S256",
        }
        location = login_page.login(self.metadata["authorization_endpoint"] + "?" + urllib.parse.urlencode(query))
        return dict(urllib.parse.parse_qsl(urllib.parse.urlparse(location).query))["code"], verifier


def claims_of(token):
    part = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def main() -> int:
    client = Client()
    metadata = client.metadata
    check(client.algorithm in metadata["dpop_signing_alg_values_supported"], "algorithm announced")
    token_url = metadata["token_endpoint"]
    userinfo_url = metadata["userinfo_endpoint"]
    code, verifier = client.code()
    grant = {"grant_type": "authorization_code", "code": code, "redirect_uri": client.redirect_uri, "code_verifier": verifier}

    # Without the server's nonce: use_dpop_nonce, with one in DPoP-Nonce; the code is not spent.
    first = client.token_request(grant, client.proof("POST", token_url))
    check(first.status_code == 400 and first.json()["error"] == "use_dpop_nonce" and client.nonce, f"nonce: {first.text}")
    # Refusals before the right proof, each leaving the code unspent.
    stranger = new_key(client.algorithm)
    private = client.key.as_dict(private=True)
    for label, proof in [
        ("wrong htu", client.proof("POST", client.issuer + "/userinfo")),
        ("wrong htm", client.proof("GET", token_url)),
        ("stale iat", client.proof("POST", token_url, iat=int(time.time()) - 3600)),
        ("a private key in the header", client.proof("POST", token_url, header_extra={"jwk": private})),
        ("a bad nonce", client.proof("POST", token_url, with_nonce=False, nonce="AAAA")),
        ("typ JWT", client.proof("POST", token_url, header_extra={"typ": "JWT"})),
    ]:
        answer = client.token_request(grant, proof)
        expected = "use_dpop_nonce" if label == "a bad nonce" else "invalid_dpop_proof"
        check(answer.status_code == 400 and answer.json()["error"] == expected, f"{label}: {answer.status_code} {answer.text}")
    good = client.proof("POST", token_url)
    tokens = client.token_request(grant, good)
    check(tokens.status_code == 200, f"token: {tokens.status_code} {tokens.text}")
    body = tokens.json()
    check(body["token_type"] == "DPoP", f"token_type: {body['token_type']}")
    thumbprint = client.key.thumbprint()
    access = body["access_token"]
    check(claims_of(access)["cnf"] == {"jkt": thumbprint}, f"cnf: {claims_of(access).get('cnf')}")
    # The same proof again is a replay.
    replay = client.token_request({"grant_type": "refresh_token", "refresh_token": body["refresh_token"]}, good)
    check(replay.status_code == 400 and replay.json()["error"] == "invalid_dpop_proof", f"replay: {replay.text}")

    # userinfo: the proof names GET, the URL and the token's hash.
    ok = client.userinfo(access, client.proof("GET", userinfo_url, token=access))
    check(ok.status_code == 200 and "sub" in ok.json(), f"userinfo: {ok.status_code} {ok.text}")
    for label, answer, expected in [
        ("as a bearer token", client.userinfo(access, client.proof("GET", userinfo_url, token=access), scheme="Bearer"), "invalid_token"),
        ("no ath", client.userinfo(access, client.proof("GET", userinfo_url)), "invalid_dpop_proof"),
        ("wrong htm", client.userinfo(access, client.proof("POST", userinfo_url, token=access)), "invalid_dpop_proof"),
        ("another key", client.userinfo(access, client.proof("GET", userinfo_url, token=access, key=stranger)), "invalid_token"),
    ]:
        challenge = answer.headers.get("WWW-Authenticate", "")
        check(answer.status_code == 401 and f'error="{expected}"' in challenge, f"userinfo {label}: {answer.status_code} {challenge}")
    without_proof = requests.get(userinfo_url, headers={"Authorization": f"DPoP {access}"}, timeout=TIMEOUT)
    check(without_proof.status_code == 401, f"DPoP without a proof: {without_proof.status_code}")

    result = {"jkt": thumbprint, "token_type": body["token_type"]}
    refresh = body["refresh_token"]
    if client.secret:
        # A confidential client: introspection shows the binding; its refresh tokens are
        # bound by its authentication, so a proof with a new key binds the new access token to it.
        introspected = requests.post(
            metadata["introspection_endpoint"], data={"token": access}, auth=(client.client_id, client.secret), timeout=TIMEOUT).json()
        check(introspected["active"] and introspected["token_type"] == "DPoP" and introspected["cnf"] == {"jkt": thumbprint},
              f"introspection: {introspected}")
        result["introspected"] = introspected
        renewed = client.token_request({"grant_type": "refresh_token", "refresh_token": refresh}, client.proof("POST", token_url, key=stranger))
        check(renewed.status_code == 200 and claims_of(renewed.json()["access_token"])["cnf"]["jkt"] == stranger.thumbprint(),
              f"refresh with a new key: {renewed.text}")
    else:
        # A public client: the refresh token is bound to the key. Another key is refused and
        # the token stays usable; the right key rotates it.
        other = client.token_request({"grant_type": "refresh_token", "refresh_token": refresh}, client.proof("POST", token_url, key=stranger))
        check(other.status_code == 400 and other.json()["error"] == "invalid_dpop_proof", f"refresh with another key: {other.text}")
        bare = requests.post(token_url, data={"grant_type": "refresh_token", "refresh_token": refresh, "client_id": client.client_id}, timeout=TIMEOUT)
        check(bare.status_code == 400 and bare.json()["error"] == "invalid_dpop_proof", f"refresh without a proof: {bare.text}")
        renewed = client.token_request({"grant_type": "refresh_token", "refresh_token": refresh}, client.proof("POST", token_url))
        check(renewed.status_code == 200 and renewed.json()["token_type"] == "DPoP", f"refresh with the key: {renewed.text}")
        check(claims_of(renewed.json()["access_token"])["cnf"]["jkt"] == thumbprint, "the new access token is bound to the key")
    print("RESULT " + json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
