"""Checks the signed discovery document (gematik profile) with joserfc and cryptography:
the certificate in x5c is parsed, its key verifies the JWS, the key is the JWKS key of
the same kid, exp is iat + 24 h, and the members are the plain document's.
Environment: TESSERA_ISSUER. Prints RESULT {json}."""
import base64
import json
import os
import sys

import requests
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from joserfc import jws
from joserfc.jwk import ECKey


def main() -> int:
    issuer = os.environ["TESSERA_ISSUER"]
    answer = requests.get(issuer + "/.well-known/openid-configuration.jwt", timeout=45)
    assert answer.status_code == 200 and answer.headers["Content-Type"].startswith("application/jwt"), answer.headers
    token = answer.text
    header = json.loads(base64.urlsafe_b64decode(token.split(".")[0] + "=="))
    certificate = x509.load_der_x509_certificate(base64.b64decode(header["x5c"][0]))
    pem = certificate.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    key = ECKey.import_key(pem)
    # A certificate in the header and the whole document as payload exceed joserfc's
    # default size limits (512 and 8000 bytes), which guard against untrusted input.
    registry = jws.JWSRegistry()
    registry.max_header_length = 8192
    registry.max_payload_length = 65536
    claims = json.loads(jws.deserialize_compact(token, key, algorithms=["ES256"], registry=registry).payload)
    assert claims["exp"] - claims["iat"] == 86400, claims
    plain = requests.get(issuer + "/.well-known/openid-configuration", timeout=45).json()
    assert {k: v for k, v in claims.items() if k not in ("iat", "exp")} == plain, "the signed document says what the plain one says"
    jwks = requests.get(plain["jwks_uri"], timeout=45).json()["keys"]
    published = [k for k in jwks if k["kid"] == header["kid"]][0]
    # Compared as points: joserfc drops a coordinate's leading zero bytes (about one key in
    # 150), so the thumbprint of the key it read from the certificate can differ in form.
    assert ECKey.import_key(published).raw_value.public_numbers() == key.raw_value.public_numbers(), "the certificate's key is the JWKS key of its kid"
    basic = certificate.extensions.get_extension_for_class(x509.BasicConstraints)
    assert basic.critical and not basic.value.ca
    print("RESULT " + json.dumps({"kid": header["kid"], "subject": certificate.subject.rfc4514_string(), "typ": header.get("typ")}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
