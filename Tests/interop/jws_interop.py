"""Cross-checks Tessera's hand-written ES256 compact JWS against joserfc.

  jws_interop.py verify '<public JWK JSON>' '<compact JWS>'   -> prints the payload
  jws_interop.py sign '<payload text>'                        -> prints {"jwk":…, "token":…}
"""
import json
import sys

from joserfc import jws
from joserfc.jwk import ECKey


def main() -> int:
    mode = sys.argv[1]
    if mode == "verify":
        key = ECKey.import_key(json.loads(sys.argv[2]))
        result = jws.deserialize_compact(sys.argv[3], key, algorithms=["ES256"])
        sys.stdout.write(result.payload.decode("utf-8"))
        return 0
    if mode == "sign":
        key = ECKey.generate_key("P-256")
        token = jws.serialize_compact({"alg": "ES256"}, sys.argv[2].encode("utf-8"), key, algorithms=["ES256"])
        print(json.dumps({"jwk": key.as_dict(private=False), "token": token}))
        return 0
    print("unknown mode", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
