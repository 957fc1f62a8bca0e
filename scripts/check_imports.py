"""Every module a target's sources import is a dependency the target declares in
Package.swift (MemberImportVisibility makes each file import what it uses; this makes
each target say so), and the server's edge reaches the store only in its composition
root: of TesseraServer's files, only those that build the application and its shared
state import TesseraStore (the rest call the domain's use cases and name the records of
TesseraRecords). Exits 1 naming each breach.

Usage: python3 scripts/check_imports.py (from the package's root; runs `swift package dump-package`)."""
import glob
import json
import re
import subprocess
import sys

# The toolchain's and the platforms' own modules, which no package provides.
SYSTEM = {
    "Foundation", "FoundationEssentials", "FoundationNetworking", "Dispatch", "Synchronization", "Testing", "XCTest",
    "Glibc", "Musl", "Darwin", "Android", "os", "Security", "LocalAuthentication", "CryptoKit", "Observation", "AuthenticationServices", "CommonCrypto",
}
# Modules a target may import in the files named only.
RESTRICTED = {("TesseraServer", "TesseraStore"): {"Application+build.swift", "ServerState.swift"}}
IMPORT = re.compile(r"^\s*(?:@\S+\s+)?(?:package |public |internal )?import (?:struct |class |enum |protocol |func |typealias )?(\w+)")

package = json.loads(subprocess.run(["swift", "package", "dump-package"], check=True, capture_output=True, text=True).stdout)
failures = []
for target in package["targets"]:
    name = target["name"]
    path = target.get("path") or ("Tests/" if target["type"] == "test" else "Sources/") + name
    declared = set()
    for dependency in target["dependencies"]:
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                declared.add(dependency[kind][0])
    imported = set()
    for source in glob.glob(f"{path}/**/*.swift", recursive=True):
        with open(source, encoding="utf-8") as handle:
            in_string = False
            for line in handle:
                # Multi-line string literals (Python scripts the tests write) are not Swift.
                if line.count('"""') % 2 == 1:
                    in_string = not in_string
                    continue
                match = None if in_string else IMPORT.match(line)
                if match:
                    imported.add(match.group(1))
                    allowed = RESTRICTED.get((name, match.group(1)))
                    if allowed is not None and source.rsplit("/", 1)[-1] not in allowed:
                        failures.append(f"{source} imports {match.group(1)}: only {', '.join(sorted(allowed))} may")
    undeclared = sorted(imported - declared - SYSTEM - {name})
    if undeclared:
        failures.append(f"{name} imports {', '.join(undeclared)} without declaring it in Package.swift")
for failure in failures:
    print(failure)
sys.exit(1 if failures else 0)
