#!/usr/bin/env python3
"""Writes Sources/TesseraKitCompat/Completions.swift: a completion-handler variant of
every public `async` call of TesseraKit's app-facing types (Personalizer, Authenticator,
TokenManager, IDPClient), each starting a task that calls the async one and hands its
result to the completion. Run it after changing those calls; a test
(TesseraKitCompatTests) fails while the file is not what this script writes.

    python3 scripts/compat_completions.py          # writes the file
    python3 scripts/compat_completions.py --check  # exits 1 when it is out of date
"""
import re
from pathlib import Path

from generated import write_or_check

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ["Personalizer", "AccountProcesses", "Authenticator", "InApp", "PendingRequests", "SingleSignOn", "SecurityKeys",
           "TokenManager", "IDPClient"]
OWNERS = {"Personalizer", "Authenticator", "TokenManager", "IDPClient"}
TARGET = ROOT / "Sources/TesseraKitCompat/Completions.swift"

START = re.compile(r"\n    public func (?P<name>[A-Za-z]+)\(")
TAIL = re.compile(r"\s*(?P<async>async)?\s*(?P<throws>throws)?\s*(?:->\s*(?P<result>[^{]+?))?\s*\{", re.S)


def declarations(text):
    """Each public method: its name, its parameter text (parentheses balanced) and its tail."""
    for start in START.finditer(text):
        depth, index = 1, start.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(text[index], 0)
            index += 1
        tail = TAIL.match(text, index)
        if tail:
            yield start.start(), start.group("name"), text[start.end():index - 1], tail
OWNER = re.compile(r"^(?:public )?(?:extension|struct|final class|actor) (\w+)", re.M)


def split_params(text):
    """The parameters, split at top-level commas."""
    params, depth, current = [], 0, ""
    for char in text:
        if char in "([<":
            depth += 1
        elif char in ")]>":
            depth -= 1
        if char == "," and depth == 0:
            params.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        params.append(current.strip())
    return params


def argument(param):
    """How the wrapper passes a parameter on: `label: name`, or `name` for `_`."""
    head = param.split(":", 1)[0].split()
    label, name = (head[0], head[1]) if len(head) == 2 else (head[0], head[0])
    return name if label == "_" else f"{label}: {name}"


def sendable(param):
    """A closure parameter goes into the task: it must be @Sendable."""
    head, kind = param.split(":", 1)
    kind = kind.strip()
    if "->" in kind and kind.replace("@Sendable", "").strip().startswith("("):
        kind = "@escaping @Sendable " + kind.replace("@Sendable", "").strip()
    return f"{head}: {kind}"


def main():
    blocks = []
    for source in SOURCES:
        text = (ROOT / f"Sources/TesseraKit/{source}.swift").read_text()
        owners = [(m.start(), m.group(1)) for m in OWNER.finditer(text)]
        for position, name, parameters, tail in declarations(text):
            if not tail.group("async"):
                continue
            owner = [owner for start, owner in owners if start < position][-1]
            if owner not in OWNERS:
                continue
            params = split_params(re.sub(r"\s+", " ", parameters))
            result = (tail.group("result") or "Void").strip()
            throws = bool(tail.group("throws"))
            call = f"self.{name}({', '.join(argument(p) for p in params)})"
            if throws:
                handler, body = f"Result<{result}, any Error>", f"completion(await Result {{ try await {call} }})"
            elif result == "Void":
                handler, body = "", f"await {call}; completion()"
            else:
                handler, body = result, f"completion(await {call})"
            signature = ", ".join([sendable(p) for p in params] + [f"completion: @escaping @Sendable ({handler}) -> Void"])
            blocks.append((owner, name, signature, body))
    lines = [
        "// Written by scripts/compat_completions.py from TesseraKit's public async calls: do not edit.",
        "import Crypto",
        "import Foundation",
        "import TesseraCore",
        "import TesseraKit",
        "",
    ]
    for owner in sorted(OWNERS):
        calls = [block for block in blocks if block[0] == owner]
        lines.append(f"extension {owner} {{")
        for _, name, signature, body in calls:
            lines.append(f"    /// `{name}` for code that takes a completion handler: it is called once, on no particular thread.")
            lines.append(f"    public func {name}({signature}) {{")
            lines.append(f"        Task {{ {body} }}")
            lines.append("    }")
            lines.append("")
        lines[-1] = "}"
        lines.append("")
    output = "\n".join(lines)
    write_or_check(TARGET, output, f"{len(blocks)} completion variants", "scripts/compat_completions.py")


if __name__ == "__main__":
    main()
