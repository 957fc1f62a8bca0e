"""An OpenTelemetry collector stand-in for the suite: decodes OTLP/HTTP trace exports
with the `opentelemetry-proto` package (the protocol's own definitions) and records
every span, and records any other call it gets (the back-channel logouts and webhooks
of the server under test) with its trace headers.

    python3 otlp_receiver.py DIRECTORY
    python3 otlp_receiver.py send URL TRACEPARENT SOURCE_ADDRESS
    python3 otlp_receiver.py DIRECTORY --count-only

With --count-only (scripts/trace-cost.sh) spans are decoded and counted, not written:
DIRECTORY/count holds the number received so far.

The second form sends one GET to URL from SOURCE_ADDRESS (127.0.0.2: a peer the server
under test trusts as a proxy) with the `traceparent` given, and prints the answer's
status and X-Request-Id.

Listens on 127.0.0.1 on a free port, written to DIRECTORY/port.
- POST /v1/traces (application/x-protobuf): each span is appended to DIRECTORY/spans.jsonl
  as {"trace_id", "span_id", "parent_span_id", "name", "kind", "attributes", "links",
  "status", "service"}, ids in lower-case hex; answered 200 with an empty
  ExportTraceServiceResponse. A body that does not decode is answered 400.
- Any other POST: {"path", "traceparent", "tracestate", "content_type"} appended to
  DIRECTORY/calls.jsonl, answered 200 (a back-channel logout's answer)."""

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

DIRECTORY = sys.argv[1]
COUNT_ONLY = "--count-only" in sys.argv
RECEIVED = 0
LOCK = threading.Lock()


def append(name, records):
    with LOCK, open(os.path.join(DIRECTORY, name), "a") as file:
        for record in records:
            file.write(json.dumps(record, sort_keys=True) + "\n")


def value(any_value):
    kind = any_value.WhichOneof("value")
    if kind is None:
        return None
    if kind in ("array_value", "kvlist_value"):
        return MessageToDict(any_value)
    return getattr(any_value, kind)


def spans(request):
    for resource_spans in request.resource_spans:
        resource = {attribute.key: value(attribute.value) for attribute in resource_spans.resource.attributes}
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                yield {
                    "trace_id": span.trace_id.hex(),
                    "span_id": span.span_id.hex(),
                    "parent_span_id": span.parent_span_id.hex(),
                    "name": span.name,
                    "kind": span.kind,
                    "attributes": {attribute.key: value(attribute.value) for attribute in span.attributes},
                    "links": [{"trace_id": link.trace_id.hex(), "span_id": link.span_id.hex()} for link in span.links],
                    "status": span.status.code,
                    "service": resource.get("service.name"),
                }


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path == "/v1/traces":
            request = ExportTraceServiceRequest()
            try:
                request.ParseFromString(body)
            except Exception:
                self.answer(400, b"", "text/plain")
                return
            if COUNT_ONLY:
                global RECEIVED
                with LOCK:
                    RECEIVED += sum(len(scope.spans) for resource in request.resource_spans for scope in resource.scope_spans)
                    with open(os.path.join(DIRECTORY, "count"), "w") as file:
                        file.write(str(RECEIVED))
            else:
                append("spans.jsonl", list(spans(request)))
            self.answer(200, ExportTraceServiceResponse().SerializeToString(), "application/x-protobuf")
            return
        append("calls.jsonl", [{
            "path": self.path, "traceparent": self.headers.get("traceparent"), "tracestate": self.headers.get("tracestate"),
            "content_type": self.headers.get("Content-Type"),
        }])
        self.answer(200, b"", "text/plain")

    def answer(self, status, body, content_type):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *arguments):
        pass


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(os.path.join(DIRECTORY, "port.tmp"), "w") as file:
        file.write(str(server.server_address[1]))
    os.rename(os.path.join(DIRECTORY, "port.tmp"), os.path.join(DIRECTORY, "port"))
    server.serve_forever()


def send(url, traceparent, source):
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10, source_address=(source, 0))
    connection.request("GET", parts.path or "/", headers={"traceparent": traceparent})
    response = connection.getresponse()
    response.read()
    print(response.status, response.getheader("X-Request-Id"))


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "send":
        send(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        main()
