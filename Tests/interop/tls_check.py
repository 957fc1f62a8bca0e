"""TLS helpers for the operations tests, built on `cryptography` and `requests`.

  tls_check.py make DIR            -> writes DIR/cert.pem and DIR/key.pem (self-signed, 127.0.0.1/localhost)
  tls_check.py get URL CAFILE      -> prints the body of an HTTPS GET verified against CAFILE
  tls_check.py headers URL CAFILE  -> prints the answer's headers as JSON
  tls_check.py serves HOST PORT CERT [SECONDS]
                                   -> exit 0 once the server shows the certificate in CERT (compared by
                                      SHA-256), asking every 0.1 s for up to SECONDS (default: once); prints
                                      the fingerprint it saw last
  tls_check.py versions HOST PORT CERT KEY
                                   -> one line per protocol version: "TLSv1_1 refused", "TLSv1_2 accepted", …
                                      TLS 1.0 and 1.1 are offered with OpenSSL's security level 0, and each
                                      version is first tried against a control server of this script's own
                                      that accepts them all (with CERT and KEY): a version this client cannot
                                      speak prints "untestable", never "refused"
"""
import datetime
import json
import socket
import ssl
import sys
import threading
import time
import warnings

import requests
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
import ipaddress


def make(directory: str) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "tessera-test")])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    with open(f"{directory}/cert.pem", "wb") as out:
        out.write(certificate.public_bytes(serialization.Encoding.PEM))
    with open(f"{directory}/key.pem", "wb") as out:
        out.write(
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )


def fingerprint(host: str, port: int) -> str:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    with socket.create_connection((host, port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname=host) as tls:
            der = tls.getpeercert(binary_form=True)
    return x509.load_der_x509_certificate(der).fingerprint(hashes.SHA256()).hex()


def pem_fingerprint(path: str) -> str:
    with open(path, "rb") as source:
        return x509.load_pem_x509_certificate(source.read()).fingerprint(hashes.SHA256()).hex()


def handshake(host: str, port: int, version) -> str:
    """Whether a handshake offering only `version` succeeds."""
    try:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        if version < ssl.TLSVersion.TLSv1_2:
            context.set_ciphers("DEFAULT:@SECLEVEL=0")
        context.minimum_version = version
        context.maximum_version = version
        with socket.create_connection((host, port), timeout=10) as raw:
            with context.wrap_socket(raw, server_hostname=host) as tls:
                return "accepted" if tls.version() else "refused"
    except (ssl.SSLError, OSError, ValueError):
        return "refused"


def control_server(certificate: str, key: str) -> int:
    """A TLS server on a free loopback port that accepts TLS 1.0 to 1.3; its port."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate, key)
    context.set_ciphers("DEFAULT:@SECLEVEL=0")
    context.minimum_version = ssl.TLSVersion.TLSv1
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)

    def serve():
        while True:
            connection, _ = listener.accept()
            try:
                context.wrap_socket(connection, server_side=True).close()
            except (ssl.SSLError, OSError):
                connection.close()

    threading.Thread(target=serve, daemon=True).start()
    return listener.getsockname()[1]


def versions(host: str, port: int, certificate: str, key: str) -> None:
    control = control_server(certificate, key)
    for version in (ssl.TLSVersion.TLSv1, ssl.TLSVersion.TLSv1_1, ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3):
        if handshake("127.0.0.1", control, version) != "accepted":
            print(f"{version.name} untestable")
            continue
        print(f"{version.name} {handshake(host, port, version)}")


def main() -> int:
    if sys.argv[1] == "make":
        make(sys.argv[2])
        return 0
    if sys.argv[1] == "get":
        response = requests.get(sys.argv[2], verify=sys.argv[3], timeout=10)
        sys.stdout.write(response.text)
        return 0 if response.ok else 1
    if sys.argv[1] == "headers":
        response = requests.get(sys.argv[2], verify=sys.argv[3], timeout=10)
        print(json.dumps(dict(response.headers)))
        return 0
    if sys.argv[1] == "serves":
        wanted = pem_fingerprint(sys.argv[4])
        deadline = time.monotonic() + (float(sys.argv[5]) if len(sys.argv) > 5 else 0)
        while True:
            try:
                seen = fingerprint(sys.argv[2], int(sys.argv[3]))
            except OSError as error:
                seen = f"no handshake ({error})"
            if seen == wanted:
                print(seen)
                return 0
            if time.monotonic() >= deadline:
                print(seen)
                return 1
            time.sleep(0.1)
    if sys.argv[1] == "versions":
        warnings.simplefilter("ignore", DeprecationWarning)  # TLS 1.0 and 1.1 are offered on purpose
        versions(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
