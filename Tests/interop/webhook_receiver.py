"""A webhook receiver for the suite: verifies every delivery with the `standardwebhooks`
package (the Standard Webhooks reference library) and records what it got.

    python3 webhook_receiver.py DIRECTORY

Listens on 127.0.0.1 on a free port, written to DIRECTORY/port. Each hook posts to
/hook/NAME; the hook's secret (whsec_...) is read from DIRECTORY/secret-NAME on every
delivery. A delivery whose signature verifies is appended to DIRECTORY/received.jsonl
(name, webhook-id, the event's id, type and tenant) and answered 204; one that does not
is appended to DIRECTORY/refused.jsonl and answered 400. While DIRECTORY/fail-NAME exists,
NAME's deliveries are answered with the status it holds (verified first, recorded in
DIRECTORY/failed.jsonl)."""

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks.webhooks import Webhook

DIRECTORY = sys.argv[1]
LOCK = threading.Lock()


def append(name, record):
    with LOCK, open(os.path.join(DIRECTORY, name), "a") as file:
        file.write(json.dumps(record, sort_keys=True) + "\n")


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        name = self.path.rsplit("/", 1)[-1]
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        headers = {key.lower(): value for key, value in self.headers.items()}
        # A hook whose secret the test has not written yet (it learns it from the answer
        # that made the hook): not ready, try again.
        if not os.path.exists(os.path.join(DIRECTORY, f"secret-{name}")):
            self.answer(503)
            return
        try:
            with open(os.path.join(DIRECTORY, f"secret-{name}")) as file:
                secret = file.read().strip()
            event = Webhook(secret).verify(body, headers)
        except Exception as error:  # any failure to verify is a refusal
            append("refused.jsonl", {"name": name, "error": f"{type(error).__name__}: {error}", "webhook-id": headers.get("webhook-id")})
            self.answer(400)
            return
        record = {
            "name": name, "webhook-id": headers["webhook-id"], "id": event.get("id"), "type": event.get("type"),
            "tenant": event.get("tenant"), "data": event.get("data"),
        }
        fail = os.path.join(DIRECTORY, f"fail-{name}")
        if os.path.exists(fail):
            with open(fail) as file:
                status = int(file.read().strip() or "500")
            append("failed.jsonl", record)
            self.answer(status)
            return
        append("received.jsonl", record)
        self.answer(204)

    def answer(self, status):
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *arguments):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(os.path.join(DIRECTORY, "port.tmp"), "w") as file:
    file.write(str(server.server_address[1]))
os.rename(os.path.join(DIRECTORY, "port.tmp"), os.path.join(DIRECTORY, "port"))
server.serve_forever()
