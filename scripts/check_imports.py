"""Every module a target's sources import is a dependency the target declares in
Package.swift (MemberImportVisibility makes each file import what it uses; this makes
each target say so). Exits 1 naming each target and the modules it imports undeclared.

Usage: python3 scripts/check_imports.py (from the package's root; runs `swift package dump-package`)."""
import glob
import json
import re
import subprocess
import sys

# The toolchain's and the platforms' own modules, which no package provides.
SYSTEM = {
    "Foundation", "FoundationEssentials", "FoundationNetworking", "Dispatch", "Synchronization", "Testing", "XCTest",
    "Glibc", "Musl", "Darwin", "Android", "os", "Security", "LocalAuthentication", "CryptoKit", "Observation",
}
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
    undeclared = sorted(imported - declared - SYSTEM - {name})
    if undeclared:
        failures.append(f"{name} imports {', '.join(undeclared)} without declaring it in Package.swift")
for failure in failures:
    print(failure)
sys.exit(1 if failures else 0)
