"""An SMTP server for the suite (aiosmtpd): keeps every message it accepts.

    python3 smtp_sink.py DIRECTORY [--port N] [--cert PEM --key PEM] [--implicit-tls] [--auth USER:PASSWORD]

Listens on 127.0.0.1 (port N, or a free one), written to DIRECTORY/port. With a
certificate it offers STARTTLS and requires it before MAIL (or, with --implicit-tls,
speaks TLS from the first byte); with --auth it requires AUTH (inside TLS). Each accepted
message is appended to DIRECTORY/received.jsonl with its envelope, its Message-ID, its
Subject, whether it came over TLS and whether the client asked for BODY=8BITMIME, and
kept whole as DIRECTORY/message-N.eml."""

import argparse
import asyncio
import email
import email.policy
import json
import os
import ssl
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

parser = argparse.ArgumentParser()
parser.add_argument("directory")
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--cert")
parser.add_argument("--key")
parser.add_argument("--implicit-tls", action="store_true")
parser.add_argument("--auth")
arguments = parser.parse_args()
LOCK = threading.Lock()


class Sink:
    count = 0

    async def handle_DATA(self, server, session, envelope):
        with LOCK:
            Sink.count += 1
            number = Sink.count
        raw = envelope.original_content or envelope.content
        with open(os.path.join(arguments.directory, f"message-{number}.eml"), "wb") as file:
            file.write(raw)
        message = email.message_from_bytes(raw, policy=email.policy.default)
        # The parts as a mail reader shows them: the plain text, the HTML, inline images.
        parts = {}
        for part in message.walk():
            kind = part.get_content_type()
            if kind == "text/plain":
                parts["text"] = part.get_content()
            elif kind == "text/html":
                parts["html"] = part.get_content()
            elif kind.startswith("image/"):
                name = f"message-{number}-{part['Content-ID'].strip('<>').replace('@', '-')}.{kind.split('/')[1]}"
                with open(os.path.join(arguments.directory, name), "wb") as file:
                    file.write(part.get_content())
                parts.setdefault("images", []).append({"file": name, "content_id": part["Content-ID"], "inline": part.get_content_disposition()})
        record = {
            "mail_from": envelope.mail_from, "rcpt_tos": envelope.rcpt_tos, "message_id": message["Message-ID"],
            "subject": str(message["Subject"]), "tls": session.ssl is not None, "eight_bit": "BODY=8BITMIME" in envelope.mail_options,
            "file": f"message-{number}.eml", "to": str(message["To"]), "from": str(message["From"]), "date": str(message["Date"]),
            **parts,
        }
        with LOCK, open(os.path.join(arguments.directory, "received.jsonl"), "a") as file:
            file.write(json.dumps(record, sort_keys=True) + "\n")
        return "250 OK"


def authenticator(server, session, envelope, mechanism, auth_data):
    user, password = arguments.auth.split(":", 1)
    if isinstance(auth_data, LoginPassword) and auth_data.login.decode() == user and auth_data.password.decode() == password:
        return AuthResult(success=True)
    return AuthResult(success=False, handled=False)


context = None
if arguments.cert:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(arguments.cert, arguments.key)

# A free port is found by binding one first (aiosmtpd wants a number).
port = arguments.port
if port == 0:
    import socket
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()

options = {}
if arguments.auth:
    options.update(authenticator=authenticator, auth_require_tls=context is not None)
if context is not None and arguments.implicit_tls:
    controller = Controller(Sink(), hostname="127.0.0.1", port=port, ssl_context=context, **options)
elif context is not None:
    controller = Controller(Sink(), hostname="127.0.0.1", port=port, tls_context=context, require_starttls=True, **options)
else:
    controller = Controller(Sink(), hostname="127.0.0.1", port=port, **options)
controller.start()
with open(os.path.join(arguments.directory, "port.tmp"), "w") as file:
    file.write(str(port))
os.rename(os.path.join(arguments.directory, "port.tmp"), os.path.join(arguments.directory, "port"))
threading.Event().wait()
