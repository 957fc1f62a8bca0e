"""Checks recorded answers of a live server against its OpenAPI document.

Usage: python3 openapi_answers.py DOCUMENT_URL EXCHANGES_FILE
EXCHANGES_FILE holds a JSON list of {"method", "path", "status", "body"} (body: the
answer's text). Each answer must match the schema the document gives its operation and
status. Prints one line per operation checked and exits 1 on any mismatch."""
import json
import re
import sys
import urllib.request

from jsonschema import Draft202012Validator


def main():
    document = json.load(urllib.request.urlopen(sys.argv[1]))
    with open(sys.argv[2]) as handle:
        exchanges = json.load(handle)
    templates = []
    for template, item in document["paths"].items():
        pattern = "^" + re.sub(r"\{[^}]+\}", "[^/]+", re.escape(template).replace(r"\{", "{").replace(r"\}", "}")) + "$"
        templates.append((re.compile(pattern), template, item))
    failures = []
    checked = {}
    for exchange in exchanges:
        path = exchange["path"].split("?")[0]
        matches = [(template, item) for pattern, template, item in templates if pattern.match(path)]
        if not matches:
            failures.append(f"{exchange['method']} {path}: no operation in the document")
            continue
        template, item = matches[0]
        operation = item.get(exchange["method"].lower())
        if operation is None:
            failures.append(f"{exchange['method']} {template}: method not in the document")
            continue
        response = operation["responses"].get(str(exchange["status"]))
        if response is None:
            failures.append(f"{exchange['method']} {template}: status {exchange['status']} not documented")
            continue
        schema = response.get("content", {}).get("application/json", {}).get("schema")
        if schema is None:
            continue
        validator = Draft202012Validator({**schema, "components": document["components"]})
        body = json.loads(exchange["body"])
        errors = sorted(validator.iter_errors(body), key=lambda error: list(error.path))
        key = f"{exchange['method']} {template} {exchange['status']}"
        checked[key] = checked.get(key, 0) + 1
        for error in errors:
            failures.append(f"{key}: {'/'.join(map(str, error.path))}: {error.message}")
    for key in sorted(checked):
        print(f"checked {key} x{checked[key]}")
    for failure in failures:
        print(f"MISMATCH {failure}")
    sys.exit(1 if failures else 0)


main()
