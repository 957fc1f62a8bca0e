"""A throwaway Tessera server and the fixtures the robustness scripts need.

Imported by negative_suite.py and fuzz_server.py; not run on its own.

`Server` starts `BIN serve` on a free loopback port with a temporary data directory,
a random admin token and `--log-level trace` (standard output and error go to one log
file; optionally on an empty PostgreSQL database instead of SQLite), and stops it
again. `raw_request` sends a request exactly as given (no re-encoding of the target).

`set_up` makes, through the admin API and the CLI: a tenant, a confidential service
(poll-mode CIBA, one redirect URI, the `email` attribute) with its secret, a user, an
activated device (`BIN device activate --store DIR LINK --pin 2468`), a browser login
answered by `BIN device login`, an in-app login whose proof this module signs itself
with the raw P-256 key the CLI keeps in its store (so a spent proof can be replayed),
an open invitation, a claimed in-app request, an approved account process (adding
biometrics) waiting for completion, a pending CIBA request and a helpdesk admin key. `Fixtures.secrets()` lists every secret that must
never show up in the server's log. `table_digests` summarises every table of the SQLite
database so a caller can tell whether a request wrote anything.
"""
import base64
import dataclasses
import glob
import hashlib
import hmac
import html
import http.client
import json
import os
import re
import secrets
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import time
import urllib.parse

import requests
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

PIN = "2468"
PIN_ROUNDS = 210_000
TENANT = "robust"
REDIRECT_URI = "https://shop.example/callback"
USERNAME = "alice"
# A hang detector, not a speed check: in CI's PostgreSQL pass the whole suite shares two
# cores with the database, and one query once waited 15 s behind the cluster's checkpoints.
TIMEOUT = 45


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_json(value) -> str:
    return b64url(json.dumps(value, separators=(",", ":")).encode("utf-8"))


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def pkce_pair() -> tuple:
    verifier = secrets.token_urlsafe(48)
    return verifier, b64url(hashlib.sha256(verifier.encode("ascii")).digest())


# MARK: Raw HTTP


class Answer:
    """What the server answered to `raw_request`: the parts `requests` would give."""

    def __init__(self, status: int, headers, content: bytes):
        self.status_code = status
        self.headers = headers
        self.content = content

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def json(self):
        return json.loads(self.content)


def raw_request(url: str, method: str, target: str, headers: dict = None, body: bytes = None, timeout: float = TIMEOUT) -> Answer:
    """One request sent as given: `target` (path and query) is not re-encoded, unlike with
    `requests`, so malformed percent-encoding reaches the server. Raises OSError or
    http.client.HTTPException when the connection fails or drops."""
    parsed = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=timeout)
    try:
        connection.putrequest(method, target, skip_accept_encoding=True)
        for name, value in (headers or {}).items():
            connection.putheader(name, value.encode("utf-8", "surrogatepass") if isinstance(value, str) else value)
        if body is not None:
            connection.putheader("Content-Length", str(len(body)))
        connection.putheader("Connection", "close")
        try:
            connection.endheaders(body)
        except (BrokenPipeError, ConnectionResetError):
            # The server may answer (413) and close before a large body is all sent.
            pass
        answer = connection.getresponse()
        return Answer(answer.status, answer.headers, answer.read())
    finally:
        connection.close()


# MARK: The server process


class Server:
    """One `tessera serve` process with its own data directory, port and admin token."""

    def __init__(self, binary: str, database: str = None):
        self.binary = binary
        # A PostgreSQL URL (an empty database) instead of the SQLite file in the data directory.
        self.database = database
        self.work = tempfile.mkdtemp(prefix="tessera-robustness-")
        self.data_dir = os.path.join(self.work, "data")
        self.log_path = os.path.join(self.work, "server.log")
        self.admin_token = secrets.token_urlsafe(24)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = None
        self.log_file = None

    def start(self, wait_seconds: float = 30) -> None:
        os.makedirs(self.data_dir)
        env = dict(os.environ, TESSERA_ADMIN_TOKEN=self.admin_token)
        self.log_file = open(self.log_path, "wb")
        # Thousands of requests come from one address and one client: the rate limits
        # (tested on their own by the Swift suite) would answer most of them 429.
        arguments = [self.binary, "serve", "--data-dir", self.data_dir, "--port", str(self.port), "--log-level", "trace",
                     "--rate-limit-per-address", "0", "--rate-limit-per-client", "0"]
        if self.database:
            arguments += ["--database", self.database]
        self.process = subprocess.Popen(
            arguments, env=env, stdout=self.log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.time() + wait_seconds
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited at start with status {self.process.returncode}; see {self.log_path}")
            if self.healthy():
                return
            time.sleep(0.1)
        raise RuntimeError(f"the server did not answer /health within {wait_seconds} s; see {self.log_path}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        if self.log_file is not None:
            self.log_file.close()

    def remove(self) -> None:
        shutil.rmtree(self.work, ignore_errors=True)

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def healthy(self) -> bool:
        try:
            return requests.get(self.url + "/health", timeout=5).status_code == 200
        except requests.RequestException:
            return False

    def log_text(self) -> str:
        if self.log_file is not None and not self.log_file.closed:
            self.log_file.flush()
        with open(self.log_path, "rb") as handle:
            return handle.read().decode("utf-8", "replace")

    def database_path(self) -> str:
        found = glob.glob(os.path.join(self.data_dir, "*.sqlite"))
        if len(found) != 1:
            raise RuntimeError(f"expected one .sqlite file in {self.data_dir}, found {found}")
        return found[0]

    def admin(self, method: str, path: str, body=None, token: str = None) -> dict:
        """An admin API call that must succeed; its JSON answer."""
        answer = requests.request(
            method, self.url + path, json=body, timeout=TIMEOUT,
            headers={"Authorization": "Bearer " + (token or self.admin_token)})
        if answer.status_code >= 300:
            raise RuntimeError(f"{method} {path} answered {answer.status_code}: {answer.text[:300]}")
        return answer.json()

    def cli(self, *arguments: str) -> dict:
        """A `tessera` command with --json that must succeed; its JSON output."""
        env = dict(os.environ, TESSERA_SERVER=self.url, TESSERA_ADMIN_TOKEN=self.admin_token)
        done = subprocess.run([self.binary, *arguments, "--json"], env=env, capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise RuntimeError(f"tessera {' '.join(arguments[:3])} failed ({done.returncode}): {done.stderr.strip()[:300]}")
        return json.loads(done.stdout)


# MARK: The device's key and what it signs


@dataclasses.dataclass
class Device:
    """The activation the CLI made, with the private key it keeps in its --store."""

    store: str
    key: ec.EllipticCurvePrivateKey
    activation_id: str
    user_id: str
    issuer: str
    pin_key: bytes
    # The activation's background key (it only reads pending requests), when it has one.
    background_key: ec.EllipticCurvePrivateKey = None

    def sign(self, payload, header: dict = None, key: ec.EllipticCurvePrivateKey = None) -> str:
        """A compact ES256 JWS over `payload` (a dict as JSON, or bytes as they are), typed
        as what its claims make it: a device token (`htm`) or a proof (`rid`)."""
        if header is None:
            header = {"alg": "ES256", "kid": self.activation_id}
            if isinstance(payload, dict) and "htm" in payload:
                header["typ"] = "tessera-device+jwt"
            elif isinstance(payload, dict) and "rid" in payload and "chal" in payload:
                header["typ"] = "tessera-proof+jwt"
        return sign_compact(key or self.key, header, payload)

    def token(self, method: str, path: str, *, iat_offset: int = 0, lifetime: int = 60, **changes) -> str:
        """A `Tessera-Device` token for one call (path without the query)."""
        now = int(time.time()) + iat_offset
        claims = {
            "sub": self.activation_id, "aud": self.issuer, "htm": method, "htu": path,
            "iat": now, "exp": now + lifetime, "jti": secrets.token_urlsafe(16),
        }
        claims.update(changes)
        return self.sign(claims)

    def header(self, method: str, path: str, **changes) -> dict:
        return {"Authorization": "Tessera-Device " + self.token(method, path, **changes)}

    def proof_claims(self, challenge: dict, *, with_pin: bool = True) -> dict:
        now = int(time.time())
        claims = {
            "rid": challenge["request_id"], "chal": challenge["challenge"], "aud": challenge["audience"],
            "sub": self.activation_id, "comb": ["device", "pin"],
            "attrs": [attribute["name"] for attribute in challenge.get("requested_attributes", [])],
            "iat": now, "exp": now + 120, "jti": secrets.token_urlsafe(16),
        }
        if with_pin:
            message = challenge["request_id"].encode() + b"\x00" + challenge["challenge"].encode()
            claims["pin"] = b64url(hmac_sha256(self.pin_key, message))
        return claims


def hmac_sha256(key: bytes, message: bytes) -> bytes:
    return hmac.new(key, message, hashlib.sha256).digest()


def sign_compact(key: ec.EllipticCurvePrivateKey, header: dict, payload) -> str:
    body = payload if isinstance(payload, bytes) else json.dumps(payload, separators=(",", ":")).encode("utf-8")
    signing_input = b64url_json(header) + "." + b64url(body)
    r, s = decode_dss_signature(key.sign(signing_input.encode("ascii"), ec.ECDSA(hashes.SHA256())))
    return signing_input + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


def load_device(store: str) -> Device:
    """The activation record and raw P-256 scalar the CLI keeps in its store directory."""
    # Activation records are kept in the after-first-unlock class (its subdirectory).
    records = glob.glob(os.path.join(store, "item-*.record")) + glob.glob(os.path.join(store, "after-first-unlock", "item-*.record"))
    if len(records) != 1:
        raise RuntimeError(f"expected one activation record in {store}, found {len(records)}")
    with open(records[0]) as handle:
        record = json.load(handle)
    with open(os.path.join(store, f"key-{record['storageLabel']}device"), "rb") as handle:
        raw = handle.read()
    if len(raw) != 32:
        raise RuntimeError(f"the device key in {store} is {len(raw)} bytes, not a raw P-256 scalar")
    salt = base64.urlsafe_b64decode(record["pinSalt"] + "=" * (-len(record["pinSalt"]) % 4))
    background = None
    if record.get("backgroundKeyGeneration") == 0:
        with open(os.path.join(store, "after-first-unlock", f"key-{record['storageLabel']}background"), "rb") as handle:
            background = ec.derive_private_key(int.from_bytes(handle.read(), "big"), ec.SECP256R1())
    return Device(
        store=store, key=ec.derive_private_key(int.from_bytes(raw, "big"), ec.SECP256R1()),
        activation_id=record["id"], user_id=record["userID"], issuer=record["issuer"],
        pin_key=hashlib.pbkdf2_hmac("sha256", PIN.encode(), salt, PIN_ROUNDS, 32), background_key=background)


# MARK: Fixtures


@dataclasses.dataclass
class Fixtures:
    tenant: str
    tenant_id: str
    issuer: str
    client_id: str
    client_secret: str
    user_id: str
    device: Device
    kid: str
    session_id: str
    used_invitation_code: str
    open_invitation_code: str
    open_invitation_id: str
    helpdesk_key: str
    helpdesk_key_id: str
    browser_tokens: dict
    browser_code: str
    in_app_tokens: dict
    in_app_code: str
    completed_request: str
    spent_proof: str
    claimed_request: dict
    # An approved account process (adding biometrics) waiting for its completion.
    approved_process: dict
    auth_req_id: str
    # The CIBA request as the device sees it (its id in /device/pending).
    ciba_request: str
    # An initial access token for dynamic client registration (its id).
    registration_token_id: str = ""
    # An external identity provider of the tenant (its name): the tenant itself, over the loopback.
    identity_provider: str = ""
    webhook_id: str = ""
    group_id: str = ""

    @property
    def path(self) -> str:
        return f"/t/{self.tenant}"

    def secrets(self, admin_token: str) -> dict:
        """What must never appear in the log, by what it is. (Not the CIBA auth_req_id: it
        is the request's id, which the user's devices read in /device/pending and send in
        the paths the access log records; redeeming it takes the client's authentication.)"""
        found = {
            "admin token": admin_token,
            "client secret": self.client_secret,
            "PIN key": b64url(self.device.pin_key),
            "used invitation code": self.used_invitation_code,
            "open invitation code": self.open_invitation_code,
            "admin API key": self.helpdesk_key,
            "browser login's authorization code": self.browser_code,
            "in-app login's authorization code": self.in_app_code,
            "spent proof's signature": self.spent_proof.rsplit(".", 1)[1],
        }
        for name, tokens in (("browser login", self.browser_tokens), ("in-app login", self.in_app_tokens)):
            found[f"{name}'s refresh token"] = tokens["refresh_token"]
            # A JWT's signature is what makes it usable; header and claims may repeat.
            found[f"{name}'s access token"] = tokens["access_token"].rsplit(".", 1)[1]
            found[f"{name}'s ID token"] = tokens["id_token"].rsplit(".", 1)[1]
        return found


def invitation_code(url: str) -> str:
    return re.search(r"[?&]code=([^&]+)", url).group(1)


def redeem(server: Server, issuer: str, client_id: str, client_secret: str, code: str, verifier: str) -> dict:
    answer = requests.post(
        issuer + "/token", auth=(client_id, client_secret), timeout=TIMEOUT,
        data={"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT_URI, "code_verifier": verifier})
    if answer.status_code != 200:
        raise RuntimeError(f"the token endpoint refused a fresh code: {answer.status_code} {answer.text[:300]}")
    return answer.json()


def browser_login(server: Server, issuer: str, client_id: str, store: str) -> tuple:
    """A login page opened like a browser, answered by `tessera device login`; (code, verifier)."""
    verifier, challenge = pkce_pair()
    browser = requests.Session()
    page = browser.get(issuer + "/authorize", timeout=TIMEOUT, params={
        "response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT_URI, "scope": "openid email offline_access",
        "state": "fixture-state", "nonce": "fixture-nonce", "code_challenge": challenge, "code_challenge_method": "S256"})
    if page.status_code != 200:
        raise RuntimeError(f"the authorization endpoint answered {page.status_code}")

    def value(pattern: str) -> str:
        return html.unescape(re.search(pattern, page.text).group(1))

    link = value(r'id="authentication-url">([^<]*)<')
    # The service asks for number matching (the default): the number the page shows.
    server.cli("device", "login", "--store", store, link, "--pin", PIN, "--number", value(r'data-match-code="([^"]*)"'))
    if browser.get(value(r'data-status-url="([^"]*)"'), timeout=TIMEOUT).json()["status"] != "approved":
        raise RuntimeError("the login page did not see the device's approval")
    redirect = browser.get(value(r'data-complete-url="([^"]*)"'), allow_redirects=False, timeout=TIMEOUT)
    return re.search(r"[?&]code=([^&]+)", redirect.headers["Location"]).group(1), verifier


def start_in_app(server: Server, device: Device, tenant: str, client_id: str) -> tuple:
    """A claimed in-app login of `device`: (its claim answer, the PKCE verifier)."""
    verifier, challenge = pkce_pair()
    path = f"/t/{tenant}/device/in-app"
    answer = requests.post(server.url + path, headers=device.header("POST", path), timeout=TIMEOUT, json={
        "client_id": client_id, "redirect_uri": REDIRECT_URI, "code_challenge": challenge,
        "code_challenge_method": "S256", "scope": "openid email offline_access", "state": "in-app"})
    if answer.status_code != 201:
        raise RuntimeError(f"an in-app login did not start: {answer.status_code} {answer.text[:300]}")
    return answer.json(), verifier


def in_app_login(server: Server, device: Device, tenant: str, client_id: str) -> tuple:
    """An in-app login finished with a proof signed here: (request id, proof, code, verifier)."""
    challenge, verifier = start_in_app(server, device, tenant, client_id)
    request_id = challenge["request_id"]
    proof = device.sign(device.proof_claims(challenge))
    finish = requests.post(
        f"{server.url}/t/{tenant}/device/authentications/{request_id}/finish", json={"proof": proof}, timeout=TIMEOUT)
    if finish.status_code != 200 or finish.json().get("result") != "serviceLogin":
        raise RuntimeError(f"the self-signed proof was refused: {finish.status_code} {finish.text[:300]}")
    path = f"/t/{tenant}/device/in-app/{request_id}/code"
    code = requests.post(server.url + path, headers=device.header("POST", path), timeout=TIMEOUT)
    if code.status_code != 200:
        raise RuntimeError(f"the in-app code was refused: {code.status_code} {code.text[:300]}")
    return request_id, proof, code.json()["code"], verifier


def device_call(server: Server, device: Device, method: str, path: str, body=None, expect: int = 200) -> dict:
    """A device API call with a fresh device token that must answer `expect`; its JSON."""
    answer = requests.request(method, server.url + path, headers=device.header(method, path), json=body, timeout=TIMEOUT)
    if answer.status_code != expect:
        raise RuntimeError(f"{method} {path} answered {answer.status_code}: {answer.text[:300]}")
    return answer.json()


def approved_process(server: Server, device: Device, tenant: str) -> dict:
    """An account process (adding biometrics) approved with a proof signed here, waiting
    for its completion; its claim answer."""
    challenge = device_call(server, device, "POST", f"/t/{tenant}/device/processes", {"purpose": "add_factor", "factor": "biometric"}, 201)
    finish = requests.post(
        f"{server.url}/t/{tenant}/device/authentications/{challenge['request_id']}/finish",
        json={"proof": device.sign(device.proof_claims(challenge))}, timeout=TIMEOUT)
    if finish.status_code != 200 or finish.json().get("result") != "apiAccessAddFactor":
        raise RuntimeError(f"the account process was not approved: {finish.status_code} {finish.text[:300]}")
    return challenge


def backchannel_request(server: Server, device: Device, issuer: str, client: tuple) -> tuple:
    """A pending CIBA request: (its auth_req_id, its id as the device's pending list shows it)."""
    started = requests.post(issuer + "/bc-authorize", auth=client, timeout=TIMEOUT,
                            data={"scope": "openid", "login_hint": USERNAME, "binding_message": "robustness"})
    if started.status_code != 200:
        raise RuntimeError(f"a CIBA request did not start: {started.status_code} {started.text[:300]}")
    pending = device_call(server, device, "GET", f"/t/{TENANT}/device/pending")["requests"]
    return started.json()["auth_req_id"], pending[0]["request_id"]


def set_up(server: Server) -> Fixtures:
    tenant = server.admin("POST", "/admin/tenants", {"name": TENANT})
    issuer = tenant["issuer"]
    service = server.cli(
        "admin", "service", "create", "--tenant", TENANT, "--name", "Robust Shop", "--redirect-uri", REDIRECT_URI,
        "--attributes", "email", "--backchannel-mode", "poll")
    client_id, client_secret = service["client_id"], service["client_secret"]
    user = server.cli("admin", "user", "create", "--tenant", TENANT, "--username", USERNAME, "--attribute", "email=alice@example.com")
    invitation = server.admin("POST", f"/admin/tenants/{TENANT}/invitations", {"username": USERNAME, "ttl_seconds": 3600})
    store = os.path.join(server.work, "device")
    server.cli("device", "activate", "--store", store, invitation["url"], "--pin", PIN, "--alias", "robustness")
    device = load_device(store)

    browser_code, browser_verifier = browser_login(server, issuer, client_id, store)
    browser_tokens = redeem(server, issuer, client_id, client_secret, browser_code, browser_verifier)
    request_id, proof, in_app_code, in_app_verifier = in_app_login(server, device, TENANT, client_id)
    in_app_tokens = redeem(server, issuer, client_id, client_secret, in_app_code, in_app_verifier)

    open_invitation = server.admin("POST", f"/admin/tenants/{TENANT}/invitations", {"username": USERNAME, "ttl_seconds": 3600})
    invitations = server.admin("GET", f"/admin/tenants/{TENANT}/invitations")["invitations"]
    claimed, _ = start_in_app(server, device, TENANT, client_id)
    auth_req_id, ciba_request = backchannel_request(server, device, issuer, (client_id, client_secret))
    key = server.admin("POST", "/admin/keys", {"name": "robustness helpdesk", "role": "helpdesk", "tenant": TENANT})
    registration_token = server.admin("POST", f"/admin/tenants/{TENANT}/registration-tokens", {"uses": 5})
    provider = server.admin("POST", f"/admin/tenants/{TENANT}/identity-providers", {
        "name": "itself", "display_name": "The tenant itself", "discovery_url": f"{issuer}/.well-known/openid-configuration",
        "client_id": client_id, "client_secret": client_secret})
    # A hook for an event the suite never causes: nothing is delivered in the background.
    webhook = server.admin("POST", "/admin/webhooks", {
        "url": "http://127.0.0.1:9/hook", "events": ["audit.signing_key.retire"], "tenant": TENANT})
    # A group, as a directory makes it over SCIM.
    group = server.admin("POST", f"/t/{TENANT}/scim/v2/Groups", {
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"], "displayName": "robustness", "members": [{"value": user["id"]}]})
    return Fixtures(
        registration_token_id=registration_token["id"], identity_provider=provider["name"], webhook_id=webhook["id"], group_id=group["id"],
        tenant=TENANT, tenant_id=tenant["id"], issuer=issuer, client_id=client_id, client_secret=client_secret,
        user_id=user["id"], device=device, kid=server.admin("GET", f"/admin/tenants/{TENANT}/signing-keys")["keys"][0]["kid"],
        session_id=server.admin("GET", f"/admin/tenants/{TENANT}/users/{user['id']}/sessions")["sessions"][0]["id"],
        used_invitation_code=invitation_code(invitation["url"]), open_invitation_code=invitation_code(open_invitation["url"]),
        open_invitation_id=[entry for entry in invitations if entry["kind"] == "invitation"][0]["id"],
        helpdesk_key=key["key"], helpdesk_key_id=key["id"],
        browser_tokens=browser_tokens, browser_code=browser_code, in_app_tokens=in_app_tokens, in_app_code=in_app_code,
        completed_request=request_id, spent_proof=proof, claimed_request=claimed,
        approved_process=approved_process(server, device, TENANT), auth_req_id=auth_req_id, ciba_request=ciba_request)


# MARK: What the database holds


# What the server writes in the background after commits, never on a request's behalf:
# the feeds' numbers (`seq`, given when a feed or the webhook dispatcher reads) and the
# dispatcher's places (`feed_sequences`). Left out of the digests.
BACKGROUND_TABLES = {"feed_sequences"}
BACKGROUND_COLUMNS = {"seq"}


def table_digests(database: str) -> dict:
    """Every table's row count and a SHA-256 over its rows (in a fixed order), without
    the background bookkeeping above."""
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10)
    try:
        digests = {}
        names = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        for name in names:
            if name in BACKGROUND_TABLES:
                continue
            quoted = '"' + name.replace('"', '""') + '"'
            count = connection.execute(f"SELECT count(*) FROM {quoted}").fetchone()[0]
            columns = [row[1] for row in connection.execute(f"PRAGMA table_info({quoted})") if row[1] not in BACKGROUND_COLUMNS]
            selected = ", ".join('"' + column.replace('"', '""') + '"' for column in columns)
            rows = sorted(repr(row) for row in connection.execute(f"SELECT {selected} FROM {quoted}"))
            digests[name] = (count, hashlib.sha256("\n".join(rows).encode("utf-8")).hexdigest())
        return digests
    finally:
        connection.close()


def table_changes(before: dict, after: dict) -> list:
    """Plain descriptions of the tables that differ between two `table_digests`."""
    changes = []
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name), after.get(name)
        if old == new:
            continue
        if old is None or new is None:
            changes.append(f"table {name} {'appeared' if old is None else 'disappeared'}")
        elif old[0] != new[0]:
            changes.append(f"table {name} went from {old[0]} to {new[0]} rows")
        else:
            changes.append(f"table {name} kept {old[0]} rows but their contents changed")
    return changes
