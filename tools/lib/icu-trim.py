#!/usr/bin/env python3
"""Write a smaller ICU common data package: what the program's Foundation uses, without the rest.

Usage: icu-trim.py IN.dat OUT.dat [--list]

The static Foundation links all of ICU's data (34 MB: collation, break dictionaries, converters, transliterators and
the names of every language, region, currency, unit and zone in every locale). iapcontent formats and parses dates
in en_US_POSIX/GMT and compares nothing by locale, so it keeps the root and English locales, the tables that are not
per locale (properties, normalization, calendars, time zones, plural rules) and the single-byte converters.
"""
import re
import struct
import sys

LOCALE = re.compile(r"^(?:[a-z]{2,3})(?:_[A-Za-z0-9]+)*\.res$")


def keep(name: str, size: int) -> bool:
    parts = name.split("/")[1:]
    if len(parts) == 1:  # the top-level tree: locales, converters, tables
        base = parts[0]
        if LOCALE.match(base):
            return base == "en.res" or base.startswith("en_")
        if base.endswith(".cnv"):
            return size <= 16 * 1024  # single-byte code pages; not the CJK tables
        return True
    tree, base = parts[0], parts[-1]
    if tree == "translit" or base.endswith(".dict"):
        return False
    if LOCALE.match(base):
        return base == "en.res" or base.startswith("en_")
    return True  # root.res, pool.res, res_index.res, rule files, ucadata.icu


def main() -> None:
    source, target = sys.argv[1], sys.argv[2]
    data = open(source, "rb").read()
    header_size = struct.unpack_from("<H", data, 0)[0]
    if data[12:16] != b"CmnD":
        sys.exit(f"{source}: not an ICU common data package (no CmnD at byte 12)")
    toc = header_size
    count = struct.unpack_from("<I", data, toc)[0]
    entries = []
    for index in range(count):
        name_offset, data_offset = struct.unpack_from("<II", data, toc + 4 + 8 * index)
        end = data.index(b"\0", toc + name_offset)
        entries.append((data[toc + name_offset:end].decode(), data_offset))
    items = []
    for index, (name, offset) in enumerate(entries):
        following = entries[index + 1][1] if index + 1 < count else len(data) - toc
        blob = data[toc + offset:toc + following]
        if keep(name, len(blob)):
            items.append((name, blob))
    names = b"".join(name.encode() + b"\0" for name, _ in items)
    table_size = 4 + 8 * len(items)
    names_start = table_size
    data_start = (names_start + len(names) + 15) & ~15
    table, body, position = [struct.pack("<I", len(items))], bytearray(), data_start
    name_position = names_start
    for name, blob in items:
        table.append(struct.pack("<II", name_position, position))
        name_position += len(name.encode()) + 1
        padded = blob + b"\0" * (-len(blob) % 16)
        body += padded
        position += len(padded)
    out = bytearray(data[:header_size]) + b"".join(table) + names
    out += b"\0" * (header_size + data_start - len(out))
    out += body
    open(target, "wb").write(out)
    if "--list" in sys.argv:
        print("\n".join(name for name, _ in items))
    print(f"{len(items)} of {count} items, {len(out)} of {len(data)} bytes", file=sys.stderr)


main()
