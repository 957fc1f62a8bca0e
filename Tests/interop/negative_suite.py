"""Sends bad input to every operation of a live Tessera server and checks that each is
refused cleanly and changes nothing.

Usage: python3 negative_suite.py --tessera BIN [--seconds N] [--database URL]

Starts `BIN serve` on a free loopback port (tessera_server.py: temporary data
directory, random admin token, --log-level trace, output captured to a log file) and
sets up a tenant, a confidential service, a user, an activated device, two finished
logins, open requests and an auditor API key. Then, for every operation in the
server's /openapi.json and for the OpenID Connect endpoints the document leaves out
(authorize, token, bc-authorize, introspect, revoke, userinfo, status, complete,
discovery, jwks), it sends batteries of bad requests:

  unknown ids      each path parameter replaced by unknown, encoded and oversized ids
  authentication   no, wrong, malformed and under-privileged admin credentials
  device token     malformed and forged `Authorization: Tessera-Device` JWS (not three
                   parts, bad base64url, alg none, HS256 keyed with the public key, crit,
                   embedded jwk, wrong key, huge parts, expired, replayed, other call)
  JSON body        truncated, not JSON, wrong top-level types, invalid UTF-8, deep
                   nesting, ~1 MB strings, and per field wrong types, null, empty,
                   NUL bytes, out-of-range numbers and missing required fields
  JOSE fields      the same forgeries in `registration`, `proof` and
                   `biometric_registration`, a replayed proof and a proof of another request
  query            out-of-range, non-numeric, repeated and badly encoded parameters
  OAuth forms      malformed form bodies, repeated parameters, bad client
                   authentication, spent codes, forged tokens and ID token hints

Every answer must be a 4xx (the authorization endpoint may instead redirect to the
registered redirect URI with `error=`; introspection and revocation answer 200 for a
well-formed request about a token they do not know, as RFC 7662 and RFC 7009 say), a
JSON endpoint's answer must be a JSON error object, and no table of the SQLite
database may change (row counts and a checksum of every table, before and after each
request). At the end the server's log must hold none of the secrets the run used.
Prints every failure, then operations covered / requests sent / failures; exits 1 on
any failure. --seconds (default 90) bounds the run; batteries the time left out are
reported as failures. With --database (an empty PostgreSQL database) the server runs on
PostgreSQL and every check but the table check (which reads the SQLite file) is made.
"""
import argparse
import base64
import dataclasses
import hashlib
import hmac
import http.client
import itertools
import json
import re
import secrets
import sys
import time
import urllib.parse

import requests
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

import tessera_server
from tessera_server import REDIRECT_URI, b64url, b64url_json

# A hang detector, not a speed check: in CI's PostgreSQL pass the whole suite shares two
# cores with the database, and one query once waited 15 s behind the cluster's checkpoints.
TIMEOUT = 45
MEGABYTE = 1024 * 1024
# Under the server's 64 KiB body limit, so the decoder itself has to refuse it.
LARGE = 60 * 1024
OIDC_OPERATIONS = [
    ("GET", "/t/{tenant}/.well-known/openid-configuration"),
    ("GET", "/t/{tenant}/jwks"),
    ("GET", "/t/{tenant}/authorize"),
    ("GET", "/t/{tenant}/authorize/status"),
    ("GET", "/t/{tenant}/authorize/complete"),
    ("POST", "/t/{tenant}/token"),
    ("POST", "/t/{tenant}/bc-authorize"),
    ("POST", "/t/{tenant}/introspect"),
    ("POST", "/t/{tenant}/revoke"),
    ("GET", "/t/{tenant}/userinfo"),
    ("POST", "/t/{tenant}/userinfo"),
]
UNKNOWN_IDS = [
    ("an unknown id", "unknown-{token}"),
    ("an encoded NUL byte", "%00"),
    ("encoded invalid UTF-8", "%FF%FE"),
    ("an encoded dot-dot", "%2E%2E"),
    ("an SQL fragment", urllib.parse.quote("x' OR '1'='1", safe="")),
    ("a 3000-character id", "a" * 3000),
]


@dataclasses.dataclass
class Case:
    label: str
    method: str
    path: str
    headers: dict = dataclasses.field(default_factory=dict)
    body: bytes = None
    json_answer: bool = True
    # Answers other than a 4xx that are still a correct refusal (a callable on the answer).
    accept: object = None
    # A status the answer must have exactly, when another 4xx would hide a bug.
    status: int = None


@dataclasses.dataclass
class Batch:
    operation: str
    battery: str
    cases: list
    # Tables a refused request may change, each with its reason where the batch is made.
    allowed_tables: tuple = ()


@dataclasses.dataclass
class Context:
    server: tessera_server.Server
    fixtures: tessera_server.Fixtures
    auditor_key: str
    other_key: ec.EllipticCurvePrivateKey
    server_jwk: dict
    expired_invitation_code: str


# MARK: Values


def json_bytes(value) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode("utf-8")


def fill(template: str, values: dict) -> str:
    return re.sub(r"\{([^}]+)\}", lambda match: values[match.group(1)], template)


def path_parameters(template: str) -> list:
    return re.findall(r"\{([^}]+)\}", template)


def real_ids(context: Context, template: str) -> dict:
    fixtures = context.fixtures
    request = fixtures.claimed_request["request_id"]
    if "/processes/" in template:
        request = fixtures.approved_process["request_id"]
    if template.endswith("/authentications/{request}"):
        # The device reads the state of backchannel requests only.
        request = fixtures.ciba_request
    return {
        "tenant": fixtures.tenant, "kid": fixtures.kid, "client": fixtures.client_id, "user": fixtures.user_id,
        "session": fixtures.session_id, "invitation": fixtures.open_invitation_id,
        "activation": fixtures.device.activation_id, "key": fixtures.helpdesk_key_id, "request": request,
        "token": fixtures.registration_token_id, "provider": fixtures.identity_provider, "webhook": fixtures.webhook_id,
        "group": fixtures.group_id, "recovery": "rec_unknown",
    }


def resolve(document: dict, schema: dict) -> dict:
    # A reference, or a schema that is one other schema (allOf of one) with a description.
    while "$ref" in schema or len(schema.get("allOf", [])) == 1:
        schema = schema["allOf"][0] if "allOf" in schema else document["components"]["schemas"][schema["$ref"].split("/")[-1]]
    return schema


def kinds_of(schema: dict) -> set:
    """The JSON types a schema allows besides null (OpenAPI 3.1 writes a list where null is allowed)."""
    kind = schema.get("type")
    kinds = set(kind) if isinstance(kind, list) else {kind}
    return kinds - {"null"}


def example(document: dict, schema: dict):
    """A plain value of a schema's shape (only ever sent mutated)."""
    schema = resolve(document, schema)
    if "oneOf" in schema:
        return example(document, schema["oneOf"][0])
    if "enum" in schema:
        return schema["enum"][0]
    kind = next(iter(sorted(kinds_of(schema))), None)
    if kind == "object":
        return {name: example(document, value) for name, value in schema.get("properties", {}).items()}
    if kind == "array":
        return [example(document, schema.get("items", {"type": "string"}))]
    if kind == "integer":
        return schema.get("minimum", 1)
    if kind == "number":
        return 1.5
    if kind == "boolean":
        return True
    return "x"


def base_body(context: Context, schema_name: str, document: dict, schema: dict) -> dict:
    """A body the operation would accept or nearly so; the batteries break one thing in it."""
    fixtures = context.fixtures
    _, challenge = tessera_server.pkce_pair()
    known = {
        "CreateTenant": {"name": "robust-other"},
        "UpdateTenant": {"sso_lifetime": 0, "process_policy": "device+pin,device+biometric"},
        "CreateService": {"name": "Other", "redirect_uris": [REDIRECT_URI], "public": False, "policy": "device+pin", "attributes": ["email"]},
        "UpdateService": {"name": "Robust Shop", "redirect_uris": [REDIRECT_URI]},
        "CreateUser": {"username": "bob", "attributes": {"email": "bob@example.com"}},
        "UpdateUser": {"attributes": {"email": "alice@example.com"}},
        "CreateInvitation": {"username": tessera_server.USERNAME, "ttl_seconds": 60},
        "CreateAdminKey": {"name": "other", "role": "auditor", "tenant": fixtures.tenant},
        "AddConsoleUser": {"username": "operator", "role": "auditor", "tenant": fixtures.tenant},
        "ActivationStart": {"code": fixtures.open_invitation_code},
        "ActivationComplete": {"registration": registration(context, fixtures.open_invitation_code, key=context.other_key, signer=fixtures.device.key)},
        "Claim": {"user_id": fixtures.user_id},
        "Finish": {"proof": fixtures.spent_proof},
        "ProcessStart": {"purpose": "list_devices"},
        "ProcessComplete": {"alias": "laptop"},
        "InAppStart": {"client_id": fixtures.client_id, "redirect_uri": REDIRECT_URI, "code_challenge": challenge,
                       "code_challenge_method": "S256", "scope": "openid", "state": "s", "nonce": "n"},
        "PushRegistration": {"kind": "webhook", "token": "robustness"},
    }
    if schema_name in known:
        return known[schema_name]
    return example(document, schema)


def public_jwk(key: ec.EllipticCurvePrivateKey) -> dict:
    numbers = key.public_key().public_numbers()
    return {"kty": "EC", "crv": "P-256", "x": b64url(numbers.x.to_bytes(32, "big")), "y": b64url(numbers.y.to_bytes(32, "big"))}


def registration(context: Context, code: str, *, key, signer, header=None, **changes) -> str:
    """An activation registration JWS for `code` naming `key`, signed by `signer`."""
    now = int(time.time())
    claims = {"code": code, "aud": context.fixtures.issuer, "device_key": public_jwk(key),
              "pin_key": b64url(secrets.token_bytes(32)), "iat": now, "exp": now + 120}
    claims.update(changes)
    return tessera_server.sign_compact(signer, header or {"alg": "ES256", "typ": "tessera-registration+jwt"}, claims)


# MARK: JOSE forgeries


def split(token: str) -> tuple:
    header, payload, signature = token.split(".")
    return header, payload, signature


def decoded(part: str):
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def forgeries(token: str, other_key, public_jwk_value=None) -> list:
    """(label, compact string) pairs made from a valid JWS: malformed, unsigned, re-keyed,
    tampered and oversized versions."""
    header_part, payload_part, signature_part = split(token)
    header, payload = decoded(header_part), decoded(payload_part)
    signing_input = f"{header_part}.{payload_part}"
    public_text = json.dumps(public_jwk_value or {}, separators=(",", ":")).encode()
    forged = [
        ("an empty string", ""),
        ("a word, not a JWS", "not-a-jws"),
        ("two parts", signing_input),
        ("four parts", token + ".AAAA"),
        ("a header that is not base64url", "@@@." + payload_part + "." + signature_part),
        ("a payload that is not base64url", header_part + ".eyJ+/==." + signature_part),
        ("a padded signature", token + "=="),
        ("a signature that is not base64url", signing_input + ".!!!"),
        ("a header that is not JSON", b64url(b"not json") + "." + payload_part + "." + signature_part),
        ("a header that is a JSON array", b64url(b"[]") + "." + payload_part + "." + signature_part),
        ("a payload that is not JSON", header_part + "." + b64url(b"not json") + "." + signature_part),
        ("a payload that is a JSON array", header_part + "." + b64url(b"[1]") + "." + signature_part),
        ("alg none without a signature", b64url_json({**header, "alg": "none"}) + "." + payload_part + "."),
        ("alg none keeping the signature", b64url_json({**header, "alg": "none"}) + "." + payload_part + "." + signature_part),
        ("alg missing", b64url_json({key_: value for key_, value in header.items() if key_ != "alg"}) + "." + payload_part + "." + signature_part),
        ("alg es256 in lower case", b64url_json({**header, "alg": "es256"}) + "." + payload_part + "." + signature_part),
        ("alg ES512 with an ES256 signature", b64url_json({**header, "alg": "ES512"}) + "." + payload_part + "." + signature_part),
        ("a signature of zeros", signing_input + "." + b64url(bytes(64))),
        ("a truncated signature", signing_input + "." + signature_part[:20]),
        ("a DER signature", signing_input + "." + b64url(der_signature(other_key, signing_input))),
        ("a changed claim under the old signature", header_part + "." + b64url_json({**payload, "sub": "someone-else"}) + "." + signature_part),
        ("a 20 KB header", b64url_json({**header, "pad": "x" * 20000}) + "." + payload_part + "." + signature_part),
        ("a NUL byte in the payload part", header_part + "." + payload_part[:5] + "\x00" + payload_part[5:] + "." + signature_part),
        ("non-ASCII letters in the signature", signing_input + "." + signature_part[:10] + "\u00e9\u00e9" + signature_part[12:]),
    ]
    hs_header = b64url_json({**header, "alg": "HS256"})
    hs_input = f"{hs_header}.{payload_part}".encode()
    forged.append(("alg HS256 keyed with the public JWK", f"{hs_header}.{payload_part}." + b64url(hmac.new(public_text, hs_input, hashlib.sha256).digest())))
    forged.append(("signed by another key", tessera_server.sign_compact(other_key, header, payload)))
    forged.append(("signed by another key named in an embedded jwk", tessera_server.sign_compact(other_key, {**header, "jwk": public_jwk(other_key)}, payload)))
    return forged


def signed_forgeries(token: str, key) -> list:
    """Versions of a valid JWS signed again by its real signer `key` that must still be
    refused: a critical header the server cannot know (RFC 7515 4.1.11), an unencoded
    payload (RFC 7797), an oversized payload. Each gets a new jti, so that no refusal is
    only the replay check's. Batteries send these last: one wrongly accepted may spend
    the request or code the others are sent to."""
    header_part, payload_part, _ = split(token)
    header, payload = decoded(header_part), decoded(payload_part)

    def fresh() -> dict:
        return {**payload, "jti": secrets.token_urlsafe(16)} if "jti" in payload else payload

    return [
        ("a correct signature under an unknown critical header",
         tessera_server.sign_compact(key, {**header, "crit": ["urn:robustness:x"], "urn:robustness:x": True}, fresh())),
        ("a correct signature under b64=false (RFC 7797)", tessera_server.sign_compact(key, {**header, "b64": False, "crit": ["b64"]}, fresh())),
        ("a correctly signed 20 KB payload", tessera_server.sign_compact(key, header, {**fresh(), "pad": "x" * 20000})),
    ]


def der_signature(key, signing_input: str) -> bytes:
    return key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256()))


def device_token_forgeries(context: Context, method: str, path: str) -> list:
    """Bad `Tessera-Device` tokens for one call: forgeries of a good one, and correctly
    signed ones with bad claims."""
    device = context.fixtures.device
    good = device.token(method, path)
    bad = forgeries(good, context.other_key, public_jwk_value=public_jwk(device.key)) + signed_forgeries(good, device.key)
    now = int(time.time())
    claim_changes = [
        ("an expired token", {"iat": now - 400, "exp": now - 100}),
        ("a token issued in the future", {"iat": now + 600, "exp": now + 660}),
        ("a token living an hour", {"iat": now, "exp": now + 3600}),
        ("exp before iat", {"iat": now, "exp": now - 1}),
        ("exp as a huge number", {"exp": 10 ** 30}),
        ("iat as text", {"iat": str(now)}),
        ("another audience", {"aud": context.fixtures.issuer + "x"}),
        ("another method", {"htm": "PATCH"}),
        ("another path", {"htu": path + "/other"}),
        ("a full URL as htu", {"htu": context.server.url + path}),
        ("an unknown activation", {"sub": "unknown-activation"}),
        ("sub null", {"sub": None}),
        ("no jti", {"jti": None}),
    ]
    for label, changes in claim_changes:
        claims = decoded(split(device.token(method, path))[1])
        claims.update(changes)
        bad.append((label, device.sign({name: value for name, value in claims.items() if value is not None})))
    return bad


def proof_forgeries(context: Context, challenge: dict) -> list:
    """Bad proofs for a claimed request."""
    device = context.fixtures.device
    good = device.sign(device.proof_claims(challenge))
    bad = forgeries(good, context.other_key, public_jwk_value=public_jwk(device.key))
    now = int(time.time())
    for label, changes in [
        ("an expired proof", {"iat": now - 400, "exp": now - 100}),
        ("a proof issued in the future", {"iat": now + 600, "exp": now + 660}),
        ("a proof for another audience", {"aud": context.fixtures.issuer + "x"}),
        ("a proof naming another activation", {"sub": "unknown-activation"}),
        ("a proof for another request", {"rid": context.fixtures.completed_request}),
        ("a proof for another challenge", {"chal": b64url(secrets.token_bytes(32))}),
        ("a combination outside the policy", {"comb": ["device"]}),
        ("an unknown factor", {"comb": ["device", "retina"]}),
        ("comb as text", {"comb": "device,pin"}),
    ]:
        claims = device.proof_claims(challenge)
        claims.update(changes)
        bad.append((label, device.sign(claims)))
    bad.append(("the proof of a finished login, replayed", context.fixtures.spent_proof))
    return bad + signed_forgeries(good, device.key)


# MARK: Batteries


def admin_headers(context: Context) -> dict:
    return {"Authorization": "Bearer " + context.server.admin_token}


def operation_auth(operation: dict) -> str:
    security = operation.get("security")
    if security == []:
        return "none"
    if security and "deviceToken" in security[0]:
        return "device"
    return "admin"


def good_headers(context: Context, auth: str, method: str):
    """A callable giving valid credentials for a path: the admin token, or a fresh device
    token for that call (they are good once)."""
    if auth == "admin":
        return lambda path: admin_headers(context)
    if auth == "device":
        return lambda path: context.fixtures.device.header(method, path.split("?")[0])
    return lambda path: {}


def json_headers(headers: dict) -> dict:
    return {**headers, "Content-Type": "application/json"}


def unknown_id_battery(context: Context, method: str, template: str, operation: dict, body) -> list:
    ids = real_ids(context, template)
    headers = good_headers(context, operation_auth(operation), method)
    cases = []
    for parameter in path_parameters(template):
        for label, value in UNKNOWN_IDS:
            path = fill(template, {**ids, parameter: value.format(token=secrets.token_hex(8))})
            cases.append(Case(
                f"{parameter} is {label}", method, path, json_headers(headers(path)) if body is not None else headers(path),
                json_bytes(body) if body is not None else None))
    return cases


def admin_auth_battery(context: Context, method: str, template: str, body) -> list:
    path = fill(template, real_ids(context, template))
    payload = json_bytes(body) if body is not None else None
    token = context.server.admin_token
    variants = [
        ("no Authorization header", {}),
        ("a wrong bearer token", {"Authorization": "Bearer " + secrets.token_urlsafe(24)}),
        ("the admin token without its last character", {"Authorization": "Bearer " + token[:-1]}),
        ("the admin token with a character more", {"Authorization": "Bearer " + token + "x"}),
        ("the admin token as Basic credentials", {"Authorization": "Basic " + base64.b64encode(f"admin:{token}".encode()).decode()}),
        ("the admin token with no scheme", {"Authorization": token}),
        ("an unknown API key", {"Authorization": "Bearer tsk_" + secrets.token_urlsafe(32)}),
        ("a 20 KB bearer token", {"Authorization": "Bearer " + "a" * 20000}),
        ("an OpenID access token", {"Authorization": "Bearer " + context.fixtures.in_app_tokens["access_token"]}),
        ("a device token", context.fixtures.device.header(method, path)),
    ]
    if method != "GET":
        variants.append(("an auditor API key", {"Authorization": "Bearer " + context.auditor_key}))
    cases = []
    for label, headers in variants:
        status = 403 if label == "an auditor API key" else None
        cases.append(Case(label, method, path, json_headers(headers) if payload is not None else headers, payload, status=status))
    return cases


def header_case(case: Case) -> Case:
    """A NUL byte in a header is refused by the HTTP parser (400, empty body) before any
    endpoint sees it: any 4xx then does."""
    if any("\x00" in value for value in case.headers.values()):
        case.status, case.json_answer = None, False
    return case


def device_header_battery(context: Context, method: str, template: str, operation: dict) -> list:
    """Forged device tokens; the middleware must answer 401 before anything else, so a
    body-taking operation gets a malformed body and a body-less change an unknown id."""
    ids = real_ids(context, template)
    takes_body = "requestBody" in operation
    if method != "GET" and not takes_body and "request" in ids and "{request}" in template:
        ids = {**ids, "request": "unknown-" + secrets.token_hex(8)}
    path = fill(template, ids)
    body = b"{" if takes_body else None
    cases = []
    tokens = device_token_forgeries(context, method, path)
    tokens.append(("a 20 KB token", "x" * 20000))
    for label, token in tokens:
        headers = {"Authorization": "Tessera-Device " + token}
        cases.append(header_case(Case(label, method, path, json_headers(headers) if takes_body else headers, body, status=401)))
    device = context.fixtures.device
    cases.append(Case("no Authorization header", method, path, json_headers({}) if takes_body else {}, body, status=401))
    cases.append(Case("the scheme without a token", method, path, {"Authorization": "Tessera-Device"}, body, status=401))
    cases.append(Case("a device token under the Bearer scheme", method, path, {"Authorization": "Bearer " + device.token(method, path)}, body, status=401))
    cases.append(Case("an OpenID access token under the device scheme", method, path,
                      {"Authorization": "Tessera-Device " + context.fixtures.in_app_tokens["access_token"]}, body, status=401))
    # The background key (docs/PROTOCOL.md, "Device tokens") never passes for the device
    # key, and its own tokens only read pending requests and their state.
    background = device.background_key
    if background is None:
        raise RuntimeError("the CLI's activation has no background key")
    claims = decoded(split(device.token(method, path))[1])
    header = {"alg": "ES256", "kid": device.activation_id, "typ": "tessera-device+jwt"}
    posing = {"Authorization": "Tessera-Device " + tessera_server.sign_compact(background, header, claims)}
    cases.append(Case("a device token signed by the background key", method, path,
                      json_headers(posing) if takes_body else posing, body, status=401))
    reader = {"Authorization": "Tessera-Device " + tessera_server.sign_compact(background, {**header, "typ": "tessera-background+jwt"}, claims)}
    # (That it reads is BackgroundKeyTests': a good read spends its token, a write.)
    if not (method == "GET" and template.endswith(("/device/pending", "/device/authentications/{request}"))):
        cases.append(Case("a background-key token on a call that acts", method, path,
                          json_headers(reader) if takes_body else reader, body, status=403))
    return cases


def replay_battery(context: Context, template: str) -> list:
    """A device token spent on a successful read, sent again."""
    path = fill(template, real_ids(context, template))
    headers = context.fixtures.device.header("GET", path)
    first = requests.get(context.server.url + path, headers=headers, timeout=TIMEOUT)
    if first.status_code != 200:
        return [Case(f"a fresh device token was refused ({first.status_code}), so no replay could be made", "GET", path, headers, status=200)]
    return [Case("a device token used once already", "GET", path, headers, status=401)]


def mutations(document: dict, schema: dict, body: dict) -> list:
    """(label, body) pairs: one field of `body` broken at a time."""
    schema = resolve(document, schema)
    properties = schema.get("properties", {})
    broken = []
    for name in schema.get("required", []):
        broken.append((f"no {name}", {key: value for key, value in body.items() if key != name}))
    for name, field_schema in properties.items():
        field = resolve(document, field_schema)
        options = [option for option in field.get("oneOf", [field]) if kinds_of(option)]
        kinds = set().union(*(kinds_of(option) for option in options))
        # JSON null in an optional field reads as absent (and clears some fields on purpose),
        # so only a required field set to null is clearly bad.
        if name in schema.get("required", []):
            broken.append((f"{name} null", {**body, name: None}))
        for kind, wrong in [("string", 12345), ("integer", "12"), ("number", "1.5"), ("boolean", "yes"), ("array", {"a": 1}), ("object", "text")]:
            if kind in kinds:
                broken.append((f"{name} of the wrong type", {**body, name: wrong}))
        if "array" in kinds:
            broken.append((f"{name} holding null", {**body, name: [None]}))
            broken.append((f"{name} holding objects", {**body, name: [{"a": 1}]}))
        if "object" in kinds and field.get("additionalProperties"):
            broken.append((f"{name} holding a number", {**body, name: {"a": 1}}))
        if "integer" in kinds:
            broken.append((f"{name} a fraction", {**body, name: 1.5}))
            broken.append((f"{name} beyond 64 bits", {**body, name: 2 ** 64}))
            for option in options:
                if "minimum" in option:
                    broken.append((f"{name} below its minimum", {**body, name: option["minimum"] - 1}))
                if "maximum" in option:
                    broken.append((f"{name} above its maximum", {**body, name: option["maximum"] + 1}))
        if "string" in kinds:
            if any("enum" in option for option in options):
                broken.append((f"{name} outside its enum", {**body, name: "no-such-value"}))
            if name in body:
                broken.append((f"{name} with a 1 MB string", {**body, name: "a" * MEGABYTE}))
    return broken


# Fields whose empty, NUL-bearing or 60 KB value the server must refuse: identifiers,
# names, codes and signed values. (Free text such as a user attribute may be empty.)
STRICT_STRINGS = {"name", "username", "code", "registration", "proof", "client_id", "redirect_uri", "code_challenge",
                  "purpose", "kind", "token", "policy", "process_policy", "role", "tenant", "user_id",
                  "code_challenge_method", "scope", "pin_key", "biometric_registration", "target", "factor"}


def strict_string_mutations(body: dict) -> list:
    broken = []
    for name, value in body.items():
        if name in STRICT_STRINGS and isinstance(value, str):
            broken.append((f"{name} empty", {**body, name: ""}))
            broken.append((f"{name} with a NUL byte", {**body, name: value + "\u0000x"}))
            broken.append((f"{name} of 60 KB", {**body, name: "a" * LARGE}))
    return broken


def first_field(document: dict, schema: dict, kinds: tuple):
    """The first property of `schema` whose type is one of `kinds`."""
    for name, field in resolve(document, schema).get("properties", {}).items():
        field = resolve(document, field)
        if any(kinds_of(option) & set(kinds) for option in field.get("oneOf", [field])):
            return name
    return None


def json_body_battery(context: Context, document: dict, method: str, template: str, operation: dict, body: dict) -> list:
    schema = operation["requestBody"]["content"]["application/json"]["schema"]
    ids = real_ids(context, template)
    path = fill(template, ids)
    headers = good_headers(context, operation_auth(operation), method)
    text = json_bytes(body)
    first_string = next((name for name, value in body.items() if isinstance(value, str)), None)
    raw = [
        ("a truncated body", text[: len(text) // 2]),
        ("text that is not JSON", b"this is not JSON"),
        ("a JSON array", b"[]"),
        ("a JSON string", b'"text"'),
        ("a JSON number", b"42"),
        ("JSON null", b"null"),
        ("JSON true", b"true"),
        ("the body wrapped in an array", b"[" + text + b"]"),
        ("nesting 30000 arrays deep", b"[" * 30000 + b"]" * 30000),
        ("nesting 8000 objects deep", b'{"a":' * 8000 + b"1" + b"}" * 8000),
        ("a 1 MB body", b'{"pad":"' + b"a" * MEGABYTE + b'"}'),
        ("a byte-order mark and junk", b"\xef\xbb\xbf{\x00}"),
    ]
    number_field = first_field(document, schema, ("integer", "number")) or first_field(document, schema, ("string",))
    if number_field is not None:
        for label, literal in [("1e999", b"1e999"), ("NaN", b"NaN"), ("Infinity", b"Infinity"), ("-0x1", b"-0x1")]:
            raw.append((f"{number_field} as {label}", json_bytes({**body, number_field: "@@"}).replace(b'"@@"', literal)))
    if operation["requestBody"].get("required", False):
        raw.append(("an empty body", b""))
    if first_string is not None:
        raw.append((f"invalid UTF-8 in {first_string}", json_bytes({**body, first_string: "@@"}).replace(b"@@", b"\xff\xfe")))
        raw.append((f"a lone surrogate in {first_string}", json_bytes({**body, first_string: "@@"}).replace(b"@@", b"\\ud800")))
        raw.append((f"{first_string} nested 15000 arrays deep", json_bytes({**body, first_string: "@@"}).replace(b'"@@"', b"[" * 15000 + b"]" * 15000)))
    broken = mutations(document, schema, body) + strict_string_mutations(body)
    cases = [Case(label, method, path, json_headers(headers(path)), payload) for label, payload in raw]
    cases += [Case(label, method, path, json_headers(headers(path)), json_bytes(value)) for label, value in broken]
    return cases


# A PNG's signature and a few bytes: what a logo upload checks before it takes one.
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24


def binary_body_battery(context: Context, method: str, template: str, operation: dict) -> list:
    """An upload of bytes (a logo): media types it does not take, bytes that are not what
    their type says, an empty body and one past its limit."""
    path = fill(template, real_ids(context, template))
    headers = good_headers(context, operation_auth(operation), method)(path)
    limit = operation.get("x-tessera-body-limit", 65536)
    cases = [
        ("no media type", {}, PNG),
        ("text/plain", {"Content-Type": "text/plain"}, PNG),
        ("application/json", {"Content-Type": "application/json"}, b"{}"),
        ("image/gif", {"Content-Type": "image/gif"}, b"GIF89a"),
        ("a script as image/png", {"Content-Type": "image/png"}, b"<script>alert(1)</script>"),
        ("a PNG as image/svg+xml", {"Content-Type": "image/svg+xml"}, PNG),
        ("an empty image/png", {"Content-Type": "image/png"}, b""),
        ("invalid UTF-8 as image/svg+xml", {"Content-Type": "image/svg+xml"}, b"<svg \xff\xfe>"),
    ]
    result = [Case(label, method, path, {**headers, **extra}, body, status=400) for label, extra, body in cases]
    result.append(Case("a body past its limit", method, path, {**headers, "Content-Type": "image/png"}, PNG + b"\x00" * limit, status=413))
    return result


def jose_field_battery(context: Context, method: str, template: str, operation: dict) -> list:
    """Forged JWS in the body fields that carry one."""
    fixtures = context.fixtures
    device = fixtures.device
    ids = real_ids(context, template)
    path = fill(template, ids)
    headers = good_headers(context, operation_auth(operation), method)
    cases = []
    if template.endswith("/activation/complete"):
        new_key = ec.generate_private_key(ec.SECP256R1())
        good = registration(context, fixtures.open_invitation_code, key=new_key, signer=new_key)
        tokens = forgeries(good, context.other_key, public_jwk_value=public_jwk(new_key))
        now = int(time.time())
        for label, code, changes in [
            ("an expired registration", fixtures.open_invitation_code, {"iat": now - 400, "exp": now - 100}),
            ("a registration for another audience", fixtures.open_invitation_code, {"aud": "https://elsewhere.example/t/x"}),
            ("a registration with a used code", fixtures.used_invitation_code, {}),
            ("a registration with an expired code", context.expired_invitation_code, {}),
            ("a registration with an unknown code", "unknown-" + secrets.token_hex(8), {}),
            ("a PIN key of 5 bytes", fixtures.open_invitation_code, {"pin_key": b64url(b"short")}),
            ("a PIN key that is not base64url", fixtures.open_invitation_code, {"pin_key": "!!"}),
            ("a device key off the curve", fixtures.open_invitation_code, {"device_key": {"kty": "EC", "crv": "P-256", "x": b64url(bytes(32)), "y": b64url(bytes(31) + b"\x01")}}),
            ("an RSA device key", fixtures.open_invitation_code, {"device_key": {"kty": "RSA", "n": "AQAB", "e": "AQAB"}}),
        ]:
            tokens.append((label, registration(context, code, key=new_key, signer=new_key, **changes)))
        tokens.append(("a registration signed by a key other than the one it names",
                       registration(context, fixtures.open_invitation_code, key=new_key, signer=context.other_key)))
        tokens.append(("a biometric key without its registration", registration(context, fixtures.open_invitation_code, key=new_key, signer=new_key, biometric_key=public_jwk(context.other_key))))
        # Its own invitation: if the alias were taken, the open one would stay unspent.
        spare = context.server.admin("POST", f"/admin/tenants/{fixtures.tenant}/invitations", {"username": tessera_server.USERNAME})
        tokens.append(("an alias with a NUL byte", registration(context, tessera_server.invitation_code(spare["url"]), key=new_key, signer=new_key, alias="my\u0000phone")))
        tokens += signed_forgeries(good, new_key)
        for label, token in tokens:
            cases.append(Case(f"registration: {label}", method, path, json_headers({}), json_bytes({"registration": token})))
    elif template.endswith("/finish"):
        challenge = fixtures.claimed_request
        for label, token in proof_forgeries(context, challenge):
            cases.append(Case(f"proof: {label}", method, path, json_headers({}), json_bytes({"proof": token})))
        completed = fill(template, {**ids, "request": fixtures.completed_request})
        cases.append(Case("the proof of a finished login, replayed to it", method, completed, json_headers({}), json_bytes({"proof": fixtures.spent_proof})))
    elif template.endswith("/processes/{request}/complete"):
        process = fixtures.approved_process
        now = int(time.time())
        claims = {"rid": process["request_id"], "sub": device.activation_id, "aud": fixtures.issuer, "iat": now, "exp": now + 120}
        new_key = ec.generate_private_key(ec.SECP256R1())
        good = tessera_server.sign_compact(new_key, {"alg": "ES256", "typ": "tessera-key+jwt"}, claims)
        tokens = forgeries(good, context.other_key, public_jwk_value=public_jwk(new_key))
        for label, changes in [
            ("an expired registration", {"iat": now - 400, "exp": now - 100}),
            ("a registration for another process", {"rid": fixtures.claimed_request["request_id"]}),
            ("a registration naming another activation", {"sub": "unknown-activation"}),
            ("a registration for another audience", {"aud": fixtures.issuer + "x"}),
        ]:
            tokens.append((label, tessera_server.sign_compact(new_key, {"alg": "ES256", "typ": "tessera-key+jwt"}, {**claims, **changes})))
        tokens += signed_forgeries(good, new_key)
        for label, token in tokens:
            body = {"biometric_key": public_jwk(new_key), "biometric_registration": token}
            cases.append(Case(f"biometric_registration: {label}", method, path, json_headers(headers(path)), json_bytes(body)))
        off_curve = {"kty": "EC", "crv": "P-256", "x": b64url(bytes(32)), "y": b64url(bytes(31) + b"\x01")}
        cases.append(Case("a biometric key off the curve", method, path, json_headers(headers(path)),
                          json_bytes({"biometric_key": off_curve, "biometric_registration": good})))
    return cases


def query_battery(context: Context, method: str, template: str, operation: dict, path_item: dict) -> list:
    parameters = [parameter for parameter in operation.get("parameters", []) + path_item.get("parameters", []) if parameter.get("in") == "query"]
    if not parameters:
        return []
    path = fill(template, real_ids(context, template))
    headers = good_headers(context, operation_auth(operation), method)
    queries = []
    for parameter in parameters:
        name, schema = parameter["name"], parameter.get("schema", {})
        if schema.get("type") == "integer":
            queries += [(f"{name} not a number", {name: "abc"}), (f"{name} empty", {name: ""}), (f"{name} a fraction", {name: "1.5"}),
                        (f"{name} beyond 64 bits", {name: str(2 ** 64)})]
            if "minimum" in schema:
                queries.append((f"{name} below its minimum", {name: str(schema["minimum"] - 1)}))
            if "maximum" in schema:
                queries.append((f"{name} above its maximum", {name: str(schema["maximum"] + 1)}))
        if name == "cursor":
            queries.append(("a cursor that is not base64url", {name: "not a cursor!"}))
        if name in ("since", "until"):
            queries += [(f"{name} negative", {name: "-1"}), (f"{name} not a number", {name: "yesterday"})]
        if name == "force":
            queries.append(("force neither true nor false", {name: "maybe"}))
    cases = []
    for label, values in queries:
        target = path + "?" + urllib.parse.urlencode(values)
        cases.append(Case(label, method, target, headers(target)))
    first = parameters[0]["name"]
    for label, query in [("a repeated parameter", f"{first}=1&{first}=2"), ("bad percent-encoding", f"{first}=%zz"),
                         ("a parameter without a name", "=1")]:
        target = path + "?" + query
        cases.append(Case(label, method, target, headers(target)))
    return cases


# MARK: OpenID Connect endpoints


def form(values) -> bytes:
    if isinstance(values, (bytes, str)):
        return values.encode() if isinstance(values, str) else values
    return urllib.parse.urlencode(values).encode()


def basic(client_id: str, secret: str) -> dict:
    return {"Authorization": "Basic " + base64.b64encode(f"{client_id}:{secret}".encode()).decode()}


def form_headers(headers: dict) -> dict:
    return {**headers, "Content-Type": "application/x-www-form-urlencoded"}


def oauth_client_cases(context: Context, path: str, good: dict, accept_value=None) -> list:
    """Broken forms and client authentication, common to the token-style endpoints.
    `accept_value` judges the answers to odd but well-formed values of the first parameter
    (introspection and revocation answer 200 for a token they do not know)."""
    fixtures = context.fixtures
    auth = basic(fixtures.client_id, fixtures.client_secret)
    first = next(iter(good))
    cases = [
        ("no client authentication", {}, form(good)),
        ("a wrong client secret", basic(fixtures.client_id, "wrong"), form(good)),
        ("an unknown client", basic("unknown-client", fixtures.client_secret), form(good)),
        ("Basic credentials that are not base64", {"Authorization": "Basic !!!"}, form(good)),
        ("Basic credentials without a colon", {"Authorization": "Basic " + base64.b64encode(b"nocolon").decode()}, form(good)),
        ("both Basic and client_secret_post", auth, form({**good, "client_id": fixtures.client_id, "client_secret": fixtures.client_secret})),
        ("a client_id differing from Basic's", auth, form({**good, "client_id": "other-client"})),
        ("the client secret in the query", {}, form(good)),
        ("a repeated parameter", auth, form(good) + b"&" + form({first: good[first]})),
        ("bad percent-encoding", auth, form(good) + b"&x=%zz"),
        ("a parameter without a name", auth, form(good) + b"&=1"),
        ("invalid UTF-8", auth, form(good) + b"&x=\xff\xfe"),
        ("a JSON body", {**auth, "Content-Type": "application/json"}, json_bytes(good)),
        ("a 1 MB body", auth, form({**good, "pad": "a" * MEGABYTE})),
        (f"{first} with a NUL byte", auth, form({**good, first: good[first] + "\x00"})),
        (f"{first} of 60 KB", auth, form({**good, first: "a" * LARGE})),
        ("an empty body", auth, b""),
    ]
    result = []
    for label, headers, body in cases:
        target = path + ("?client_secret=" + fixtures.client_secret if label == "the client secret in the query" else "")
        accept = accept_value if label.startswith(first + " ") else None
        result.append(Case(label, "POST", target, form_headers(headers) if "Content-Type" not in headers else headers, body, accept=accept))
    return result


def forged_server_tokens(context: Context) -> list:
    token = context.fixtures.in_app_tokens["access_token"]
    return forgeries(token, context.other_key, public_jwk_value=context.server_jwk)


def oidc_batteries(context: Context):
    """The OpenID Connect endpoints' batches, made one at a time as they are run."""
    fixtures = context.fixtures
    base = f"/t/{fixtures.tenant}"
    auth = basic(fixtures.client_id, fixtures.client_secret)

    verifier, challenge = tessera_server.pkce_pair()
    good_authorize = {"response_type": "code", "client_id": fixtures.client_id, "redirect_uri": REDIRECT_URI, "scope": "openid",
                      "state": "robust", "nonce": "n", "code_challenge": challenge, "code_challenge_method": "S256"}

    def refused_redirect(answer) -> bool:
        location = answer.headers.get("Location", "")
        return answer.status_code in (302, 303) and location.startswith(REDIRECT_URI + "?") and "error=" in location

    authorize = []
    for label, query in [
        ("no parameters", ""),
        ("an unknown client", urllib.parse.urlencode({**good_authorize, "client_id": "unknown"})),
        ("an unregistered redirect URI", urllib.parse.urlencode({**good_authorize, "redirect_uri": "https://evil.example/cb"})),
        ("a redirect URI with an extra query", urllib.parse.urlencode({**good_authorize, "redirect_uri": REDIRECT_URI + "?x=1"})),
        ("response_type token", urllib.parse.urlencode({**good_authorize, "response_type": "token"})),
        ("a scope without openid", urllib.parse.urlencode({**good_authorize, "scope": "email"})),
        ("code_challenge_method plain", urllib.parse.urlencode({**good_authorize, "code_challenge_method": "plain"})),
        ("a code challenge of 10 characters", urllib.parse.urlencode({**good_authorize, "code_challenge": "abcdefghij"})),
        ("a request object", urllib.parse.urlencode({**good_authorize, "request": fixtures.in_app_tokens["id_token"]})),
        ("a request_uri", urllib.parse.urlencode({**good_authorize, "request_uri": "https://evil.example/r"})),
        ("prompt=none", urllib.parse.urlencode({**good_authorize, "prompt": "none"})),
        ("max_age negative", urllib.parse.urlencode({**good_authorize, "max_age": "-1"})),
        ("a repeated client_id", urllib.parse.urlencode(good_authorize) + "&client_id=" + fixtures.client_id),
        ("bad percent-encoding", urllib.parse.urlencode(good_authorize) + "&x=%zz"),
        ("a NUL byte in state", urllib.parse.urlencode({**good_authorize, "state": "a\x00b", "scope": "email"})),
        ("a 1 MB state", urllib.parse.urlencode({**good_authorize, "state": "a" * MEGABYTE})),
    ]:
        authorize.append(Case(label, "GET", f"{base}/authorize?{query}", json_answer=False, accept=refused_redirect))
    yield Batch("GET /t/{tenant}/authorize", "authorization request", authorize)

    status = [Case("an unknown request", "GET", f"{base}/authorize/status?request=unknown"),
              Case("no request", "GET", f"{base}/authorize/status"),
              Case("another browser's request", "GET", f"{base}/authorize/status?request={fixtures.claimed_request['request_id']}"),
              Case("a repeated request", "GET", f"{base}/authorize/status?request=a&request=b")]
    yield Batch("GET /t/{tenant}/authorize/status", "query", status)
    complete = [Case("an unknown request", "GET", f"{base}/authorize/complete?request=unknown", json_answer=False),
                Case("no request", "GET", f"{base}/authorize/complete", json_answer=False),
                Case("another browser's request", "GET", f"{base}/authorize/complete?request={fixtures.claimed_request['request_id']}", json_answer=False)]
    yield Batch("GET /t/{tenant}/authorize/complete", "query", complete)

    token_path = f"{base}/token"
    token_cases = oauth_client_cases(context, token_path, {"grant_type": "authorization_code", "code": "unknown", "redirect_uri": REDIRECT_URI, "code_verifier": verifier})
    for label, values in [
        ("no grant_type", {"code": "x"}),
        ("an unknown grant_type", {"grant_type": "password", "username": "alice", "password": "2468"}),
        ("an unknown code", {"grant_type": "authorization_code", "code": "unknown", "redirect_uri": REDIRECT_URI, "code_verifier": verifier}),
        ("a code without a verifier", {"grant_type": "authorization_code", "code": "unknown", "redirect_uri": REDIRECT_URI}),
        ("an unknown refresh token", {"grant_type": "refresh_token", "refresh_token": secrets.token_urlsafe(32)}),
        ("an access token as refresh token", {"grant_type": "refresh_token", "refresh_token": fixtures.in_app_tokens["access_token"]}),
        ("an unknown auth_req_id", {"grant_type": "urn:openid:params:grant-type:ciba", "auth_req_id": "unknown"}),
        ("a client assertion", {"grant_type": "authorization_code", "code": "unknown", "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                                "client_assertion": fixtures.in_app_tokens["id_token"]}),
    ]:
        token_cases.append(Case(label, "POST", token_path, form_headers(auth), form(values)))
    for label, forged in forged_server_tokens(context)[:8]:
        token_cases.append(Case(f"refresh token: {label}", "POST", token_path, form_headers(auth), form({"grant_type": "refresh_token", "refresh_token": forged})))
    yield Batch("POST /t/{tenant}/token", "OAuth form", token_cases)

    # RFC 6749 §4.1.2: a code used twice SHOULD revoke what it gave, so a replay may
    # legitimately write; it runs last, in a batch of its own, allowed to touch grants and sessions.
    spent = [Case("a spent authorization code", "POST", token_path, form_headers(auth),
                  form({"grant_type": "authorization_code", "code": fixtures.browser_code, "redirect_uri": REDIRECT_URI, "code_verifier": verifier}))]

    ciba_path = f"{base}/bc-authorize"
    good_ciba = {"scope": "openid", "login_hint": tessera_server.USERNAME, "binding_message": "robust"}
    ciba = oauth_client_cases(context, ciba_path, good_ciba)
    for label, values in [
        ("no scope", {"login_hint": tessera_server.USERNAME}),
        ("a scope without openid", {**good_ciba, "scope": "email"}),
        ("no hint", {"scope": "openid"}),
        ("two hints", {**good_ciba, "id_token_hint": fixtures.in_app_tokens["id_token"]}),
        ("an unknown user", {**good_ciba, "login_hint": "nobody"}),
        ("a login_hint_token", {"scope": "openid", "login_hint_token": "x"}),
        ("a binding message with a control character", {**good_ciba, "binding_message": "pay\u0007now"}),
        ("a binding message with a NUL byte", {**good_ciba, "binding_message": "pay\x00now"}),
        ("a binding message of 129 characters", {**good_ciba, "binding_message": "a" * 129}),
        ("requested_expiry 0", {**good_ciba, "requested_expiry": "0"}),
        ("requested_expiry 601", {**good_ciba, "requested_expiry": "601"}),
        ("requested_expiry not a number", {**good_ciba, "requested_expiry": "soon"}),
        ("an unknown acr value", {**good_ciba, "acr_values": "urn:tessera:acr:retina"}),
        ("a signed request object", {**good_ciba, "request": fixtures.in_app_tokens["id_token"]}),
        ("an access token as id_token_hint", {"scope": "openid", "id_token_hint": fixtures.in_app_tokens["access_token"]}),
    ]:
        ciba.append(Case(label, "POST", ciba_path, form_headers(auth), form(values)))
    hint = fixtures.in_app_tokens["id_token"]
    for label, forged in forgeries(hint, context.other_key, public_jwk_value=context.server_jwk):
        ciba.append(Case(f"id_token_hint: {label}", "POST", ciba_path, form_headers(auth), form({"scope": "openid", "id_token_hint": forged})))
    yield Batch("POST /t/{tenant}/bc-authorize", "OAuth form", ciba)

    def inactive(answer) -> bool:
        try:
            return answer.status_code == 200 and answer.json() == {"active": False}
        except ValueError:
            return False

    introspect_path = f"{base}/introspect"
    introspect = oauth_client_cases(context, introspect_path, {"token": secrets.token_urlsafe(32)}, accept_value=inactive)
    introspect.append(Case("no token", "POST", introspect_path, form_headers(auth), form({"token_type_hint": "access_token"})))
    for label, forged in forged_server_tokens(context):
        introspect.append(Case(f"token: {label}", "POST", introspect_path, form_headers(auth), form({"token": forged}), accept=inactive))
    yield Batch("POST /t/{tenant}/introspect", "OAuth form", introspect)

    def revoked_nothing(answer) -> bool:
        return answer.status_code == 200

    revoke_path = f"{base}/revoke"
    revoke = oauth_client_cases(context, revoke_path, {"token": secrets.token_urlsafe(32)}, accept_value=revoked_nothing)
    revoke.append(Case("no token", "POST", revoke_path, form_headers(auth), form({"token_type_hint": "refresh_token"})))
    for label, forged in forged_server_tokens(context):
        # RFC 7009 §2.2: an invalid token is answered 200; the table check shows nothing was revoked.
        revoke.append(Case(f"token: {label}", "POST", revoke_path, form_headers(auth), form({"token": forged}), accept=revoked_nothing))
    yield Batch("POST /t/{tenant}/revoke", "OAuth form", revoke)

    for method in ("GET", "POST"):
        userinfo = [
            Case("no bearer token", method, f"{base}/userinfo", status=401),
            Case("Basic credentials", method, f"{base}/userinfo", basic(fixtures.client_id, fixtures.client_secret), status=401),
            Case("a refresh token as bearer", method, f"{base}/userinfo", {"Authorization": "Bearer " + fixtures.in_app_tokens["refresh_token"]}, status=401),
            Case("an ID token as bearer", method, f"{base}/userinfo", {"Authorization": "Bearer " + fixtures.in_app_tokens["id_token"]}, status=401),
            Case("a device token as bearer", method, f"{base}/userinfo", {"Authorization": "Bearer " + fixtures.device.token(method, f"{base}/userinfo")}, status=401),
            Case("the access token in the query", method, f"{base}/userinfo?access_token=" + fixtures.in_app_tokens["access_token"], status=401),
        ]
        for label, forged in forged_server_tokens(context):
            userinfo.append(header_case(Case(f"access token: {label}", method, f"{base}/userinfo", {"Authorization": "Bearer " + forged}, status=401)))
        yield Batch(f"{method} /t/{{tenant}}/userinfo", "bearer token", userinfo)

    for template in ("/t/{tenant}/.well-known/openid-configuration", "/t/{tenant}/jwks"):
        cases = [Case(f"tenant is {label}", "GET", fill(template, {"tenant": value.format(token=secrets.token_hex(8))})) for label, value in UNKNOWN_IDS]
        yield Batch(f"GET {template}", "unknown ids", cases)
    yield Batch("POST /t/{tenant}/token", "spent code", spent, allowed_tables=("grants", "sessions", "events"))


# MARK: Running


@dataclasses.dataclass
class Tally:
    sent: int = 0
    covered: set = dataclasses.field(default_factory=set)
    failures: list = dataclasses.field(default_factory=list)
    skipped: list = dataclasses.field(default_factory=list)
    notes: list = dataclasses.field(default_factory=list)


def check_answer(case: Case, answer) -> list:
    problems = []
    status = answer.status_code
    accepted = case.accept is not None and case.accept(answer)
    if status >= 500:
        problems.append(f"answered {status} (a server error)")
    elif case.status is not None and status != case.status and not accepted:
        problems.append(f"answered {status}, not {case.status}")
    elif not 400 <= status < 500 and not accepted:
        problems.append(f"answered {status}, not a refusal")
    if case.json_answer and 400 <= status < 600:
        try:
            body = answer.json()
            if not isinstance(body, dict) or not isinstance(body.get("error"), str):
                problems.append(f"answered {status} without a JSON error object: {answer.text[:120]!r}")
        except ValueError:
            problems.append(f"answered {status} with a body that is not JSON: {answer.text[:120]!r}")
    return problems


def send(server: tessera_server.Server, case: Case):
    return tessera_server.raw_request(server.url, case.method, case.path, case.headers, case.body)


def snapshot(server: tessera_server.Server) -> dict:
    return {} if server.database else tessera_server.table_digests(server.database_path())


def run_batch(context: Context, batch: Batch, tally: Tally, deadline: float) -> bool:
    """Sends a batch's cases, checking each answer and the tables after each; False when
    the time ran out or the server died."""
    server = context.server
    before = snapshot(server)
    for index, case in enumerate(batch.cases):
        if time.time() > deadline:
            tally.skipped.append(f"{batch.operation} [{batch.battery}]: {len(batch.cases) - index} of {len(batch.cases)} requests")
            return False
        tally.sent += 1
        tally.covered.add(batch.operation)
        where = f"{batch.operation} [{batch.battery}] {case.label} ({case.method} {shorten(case.path)})"
        try:
            answer = send(server, case)
        except (OSError, http.client.HTTPException) as error:
            tally.failures.append(f"{where}: no answer: {type(error).__name__}: {str(error)[:160]}")
            if not server.alive():
                tally.failures.append(f"the server process died (status {server.process.returncode}) after: {where}")
                return False
            before = snapshot(server)
            continue
        for problem in check_answer(case, answer):
            tally.failures.append(f"{where}: {problem}")
        after = snapshot(server)
        changes = [change for change in tessera_server.table_changes(before, after) if change.split()[1] not in batch.allowed_tables]
        allowed = [change for change in tessera_server.table_changes(before, after) if change.split()[1] in batch.allowed_tables]
        if allowed:
            tally.notes.append(f"{where}: answered {answer.status_code} and, as allowed here, {'; '.join(allowed)}")
        if changes:
            tally.failures.append(f"{where}: answered {answer.status_code} but wrote to the database: {'; '.join(changes)}")
        before = after
    return True


def shorten(path: str) -> str:
    return path if len(path) <= 110 else path[:100] + f"…({len(path)} characters)"


def operation_batches(context: Context, document: dict):
    """The document's operations' batches, made one at a time as they are run (device
    tokens live a minute). The JOSE fields' batteries come last: a forgery the server
    wrongly takes spends the request or code the other batteries use."""
    jose = []
    for template, path_item in document["paths"].items():
        for method, operation in path_item.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            method = method.upper()
            name = f"{method} {template}"
            auth = operation_auth(operation)
            body = None
            schema_name = None
            if "requestBody" in operation and "application/json" not in operation["requestBody"]["content"]:
                yield Batch(name, "binary body", binary_body_battery(context, method, template, operation))
            elif "requestBody" in operation:
                schema = operation["requestBody"]["content"]["application/json"]["schema"]
                schema_name = schema.get("$ref", "").split("/")[-1]
                body = base_body(context, schema_name, document, schema)
            if path_parameters(template):
                yield Batch(name, "unknown ids", unknown_id_battery(context, method, template, operation, body))
            if auth == "admin":
                yield Batch(name, "authentication", admin_auth_battery(context, method, template, body))
            if auth == "device":
                yield Batch(name, "device token", device_header_battery(context, method, template, operation))
                if method == "GET":
                    yield Batch(name, "replayed device token", replay_battery(context, template))
            if body is not None:
                yield Batch(name, "JSON body", json_body_battery(context, document, method, template, operation, body))
                if template.endswith(("/activation/complete", "/finish", "/processes/{request}/complete")):
                    jose.append((method, template, operation))
            query = query_battery(context, method, template, operation, path_item)
            if query:
                yield Batch(name, "query", query)
    for method, template, operation in jose:
        yield Batch(f"{method} {template}", "JOSE fields", jose_field_battery(context, method, template, operation))


def secrets_in_log(log: str, secrets_by_name: dict) -> list:
    found = [f"the server log holds the {name}" for name, value in secrets_by_name.items() if value and value in log]
    if re.search(r"(?<![0-9A-Za-z])" + re.escape(tessera_server.PIN) + r"(?![0-9A-Za-z])", log):
        found.append("the server log holds the PIN")
    return found


def make_context(server: tessera_server.Server, fixtures: tessera_server.Fixtures) -> Context:
    auditor = server.admin("POST", "/admin/keys", {"name": "robustness auditor", "role": "auditor", "tenant": fixtures.tenant})
    expired = server.admin("POST", f"/admin/tenants/{fixtures.tenant}/invitations", {"username": tessera_server.USERNAME, "ttl_seconds": 1})
    jwks = requests.get(fixtures.issuer + "/jwks", timeout=TIMEOUT).json()
    return Context(server=server, fixtures=fixtures, auditor_key=auditor["key"], other_key=ec.generate_private_key(ec.SECP256R1()),
                   server_jwk=jwks["keys"][0], expired_invitation_code=tessera_server.invitation_code(expired["url"]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tessera", required=True, help="the tessera executable")
    parser.add_argument("--seconds", type=float, default=90, help="stop sending after this many seconds (default 90)")
    parser.add_argument("--database", help="an empty PostgreSQL database's URL (no table check then)")
    arguments = parser.parse_args()
    started = time.time()
    deadline = started + arguments.seconds
    server = tessera_server.Server(arguments.tessera, arguments.database)
    tally = Tally()
    try:
        server.start()
        fixtures = tessera_server.set_up(server)
        context = make_context(server, fixtures)
        document = requests.get(server.url + "/openapi.json", timeout=TIMEOUT).json()
        operations = [f"{method.upper()} {template}" for template, item in document["paths"].items()
                      for method in item if method in ("get", "post", "put", "patch", "delete")]
        operations += [f"{method} {template}" for method, template in OIDC_OPERATIONS]
        # The invitation made with a one-second lifetime must have run out before it is used.
        time.sleep(max(0.0, 1.5 - (time.time() - started)))
        for batch in itertools.chain(operation_batches(context, document), oidc_batteries(context)):
            if not run_batch(context, batch, tally, deadline):
                break
        if not server.alive():
            tally.failures.append(f"the server process is not running (status {server.process.returncode})")
        elif not server.healthy():
            tally.failures.append("the server no longer answers /health")
        tally.failures += secrets_in_log(server.log_text(), {**fixtures.secrets(server.admin_token), "auditor API key": context.auditor_key,
                                                              "expired invitation code": context.expired_invitation_code})
        if tally.skipped:
            tally.failures.append(f"the time limit ({arguments.seconds:g} s) ended the run in {tally.skipped[0]}; later batches did not run")
        uncovered = [name for name in operations if name not in tally.covered]
    finally:
        server.stop()
    for note in tally.notes:
        print(f"NOTE {note}")
    if arguments.database:
        print("NOTE the table check was skipped: it reads the SQLite file")
    for failure in tally.failures:
        print(f"FAILED {failure}")
    for name in uncovered:
        print(f"NOT COVERED {name}")
    print(f"operations covered: {len(operations) - len(uncovered)} of {len(operations)}; requests sent: {tally.sent}; "
          f"failures: {len(tally.failures)}; {time.time() - started:.1f} s; server log: {server.log_path}")
    if not tally.failures and not uncovered:
        server.remove()
    return 1 if tally.failures or uncovered else 0


if __name__ == "__main__":
    sys.exit(main())
