#!/usr/bin/env python3
"""Turns a copy of a `tools/gen-package --profile many-files` package into its next version, in place, deterministically.

  tools/lib/mutate-package.py DIR [--changed-percent P] [--seed S] [--rename-folder] [--grow-one] [--version 2.0]

--changed-percent P  rewrites P % of the files (at least one when P > 0), drawn at random over the whole tree (so
                     scattered across folders and the archive), each keeping its size: a JSON file gets new digits in
                     about one line in five (changed values at places spread through the file), a binary file new
                     bytes throughout after its 8-byte header.
--rename-folder      renames one folder with files (drawn by seed) to NAME-renamed; its files keep their bytes.
--grow-one           grows one JSON file (drawn by seed, not one rewritten above) by 4 KiB of new entries inserted
                     in its middle.
--version            the ContentVersion written to ContentInfo.plist (default 2.0).
Prints one line: files rewritten and their bytes, the folder renamed, the file grown.
"""
import argparse, hashlib, os, plistlib, random, re, sys

def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dir")
    parser.add_argument("--changed-percent", type=float, default=0.0)
    parser.add_argument("--seed", default="1")
    parser.add_argument("--rename-folder", action="store_true")
    parser.add_argument("--grow-one", action="store_true")
    parser.add_argument("--version", default="2.0")
    args = parser.parse_args()
    contents = os.path.join(args.dir, "Contents")
    files = sorted(os.path.relpath(os.path.join(top, name), contents)
                   for top, _, names in os.walk(contents) for name in names)
    if not files:
        parser.error("no files under %s" % contents)
    rng = random.Random("mutate/%s" % args.seed)
    report = []

    changed = []
    if args.changed_percent > 0:
        count = max(1, round(len(files) * args.changed_percent / 100))
        changed = rng.sample(files, min(count, len(files)))
        total = 0
        for rel in changed:
            path = os.path.join(contents, rel)
            body = open(path, "rb").read()
            if rel.endswith(".json"):
                lines = body.split(b"\n")
                for i in range(len(lines)):
                    if rng.random() < 0.2 or i == len(lines) // 2:
                        lines[i] = re.sub(rb"[0-9]", lambda _: b"%d" % rng.randrange(10), lines[i])
                new = b"\n".join(lines)
                if new == body:  # no digits drawn differently: change one value for certain
                    at = body.find(b'"value": ')
                    new = body[:at + 9] + (b"1" if body[at + 9:at + 10] != b"1" else b"2") + body[at + 10:]
                body = new
            else:
                # The first 8 bytes (the file's header) stay: random ones could look like executable code to pack.
                body = body[:8] + hashlib.shake_256(("mutate/%s/%s" % (args.seed, rel)).encode()).digest(len(body) - 8)
            open(path, "wb").write(body)
            total += len(body)
        report.append("rewrote %d files, %d bytes" % (len(changed), total))

    if args.grow_one:
        candidates = [rel for rel in files if rel.endswith(".json") and rel not in set(changed)]
        rel = rng.choice(candidates or files)
        path = os.path.join(contents, rel)
        body = open(path, "rb").read()
        middle = body.find(b"\n", len(body) // 2) + 1 if rel.endswith(".json") else len(body) // 2
        added = bytearray()
        n = 0
        while len(added) < 4096:
            added += b'  "grown.entry.%d": {"value": %d, "strings": {"en": "new text %d"}},\n' % (n, rng.randrange(100000), n)
            n += 1
        if middle <= 0 or not rel.endswith(".json"):
            added = hashlib.shake_256(("grow/%s" % args.seed).encode()).digest(4096)
            middle = max(8, middle)
        open(path, "wb").write(body[:middle] + bytes(added) + body[middle:])
        report.append("grew %s by %d bytes" % (rel, len(added)))

    if args.rename_folder:
        folders = sorted({os.path.dirname(rel) for rel in files if os.path.dirname(rel)})
        folder = rng.choice(folders)
        os.rename(os.path.join(contents, folder), os.path.join(contents, folder + "-renamed"))
        report.append("renamed %s (%d files)" % (folder, sum(1 for rel in files if os.path.dirname(rel) == folder)))

    info = os.path.join(args.dir, "ContentInfo.plist")
    with open(info, "rb") as f:
        plist = plistlib.load(f)
    plist["ContentVersion"] = args.version
    with open(info, "wb") as f:
        plistlib.dump(plist, f, sort_keys=True)
    print("; ".join(report) or "version only")

if __name__ == "__main__":
    sys.exit(main())
