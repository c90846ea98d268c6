#!/usr/bin/env python3
"""Print the search paths and module maps SwiftPM compiled a module with, one argument a line.

Usage: tools/lib/module-flags.py MODULE [BUILD_YAML]

tools/docs hands them to swift-symbolgraph-extract, which reads the module the regular debug build already made
(its .swiftmodule and .swiftdoc) instead of compiling every library a second time with -emit-symbol-graph.
"""
import json
import re
import sys

module = sys.argv[1]
manifest = sys.argv[2] if len(sys.argv) > 2 else ".build/debug.yaml"
text = open(manifest, encoding="utf-8").read()
match = re.search(r'"C\.%s-[^"]*-debug\.module":.*?\n    args: (\[.*?\])\n' % re.escape(module), text, re.S)
if not match:
    sys.exit(f"module-flags: {manifest} has no debug compile command for {module}; run `swift build` first")
args = json.loads(match.group(1))
flags, i = [], 0
while i < len(args):
    if args[i] in ("-I", "-Xcc") and i + 1 < len(args):
        flags += args[i:i + 2]
        i += 2
        continue
    if args[i].startswith("-I"):
        flags.append(args[i])
    i += 1
print("\n".join(flags))
