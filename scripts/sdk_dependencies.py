#!/usr/bin/env python3
"""The modules an app links when it depends on a library product of this package, per
platform, read from the manifests as SwiftPM sees them (`swift package dump-package` of
this package and of each checkout in .build/checkouts), conditions included.

    scripts/sdk_dependencies.py                  # TesseraKit on iOS and on Linux
    scripts/sdk_dependencies.py --product TesseraKitCompat --platform ios
    scripts/sdk_dependencies.py --check          # fails when the SDK links the QR encoder or
                                                 # relying-party code (RSA, COSE key reading),
                                                 # or on Apple platforms BoringSSL or SwiftASN1

The checkouts must exist (any `swift build` made them).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# What an app's SDK must not carry on Apple platforms (docs/SDK.md, "What the SDK links").
FORBIDDEN_ON_APPLE = {
    "CCryptoBoringSSL": "BoringSSL (CryptoKit does the work there)",
    "CCryptoBoringSSLShims": "BoringSSL",
    "CryptoBoringWrapper": "BoringSSL",
    "CryptoExtras": "swift-crypto's extras (BoringSSL, SwiftASN1)",
    "_CryptoExtras": "swift-crypto's extras",
    "SwiftASN1": "ASN.1",
    "X509": "X.509",
    "TesseraQRCode": "the server's QR encoder",
    "TesseraWebAuthn": "the relying party's WebAuthn checks (RSA, attestation)",
    "TesseraDomain": "the server",
    "TesseraServer": "the server",
}


class Graph:
    def __init__(self, root: str):
        self.root = root
        self.manifests = {}

    def manifest(self, identity: str) -> dict:
        if identity not in self.manifests:
            path = self.root if identity == "" else os.path.join(self.root, ".build", "checkouts", identity)
            if not os.path.isdir(path):
                raise SystemExit(f"no checkout of {identity} in .build/checkouts: build once first")
            # A scratch directory of its own: no wait for the lock of a build (or `swift test`) running on .build.
            with tempfile.TemporaryDirectory() as scratch:
                done = subprocess.run(
                    ["swift", "package", "--scratch-path", scratch, "dump-package"], cwd=path, capture_output=True, text=True)
            if done.returncode != 0:
                raise SystemExit(f"swift package dump-package failed in {path}: {done.stderr.strip()[:400]}")
            self.manifests[identity] = json.loads(done.stdout)
        return self.manifests[identity]

    def identity_of(self, package: str, within: str) -> str:
        """The checkout folder of a dependency `within`'s manifest names (by identity or by
        name): SwiftPM names the folder after the repository's URL (`Yams`, not `yams`)."""
        for dependency in self.manifest(within).get("dependencies", []):
            for kind in dependency.values():
                for entry in kind:
                    identity = entry.get("identity", "")
                    if package.lower() not in (identity.lower(), (entry.get("nameForTargetDependencyResolutionOnly") or "").lower()):
                        continue
                    for remote in (entry.get("location") or {}).get("remote") or []:
                        url = remote.get("urlString", "") if isinstance(remote, dict) else str(remote)
                        folder = url.rstrip("/").rsplit("/", 1)[-1]
                        return folder[:-4] if folder.endswith(".git") else folder
                    return identity
        raise SystemExit(f"{within or 'this package'} names no dependency {package}")

    def product_targets(self, product: str, identity: str) -> list:
        for entry in self.manifest(identity)["products"]:
            if entry["name"] == product:
                return entry["targets"]
        raise SystemExit(f"{identity or 'this package'} has no product {product}")

    @staticmethod
    def applies(condition, platform: str) -> bool:
        """Whether a dependency's condition holds on `platform`. A dependency behind a package
        trait is left out: none of those this package enables reach the SDK (the server's
        OTLP exporter's are the only ones), and SwiftPM fetches no checkout for the others."""
        if (condition or {}).get("traits"):
            return False
        names = (condition or {}).get("platformNames")
        return not names or platform in names

    def closure(self, product: str, platform: str) -> list:
        """(package, module) pairs the product links on `platform`."""
        seen = set()
        stack = [("", target) for target in self.product_targets(product, "")]
        while stack:
            identity, name = stack.pop()
            if (identity, name) in seen:
                continue
            seen.add((identity, name))
            targets = {t["name"]: t for t in self.manifest(identity)["targets"]}
            for dependency in targets[name].get("dependencies", []):
                if "target" in dependency:
                    target, condition = dependency["target"][0], dependency["target"][-1]
                    if self.applies(condition, platform):
                        stack.append((identity, target))
                elif "byName" in dependency:
                    target, condition = dependency["byName"]
                    if not self.applies(condition, platform):
                        continue
                    if target in targets:
                        stack.append((identity, target))
                    else:  # a product of a dependency named like its package
                        other = self.identity_of(target, identity)
                        stack += [(other, t) for t in self.product_targets(target, other)]
                elif "product" in dependency:
                    product_name, package, _, condition = dependency["product"]
                    if self.applies(condition, platform):
                        other = self.identity_of(package, identity)
                        stack += [(other, t) for t in self.product_targets(product_name, other)]
        return sorted(seen)


# Server code that must not sit in a module the SDK links (any platform): the QR encoder,
# RSA and the relying party's parsing of what authenticators write.
FORBIDDEN_SOURCE = {
    "struct QRCode": "the QR encoder",
    "_RSA.": "RSA (relying-party verification)",
    "struct COSEPublicKey": "the relying party's COSE key reader",
    "import X509": "X.509",
}


def source_findings(root: str, modules: list) -> list:
    """Forbidden declarations in this package's modules of the closure."""
    findings = []
    for identity, name in modules:
        if identity:
            continue
        folder = os.path.join(root, "Sources", name)
        for directory, _, files in os.walk(folder):
            for file in files:
                if not file.endswith(".swift"):
                    continue
                path = os.path.join(directory, file)
                text = open(path, encoding="utf-8").read()
                for needle, what in FORBIDDEN_SOURCE.items():
                    if needle in text:
                        findings.append(f"{os.path.relpath(path, root)} holds {what} ({needle!r})")
    return findings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--product", default="TesseraKit")
    parser.add_argument("--platform", action="append", help="ios, macos, linux (default: ios and linux)")
    parser.add_argument("--root", default=ROOT, help="the package (its .build/checkouts are read)")
    parser.add_argument("--check", action="store_true", help="fail when an Apple platform links what it must not")
    arguments = parser.parse_args()
    graph = Graph(arguments.root)
    failures = []
    for platform in arguments.platform or ["ios", "linux"]:
        modules = graph.closure(arguments.product, platform)
        print(f"{arguments.product} on {platform}: {len(modules)} modules")
        for identity, name in modules:
            print(f"  {identity or 'tessera'}: {name}")
        if arguments.check:
            failures += [f"{arguments.product} on {platform}: {finding}" for finding in source_findings(arguments.root, modules)]
        if arguments.check and platform in ("ios", "macos", "tvos", "watchos", "visionos", "maccatalyst"):
            for _, name in modules:
                if name in FORBIDDEN_ON_APPLE:
                    failures.append(f"{arguments.product} on {platform} links {name}: {FORBIDDEN_ON_APPLE[name]}")
    for failure in failures:
        print("FAIL " + failure)
    if arguments.check:
        print(f"failures: {len(failures)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
