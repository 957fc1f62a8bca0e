#!/usr/bin/env python3
"""Prints a `swift test --filter`/`--skip` expression for the end-to-end suites with a tag.

The live suites carry Swift Testing tags (Tests/TesseraEndToEndTests/Tags.swift: live,
browser, interop, cluster, crash). The `swift test` of Swift 6.3 cannot select by tag
yet, so this reads each suite's tags from its declaration and names the suites:

    scripts/test.sh --filter "$(scripts/tagged.py browser)"
    swift test --filter TesseraEndToEndTests --skip "$(scripts/tagged.py interop)"
"""
import pathlib
import re
import sys

SUITE = re.compile(r"@Suite\((?P<traits>(?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)\s*(?:@\w+\s*)*struct\s+(?P<name>\w+)", re.S)


def suites(directory: pathlib.Path):
    for path in sorted(directory.glob("*.swift")):
        for match in SUITE.finditer(path.read_text()):
            tags = re.search(r"\.tags\(([^)]*)\)", match.group("traits"))
            names = {tag.strip().lstrip(".") for tag in tags.group(1).split(",")} if tags else set()
            yield match.group("name"), names


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tag = sys.argv[1]
    root = pathlib.Path(__file__).resolve().parent.parent / "Tests" / "TesseraEndToEndTests"
    chosen = [name for name, tags in suites(root) if tag in tags]
    if not chosen:
        print(f"no end-to-end suite is tagged {tag}", file=sys.stderr)
        return 1
    print(r"TesseraEndToEndTests\.(" + "|".join(chosen) + r")/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
