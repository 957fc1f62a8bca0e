"""Passkeys against a real Tessera server, with authenticators and a relying-party client
from outside the project.

- Authenticators: `Authenticator` below, written on `fido2`'s CBOR and COSE encoders
  and `cryptography`'s keys (packed self attestation, user verification, any counter,
  any origin or RP ID for the refusals), and PyPI's `soft-webauthn` device (none
  attestation; it never verifies the user).
- An invitation opened in a browser becomes a passkey; the passkey signs in through
  /authorize; Authlib redeems the code and joserfc verifies the ID token (amr, acr).
- Refused, each with a clear 4xx: another origin, another RP ID hash, a replayed
  challenge, a counter that goes back (the key is blocked from then on), no user
  verification, an unsupported attestation format, malformed JSON, a browser without
  the request's cookie, a service whose policy does not take a passkey alone; and a
  removed credential, whose session ends with it.

Environment: TESSERA_ISSUER, ORIGIN, CLIENT_ID, CLIENT_SECRET, REDIRECT_URI, OTHER_CLIENT_ID,
ADMIN_BASE, ADMIN_TOKEN, TENANT, USER_ID, INVITATIONS (three codes, space-separated).
Prints `RESULT <json>`; exits non-zero with a message on the first failed check.
"""
import base64
import hashlib
import html
import json
import os
import re
import struct
import sys

import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from fido2 import cbor
from fido2.cose import ES256, EdDSA
from joserfc import jwt
from joserfc.jwk import KeySet
from soft_webauthn import SoftWebauthnDevice

ISSUER = os.environ["TESSERA_ISSUER"]
ORIGIN = os.environ["ORIGIN"]
ADMIN = {"Authorization": "Bearer " + os.environ["ADMIN_TOKEN"]}
USERS_URL = f"{os.environ['ADMIN_BASE']}/admin/tenants/{os.environ['TENANT']}/users/{os.environ['USER_ID']}"
result = {}


def check(condition, message):
    if not condition:
        print(f"FAILED {message}", file=sys.stderr, flush=True)
        sys.exit(1)


def b64e(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def b64d(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


class Authenticator:
    """A FIDO2 authenticator in software: one credential, P-256 or Ed25519."""

    UP, UV, AT = 0x01, 0x04, 0x40

    def __init__(self, kind="ES256"):
        self.kind = kind
        if kind == "ES256":
            self.key = ec.generate_private_key(ec.SECP256R1())
            self.cose = ES256.from_cryptography_key(self.key.public_key())
        else:
            self.key = ed25519.Ed25519PrivateKey.generate()
            self.cose = EdDSA.from_cryptography_key(self.key.public_key())
        self.credential_id = os.urandom(32)
        self.counter = 0
        self.user_handle = b""

    def sign(self, data: bytes) -> bytes:
        if self.kind == "ES256":
            return self.key.sign(data, ec.ECDSA(hashes.SHA256()))
        return self.key.sign(data)

    def create(self, options, origin=ORIGIN, fmt="packed"):
        self.user_handle = b64d(options["user"]["id"])
        check({"type": "public-key", "alg": self.cose.ALGORITHM} in options["pubKeyCredParams"], "the server does not offer our algorithm")
        client_data = json.dumps(
            {"type": "webauthn.create", "challenge": options["challenge"], "origin": origin, "crossOrigin": False}
        ).encode()
        auth_data = (
            sha256(options["rp"]["id"].encode()) + bytes([self.UP | self.UV | self.AT]) + struct.pack(">I", self.counter)
            + bytes(16) + struct.pack(">H", len(self.credential_id)) + self.credential_id + cbor.encode(self.cose)
        )
        if fmt == "packed":
            statement = {"alg": self.cose.ALGORITHM, "sig": self.sign(auth_data + sha256(client_data))}
        elif fmt == "none":
            statement = {}
        else:
            statement = {"ver": "2.0", "alg": self.cose.ALGORITHM, "sig": b"\x00" * 64}
        attestation = cbor.encode({"fmt": fmt, "attStmt": statement, "authData": auth_data})
        return {
            "id": b64e(self.credential_id), "rawId": b64e(self.credential_id), "type": "public-key",
            "response": {"clientDataJSON": b64e(client_data), "attestationObject": b64e(attestation), "transports": ["usb"]},
        }

    def get(self, options, origin=ORIGIN, rp_id=None, flags=UP | UV, counter=None):
        self.counter = self.counter + 1 if counter is None else counter
        client_data = json.dumps({"type": "webauthn.get", "challenge": options["challenge"], "origin": origin}).encode()
        auth_data = sha256((rp_id or options["rpId"]).encode()) + bytes([flags]) + struct.pack(">I", self.counter)
        return {
            "id": b64e(self.credential_id), "rawId": b64e(self.credential_id), "type": "public-key",
            "response": {
                "clientDataJSON": b64e(client_data), "authenticatorData": b64e(auth_data),
                "signature": b64e(self.sign(auth_data + sha256(client_data))), "userHandle": b64e(self.user_handle),
            },
        }


def soft_device_json(credential):
    """soft-webauthn answers with bytes; the server takes WebAuthn's JSON form."""
    response = {name: b64e(value) if isinstance(value, bytes) else value for name, value in credential["response"].items()}
    return {"id": b64e(credential["rawId"]), "rawId": b64e(credential["rawId"]), "type": "public-key", "response": response}


def soft_device_options(options, kind):
    """WebAuthn's JSON options as the bytes soft-webauthn expects."""
    converted = dict(options)
    converted["challenge"] = b64d(options["challenge"])
    if kind == "create":
        converted["user"] = dict(options["user"], id=b64d(options["user"]["id"]))
    return {"publicKey": converted}


def register(code, authenticator=None, fmt="packed", name=None, device=None):
    options = requests.post(f"{ISSUER}/passkeys/invitation/options", json={"code": code}, timeout=30)
    check(options.status_code == 200, f"registration options: {options.status_code} {options.text}")
    options = options.json()
    check(options["rp"]["id"] == ORIGIN.split("//")[1].split(":")[0], f"the RP ID is not the issuer's host: {options['rp']}")
    if device is not None:
        credential = soft_device_json(device.create(soft_device_options(options, "create"), ORIGIN))
    else:
        credential = authenticator.create(options, fmt=fmt)
    return requests.post(f"{ISSUER}/passkeys/invitation", json={"code": code, "name": name, "credential": credential}, timeout=30)


class Login:
    """One /authorize in a browser (requests with cookies), through Authlib's URL."""

    def __init__(self, client_id=os.environ["CLIENT_ID"]):
        self.metadata = requests.get(ISSUER + "/.well-known/openid-configuration", timeout=30).json()
        self.session = OAuth2Session(
            client_id, os.environ["CLIENT_SECRET"], scope="openid", redirect_uri=os.environ["REDIRECT_URI"],
            code_challenge_method="S256", token_endpoint_auth_method="client_secret_basic",
        )
        self.verifier = generate_token(48)
        self.nonce = generate_token(20)
        url, self.state = self.session.create_authorization_url(
            self.metadata["authorization_endpoint"], code_verifier=self.verifier, nonce=self.nonce
        )
        self.browser = requests.Session()
        self.page = self.browser.get(url, timeout=30)
        check(self.page.status_code == 200, f"login page: {self.page.status_code}")
        match = re.search(r'data-passkey-url="([^"]*)"', self.page.text)
        self.passkey_url = html.unescape(match.group(1)) if match else None
        complete = re.search(r'data-complete-url="([^"]*)"', self.page.text)
        self.complete_url = html.unescape(complete.group(1))
        self.options_url = self.complete_url.replace("/authorize/complete?", "/authorize/passkey/options?")
        self.login_url = self.complete_url.replace("/authorize/complete?", "/authorize/passkey?")

    def options(self, body=None):
        answer = self.browser.post(self.options_url, json=body or {}, timeout=30)
        check(answer.status_code == 200, f"sign-in options: {answer.status_code} {answer.text}")
        return answer.json()

    def answer(self, credential):
        return self.browser.post(self.login_url, json=credential, timeout=30)

    def tokens(self):
        redirect = self.browser.get(self.complete_url, allow_redirects=False, timeout=30)
        check(redirect.status_code == 302, f"complete: {redirect.status_code} {redirect.text[:300]}")
        token = self.session.fetch_token(
            self.metadata["token_endpoint"], authorization_response=redirect.headers["Location"], code_verifier=self.verifier,
            state=self.state,
        )
        keys = KeySet.import_key_set(requests.get(self.metadata["jwks_uri"], timeout=30).json())
        id_token = jwt.decode(token["id_token"], keys, algorithms=["ES256"])
        jwt.JWTClaimsRegistry(
            iss={"essential": True, "value": ISSUER}, aud={"essential": True, "value": self.session.client_id},
            nonce={"essential": True, "value": self.nonce}, exp={"essential": True}, sub={"essential": True},
        ).validate(id_token.claims)
        return token, id_token.claims


def refused(response, status, code, words, what):
    check(response.status_code == status, f"{what}: expected {status}, got {response.status_code} {response.text}")
    body = response.json()
    check(body.get("error") == code, f"{what}: error {body.get('error')} instead of {code}")
    check(words in body.get("error_description", ""), f"{what}: '{words}' not in {body.get('error_description')!r}")
    result.setdefault("refusals", []).append(what)


def main():
    codes = os.environ["INVITATIONS"].split()

    # 1. An invitation becomes a passkey (packed self attestation, ES256); the invitation is spent.
    key = Authenticator("ES256")
    answer = register(codes[0], key, name="Desk key")
    check(answer.status_code == 201, f"registration: {answer.status_code} {answer.text}")
    registered = answer.json()
    check(registered["algorithm"] == "ES256" and registered["attestation"] == "self", f"registered as {registered}")
    check(registered["name"] == "Desk key" and registered["transports"] == ["usb"], f"registered as {registered}")
    spent = requests.post(f"{ISSUER}/passkeys/invitation/options", json={"code": codes[0]}, timeout=30)
    refused(spent, 400, "invalid_grant", "used already", "a spent invitation")
    # An attestation format the server does not take leaves the invitation unspent.
    refused(register(codes[1], Authenticator("EdDSA"), fmt="tpm"), 400, "invalid_credential", "not supported", "a tpm attestation")
    edkey = Authenticator("EdDSA")
    answer = register(codes[1], edkey, fmt="none")
    check(answer.status_code == 201 and answer.json()["algorithm"] == "EdDSA", f"EdDSA registration: {answer.text}")
    # soft-webauthn: none attestation, user present but not verified (enough to register).
    soft = SoftWebauthnDevice()
    answer = register(codes[2], device=soft)
    check(answer.status_code == 201 and answer.json()["attestation"] == "none", f"soft-webauthn registration: {answer.text}")

    # 2. The passkey signs in through /authorize; Authlib redeems the code; joserfc verifies.
    login = Login()
    check(login.passkey_url is not None, "the login page offers no passkey")
    options = login.options()
    check(options["userVerification"] == "required" and options["allowCredentials"] == [], f"options: {options}")
    approved = login.answer(key.get(options))
    check(approved.status_code == 200, f"passkey sign-in: {approved.status_code} {approved.text}")
    token, claims = login.tokens()
    check(claims["sub"] == os.environ["USER_ID"], f"sub {claims['sub']}")
    check(claims["amr"] == ["hwk", "user"] and claims["acr"] == "urn:tessera:acr:securitykey", f"amr/acr {claims}")
    result["claims"] = claims

    # With a username, the user's credentials are allowed (keys that are not discoverable).
    named = Login()
    allowed = named.options({"username": "wanda"})["allowCredentials"]
    check(sorted(entry["id"] for entry in allowed) == sorted([registered["credential_id"], b64e(edkey.credential_id), b64e(soft.credential_id)]),
          f"allowCredentials {allowed}")

    # A name that is nobody's gets an answer of the same shape: decoy ids, the same each time,
    # of a real id's form (16 to 64 bytes, transports as authenticators report them), whose
    # number, lengths and transports differ from name to name as real users' do.
    stranger = Login().options({"username": "nobody-here"})["allowCredentials"]
    again = Login().options({"username": "nobody-here"})["allowCredentials"]
    other = Login().options({"username": "someone-else"})["allowCredentials"]
    check(len(stranger) >= 1 and stranger == again and stranger != other
          and all(entry.get("type") == "public-key" and 16 <= len(base64.urlsafe_b64decode(entry["id"] + "==")) <= 64 for entry in stranger),
          f"an unknown name's options: {stranger} / {other}")
    shapes = set()
    for index in range(24):
        decoys = Login().options({"username": f"stranger-{index}"})["allowCredentials"]
        check(1 <= len(decoys) <= 2, f"{len(decoys)} decoys")
        shapes.add((len(decoys), tuple((len(base64.urlsafe_b64decode(d["id"] + "==")), tuple(d.get("transports") or [])) for d in decoys)))
    check(len(shapes) >= 5, f"the decoys of 24 names have {len(shapes)} shapes: their shape would tell them apart")

    # 3. Refusals, each on a pending request.
    attempt = Login()
    refused(attempt.answer(key.get(attempt.options(), origin="https://evil.example")), 400, "invalid_credential", "origin", "another origin")
    refused(attempt.answer(key.get(attempt.options(), rp_id="evil.example")), 400, "invalid_credential", "relying party", "another RP ID hash")
    refused(attempt.answer(key.get(attempt.options(), flags=Authenticator.UP)), 400, "invalid_credential", "verify the user", "no UV")
    refused(attempt.answer(key.get(attempt.options(), flags=Authenticator.UV)), 400, "invalid_credential", "presence", "no UP")
    soft_options = soft_device_options(attempt.options(), "get")
    refused(attempt.answer(soft_device_json(soft.get(soft_options, ORIGIN))), 400, "invalid_credential", "verify the user", "soft-webauthn without UV")
    # A replayed challenge: the first answer spends it whatever its outcome.
    options = attempt.options()
    bad = key.get(options, origin="https://evil.example")
    refused(attempt.answer(bad), 400, "invalid_credential", "origin", "a wrong origin spends its challenge")
    refused(attempt.answer(key.get(options)), 400, "invalid_credential", "spent", "a replayed challenge")
    # Malformed input, and a browser without the request's cookie.
    raw = attempt.browser.post(attempt.login_url, data=b"{not json", headers={"Content-Type": "application/json"}, timeout=30)
    refused(raw, 400, "invalid_request", "malformed", "malformed JSON")
    refused(attempt.answer({"id": 7, "rawId": [], "type": "public-key", "response": {}}), 400, "invalid_request", "malformed", "wrong types")
    stranger = requests.post(attempt.options_url, json={}, timeout=30)
    refused(stranger, 403, "access_denied", "browser", "another browser")
    # The attempt still works afterwards with a good answer.
    check(attempt.answer(key.get(attempt.options())).status_code == 200, "a good answer after the refusals")
    refused(attempt.browser.post(attempt.options_url, json={}, timeout=30), 409, "request_claimed", "ended", "a passkey for an approved request")

    # A counter that goes back blocks the key: it may be a clone.
    first = Login()
    check(first.answer(edkey.get(first.options(), counter=10)).status_code == 200, "EdDSA sign-in")
    first.tokens()
    clone = Login()
    refused(clone.answer(edkey.get(clone.options(), counter=3)), 400, "invalid_credential", "counter", "a counter going back")
    refused(clone.answer(edkey.get(clone.options(), counter=11)), 403, "access_denied", "blocked", "a blocked key")
    keys = requests.get(f"{USERS_URL}/security-keys", headers=ADMIN, timeout=30).json()["security_keys"]
    check([k["suspicious"] for k in keys if k["algorithm"] == "EdDSA"] == [True], f"the clone's key is not marked: {keys}")

    # A service whose policy does not take a passkey alone.
    other = Login(os.environ["OTHER_CLIENT_ID"])
    check(other.passkey_url is None, "a device-only service's page offers a passkey")
    refused(other.browser.post(other.options_url, json={}, timeout=30), 403, "access_denied", "passkey alone", "a device-only service")

    # 4. Removing the key ends its session and refuses its next sign-in.
    refreshed = login.session.refresh_token(login.metadata["token_endpoint"], refresh_token=token["refresh_token"])
    check("access_token" in refreshed, "refresh before removal")
    removed = requests.delete(f"{USERS_URL}/security-keys/{registered['id']}", headers=ADMIN, timeout=30)
    check(removed.status_code == 200, f"remove: {removed.status_code} {removed.text}")
    after = requests.post(
        login.metadata["token_endpoint"], data={"grant_type": "refresh_token", "refresh_token": refreshed["refresh_token"]},
        auth=(os.environ["CLIENT_ID"], os.environ["CLIENT_SECRET"]), timeout=30,
    )
    check(after.status_code == 400 and after.json()["error"] == "invalid_grant", f"refresh after removal: {after.status_code} {after.text}")
    gone = Login()
    refused(gone.answer(key.get(gone.options())), 400, "invalid_credential", "not registered", "a removed key")
    print("RESULT " + json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
