#!/usr/bin/env python3
"""Keep a copy of the package's sources in step with the checkout, touching only what differs.

    sync-tree.py SOURCE_ROOT DEST_ROOT [--own RELPATH ...]

Copies every file `git ls-files -co --exclude-standard` lists under Package.swift, Sources/, Tests/ and
Examples/launcher/Sources/ (the example service, a target of the package) — tracked and new files, as they are in
the working tree — whose bytes differ from the copy's, and removes from the copy what the checkout no longer has.
A file whose bytes are the same is not rewritten: its inode and modification time stay, so a build in the copy stays
incremental. Paths given with --own are the build's own (written by the caller, such as a generated source): neither
copied nor removed.

Why a copy: tools/release-build writes the commit and the trimmed ICU data into source files for the length of the
build. In a copy, a debug build or a test run in the checkout can go on beside it and never sees those files.
"""
import os
import shutil
import subprocess
import sys

ROOTS = ("Package.swift", "Sources", "Tests", "Examples/launcher/Sources")  # every target path Package.swift names


def listed(source):
    """The files of the package in the working tree, relative to `source`."""
    try:
        out = subprocess.run(["git", "-C", source, "ls-files", "-co", "--exclude-standard", "-z", "--", *ROOTS],
                             check=True, capture_output=True).stdout
        names = [n for n in out.decode().split("\0") if n]
    except (OSError, subprocess.CalledProcessError):
        names = []
        for root in ROOTS:
            top = os.path.join(source, root)
            if os.path.isfile(top):
                names.append(root)
            for folder, dirs, files in os.walk(top):
                dirs[:] = [d for d in dirs if d not in (".build", ".git")]
                names += [os.path.relpath(os.path.join(folder, f), source) for f in files]
    return {n for n in names if os.path.isfile(os.path.join(source, n))}


def same(a, b):
    if os.path.getsize(a) != os.path.getsize(b):
        return False
    with open(a, "rb") as x, open(b, "rb") as y:
        while True:
            p, q = x.read(1 << 20), y.read(1 << 20)
            if p != q:
                return False
            if not p:
                return True


def main():
    args = sys.argv[1:]
    own = set()
    while "--own" in args:
        i = args.index("--own")
        own.add(os.path.normpath(args[i + 1]))
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit("usage: sync-tree.py SOURCE_ROOT DEST_ROOT [--own RELPATH ...]")
    source, dest = args
    wanted = listed(source) - own
    copied = removed = 0
    for name in sorted(wanted):
        src, dst = os.path.join(source, name), os.path.join(dest, name)
        if os.path.isfile(dst) and not os.path.islink(dst) and same(src, dst):
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if os.path.lexists(dst):
            os.remove(dst)
        shutil.copy2(src, dst)
        copied += 1
    for root in ROOTS:
        top = os.path.join(dest, root)
        if os.path.isfile(top):
            continue
        for folder, dirs, files in os.walk(top, topdown=False):
            for f in files:
                rel = os.path.relpath(os.path.join(folder, f), dest)
                if rel not in wanted and rel not in own:
                    os.remove(os.path.join(folder, f))
                    removed += 1
            if folder != top and not os.listdir(folder):
                os.rmdir(folder)
    print(f"sync-tree: {copied} copied, {removed} removed, {len(wanted)} in step", file=sys.stderr)


if __name__ == "__main__":
    main()
