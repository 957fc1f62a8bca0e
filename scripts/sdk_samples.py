#!/usr/bin/env python3
"""Writes Tests/TesseraKitDocTests/Samples.swift from docs/SDK.md: every ```swift block
becomes a method of `DocSamples` (Tests/TesseraKitDocTests/Prelude.swift declares the
names the samples take as given: the key store, the user's PIN, the app's server…), so the
suite compiles every sample and a sample that stops compiling fails the build. A block
that uses Apple-only types is compiled where they exist (`#if canImport(LocalAuthentication)`).

    python3 scripts/sdk_samples.py          # writes the file
    python3 scripts/sdk_samples.py --check  # exits 1 when it is out of date
"""
import re
from pathlib import Path

from generated import write_or_check

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs/SDK.md"
TARGET = ROOT / "Tests/TesseraKitDocTests/Samples.swift"
APPLE_ONLY = ["KeychainKeyStore", "PlatformBiometricGate", "WebLoginSession", "LAContext", "ASWebAuthenticationSession"]


def main():
    blocks = re.findall(r"```swift\n(.*?)```", DOC.read_text(), re.S)
    lines = [
        "// Written by scripts/sdk_samples.py from the samples of docs/SDK.md: do not edit.",
        "import Foundation",
        "#if canImport(FoundationNetworking)",
        "import FoundationNetworking",
        "#endif",
        "import TesseraCore",
        "import TesseraKit",
        "import TesseraKitCompat",
        "",
        "extension DocSamples {",
    ]
    for number, block in enumerate(blocks, start=1):
        body = [line for line in block.rstrip("\n").split("\n") if not line.startswith("import ")]
        apple = any(name in block for name in APPLE_ONLY)
        if apple:
            lines.append("    #if canImport(LocalAuthentication)")
        lines.append(f"    /// docs/SDK.md, sample {number}.")
        lines.append(f"    mutating func sample{number}() async throws {{")
        lines += [("        " + line).rstrip() for line in body]
        lines.append("    }")
        if apple:
            lines.append("    #endif")
        lines.append("")
    lines[-1] = "}"
    output = "\n".join(lines) + "\n"
    write_or_check(TARGET, output, f"{len(blocks)} samples", "scripts/sdk_samples.py")


if __name__ == "__main__":
    main()
