"""Configuration as code, checked by Hypothesis: a random valid configuration document is
applied to server A with `tessera admin apply`, exported, applied to server B and exported
again; both exports must be the same text, applying the document or the export to A
again must change nothing and write no audit entry, and no secret may appear in an export.

Environment: SERVER_A, TOKEN_A, SERVER_B, TOKEN_B (two empty servers that allow private
outbound addresses), TESSERA (the command), EXAMPLES (how many documents; default 12).
Prints RESULT {json} with the number of documents checked.
"""
import base64
import hashlib
import http.server
import itertools
import json
import os
import re
import secrets
import subprocess
import tempfile
import threading

import requests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

TESSERA = os.environ["TESSERA"]
SERVERS = {"A": (os.environ["SERVER_A"], os.environ["TOKEN_A"]), "B": (os.environ["SERVER_B"], os.environ["TOKEN_B"])}
WORK = tempfile.mkdtemp(prefix="config-roundtrip-")
COUNTER = itertools.count(1)
CHECKED = []

# An OpenID provider for the documents' identity providers: its discovery document only.
class Discovery(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        base = f"http://127.0.0.1:{self.server.server_port}"
        if self.path != "/.well-known/openid-configuration":
            self.send_error(404)
            return
        body = json.dumps({"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
                           "jwks_uri": base + "/jwks"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


PROVIDER = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Discovery)
threading.Thread(target=PROVIDER.serve_forever, daemon=True).start()
DISCOVERY = f"http://127.0.0.1:{PROVIDER.server_port}/.well-known/openid-configuration"

# A P-256 public key for private_key_jwt services.
JWK = {"kty": "EC", "crv": "P-256", "kid": "k1", "use": "sig", "alg": "ES256",
       "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}
POLICIES = ["device+pin", "device+biometric", "device+pin,device+biometric", "device+pin+biometric"]


def reference(kind, tenant, name):
    """The variable `tessera admin export` names a secret by: kind, tenant, owner and a digest of the three."""
    readable = re.sub(r"[^A-Z0-9]", "_", f"{kind}_{tenant}_{name}".upper())
    digest = hashlib.sha256(f"{kind}\0{tenant}\0{name}".encode()).hexdigest()[:8].upper()
    return f"TESSERA_{readable}_{digest}"


def lockouts():
    def policy(free, waits, permanent):
        waits = sorted(waits)
        waits[-1] = max(waits[-1], 60)
        return {"free_attempts": free, "waits": waits, "permanent_after": permanent}
    return st.integers(0, 5).flatmap(lambda free: st.builds(
        policy, st.just(free), st.lists(st.integers(5, 86400), min_size=1, max_size=4), st.integers(free + 1, 20)))


@st.composite
def tenant_settings(draw):
    settings = {}
    optional = {
        "lockout": lockouts(),
        "process_policy": st.sampled_from(POLICIES),
        "history_retention": st.integers(86400, 315360000),
        "audit_retention": st.integers(2592000, 315360000),
        "access_token_lifetime": st.integers(60, 3600),
        "dynamic_registration": st.booleans(),
        "recovery_codes": st.booleans(),
        "notices": st.lists(st.sampled_from(["device_added", "device_removed", "passkey_added", "locked"]), unique=True),
        "default_language": st.sampled_from(["en", "de"]),
        "app_links": st.builds(lambda scheme: {"custom_scheme": scheme}, st.sampled_from(["acme", "com.example.app"])),
    }
    for key, strategy in optional.items():
        if draw(st.booleans()):
            settings[key] = draw(strategy)
    if draw(st.booleans()):
        lifetime = draw(st.integers(300, 31536000))
        settings["session_lifetime"] = lifetime
        settings["session_idle_lifetime"] = draw(st.integers(300, lifetime))
    if draw(st.booleans()):
        settings["sso_lifetime"] = draw(st.integers(60, 86400))
        if draw(st.booleans()):
            settings["sso_policy"] = draw(st.sampled_from(["device", "device+pin"]))
    return settings


@st.composite
def services(draw, tenant, secrets_used):
    client_id = f"{tenant}-svc{next(COUNTER)}"
    method = draw(st.sampled_from(["client_secret_basic", "client_secret_post", "none", "private_key_jwt"]))
    settings = {"name": draw(st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7e), min_size=1, max_size=30).filter(lambda s: s.strip())),
                "token_endpoint_auth_method": method}
    grants = ["authorization_code", "refresh_token"]
    if method in ("client_secret_basic", "private_key_jwt") and draw(st.booleans()):
        grants = draw(st.sampled_from([["client_credentials"], ["authorization_code", "client_credentials"]]))
        if draw(st.booleans()):
            settings["scopes"] = draw(st.lists(st.sampled_from(["api.read", "api.write", "reports"]), min_size=1, unique=True))
        if draw(st.booleans()):
            settings["audience"] = "https://api.example/" + client_id
    settings["grant_types"] = grants
    if "authorization_code" in grants:
        settings["redirect_uris"] = draw(st.lists(st.sampled_from(
            ["https://app.example/cb", "https://app.example/other", "com.example.app:/cb", "http://127.0.0.1:9/cb"]), min_size=1, max_size=3, unique=True))
    policy = draw(st.sampled_from(POLICIES))
    settings["policy"] = policy
    if draw(st.booleans()):
        settings["roles"] = [{"name": "full", "policy": policy.split(",")[0]}]
    if draw(st.booleans()):
        settings["attributes"] = draw(st.lists(st.sampled_from(["department", "employee_id", "cost_centre"]), unique=True))
    for flag in ["number_matching", "require_pushed_authorization_requests", "dpop_bound_access_tokens", "app_identity_token"]:
        if draw(st.booleans()):
            settings[flag] = draw(st.booleans())
    if draw(st.booleans()):
        settings["subject_type"] = draw(st.sampled_from(["public", "pairwise"]))
    if draw(st.booleans()):
        settings["id_token_signed_response_alg"] = draw(st.sampled_from(["ES256", "EdDSA"]))
    if draw(st.booleans()):
        settings["post_logout_redirect_uris"] = ["https://app.example/bye"]
    if draw(st.booleans()):
        settings["access_token_lifetime"] = draw(st.integers(60, 3600))
    if draw(st.booleans()):
        lifetime = draw(st.integers(300, 31536000))
        settings["session_lifetime"] = lifetime
        if draw(st.booleans()):
            settings["session_idle_lifetime"] = draw(st.integers(300, lifetime))
    if method in ("client_secret_basic", "client_secret_post") and draw(st.booleans()):
        settings["backchannel_token_delivery_mode"] = "poll"
    if method == "private_key_jwt":
        settings["jwks"] = {"keys": [JWK]}
    service = {"client_id": client_id, "settings": settings}
    if method in ("client_secret_basic", "client_secret_post") and draw(st.booleans()):
        variable = f"SECRET_{next(COUNTER)}"
        secrets_used[variable] = secrets.token_urlsafe(32)
        service["client_secret"] = "${env:" + variable + "}"
    return service


@st.composite
def providers(draw, secrets_used):
    provider = {"name": f"idp{next(COUNTER)}", "display_name": draw(st.sampled_from(["Corporate", "Partner IdP", "Bürgerkonto"])),
                "discovery_url": DISCOVERY, "client_id": "tessera-" + secrets.token_hex(4)}
    if draw(st.booleans()):
        variable = f"SECRET_{next(COUNTER)}"
        secrets_used[variable] = secrets.token_urlsafe(24)
        provider["client_secret"] = "${env:" + variable + "}"
    if draw(st.booleans()):
        provider["scope"] = "openid email"
    if draw(st.booleans()):
        provider["link_claim"], provider["link_field"] = "email", "email"
    if draw(st.booleans()):
        provider["claim_mapping"] = {"given_name": "given_name", "department": "department"}
    return provider


@st.composite
def webhooks(draw, secrets_used):
    hook = {"url": f"http://127.0.0.1:9/hooks/{next(COUNTER)}",
            "events": draw(st.lists(st.sampled_from(["ciba.answered", "login.locked", "session.ended"]), min_size=1, unique=True))}
    if draw(st.booleans()):
        variable = f"SECRET_{next(COUNTER)}"
        secrets_used[variable] = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
        hook["secret"] = "${env:" + variable + "}"
    return hook


@st.composite
def documents(draw):
    used = {}
    tenants = []
    for _ in range(draw(st.integers(1, 2))):
        name = f"t{next(COUNTER)}-{secrets.token_hex(2)}"
        tenant = {"name": name}
        if draw(st.booleans()):
            tenant["settings"] = draw(tenant_settings())
        tenant["services"] = [draw(services(name, used)) for _ in range(draw(st.integers(0, 3)))]
        if draw(st.booleans()):
            tenant["identity_providers"] = [draw(providers(used)) for _ in range(draw(st.integers(1, 2)))]
        if draw(st.booleans()):
            tenant["webhooks"] = [draw(webhooks(used)) for _ in range(draw(st.integers(1, 2)))]
        tenants.append(tenant)
    document = {"version": 1, "tenants": tenants}
    if draw(st.booleans()):
        document["webhooks"] = [draw(webhooks(used))]
    if draw(st.booleans()):
        document["operators"] = [{"username": f"op{next(COUNTER)}@example.com", "role": draw(st.sampled_from(["admin", "helpdesk", "auditor"])),
                                  **({"tenant": tenants[0]["name"]} if draw(st.booleans()) else {})}]
    return document, used


def tessera(server, arguments, environment=None, stdin=None):
    url, token = SERVERS[server]
    env = {"PATH": os.environ.get("PATH", ""), "TESSERA_SERVER": url, "TESSERA_ADMIN_TOKEN": token, **(environment or {})}
    run = subprocess.run([TESSERA, "admin", *arguments], env=env, capture_output=True, text=True, timeout=120)
    if run.returncode != 0:
        raise AssertionError(f"tessera admin {' '.join(arguments)} on {server}: {run.returncode}\n{run.stdout}\n{run.stderr}")
    return run.stdout


def apply(server, path, environment):
    return json.loads(tessera(server, ["apply", "-f", path, "--json"], environment))


def audit_entries(server):
    url, token = SERVERS[server]
    answer = requests.get(url + "/admin/audit", params={"action": "apply", "limit": 1000},
                          headers={"Authorization": "Bearer " + token}, timeout=30)
    answer.raise_for_status()
    return len(answer.json()["entries"])


def export_references(document, used, answer):
    """The export's references, each with the secret it stands for."""
    values = {}
    made = {(c["kind"], c.get("tenant"), c["name"]): c["secret"] for c in answer["changes"] if c.get("secret")}
    for tenant in document["tenants"]:
        name = tenant["name"]
        for service in tenant.get("services", []):
            secret = service.get("client_secret")
            value = used[secret[6:-1]] if secret else made.get(("service", name, service["client_id"]))
            if value:
                values[reference("service", name, service["client_id"])] = value
        for provider in tenant.get("identity_providers", []):
            if provider.get("client_secret"):
                values[reference("provider", name, provider["name"])] = used[provider["client_secret"][6:-1]]
        for hook in tenant.get("webhooks", []):
            value = used[hook["secret"][6:-1]] if hook.get("secret") else made.get(("webhook", name, hook["url"]))
            values[reference("webhook", name, hook["url"])] = value
    for hook in document.get("webhooks", []):
        value = used[hook["secret"][6:-1]] if hook.get("secret") else made.get(("webhook", None, hook["url"]))
        values[reference("webhook", "", hook["url"])] = value
    return values


REFERENCES = {}


@settings(max_examples=int(os.environ.get("EXAMPLES", "12")), deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(documents())
def test_round_trip(drawn):
    document, used = drawn
    path = os.path.join(WORK, f"document-{len(CHECKED)}.json")
    with open(path, "w") as file:
        json.dump(document, file)
    first = apply("A", path, used)
    assert first["changes"], "a new document changes something"
    REFERENCES.update(export_references(document, used, first))
    exported = tessera("A", ["export"])
    secret_values = list(used.values()) + [c["secret"] for c in first["changes"] if c.get("secret")]
    for value in secret_values:
        assert value not in exported, "a secret appears in the export"
    for name in re.findall(r"\$\{env:([A-Z0-9_]+)\}", exported):
        assert name in REFERENCES, (
            f"the export names {name}, which stands for no secret the documents gave or were given\n{json.dumps(document)}\n{json.dumps(first)}")
    export_path = os.path.join(WORK, f"export-{len(CHECKED)}.yaml")
    with open(export_path, "w") as file:
        file.write(exported)

    # A second apply of the document, and the export applied to where it came from: nothing.
    before = audit_entries("A")
    again = apply("A", path, used)
    assert again["changes"] == [], f"a second apply changed {again['changes']}"
    back = apply("A", export_path, REFERENCES)
    assert back["changes"] == [], f"applying A's export to A changed {back['changes']}"
    assert audit_entries("A") == before, "an apply that changed nothing wrote an audit entry"

    # The export on an empty (or equally configured) second server: the same export.
    apply("B", export_path, REFERENCES)
    exported_b = tessera("B", ["export"])
    assert exported_b == exported, "B's export differs from A's:\n" + "\n".join(
        line for line in difflib_lines(exported, exported_b))
    for value in secret_values:
        assert value not in exported_b, "a secret appears in B's export"
    CHECKED.append(document)


def difflib_lines(a, b):
    import difflib
    return list(difflib.unified_diff(a.splitlines(), b.splitlines(), "A", "B", lineterm=""))[:80]


if __name__ == "__main__":
    test_round_trip()
    print("RESULT " + json.dumps({"documents": len(CHECKED), "tenants": sum(len(d["tenants"]) for d in CHECKED)}), flush=True)
