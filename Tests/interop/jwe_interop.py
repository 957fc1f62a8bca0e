"""Cross-checks Tessera's JWE (ECDH-ES and ECDH-ES+A256KW on P-256, A256GCM) both ways
against joserfc and jwcrypto.

  jwe_interop.py decrypt LIB '<private JWK JSON>' '<compact JWE>'   -> prints the plaintext
  jwe_interop.py encrypt LIB ALG '<public JWK JSON>' '<plaintext>'   -> prints the compact JWE
LIB is joserfc or jwcrypto; ALG is ECDH-ES or ECDH-ES+A256KW.
"""
import json
import sys

from joserfc import jwe as joserfc_jwe
from joserfc.jwk import ECKey
from jwcrypto import jwe as jwcrypto_jwe
from jwcrypto import jwk as jwcrypto_jwk


def main() -> int:
    mode, library = sys.argv[1], sys.argv[2]
    if mode == "decrypt":
        key_json, token = sys.argv[3], sys.argv[4]
        if library == "joserfc":
            result = joserfc_jwe.decrypt_compact(
                token, ECKey.import_key(json.loads(key_json)), algorithms=["ECDH-ES", "ECDH-ES+A256KW", "A256GCM"])
            sys.stdout.write(result.plaintext.decode("utf-8"))
        else:
            message = jwcrypto_jwe.JWE()
            message.deserialize(token, key=jwcrypto_jwk.JWK.from_json(key_json))
            sys.stdout.write(message.payload.decode("utf-8"))
        return 0
    if mode == "encrypt":
        alg, key_json, plaintext = sys.argv[3], sys.argv[4], sys.argv[5]
        # apu and apv (RFC 7518 §4.6.1.2, 4.6.1.3) as in RFC 7518 Appendix C: "Alice", "Bob".
        header = {"alg": alg, "enc": "A256GCM", "kid": "interop", "apu": "QWxpY2U", "apv": "Qm9i"}
        if library == "joserfc":
            token = joserfc_jwe.encrypt_compact(
                header, plaintext.encode("utf-8"), ECKey.import_key(json.loads(key_json)), algorithms=[alg, "A256GCM"])
        else:
            message = jwcrypto_jwe.JWE(plaintext.encode("utf-8"), protected=json.dumps(header))
            message.add_recipient(jwcrypto_jwk.JWK.from_json(key_json))
            token = message.serialize(compact=True)
        sys.stdout.write(token)
        return 0
    print("unknown mode", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
