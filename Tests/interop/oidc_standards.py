"""OpenID Connect as off-the-shelf relying parties use it, driven with Authlib and
checked with joserfc: RS256 and EdDSA ID tokens per service, acr_values, max_age,
prompt, login_hint, ui_locales and scope-released claims, RP-initiated logout, and
back-channel logout to a receiver that verifies each logout_token.

The script is both the service and its operator: it sets the service's ID-token
algorithm and logout addresses through the admin API. The Swift test beside it approves
every AUTHENTICATION_URL this script prints with the user's device (device+pin).

Environment: TESSERA_SERVER, TESSERA_ADMIN_TOKEN, TESSERA_TENANT, TESSERA_ISSUER,
CLIENT_ID, CLIENT_SECRET, REDIRECT_URI, USERNAME, ACTIVATION_ID.
Prints RESULT {json} at the end.
"""
import json
import os
import queue
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import login_page
import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

EVENT = "http://schemas.openid.net/event/backchannel-logout"
TIMEOUT = 45


def check(condition, message):
    if not condition:
        raise SystemExit("FAILED: " + message)


class Receiver:
    """A service's back-channel logout endpoint: keeps every logout_token it is sent;
    answers 500 to the first delivery for a sid in `fail_once`, 200 otherwise."""

    def __init__(self):
        self.tokens = queue.Queue()
        self.fail_once = set()
        self.attempts = {}
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                form = urllib.parse.parse_qs(self.rfile.read(length).decode("ascii"), strict_parsing=True)
                token = form["logout_token"][0]
                check(self.headers.get("Content-Type", "").startswith("application/x-www-form-urlencoded"), "form body")
                # The sid, unverified, only to pick the answer; the test verifies below.
                sid = json.loads(jwt_payload(token)).get("sid")
                receiver.attempts[sid] = receiver.attempts.get(sid, 0) + 1
                if sid in receiver.fail_once:
                    receiver.fail_once.discard(sid)
                    self.send_response(500)
                    self.end_headers()
                    return
                receiver.tokens.put((time.time(), token))
                self.send_response(200)
                self.send_header("Cache-Control", "no-store")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/backchannel-logout"

    def next(self, seconds=40):
        try:
            return self.tokens.get(timeout=seconds)
        except queue.Empty:
            raise SystemExit("FAILED: no logout_token arrived")


def jwt_payload(token: str) -> str:
    import base64

    part = token.split(".")[1]
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)).decode("utf-8")


class Relying:
    def __init__(self):
        self.issuer = os.environ["TESSERA_ISSUER"]
        self.client_id = os.environ["CLIENT_ID"]
        self.secret = os.environ["CLIENT_SECRET"]
        self.redirect_uri = os.environ["REDIRECT_URI"]
        self.admin = os.environ["TESSERA_SERVER"] + "/admin/tenants/" + os.environ["TESSERA_TENANT"]
        self.admin_headers = {"Authorization": "Bearer " + os.environ["TESSERA_ADMIN_TOKEN"]}
        self.metadata = requests.get(self.issuer + "/.well-known/openid-configuration", timeout=TIMEOUT).json()

    def configure(self, **fields):
        answer = requests.patch(
            f"{self.admin}/services/{self.client_id}", json=fields, headers=self.admin_headers, timeout=TIMEOUT)
        check(answer.status_code == 200, f"service update: {answer.status_code} {answer.text}")
        return answer.json()

    def session(self, scope="openid"):
        return OAuth2Session(
            self.client_id, self.secret, scope=scope, redirect_uri=self.redirect_uri, code_challenge_method="S256",
            token_endpoint_auth_method="client_secret_basic")

    def keys(self):
        return KeySet.import_key_set(requests.get(self.metadata["jwks_uri"], timeout=TIMEOUT).json())

    def authorize(self, scope="openid", pushed=False, **extra):
        """Starts a login; returns (browser, page answer, oauth session, verifier, nonce, state).
        With `pushed`, the request Authlib built is pushed first (RFC 9126) and the browser
        gets only client_id and the request_uri."""
        session = self.session(scope)
        verifier = generate_token(48)
        nonce = generate_token(20)
        url, state = session.create_authorization_url(
            self.metadata["authorization_endpoint"], code_verifier=verifier, nonce=nonce, **extra)
        if pushed:
            parameters = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(url).query))
            answer = requests.post(
                self.metadata["pushed_authorization_request_endpoint"], data=parameters, auth=(self.client_id, self.secret),
                timeout=TIMEOUT)
            check(answer.status_code == 201, f"PAR: {answer.status_code} {answer.text}")
            body = answer.json()
            check(body["request_uri"].startswith("urn:ietf:params:oauth:request_uri:") and body["expires_in"] == 60, f"PAR: {body}")
            url = self.metadata["authorization_endpoint"] + "?" + urllib.parse.urlencode(
                {"client_id": self.client_id, "request_uri": body["request_uri"]})
        browser = requests.Session()
        page = browser.get(url, allow_redirects=False, timeout=TIMEOUT)
        return browser, page, session, verifier, nonce, state

    def login(self, scope="openid", algorithm="ES256", pushed=False, **extra):
        browser, page, session, verifier, nonce, state = self.authorize(scope, pushed=pushed, **extra)
        location = login_page.follow(browser, page)
        token = session.fetch_token(
            self.metadata["token_endpoint"], authorization_response=location, code_verifier=verifier,
            state=state)
        id_token = jwt.decode(token["id_token"], self.keys(), algorithms=[algorithm])
        check(id_token.header["alg"] == algorithm, f"ID token alg {id_token.header['alg']}, expected {algorithm}")
        jwt.JWTClaimsRegistry(
            iss={"essential": True, "value": self.issuer},
            aud={"essential": True, "value": self.client_id},
            nonce={"essential": True, "value": nonce},
            exp={"essential": True},
            sub={"essential": True},
            sid={"essential": True},
            auth_time={"essential": True},
        ).validate(id_token.claims)
        return page, token, id_token

    def refused(self, expected_error, **extra):
        """An authorization request refused back to the service: error and state, no page."""
        _, page, _, _, _, state = self.authorize(**extra)
        check(page.status_code == 302, f"{extra}: expected a redirect, got {page.status_code}")
        query = urllib.parse.parse_qs(urllib.parse.urlparse(page.headers["Location"]).query)
        check(query.get("error") == [expected_error], f"{extra}: {query}")
        check(query.get("state") == [state] and query.get("iss") == [self.issuer], f"{extra}: state and iss: {query}")
        return query


def verify_logout_token(relying, token, id_token, algorithm):
    keys = relying.keys()
    try:
        decoded = jwt.decode(token, keys, algorithms=[algorithm])
    except JoseError as error:
        raise SystemExit(f"FAILED: logout_token does not verify: {error}")
    claims = decoded.claims
    check(decoded.header.get("typ") == "logout+jwt", f"logout_token typ: {decoded.header}")
    check(decoded.header["alg"] == algorithm, f"logout_token alg: {decoded.header}")
    jwt.JWTClaimsRegistry(
        iss={"essential": True, "value": relying.issuer},
        aud={"essential": True, "value": relying.client_id},
        iat={"essential": True},
        jti={"essential": True},
    ).validate(claims)
    check(claims.get("events") == {EVENT: {}}, f"events: {claims.get('events')}")
    check("nonce" not in claims, "a logout_token must not carry a nonce")
    check(claims["sid"] == id_token.claims["sid"] and claims["sub"] == id_token.claims["sub"], "sid and sub name the session")
    return claims


def main() -> int:
    relying = Relying()
    metadata = relying.metadata
    for algorithm in ("RS256", "ES256", "EdDSA"):
        check(algorithm in metadata["id_token_signing_alg_values_supported"], f"{algorithm} announced")
    check(metadata["end_session_endpoint"] == relying.issuer + "/logout", "end_session_endpoint")
    check(metadata["backchannel_logout_supported"] and metadata["backchannel_logout_session_supported"], "back-channel logout announced")
    check({"profile", "email", "phone", "address"} <= set(metadata["scopes_supported"]), "claim scopes announced")

    receiver = Receiver()
    post_logout = relying.redirect_uri.rsplit("/", 1)[0] + "/signed-out"
    view = relying.configure(
        id_token_signed_response_alg="RS256", post_logout_redirect_uris=[post_logout], backchannel_logout_uri=receiver.url)
    check(view["id_token_signed_response_alg"] == "RS256", f"service view: {view}")

    # prompt=none never shows a page: login_required, back to the service with state and iss.
    relying.refused("login_required", prompt="none")
    relying.refused("invalid_request", prompt="none login")
    # acr_values naming only combinations the service's policy does not allow.
    relying.refused("unmet_authentication_requirements", acr_values="urn:tessera:acr:device+otp")

    # Login A: RS256, acr_values, max_age, login_hint, ui_locales=de, scope openid email.
    username = os.environ["USERNAME"]
    page, token_a, id_a = relying.login(
        scope="openid email", algorithm="RS256", acr_values="urn:example:silver urn:tessera:acr:device+pin", max_age="600",
        login_hint=username, ui_locales="de-CH en")
    check('<html lang="de">' in page.text and "anmelden</h1>" in page.text, "the page is in German")
    check("<li>email</li>" in page.text and "<li>name</li>" not in page.text, "the page lists what the scope asks for")
    check(id_a.claims["acr"] == "urn:tessera:acr:device+pin", f"acr: {id_a.claims['acr']}")
    check(id_a.claims.get("email") and "name" not in id_a.claims, f"scope-released claims: {id_a.claims}")
    check(int(time.time()) - id_a.claims["auth_time"] < 600, "auth_time within max_age")

    # Login B: the service now signs with EdDSA.
    relying.configure(id_token_signed_response_alg="EdDSA")
    _, token_b, id_b = relying.login(algorithm="EdDSA")
    # Login C, for the device's revocation.
    _, token_c, id_c = relying.login(algorithm="EdDSA")
    # Pushed authorization requests (RFC 9126): once the service requires them, a plain
    # request goes back with invalid_request, a pushed one signs in, and its request_uri works once.
    check(relying.configure(require_pushed_authorization_requests=True)["require_pushed_authorization_requests"], "PAR required")
    relying.refused("invalid_request")
    _, token_p, id_p = relying.login(algorithm="EdDSA", pushed=True, acr_values="urn:tessera:acr:device+pin")
    check(id_p.claims["acr"] == "urn:tessera:acr:device+pin", "the pushed acr_values applied")
    bad_push = requests.post(
        metadata["pushed_authorization_request_endpoint"],
        data={"client_id": relying.client_id, "response_type": "code", "redirect_uri": relying.redirect_uri + "/x", "scope": "openid"},
        auth=(relying.client_id, relying.secret), timeout=TIMEOUT)
    check(bad_push.status_code == 400 and bad_push.json()["error"] == "invalid_request", f"unregistered redirect pushed: {bad_push.text}")
    unauthenticated = requests.post(
        metadata["pushed_authorization_request_endpoint"], data={"client_id": relying.client_id, "response_type": "code"}, timeout=TIMEOUT)
    check(unauthenticated.status_code == 401, f"PAR without client authentication: {unauthenticated.status_code}")
    relying.configure(require_pushed_authorization_requests=False)
    # The service revokes P's refresh token (RFC 7009, through Authlib): P's session ends and its logout_token follows.
    revoked_p = relying.session().revoke_token(
        metadata["revocation_endpoint"], token=token_p["refresh_token"], token_type_hint="refresh_token", timeout=TIMEOUT)
    check(revoked_p.status_code == 200, f"revocation: {revoked_p.status_code}")
    _, logout_p = receiver.next()
    verify_logout_token(relying, logout_p, id_p, "EdDSA")

    # RP-initiated logout of A: back to the registered address with state; the token
    # that comes to the receiver names A's session.
    state = generate_token(12)
    answer = requests.get(
        metadata["end_session_endpoint"],
        params={"id_token_hint": token_a["id_token"], "post_logout_redirect_uri": post_logout, "state": state},
        allow_redirects=False, timeout=TIMEOUT)
    check(answer.status_code == 302, f"logout: {answer.status_code} {answer.text[:200]}")
    check(answer.headers["Location"] == post_logout + "?state=" + state, f"logout redirect: {answer.headers['Location']}")
    started = time.time()
    arrived, logout_a = receiver.next()
    claims_a = verify_logout_token(relying, logout_a, id_a, "EdDSA")
    refreshed = requests.post(
        metadata["token_endpoint"], data={"grant_type": "refresh_token", "refresh_token": token_a["refresh_token"]},
        auth=(relying.client_id, relying.secret), timeout=TIMEOUT)
    check(refreshed.status_code == 400 and refreshed.json()["error"] == "invalid_grant", "A's refresh token is dead")
    # An address the service did not register: shown, not followed.
    stray = requests.get(
        metadata["end_session_endpoint"],
        params={"id_token_hint": token_b["id_token"], "post_logout_redirect_uri": post_logout + "/other"},
        allow_redirects=False, timeout=TIMEOUT)
    check(stray.status_code == 400 and "Location" not in stray.headers, f"unregistered address: {stray.status_code}")

    # An operator ends B: its logout_token follows.
    ended = requests.delete(f"{relying.admin}/sessions/{id_b.claims['sid']}", headers=relying.admin_headers, timeout=TIMEOUT)
    check(ended.status_code in (200, 204), f"admin end: {ended.status_code} {ended.text}")
    _, logout_b = receiver.next()
    verify_logout_token(relying, logout_b, id_b, "EdDSA")

    # The device is revoked: C ends; the receiver refuses the first delivery, the retry comes.
    receiver.fail_once.add(id_c.claims["sid"])
    revoked = requests.post(
        os.environ["TESSERA_SERVER"] + f"/admin/activations/{os.environ['ACTIVATION_ID']}/revoke",
        headers=relying.admin_headers, timeout=TIMEOUT)
    check(revoked.status_code in (200, 204), f"revoke: {revoked.status_code} {revoked.text}")
    first_try = time.time()
    _, logout_c = receiver.next(60)
    verify_logout_token(relying, logout_c, id_c, "EdDSA")
    check(receiver.attempts[id_c.claims["sid"]] == 2, f"attempts for C: {receiver.attempts}")
    check(receiver.tokens.empty(), "one token per ended session")

    print("RESULT " + json.dumps({
        "logout_delay": round(arrived - started, 2), "retry_after": round(time.time() - first_try, 2),
        "logout_claims": claims_a, "id_claims": id_a.claims,
    }), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
