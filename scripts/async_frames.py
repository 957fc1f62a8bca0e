#!/usr/bin/env python3
"""The largest async frames of a tessera binary, biggest first.

A Swift task allocates each async function's frame (its context) from the task's own
allocator, which keeps the memory of the task's deepest moment until the task ends; a
connection's task lives as long as the connection. Each async function has an "async
function pointer" (a symbol ending in `Tu`) whose second 32-bit word is the size of its
context, which is what this script reads. docs/PERFORMANCE.md ("What a waiting long poll
holds") shows how the figures were used.

    scripts/async_frames.py [--binary BINARY] [--top N] [WORD ...]

Lists the N largest (default 30) whose demangled name contains every WORD; BINARY
defaults to the static release build (packaging/release.sh). Needs
binutils (nm, readelf) and swift-demangle.
"""
import argparse
import struct
import subprocess


def sections(binary):
    """(address, file offset, size) of each section with an address."""
    listed = subprocess.run(["readelf", "-S", "-W", binary], capture_output=True, text=True, check=True).stdout
    found = []
    for line in listed.splitlines():
        fields = line.replace("[ ", "[").split()
        if len(fields) > 6 and fields[0].startswith("["):
            try:
                address, offset, size = int(fields[3], 16), int(fields[4], 16), int(fields[5], 16)
            except ValueError:
                continue
            if address:
                found.append((address, offset, size))
    return found


def frames(binary):
    """(context size, mangled name) of every async function pointer in the binary."""
    listed = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
    pointers = []
    for line in listed.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[2].endswith("Tu"):
            pointers.append((int(fields[0], 16), fields[2]))
    ranges = sections(binary)
    with open(binary, "rb") as file:
        data = file.read()
    sizes = []
    for address, name in pointers:
        for start, offset, size in ranges:
            if start <= address < start + size:
                at = offset + address - start
                _, context_size = struct.unpack("<iI", data[at:at + 8])
                sizes.append((context_size, name))
                break
    return sorted(sizes, reverse=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=".build/x86_64-unknown-linux-gnu/release/tessera")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("words", nargs="*")
    arguments = parser.parse_args()
    listed = frames(arguments.binary)
    names = subprocess.run(
        ["swift-demangle", "--simplified", "--compact"], input="\n".join(name for _, name in listed),
        capture_output=True, text=True, check=True).stdout.splitlines()
    shown = 0
    for (size, _), name in zip(listed, names):
        name = name.removeprefix("async function pointer to ")
        if all(word in name for word in arguments.words):
            print(f"{size:7d}  {name}")
            shown += 1
            if shown == arguments.top:
                break


if __name__ == "__main__":
    main()
