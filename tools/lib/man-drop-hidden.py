#!/usr/bin/env python3
"""Removes hidden subcommands (shouldDisplay false, e.g. display-demo) from an mdoc man page written by
argument-parser's generate-manual, which lists them. Usage: man-drop-hidden.py dump-help.json < in.1 > out.1

A subcommand's section starts at `.It Em <name>` and ends before the next `.It` at the same list depth
(or the `.El` closing that list); nested `.Bl`/`.El` (its options) are skipped with it."""
import json
import sys


def hidden_names(info):
    names = set()
    for sub in info.get("subcommands") or []:
        if not sub.get("shouldDisplay", True):
            names.add(sub["commandName"])
        names |= hidden_names(sub)
    return names


def main():
    with open(sys.argv[1]) as f:
        hidden = hidden_names(json.load(f)["command"])
    out, depth, skipping_at = [], 0, None
    for line in sys.stdin.read().split("\n"):
        if skipping_at is not None:
            if line.startswith(".Bl"):
                depth += 1
            elif line.startswith(".El"):
                if depth == skipping_at:
                    skipping_at = None
                    depth -= 1
                    out.append(line)
                    continue
                depth -= 1
            elif line.startswith(".It") and depth == skipping_at:
                skipping_at = None
            if skipping_at is not None:
                continue
        if line.startswith(".It Em ") and line[len(".It Em "):].strip() in hidden:
            skipping_at = depth
            continue
        if line.startswith(".Bl"):
            depth += 1
        elif line.startswith(".El"):
            depth -= 1
        out.append(line)
    sys.stdout.write("\n".join(out))


main()
