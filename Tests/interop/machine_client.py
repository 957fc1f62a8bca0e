"""Machine-to-machine clients from the outside: Authlib's client-credentials flow and
private_key_jwt assertions made with joserfc (RFC 6749 §4.4, RFC 7523, RFC 9068).

The script registers its services through the admin API, then checks:
- discovery announces client_credentials, private_key_jwt and the signing algorithms;
- Authlib (client_secret_basic and client_secret_post) gets a client-credentials token:
  no refresh or ID token, the service's lifetime, its scopes (all of them, or those asked
  for), a JWT (typ at+jwt, joserfc-verified against the tenant's JWKS) whose sub and
  client_id are the client and whose aud is the service's audience;
- refusals: a scope the service was not given (invalid_scope), a service without the
  grant (unauthorized_client), the token at userinfo;
- introspection by the client and by the resource server its audience names (another
  service's is inactive), revocation, and a client whose grant was taken away;
- private_key_jwt with keys registered inline (ES256, joserfc) and by jwks_uri (RS256,
  served here), and Authlib's own PrivateKeyJWT: tokens; a replayed assertion, a wrong
  audience, an expired one, another key, a secret instead of an assertion: invalid_client;
  the same assertions at /par, /introspect, /revoke and /bc-authorize;
- dynamic client registration (RFC 7591) of a private_key_jwt machine client.

Environment: TESSERA_SERVER, TESSERA_ADMIN_TOKEN, TESSERA_TENANT, TESSERA_ISSUER.
Prints RESULT {json}.
"""
import http.server
import json
import os
import threading
import time
import uuid

import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.oauth2.rfc7523 import PrivateKeyJWT
from joserfc import jwt
from joserfc.jwk import ECKey, KeySet, RSAKey

TIMEOUT = 30
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


def check(condition, message):
    if not condition:
        raise SystemExit("FAILED: " + message)


class Tessera:
    def __init__(self):
        self.server = os.environ["TESSERA_SERVER"]
        self.tenant = os.environ["TESSERA_TENANT"]
        self.issuer = os.environ["TESSERA_ISSUER"]
        self.admin = {"Authorization": "Bearer " + os.environ["TESSERA_ADMIN_TOKEN"]}
        self.token_endpoint = self.issuer + "/token"

    def create_service(self, body):
        answer = requests.post(
            f"{self.server}/admin/tenants/{self.tenant}/services", json=body, headers=self.admin, timeout=TIMEOUT)
        check(answer.status_code == 201, f"service created: {answer.status_code} {answer.text}")
        return answer.json()

    def patch_service(self, client_id, body):
        answer = requests.patch(
            f"{self.server}/admin/tenants/{self.tenant}/services/{client_id}", json=body, headers=self.admin, timeout=TIMEOUT)
        check(answer.status_code == 200, f"service changed: {answer.status_code} {answer.text}")
        return answer.json()

    def post(self, endpoint, fields, auth=None):
        return requests.post(f"{self.issuer}/{endpoint}", data=fields, auth=auth, timeout=TIMEOUT)


def assertion(key, client_id, audience, lifetime=60, jti=None, kid=None, algorithm="ES256"):
    now = int(time.time())
    header = {"alg": algorithm}
    if kid:
        header["kid"] = kid
    claims = {"iss": client_id, "sub": client_id, "aud": audience, "iat": now, "exp": now + lifetime,
              "jti": jti or str(uuid.uuid4())}
    return jwt.encode(header, claims, key)


def assertion_fields(signed, **extra):
    return {"client_assertion_type": ASSERTION_TYPE, "client_assertion": signed, **extra}


def verified_claims(tessera, token):
    keys = requests.get(tessera.issuer + "/jwks", timeout=TIMEOUT).json()
    decoded = jwt.decode(token, KeySet.import_key_set(keys))
    return decoded.header, decoded.claims


def main():
    tessera = Tessera()
    result = {}

    discovery = requests.get(tessera.issuer + "/.well-known/openid-configuration", timeout=TIMEOUT).json()
    check("client_credentials" in discovery["grant_types_supported"], "discovery lists client_credentials")
    for name in ["token_endpoint_auth_methods_supported", "introspection_endpoint_auth_methods_supported",
                 "revocation_endpoint_auth_methods_supported"]:
        check("private_key_jwt" in discovery[name], f"discovery: {name} lists private_key_jwt")
    check("ES256" in discovery["token_endpoint_auth_signing_alg_values_supported"], "discovery lists the assertion algorithms")

    # A resource server, and a machine client whose tokens are for it.
    api = tessera.create_service({"name": "Orders API", "grant_types": ["client_credentials"]})
    check(api["redirect_uris"] == [] and api["grant_types"] == ["client_credentials"], f"the API service: {api}")
    worker = tessera.create_service({
        "name": "Order worker", "grant_types": ["client_credentials"], "scopes": ["orders.read", "orders.write"],
        "audience": api["client_id"], "access_token_lifetime": 120})
    check(worker["token_endpoint_auth_method"] == "client_secret_basic" and worker.get("client_secret"), "the worker has a secret")
    discovery = requests.get(tessera.issuer + "/.well-known/openid-configuration", timeout=TIMEOUT).json()
    check("orders.write" in discovery["scopes_supported"], "discovery lists the machine scopes")

    # Authlib, client_secret_basic, one scope.
    session = OAuth2Session(worker["client_id"], worker["client_secret"], scope="orders.read")
    token = session.fetch_token(tessera.token_endpoint, grant_type="client_credentials")
    check(token["token_type"] == "Bearer" and token["expires_in"] == 120, f"a bearer token for 120 s: {token}")
    check(token["scope"] == "orders.read", "the scope asked for")
    check("refresh_token" not in token and "id_token" not in token, "no refresh or ID token")
    header, claims = verified_claims(tessera, token["access_token"])
    check(header["typ"] == "at+jwt", "an RFC 9068 access token")
    check(claims["sub"] == worker["client_id"] and claims["client_id"] == worker["client_id"], "sub is the client")
    check(claims["aud"] == api["client_id"], "aud is the service's audience")
    check(claims["iss"] == tessera.issuer and claims["exp"] - claims["iat"] == 120, "issuer and lifetime")
    check("sid" not in claims and "auth_time" not in claims and "acr" not in claims, "no user's login in it")
    machine_token = token["access_token"]

    # Authlib, client_secret_post, no scope: every scope the service was given.
    session = OAuth2Session(worker["client_id"], worker["client_secret"], token_endpoint_auth_method="client_secret_post")
    token = session.fetch_token(tessera.token_endpoint, grant_type="client_credentials")
    check(token["scope"] == "orders.read orders.write", f"all of its scopes: {token['scope']}")

    basic = (worker["client_id"], worker["client_secret"])
    refused = tessera.post("token", {"grant_type": "client_credentials", "scope": "orders.delete"}, auth=basic)
    check(refused.status_code == 400 and refused.json()["error"] == "invalid_scope", f"another scope: {refused.text}")
    refused = tessera.post("token", {"grant_type": "client_credentials", "scope": "openid"}, auth=basic)
    check(refused.status_code == 400 and refused.json()["error"] == "invalid_scope", "openid is no machine scope")
    refused = tessera.post("token", {"grant_type": "authorization_code", "code": "x", "redirect_uri": "https://x"}, auth=basic)
    check(refused.status_code == 400 and refused.json()["error"] == "unauthorized_client", f"no code grant: {refused.text}")
    web = tessera.create_service({"name": "Web app", "redirect_uris": ["https://app.example/callback"]})
    check(web["grant_types"] == ["authorization_code", "refresh_token"], "the default grants")
    refused = tessera.post("token", {"grant_type": "client_credentials"}, auth=(web["client_id"], web["client_secret"]))
    check(refused.status_code == 400 and refused.json()["error"] == "unauthorized_client", f"not given the grant: {refused.text}")
    userinfo = requests.get(tessera.issuer + "/userinfo", headers={"Authorization": "Bearer " + machine_token}, timeout=TIMEOUT)
    check(userinfo.status_code == 401, f"userinfo refuses a machine token: {userinfo.status_code}")

    # Introspection: the client, and the resource server its audience names.
    described = tessera.post("introspect", {"token": machine_token}, auth=basic).json()
    check(described["active"] and described["sub"] == worker["client_id"] and described["scope"] == "orders.read",
          f"the client's introspection: {described}")
    by_api = tessera.post("introspect", {"token": machine_token}, auth=(api["client_id"], api["client_secret"])).json()
    check(by_api["active"] and by_api["aud"] == api["client_id"], f"the audience's introspection: {by_api}")
    by_other = tessera.post("introspect", {"token": machine_token}, auth=(web["client_id"], web["client_secret"])).json()
    check(by_other == {"active": False}, "another service learns nothing")
    revoked = tessera.post("revoke", {"token": machine_token}, auth=basic)
    check(revoked.status_code == 200, f"revoked: {revoked.status_code}")
    check(tessera.post("introspect", {"token": machine_token}, auth=basic).json() == {"active": False}, "inactive once revoked")
    live = tessera.post("token", {"grant_type": "client_credentials"}, auth=basic).json()["access_token"]
    tessera.patch_service(worker["client_id"], {"grant_types": ["authorization_code"], "redirect_uris": ["https://w.example/cb"]})
    check(tessera.post("introspect", {"token": live}, auth=(api["client_id"], api["client_secret"])).json() == {"active": False},
          "inactive once the client may no longer use the grant")

    # private_key_jwt, keys inline (ES256 by joserfc).
    key = ECKey.generate_key("P-256")
    public = key.as_dict(private=False, kid="signing-1")
    keyed = tessera.create_service({
        "name": "Key client", "grant_types": ["client_credentials"], "token_endpoint_auth_method": "private_key_jwt",
        "jwks": {"keys": [public]}, "scopes": ["reports.read"]})
    check("client_secret" not in keyed and keyed["token_endpoint_auth_method"] == "private_key_jwt", f"no secret: {keyed}")
    check(keyed["jwks"]["keys"][0]["kid"] == "signing-1", "its keys are shown")
    client_id = keyed["client_id"]
    signed = assertion(key, client_id, tessera.token_endpoint, kid="signing-1")
    answer = tessera.post("token", assertion_fields(signed, grant_type="client_credentials", client_id=client_id))
    check(answer.status_code == 200 and answer.json()["scope"] == "reports.read", f"private_key_jwt token: {answer.text}")
    replay = tessera.post("token", assertion_fields(signed, grant_type="client_credentials"))
    check(replay.status_code == 401 and replay.json()["error"] == "invalid_client", f"a replayed assertion: {replay.text}")
    result["replay_refused"] = True
    for name, bad in [
        ("wrong audience", assertion(key, client_id, "https://elsewhere.example/token")),
        ("expired", assertion(key, client_id, tessera.token_endpoint, lifetime=-120)),
        ("too long-lived", assertion(key, client_id, tessera.token_endpoint, lifetime=7200)),
        ("another key", assertion(ECKey.generate_key("P-256"), client_id, tessera.token_endpoint)),
        ("another client", assertion(key, worker["client_id"], tessera.token_endpoint)),
    ]:
        refused = tessera.post("token", assertion_fields(bad, grant_type="client_credentials"))
        check(refused.status_code == 401 and refused.json()["error"] == "invalid_client", f"{name}: {refused.status_code} {refused.text}")
    wrong_type = tessera.post("token", {"client_assertion_type": "urn:x", "client_assertion": signed, "grant_type": "client_credentials"})
    check(wrong_type.status_code == 400, "an unknown assertion type")
    secret_instead = tessera.post("token", {"grant_type": "client_credentials"}, auth=(client_id, "guess"))
    check(secret_instead.status_code == 401, "a private_key_jwt client has no secret")
    issuer_audience = assertion(key, client_id, tessera.issuer)
    answer = tessera.post("token", assertion_fields(issuer_audience, grant_type="client_credentials"))
    check(answer.status_code == 200, f"the issuer as audience: {answer.text}")
    keyed_token = answer.json()["access_token"]
    # The other endpoints take assertions too, each spent once.
    described = tessera.post("introspect", assertion_fields(assertion(key, client_id, tessera.issuer + "/introspect"), token=keyed_token))
    check(described.status_code == 200 and described.json()["active"], f"introspect with an assertion: {described.text}")
    revoked = tessera.post("revoke", assertion_fields(assertion(key, client_id, tessera.issuer), token=keyed_token))
    check(revoked.status_code == 200, f"revoke with an assertion: {revoked.text}")
    described = tessera.post("introspect", assertion_fields(assertion(key, client_id, tessera.issuer), token=keyed_token))
    check(described.json() == {"active": False}, "revoked")

    # A private_key_jwt web client: PAR and backchannel authentication authenticate the same way.
    signer = ECKey.generate_key("P-256")
    web_keyed = tessera.create_service({
        "name": "Keyed web", "redirect_uris": ["https://keyed.example/cb"], "token_endpoint_auth_method": "private_key_jwt",
        "jwks": {"keys": [signer.as_dict(private=False)]}, "backchannel_token_delivery_mode": "poll"})
    pushed = tessera.post("par", assertion_fields(
        assertion(signer, web_keyed["client_id"], tessera.issuer + "/par"), response_type="code",
        client_id=web_keyed["client_id"], redirect_uri="https://keyed.example/cb", scope="openid",
        code_challenge="E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method="S256"))
    check(pushed.status_code == 201 and pushed.json()["request_uri"].startswith("urn:"), f"PAR with an assertion: {pushed.text}")
    backchannel = tessera.post("bc-authorize", assertion_fields(assertion(signer, web_keyed["client_id"], tessera.issuer), scope="openid"))
    check(backchannel.status_code == 400 and backchannel.json()["error"] != "invalid_client",
          f"bc-authorize authenticated the client (and wants a hint): {backchannel.text}")

    # Keys by address (RS256), served here; and Authlib's own PrivateKeyJWT.
    rsa = RSAKey.generate_key(2048)
    served = json.dumps({"keys": [rsa.as_dict(private=False, kid="rsa-1", use="sig")]}).encode()
    fetched = []

    class Keys(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            fetched.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(served)))
            self.end_headers()
            self.wfile.write(served)

        def log_message(self, *args):
            pass

    keys_server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Keys)
    threading.Thread(target=keys_server.serve_forever, daemon=True).start()
    by_address = tessera.create_service({
        "name": "Key address client", "grant_types": ["client_credentials"], "token_endpoint_auth_method": "private_key_jwt",
        "jwks_uri": f"http://127.0.0.1:{keys_server.server_port}/jwks.json"})
    pem = rsa.as_pem(private=True)
    session = OAuth2Session(by_address["client_id"], pem, token_endpoint_auth_method=PrivateKeyJWT(tessera.token_endpoint, alg="RS256"))
    token = session.fetch_token(tessera.token_endpoint, grant_type="client_credentials")
    check(token["token_type"] == "Bearer", f"Authlib's PrivateKeyJWT with keys by address: {token}")
    token = session.fetch_token(tessera.token_endpoint, grant_type="client_credentials")
    check(len(fetched) == 1, f"the keys were fetched once and kept: {fetched}")
    keys_server.shutdown()

    # Dynamic registration of a private_key_jwt machine client.
    tenant_url = f"{tessera.server}/admin/tenants/{tessera.tenant}"
    check(requests.patch(tenant_url, json={"dynamic_registration": True}, headers=tessera.admin, timeout=TIMEOUT).status_code == 200,
          "registration on")
    initial = requests.post(tenant_url + "/registration-tokens", json={"uses": 1}, headers=tessera.admin, timeout=TIMEOUT).json()["token"]
    registering = ECKey.generate_key("P-256")
    registered = requests.post(tessera.issuer + "/register", json={
        "client_name": "Registered worker", "grant_types": ["client_credentials"], "token_endpoint_auth_method": "private_key_jwt",
        "jwks": {"keys": [registering.as_dict(private=False, kid="r1")]}, "scope": "exports.run"},
        headers={"Authorization": "Bearer " + initial}, timeout=TIMEOUT)
    check(registered.status_code == 201, f"registered: {registered.text}")
    registration = registered.json()
    check("client_secret" not in registration and registration["token_endpoint_auth_method"] == "private_key_jwt"
          and registration["grant_types"] == ["client_credentials"], f"the registration: {registration}")
    answer = tessera.post("token", assertion_fields(
        assertion(registering, registration["client_id"], tessera.token_endpoint, kid="r1"), grant_type="client_credentials"))
    check(answer.status_code == 200 and answer.json()["scope"] == "exports.run", f"the registered client's token: {answer.text}")

    result["clients"] = 5
    print("RESULT " + json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
