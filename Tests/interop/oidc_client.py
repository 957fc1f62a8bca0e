"""A relying party built on Authlib (OAuth2Session with PKCE S256) and joserfc.

Discovers the issuer, opens the authorization URL like a browser (requests, with
cookies), prints the authentication link the login page shows, follows the page's
status until the device approved, takes the redirect, exchanges the code with
client_secret_basic and the PKCE verifier, verifies the ID token against the JWKS,
and reads userinfo. Environment: TESSERA_ISSUER, CLIENT_ID, CLIENT_SECRET, REDIRECT_URI.
"""
import json
import os
import sys

import login_page
import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session
from joserfc import jwt
from joserfc.jwk import KeySet


def main() -> int:
    issuer = os.environ["TESSERA_ISSUER"]
    client_id = os.environ["CLIENT_ID"]
    redirect_uri = os.environ["REDIRECT_URI"]
    metadata = requests.get(issuer + "/.well-known/openid-configuration", timeout=30).json()
    assert metadata["issuer"] == issuer, metadata["issuer"]
    assert "S256" in metadata["code_challenge_methods_supported"]

    session = OAuth2Session(
        client_id,
        os.environ["CLIENT_SECRET"],
        scope="openid",
        redirect_uri=redirect_uri,
        code_challenge_method="S256",
        token_endpoint_auth_method="client_secret_basic",
    )
    verifier = generate_token(48)
    nonce = generate_token(20)
    url, state = session.create_authorization_url(
        metadata["authorization_endpoint"], code_verifier=verifier, nonce=nonce
    )

    location = login_page.login(url)
    assert location.startswith(redirect_uri + "?"), location

    # Authlib checks that the redirect carries the state it sent.
    token = session.fetch_token(
        metadata["token_endpoint"], authorization_response=location, code_verifier=verifier, state=state
    )

    keys = KeySet.import_key_set(requests.get(metadata["jwks_uri"], timeout=30).json())
    id_token = jwt.decode(token["id_token"], keys, algorithms=["ES256"])
    jwt.JWTClaimsRegistry(
        iss={"essential": True, "value": issuer},
        aud={"essential": True, "value": client_id},
        nonce={"essential": True, "value": nonce},
        exp={"essential": True},
        sub={"essential": True},
        auth_time={"essential": True},
    ).validate(id_token.claims)
    assert id_token.header["alg"] == "ES256"

    userinfo = session.get(metadata["userinfo_endpoint"], timeout=30).json()
    assert userinfo["sub"] == id_token.claims["sub"]
    # RFC 7662 and RFC 7009 through Authlib, with the same client authentication.
    introspected = session.introspect_token(
        metadata["introspection_endpoint"], token=token["access_token"], token_type_hint="access_token", timeout=10
    ).json()
    assert introspected["active"] is True and introspected["sub"] == id_token.claims["sub"], introspected
    revoked = session.revoke_token(
        metadata["revocation_endpoint"], token=token["refresh_token"], token_type_hint="refresh_token", timeout=10
    )
    assert revoked.status_code == 200, revoked.status_code
    after = session.introspect_token(metadata["introspection_endpoint"], token=token["access_token"], timeout=30).json()
    assert after == {"active": False}, after
    print("RESULT " + json.dumps({"claims": id_token.claims, "userinfo": userinfo, "introspected": introspected}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
