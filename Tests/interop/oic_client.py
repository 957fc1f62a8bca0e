"""A second, independent relying party: pyoidc (`oic`), unmodified, runs the code flow.

pyoidc reads the discovery document and the JWKS itself, builds the authorization
request, parses the redirect, redeems the code with client_secret_basic, verifies the
ID token (signature against the JWKS, iss, aud, nonce) and reads userinfo. The page is
followed like a browser (requests, with cookies); the Swift test approves the
AUTHENTICATION_URL this script prints. Environment: TESSERA_ISSUER, CLIENT_ID,
CLIENT_SECRET, REDIRECT_URI, ALGORITHM (the service's ID-token algorithm).
"""
import json
import os
import sys
import urllib.parse

import login_page
from oic import rndstr
from oic.oic import Client
from oic.oic.message import AccessTokenResponse, AuthorizationResponse, OpenIDSchema, RegistrationResponse
from oic.utils.authn.client import CLIENT_AUTHN_METHOD
from oic.utils.settings import OicClientSettings


def main() -> int:
    issuer = os.environ["TESSERA_ISSUER"]
    redirect_uri = os.environ["REDIRECT_URI"]
    # pyoidc waits 5 s by default; a loaded two-core machine running the whole suite may take longer.
    client = Client(client_authn_method=CLIENT_AUTHN_METHOD, settings=OicClientSettings(timeout=30))
    client.provider_config(issuer)
    client.store_registration_info(RegistrationResponse(
        client_id=os.environ["CLIENT_ID"], client_secret=os.environ["CLIENT_SECRET"], redirect_uris=[redirect_uri],
        id_token_signed_response_alg=os.environ["ALGORITHM"], token_endpoint_auth_method="client_secret_basic"))
    state = rndstr()
    nonce = rndstr()
    request = client.construct_AuthorizationRequest(request_args={
        "client_id": client.client_id, "response_type": "code", "scope": ["openid", "email"], "nonce": nonce,
        "redirect_uri": redirect_uri, "state": state})
    url = request.request(client.authorization_endpoint)

    query = urllib.parse.urlparse(login_page.login(url)).query

    response = client.parse_response(AuthorizationResponse, info=query, sformat="urlencoded")
    assert response["state"] == state, response
    tokens = client.do_access_token_request(
        state=state, request_args={"code": response["code"]}, authn_method="client_secret_basic")
    assert isinstance(tokens, AccessTokenResponse), tokens
    id_token = tokens["id_token"]  # verified by pyoidc: signature (JWKS), iss, aud, nonce, exp
    assert id_token["nonce"] == nonce and id_token["iss"] == issuer, id_token.to_dict()
    userinfo = client.do_user_info_request(state=state)
    assert isinstance(userinfo, OpenIDSchema) and userinfo["sub"] == id_token["sub"], userinfo
    print("RESULT " + json.dumps({
        "id_token": id_token.to_dict(), "alg": id_token.jws_header["alg"] if hasattr(id_token, "jws_header") else None,
        "userinfo": userinfo.to_dict()}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
