"""Fuzzes a live Tessera server's parsers with Hypothesis.

Usage: python3 fuzz_server.py --tessera BIN [--seconds N] [--seed N] [--minimum-examples N] [--database URL]

Starts `BIN serve` and sets up the same fixtures as negative_suite.py (see
tessera_server.py), then feeds generated input to every place the server parses it:

  compact JWS   the `Tessera-Device` header, a finish's `proof`, an activation's
                `registration`, CIBA's `id_token_hint`, the bearer token of /userinfo
                and the token of /introspect: random compact strings, random JSON under
                random signatures, and mutations of a fresh valid token (characters
                changed, cut or inserted, parts swapped, header or claims changed and
                signed again with the real key, so the claim checks run too).
                (The token endpoint takes no client_assertion and the authorization
                endpoint no request object: the form targets send both anyway.)
  forms         the query of /authorize and the bodies of /token, /bc-authorize,
                /introspect and /revoke: known and random keys, good and random values,
                repeats, raw and percent-encoded text, invalid UTF-8, 70 KB values,
                with and without client authentication.
  JSON          every device and admin JSON operation (admin ones on a tenant of their
                own): random JSON (recursive strategies) and mutated valid bodies, also
                cut or spliced as text; device calls carry a fresh valid device token so
                the body decoder is reached.

A failure is a 5xx answer or a dropped connection; after each target the process must be
running and answer /health. Failures are collected rather than raised, so Hypothesis
does not shrink (the run stays time-bound). Examples come from fixed seeds (--seed, then
one more per chunk of 100) with no example database, so a run is reproducible up to the
server's own random values. --seconds (default 60) is split among the targets by weight;
--minimum-examples lets a target on a busy machine run past its share until it has run
that many (never past four times its share).
With --database (an empty PostgreSQL database) the server runs on PostgreSQL.
Prints per target the examples run and the statuses answered, then every failure; exits 1
on any failure.
"""
import argparse
import base64
import collections
import dataclasses
import http.client
import json
import secrets
import string
import sys
import time
import urllib.parse
import warnings

from cryptography.hazmat.primitives.asymmetric import ec
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

import tessera_server
from tessera_server import REDIRECT_URI, b64url

CHUNK = 100
# A hang detector, not a speed check: in CI's PostgreSQL pass the whole suite shares two
# cores with the database, and one query once waited 15 s behind the cluster's checkpoints.
TIMEOUT = 45
ADMIN_TENANT = "fuzz-admin"
HUGE = "a" * 70_000
B64_ALPHABET = string.ascii_letters + string.digits + "-_"

# MARK: Strategies

SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2 ** 70), max_value=2 ** 70),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=40),
    st.sampled_from(["", "\x00", "\ud800", "\u202e", "ES256", "none", "device", "pin", "openid", "..", "%00", "a" * 3000]))
JSON_VALUES = st.recursive(
    SCALARS, lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=12), children, max_size=5),
    max_leaves=25)
# Appended to a good value: the value stays plausible, so it travels as far as a good one.
SUFFIXES = ["\x00", "\x01", "\n", "\ud800", "\u202e", "%00", "'", "\\", "a" * 5000]
APPENDED = st.tuples(st.just("<append>"), st.sampled_from(SUFFIXES))
INTERESTING_NUMBERS = st.sampled_from([0, -1, 1, 2 ** 31, 2 ** 53 + 1, 2 ** 63 - 1, 2 ** 63, 2 ** 64, -(2 ** 63), 10 ** 30, 1.5, 1e308])


def claim_updates(names: list):
    """Changes to a JSON object, as (name, value) pairs: a value to set, or a marker:
    "<delete>", "<now>" (the current time), "<huge>" (70 KB), ("<append>", suffix)."""
    name = st.sampled_from(names) | st.text(max_size=10)
    value = st.one_of(JSON_VALUES, APPENDED, INTERESTING_NUMBERS, st.just("<delete>"), st.just("<now>"), st.just("<huge>"))
    return st.lists(st.tuples(name, value), max_size=4)


HEADER_NAMES = ["alg", "kid", "typ", "crit", "jwk", "b64", "jku", "x5c", "x5u", "cty", "zip", "enc"]
JWS_RECIPES = st.one_of(
    st.tuples(st.just("text"), st.text(max_size=300)),
    st.tuples(st.just("parts"), st.lists(st.text(alphabet=B64_ALPHABET, max_size=120), min_size=1, max_size=5)),
    st.tuples(st.just("json"), JSON_VALUES, JSON_VALUES, st.binary(max_size=80)),
    st.tuples(st.just("replace"), st.integers(min_value=0, max_value=10_000), st.characters()),
    st.tuples(st.just("cut"), st.integers(min_value=0, max_value=10_000), st.integers(min_value=0, max_value=10_000)),
    st.tuples(st.just("insert"), st.integers(min_value=0, max_value=10_000), st.text(max_size=20)),
    st.tuples(st.just("swap"), st.permutations([0, 1, 2])),
    st.tuples(st.just("header"), claim_updates(HEADER_NAMES), st.booleans()),
    st.tuples(st.just("claims"), claim_updates(["sub", "aud", "iat", "exp", "jti", "htm", "htu", "rid", "chal", "comb", "attrs", "pin",
                                                "otp", "code", "device_key", "pin_key", "iss", "nonce", "azp"]), st.booleans()),
    st.tuples(st.just("payload"), JSON_VALUES, st.booleans()),
)

FORM_EXTRA_KEYS = ["client_id", "client_secret", "scope", "request", "request_uri", "client_assertion", "client_assertion_type",
                   "resource", "audience", "response_mode", "claims"]
FORM_SPECIALS = ["", "\x00", "%", "&", "=", "+", "%zz", "\ud800", HUGE]


def form_recipes(bases: list):
    """A valid form (one of `bases`, by index) with keys deleted, values changed or added
    (known and random keys; good, random and odd values; quoted, raw or junk bytes),
    maybe a repeat, a separator, a client authentication and a content type."""
    keys = sorted({key for base in bases for key in base} | set(FORM_EXTRA_KEYS))
    good = sorted({value for base in bases for value in base.values()})
    key = st.one_of(st.sampled_from(keys), st.text(max_size=12))
    value = st.one_of(st.sampled_from(good), st.text(max_size=60), st.sampled_from(FORM_SPECIALS), APPENDED)
    change = st.tuples(key, value, st.sampled_from(["quote", "quote", "raw", "bytes"]), st.binary(max_size=12))
    return st.tuples(
        st.sampled_from(range(len(bases))), st.lists(st.sampled_from(keys), max_size=2), st.lists(change, max_size=3), st.booleans(),
        st.sampled_from(["&", "&", "&", ";", "&&"]), st.sampled_from(["basic", "basic", "basic", "post", "none", "wrong"]),
        st.sampled_from(["application/x-www-form-urlencoded"] * 4 + ["application/json", "text/plain", None]))


def body_recipes(operations: list):
    """(operation, body recipe) pairs: random JSON, or a valid body with changes, maybe
    also cut or spliced as text."""
    mutation = st.one_of(
        st.tuples(st.just("random"), JSON_VALUES),
        st.tuples(st.just("change"), claim_updates(["name", "username", "code", "registration", "proof", "purpose", "kind", "token",
                                                    "client_id", "redirect_uri", "code_challenge", "code_challenge_method", "scope",
                                                    "lockout", "attributes", "ttl_seconds", "role", "tenant", "policy", "user_id",
                                                    "redirect_uris", "pin_key", "biometric_key", "alias", "retire", "factor", "target"])),
    )
    text = st.one_of(st.just(None), st.tuples(st.just("cut"), st.integers(min_value=0, max_value=4000)),
                     st.tuples(st.just("splice"), st.integers(min_value=0, max_value=4000), st.binary(max_size=8)))
    return st.tuples(st.sampled_from(range(len(operations))), mutation, text)


# MARK: Applying recipes


def apply_updates(value: dict, updates: list) -> dict:
    result = dict(value) if isinstance(value, dict) else {}
    for name, change in updates:
        if change == "<delete>":
            result.pop(name, None)
        elif change == "<now>":
            result[name] = int(time.time())
        elif change == "<huge>":
            result[name] = HUGE
        elif isinstance(change, tuple):
            result[name] = str(result.get(name, "")) + change[1]
        else:
            result[name] = change
    return result


def decode_part(part: str):
    try:
        return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    except ValueError:
        return {}


def jws_from_recipe(recipe, valid: str, key) -> str:
    """A compact JWS string: `valid` (a fresh good token) changed as the recipe says; `key`
    signs again where the recipe changes the header or claims and asks for a signature."""
    kind = recipe[0]
    header_part, payload_part, signature_part = valid.split(".")
    if kind == "text":
        return recipe[1]
    if kind == "parts":
        return ".".join(recipe[1])
    if kind == "json":
        return b64url(json.dumps(recipe[1]).encode()) + "." + b64url(json.dumps(recipe[2]).encode()) + "." + b64url(recipe[3])
    if kind == "replace":
        index = recipe[1] % len(valid)
        return valid[:index] + recipe[2] + valid[index + 1:]
    if kind == "cut":
        start, end = sorted((recipe[1] % (len(valid) + 1), recipe[2] % (len(valid) + 1)))
        return valid[:start] + valid[end:]
    if kind == "insert":
        index = recipe[1] % (len(valid) + 1)
        return valid[:index] + recipe[2] + valid[index:]
    if kind == "swap":
        parts = [header_part, payload_part, signature_part]
        return ".".join(parts[index] for index in recipe[1])
    header, payload = decode_part(header_part), decode_part(payload_part)
    if kind == "header":
        header = apply_updates(header, recipe[1])
    elif kind == "claims":
        payload = apply_updates(payload, recipe[1])
    elif kind == "payload":
        payload = recipe[1]
    if recipe[2]:
        body = json.dumps(payload).encode()
        return tessera_server.sign_compact(key, header if isinstance(header, dict) else {}, body)
    return b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(payload).encode()) + "." + signature_part


def quote(text: str) -> bytes:
    return urllib.parse.quote_plus(text, errors="surrogatepass").encode()


def form_from_recipe(recipe, bases: list) -> tuple:
    """(form bytes, client authentication, content type) for a `form_recipes` value."""
    index, deletions, changes, repeat, separator, auth, content_type = recipe
    pairs = [(key, value, "quote", b"") for key, value in bases[index].items() if key not in deletions]
    for number, (key, value, encoding, junk) in enumerate(changes):
        position = next((at for at, pair in enumerate(pairs) if pair[0] == key), None)
        if isinstance(value, tuple):
            value = (pairs[position][1] if position is not None else "") + value[1]
        if position is None or (repeat and number == 0):
            pairs.append((key, value, encoding, junk))
        else:
            pairs[position] = (key, value, encoding, junk)
    pieces = []
    for key, value, encoding, junk in pairs:
        if encoding == "quote":
            pieces.append(quote(key) + b"=" + quote(value))
        elif encoding == "raw":
            pieces.append(key.encode("utf-8", "surrogatepass") + b"=" + value.encode("utf-8", "surrogatepass"))
        else:
            pieces.append(quote(key) + b"=" + junk)
    return separator.encode().join(pieces), auth, content_type


def body_from_recipe(recipe, base: dict) -> bytes:
    _, mutation, text = recipe
    if mutation[0] == "random":
        value = mutation[1]
    else:
        value = apply_updates(base, mutation[1])
    data = json.dumps(value).encode("utf-8", "surrogatepass")
    if text is None:
        return data
    if text[0] == "cut":
        return data[: text[1] % (len(data) + 1)]
    index = text[1] % (len(data) + 1)
    return data[:index] + text[2] + data[index:]


# MARK: Targets


@dataclasses.dataclass
class Target:
    name: str
    weight: float
    strategy: object
    send: object  # value -> tessera_server.Answer


class Fuzzing:
    """The live server, its fixtures, and the senders of every target."""

    def __init__(self, server: tessera_server.Server, fixtures: tessera_server.Fixtures):
        self.server = server
        self.fixtures = fixtures
        self.device = fixtures.device
        self.base = f"/t/{fixtures.tenant}"
        self.other_key = ec.generate_private_key(ec.SECP256R1())
        self.challenge = fixtures.claimed_request
        self.invitation_code = fixtures.open_invitation_code
        self.code_verifier, self.code_challenge = tessera_server.pkce_pair()
        self.admin_ids = self.admin_fixtures()

    def unlock(self) -> None:
        """Lifts a lock fuzzed proofs may have set on the fixtures' activation."""
        self.server.admin("POST", f"/admin/activations/{self.fixtures.device.activation_id}/unlock", None)

    def request(self, method: str, target: str, headers: dict = None, body: bytes = None) -> tessera_server.Answer:
        return tessera_server.raw_request(self.server.url, method, target, headers, body, timeout=TIMEOUT)

    def admin_fixtures(self) -> dict:
        """A tenant of its own for the admin JSON target, so fuzzed settings touch nothing else.
        Fuzzed proofs may count failed attempts and lock the fixtures' activation (lockout
        cannot be switched off): `unlock()` lifts the lock between chunks."""
        server = self.server
        server.admin("POST", "/admin/tenants", {"name": ADMIN_TENANT})
        service = server.admin("POST", f"/admin/tenants/{ADMIN_TENANT}/services", {"name": "Fuzzed", "redirect_uris": [REDIRECT_URI]})
        user = server.admin("POST", f"/admin/tenants/{ADMIN_TENANT}/users", {"username": "fuzzed"})
        return {"client": service["client_id"], "user": user["id"]}

    # Compact JWS

    def device_token(self, recipe) -> tessera_server.Answer:
        path = f"{self.base}/device/history"
        token = jws_from_recipe(recipe, self.device.token("GET", path), self.device.key)
        return self.request("GET", path, {"Authorization": "Tessera-Device " + token})

    def proof(self, recipe) -> tessera_server.Answer:
        request_id = self.challenge["request_id"]
        token = jws_from_recipe(recipe, self.device.sign(self.device.proof_claims(self.challenge)), self.device.key)
        answer = self.request("POST", f"{self.base}/device/authentications/{request_id}/finish",
                              {"Content-Type": "application/json"}, json.dumps({"proof": token}).encode())
        self.follow_finish(answer)
        return answer

    def follow_finish(self, answer) -> None:
        """Keeps a claimed request with its current challenge for the next proof."""
        try:
            result = answer.json() if answer.status_code == 200 else {}
        except ValueError:
            return
        if result.get("result") == "lockout" and "user_information" in result:
            self.challenge = result["user_information"]
        elif result.get("result"):
            self.challenge, _ = tessera_server.start_in_app(self.server, self.device, self.fixtures.tenant, self.fixtures.client_id)

    def registration(self, recipe) -> tessera_server.Answer:
        new_key = ec.generate_private_key(ec.SECP256R1())
        numbers = new_key.public_key().public_numbers()
        now = int(time.time())
        claims = {"code": self.invitation_code, "aud": self.fixtures.issuer,
                  "device_key": {"kty": "EC", "crv": "P-256", "x": b64url(numbers.x.to_bytes(32, "big")), "y": b64url(numbers.y.to_bytes(32, "big"))},
                  "pin_key": b64url(secrets.token_bytes(32)), "iat": now, "exp": now + 120}
        token = jws_from_recipe(recipe, tessera_server.sign_compact(new_key, {"alg": "ES256", "typ": "tessera-key+jwt"}, claims), new_key)
        answer = self.request("POST", f"{self.base}/device/activation/complete", {"Content-Type": "application/json"},
                              json.dumps({"registration": token}).encode())
        if answer.status_code == 201:
            # The code is spent: a new one keeps the next registrations reaching as deep.
            invitation = self.server.admin("POST", f"/admin/tenants/{self.fixtures.tenant}/invitations", {"username": tessera_server.USERNAME})
            self.invitation_code = tessera_server.invitation_code(invitation["url"])
        return answer

    def client_auth(self) -> dict:
        credentials = f"{self.fixtures.client_id}:{self.fixtures.client_secret}".encode()
        return {"Authorization": "Basic " + base64.b64encode(credentials).decode(), "Content-Type": "application/x-www-form-urlencoded"}

    def id_token_hint(self, recipe) -> tessera_server.Answer:
        token = jws_from_recipe(recipe, self.fixtures.in_app_tokens["id_token"], self.other_key)
        body = b"scope=openid&id_token_hint=" + quote(token)
        return self.request("POST", f"{self.base}/bc-authorize", self.client_auth(), body)

    def bearer(self, recipe) -> tessera_server.Answer:
        token = jws_from_recipe(recipe, self.fixtures.browser_tokens["access_token"], self.other_key)
        return self.request("GET", f"{self.base}/userinfo", {"Authorization": "Bearer " + token})

    def introspected(self, recipe) -> tessera_server.Answer:
        token = jws_from_recipe(recipe, self.fixtures.browser_tokens["access_token"], self.other_key)
        return self.request("POST", f"{self.base}/introspect", self.client_auth(), b"token=" + quote(token))

    # Forms

    def form_request(self, path: str, bases: list, recipe) -> tessera_server.Answer:
        body, auth, content_type = form_from_recipe(recipe, bases)
        headers = {}
        if auth == "basic":
            headers = self.client_auth()
        elif auth == "wrong":
            headers = {"Authorization": "Basic " + base64.b64encode(f"{self.fixtures.client_id}:wrong".encode()).decode()}
        elif auth == "post":
            body += b"&" + urllib.parse.urlencode({"client_id": self.fixtures.client_id, "client_secret": self.fixtures.client_secret}).encode()
        if content_type is None:
            headers.pop("Content-Type", None)
        else:
            headers["Content-Type"] = content_type
        return self.request("POST", path, headers, body)

    def authorize(self, recipe) -> tessera_server.Answer:
        query = form_from_recipe(recipe, self.authorize_bases())[0].decode("latin-1")
        # http.client refuses control characters and spaces in the request line; those go percent-encoded.
        query = "".join(character if 0x21 <= ord(character) < 0x7F else "%%%02X" % ord(character) for character in query)
        return self.request("GET", f"{self.base}/authorize?{query}")

    def authorize_bases(self) -> list:
        fixtures = self.fixtures
        return [{"response_type": "code", "client_id": fixtures.client_id, "redirect_uri": REDIRECT_URI, "scope": "openid email",
                 "state": "fuzz", "nonce": "fuzz", "code_challenge": self.code_challenge, "code_challenge_method": "S256"}]

    def form_bases(self) -> dict:
        """Valid forms of each token-style endpoint, for the fuzzer to change."""
        fixtures = self.fixtures
        browser, in_app = fixtures.browser_tokens, fixtures.in_app_tokens
        return {
            "token": [
                {"grant_type": "authorization_code", "code": fixtures.browser_code, "redirect_uri": REDIRECT_URI, "code_verifier": self.code_verifier},
                {"grant_type": "refresh_token", "refresh_token": in_app["refresh_token"], "scope": "openid"},
                {"grant_type": "urn:openid:params:grant-type:ciba", "auth_req_id": fixtures.auth_req_id},
            ],
            "bc-authorize": [
                {"scope": "openid email", "login_hint": tessera_server.USERNAME, "binding_message": "fuzz", "requested_expiry": "60"},
                {"scope": "openid", "id_token_hint": in_app["id_token"], "acr_values": "urn:tessera:acr:device+pin"},
            ],
            "introspect": [{"token": browser["access_token"], "token_type_hint": "access_token"},
                           {"token": browser["refresh_token"], "token_type_hint": "refresh_token"}],
            "revoke": [{"token": secrets.token_urlsafe(32)}, {"token": in_app["access_token"], "token_type_hint": "access_token"}],
        }

    # JSON

    def device_operations(self) -> list:
        fixtures = self.fixtures
        _, challenge = tessera_server.pkce_pair()
        ciba = fixtures.ciba_request
        return [
            ("POST", f"{self.base}/device/activation/start", False, {"code": fixtures.open_invitation_code}),
            ("POST", f"{self.base}/device/activation/complete", False, {"registration": fixtures.spent_proof}),
            ("POST", f"{self.base}/device/authentications/{ciba}/finish", False, {"proof": fixtures.spent_proof}),
            ("POST", f"{self.base}/device/authentications/{ciba}/claim", True, {"user_id": fixtures.user_id}),
            ("POST", f"{self.base}/device/push", True, {"kind": "webhook", "token": "fuzz"}),
            ("POST", f"{self.base}/device/in-app", True, {"client_id": fixtures.client_id, "redirect_uri": REDIRECT_URI, "code_challenge": challenge,
                                                           "code_challenge_method": "S256", "scope": "openid"}),
            ("POST", f"{self.base}/device/processes", True, {"purpose": "list_devices"}),
            ("POST", f"{self.base}/device/processes/{fixtures.approved_process['request_id']}/complete", True, {"alias": "fuzz"}),
        ]

    def admin_operations(self) -> list:
        tenant = f"/admin/tenants/{ADMIN_TENANT}"
        return [
            ("POST", "/admin/tenants", {"name": "fuzz-new"}),
            ("PATCH", tenant, {"sso_lifetime": 60, "lockout": {"free_attempts": 3, "waits": [30, 60], "permanent_after": 10}}),
            ("POST", f"{tenant}/signing-keys", {"activate": False}),
            ("POST", f"{tenant}/services", {"name": "S", "redirect_uris": [REDIRECT_URI], "policy": "device+pin", "attributes": ["email"]}),
            ("PATCH", f"{tenant}/services/{self.admin_ids['client']}", {"name": "S2", "session_lifetime": 600}),
            ("POST", f"{tenant}/users", {"username": "u", "attributes": {"email": "u@example.com"}}),
            ("PATCH", f"{tenant}/users/{self.admin_ids['user']}", {"attributes": {"email": "v@example.com"}}),
            ("POST", f"{tenant}/invitations", {"username": "fuzzed", "ttl_seconds": 60}),
            ("POST", "/admin/keys", {"name": "k", "role": "auditor", "tenant": ADMIN_TENANT}),
            ("POST", "/admin/console-users", {"username": "op", "role": "auditor", "tenant": ADMIN_TENANT}),
        ]

    def device_json(self, operations: list):
        def send(recipe) -> tessera_server.Answer:
            method, path, needs_token, base = operations[recipe[0]]
            headers = {"Content-Type": "application/json"}
            if needs_token:
                headers.update(self.device.header(method, path))
            return self.request(method, path, headers, body_from_recipe(recipe, base))
        return send

    def admin_json(self, operations: list):
        def send(recipe) -> tessera_server.Answer:
            method, path, base = operations[recipe[0]]
            headers = {"Content-Type": "application/json", "Authorization": "Bearer " + self.server.admin_token}
            return self.request(method, path, headers, body_from_recipe(recipe, base))
        return send

    def targets(self) -> list:
        forms = self.form_bases()
        device_operations = self.device_operations()
        admin_operations = self.admin_operations()

        def form_target(endpoint: str):
            bases = forms[endpoint]
            return form_recipes(bases), lambda recipe: self.form_request(f"{self.base}/{endpoint}", bases, recipe)

        return [
            Target("JWS: Tessera-Device header", 1.5, JWS_RECIPES, self.device_token),
            Target("JWS: finish proof", 1.5, JWS_RECIPES, self.proof),
            Target("JWS: activation registration", 1, JWS_RECIPES, self.registration),
            Target("JWS: bc-authorize id_token_hint", 1, JWS_RECIPES, self.id_token_hint),
            Target("JWS: userinfo bearer token", 0.7, JWS_RECIPES, self.bearer),
            Target("JWS: introspect token", 0.7, JWS_RECIPES, self.introspected),
            Target("form: GET /authorize query", 1, form_recipes(self.authorize_bases()), self.authorize),
            Target("form: POST /token", 1, *form_target("token")),
            Target("form: POST /bc-authorize", 1, *form_target("bc-authorize")),
            Target("form: POST /introspect", 0.7, *form_target("introspect")),
            Target("form: POST /revoke", 0.7, *form_target("revoke")),
            Target("JSON: device operations", 2, body_recipes(device_operations), self.device_json(device_operations)),
            Target("JSON: admin operations", 2, body_recipes(admin_operations), self.admin_json(admin_operations)),
        ]


# MARK: Running


class TimeUp(Exception):
    """Ends a target's Hypothesis run when its time is spent (shrinking is off, so
    Hypothesis only tries the example once more and passes this on)."""


@dataclasses.dataclass
class Outcome:
    examples: int = 0
    statuses: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    failures: list = dataclasses.field(default_factory=list)
    seconds: float = 0.0


def describe(value) -> str:
    text = repr(value)
    return text if len(text) <= 300 else text[:300] + f"…({len(text)} characters)"


def run_target(target: Target, budget: float, first_seed: int, server: tessera_server.Server, minimum: int = 0) -> Outcome:
    """Runs `target` for `budget` seconds, and on past it until `minimum` examples ran (a
    busy machine slows every example), but never longer than four times the budget."""
    outcome = Outcome()
    started = time.time()
    hard_stop = started + 4 * budget

    def over() -> bool:
        now = time.time()
        return now > hard_stop or (now > started + budget and outcome.examples >= minimum)

    @settings(max_examples=CHUNK, deadline=None, database=None, phases=[Phase.explicit, Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(target.strategy)
    def probe(value):
        if over() or not server.alive():
            raise TimeUp()
        outcome.examples += 1
        try:
            answer = target.send(value)
        except (ValueError, UnicodeError):
            # http.client will not put CR, LF or the like in a header: nothing was sent.
            outcome.statuses["not sendable"] += 1
            return
        except (OSError, http.client.HTTPException) as error:
            outcome.statuses["dropped"] += 1
            outcome.failures.append(f"{target.name}: the connection failed ({type(error).__name__}: {error}) for {describe(value)}")
            return
        outcome.statuses[answer.status_code] += 1
        if answer.status_code >= 500:
            outcome.failures.append(f"{target.name}: answered {answer.status_code} {answer.text[:160]!r} for {describe(value)}")

    chunk = 0
    while not over() and server.alive():
        try:
            seed(first_seed + chunk)(probe)()
        except TimeUp:
            break
        chunk += 1
    outcome.seconds = time.time() - started
    return outcome


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tessera", required=True, help="the tessera executable")
    parser.add_argument("--seconds", type=float, default=60, help="time to split among the targets (default 60)")
    parser.add_argument("--seed", type=int, default=0, help="the first Hypothesis seed (default 0)")
    parser.add_argument("--minimum-examples", type=int, default=0,
                        help="examples each target runs even past its share of the time (at most four times that share)")
    parser.add_argument("--database", help="an empty PostgreSQL database's URL")
    arguments = parser.parse_args()
    # Hypothesis describes the example that met TimeUp, sometimes a 70 KB one; the warning says only that.
    warnings.filterwarnings("ignore", message="Generating overly large repr")
    started = time.time()
    server = tessera_server.Server(arguments.tessera, arguments.database)
    failures = []
    try:
        server.start()
        fixtures = tessera_server.set_up(server)
        fuzzing = Fuzzing(server, fixtures)
        targets = fuzzing.targets()
        total_weight = sum(target.weight for target in targets)
        budget_left = arguments.seconds - (time.time() - started)
        print(f"{'target':<36} {'examples':>8} {'seconds':>8}  statuses")
        for index, target in enumerate(targets):
            budget = max(0.2, budget_left * target.weight / total_weight)
            fuzzing.unlock()
            outcome = run_target(target, budget, arguments.seed + 1000 * index, server, arguments.minimum_examples)
            statuses = ", ".join(f"{status}: {count}" for status, count in sorted(outcome.statuses.items(), key=lambda item: str(item[0])))
            print(f"{target.name:<36} {outcome.examples:>8} {outcome.seconds:>8.1f}  {statuses}", flush=True)
            failures += outcome.failures
            if not server.alive():
                failures.append(f"the server process died (status {server.process.returncode}) during {target.name}")
                break
            if not server.healthy():
                failures.append(f"the server no longer answers /health after {target.name}")
                break
    finally:
        server.stop()
    for failure in failures:
        print(f"FAILED {failure}")
    print(f"failures: {len(failures)}; {time.time() - started:.1f} s; server log: {server.log_path}")
    if not failures:
        server.remove()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
