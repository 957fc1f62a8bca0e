"""Checks the SDK's software authenticator (TesseraKit's SoftwareSecurityKey) with an
outside relying party: py_webauthn verifies the registration and the assertion the Swift
test wrote to the JSON file given as the argument (rp_id, origin, both challenges, both
credentials in WebAuthn's JSON form). Prints `RESULT <json>` with what it verified.
"""
import base64
import json
import sys

from webauthn import verify_authentication_response, verify_registration_response


def b64d(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def main():
    with open(sys.argv[1], encoding="utf-8") as file:
        given = json.load(file)
    registration = verify_registration_response(
        credential=json.dumps(given["registration"]), expected_challenge=b64d(given["registration_challenge"]),
        expected_origin=given["origin"], expected_rp_id=given["rp_id"], require_user_verification=True,
    )
    assertion = verify_authentication_response(
        credential=json.dumps(given["assertion"]), expected_challenge=b64d(given["assertion_challenge"]),
        expected_origin=given["origin"], expected_rp_id=given["rp_id"],
        credential_public_key=registration.credential_public_key, credential_current_sign_count=registration.sign_count,
        require_user_verification=True,
    )
    print("RESULT " + json.dumps({
        "fmt": str(registration.fmt.value if hasattr(registration.fmt, "value") else registration.fmt),
        "credential_id": base64.urlsafe_b64encode(registration.credential_id).decode().rstrip("="),
        "user_verified": registration.user_verified, "new_sign_count": assertion.new_sign_count,
    }), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
