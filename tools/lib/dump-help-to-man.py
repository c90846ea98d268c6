#!/usr/bin/env python3
"""Renders `iapcontent --experimental-dump-help` JSON (argument-parser's ToolInfo) as a man page (mdoc).

Used by tools/gen-docs when argument-parser's generate-manual plugin cannot run. One page: the root
command's text, then one subsection per visible subcommand with its abstract, discussion and options.
"""
import json
import sys


def esc(text):
    """Escapes text for mdoc: backslashes, and lines that would start with a control character."""
    lines = []
    for line in text.replace("\\", "\\e").split("\n"):
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


def paragraphs(text):
    out = []
    for block in text.strip().split("\n\n"):
        if block.startswith("  ") or "\n  " in block:
            out.append(".Bd -literal -offset indent\n" + esc(block) + "\n.Ed")
        else:
            out.append(".Pp\n" + esc(" ".join(l.strip() for l in block.split("\n"))))
    return "\n".join(out)


def arguments(command):
    out = []
    for arg in command.get("arguments") or []:
        if not arg.get("shouldDisplay", True):
            continue
        names = arg.get("names") or []
        flags = ", ".join(("-" if n["kind"] == "short" else "--") + n["name"] for n in names)
        value = arg.get("valueName")
        label = flags if flags else "<" + (value or "value") + ">"
        if flags and arg.get("kind") == "option" and value:
            label += " <" + value + ">"
        out.append(".It Cm " + esc(label))
        if arg.get("abstract"):
            out.append(esc(arg["abstract"]))
        if arg.get("discussion"):
            out.append(esc(arg["discussion"] if isinstance(arg["discussion"], str) else ""))
    if not out:
        return ""
    return ".Bl -tag -width 6n\n" + "\n".join(out) + "\n.El"


def main():
    info = json.load(sys.stdin)["command"]
    name = info["commandName"]
    page = [
        ".Dd $Mdocdate$",
        ".Dt " + name.upper() + " 1",
        ".Os",
        ".Sh NAME",
        ".Nm " + name,
        ".Nd " + esc(info.get("abstract", "")),
        ".Sh SYNOPSIS",
        ".Nm",
        ".Ar subcommand",
        ".Op Ar options",
        ".Sh DESCRIPTION",
        paragraphs(info.get("discussion", "")),
        arguments(info),
    ]
    subs = [s for s in info.get("subcommands") or [] if s.get("shouldDisplay", True) and s["commandName"] != "help"]
    if subs:
        page.append(".Sh COMMANDS")
    for sub in subs:
        page.append(".Ss " + esc(name + " " + sub["commandName"]))
        page.append(esc(sub.get("abstract", "")))
        page.append(paragraphs(sub.get("discussion", "")))
        page.append(arguments(sub))
    page.append(".Sh AUTHORS\nThe iapcontent authors.")
    print("\n".join(p for p in page if p))


if __name__ == "__main__":
    main()
