#!/usr/bin/env python3
"""Where a running process's resident memory sits: samples /proc/PID/smaps until the process exits and prints
the mapping-by-mapping breakdown of the sample with the largest total Rss (the closest to the peak).

  tools/lib/rss-breakdown.py PID [--interval 0.05]

Rows group mappings by file (the binary, each shared library) or kind ([heap], [stack], anonymous); each row
splits Rss into file-backed (code, read-only data, relocated data) and anonymous/dirty private pages.
"""
import argparse, os, sys, time


def sample(pid):
    rows, name = {}, None
    try:
        with open(f"/proc/{pid}/smaps") as f:
            for line in f:
                fields = line.split()
                if not fields:
                    continue
                if "-" in fields[0] and not fields[0].endswith(":"):  # a mapping header
                    name = fields[5] if len(fields) > 5 else "[anon]"
                    if name.startswith("[stack"):
                        name = "[stack]"
                    rows.setdefault(name, {"rss": 0, "anon": 0, "dirty": 0})
                elif fields[0] in ("Rss:", "Anonymous:", "Private_Dirty:"):
                    key = {"Rss:": "rss", "Anonymous:": "anon", "Private_Dirty:": "dirty"}[fields[0]]
                    rows[name][key] += int(fields[1])
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pid", type=int)
    parser.add_argument("--interval", type=float, default=0.05)
    args = parser.parse_args()
    best, best_total, samples = None, -1, 0
    while os.path.exists(f"/proc/{args.pid}"):
        rows = sample(args.pid)
        if rows:
            samples += 1
            total = sum(r["rss"] for r in rows.values())
            if total > best_total:
                best, best_total = rows, total
        time.sleep(args.interval)
    if best is None:
        print("no sample (process gone?)", file=sys.stderr)
        return 1
    print(f"largest of {samples} samples: Rss {best_total / 1024:.1f} MiB")
    print(f"{'mapping':<48} {'Rss KiB':>8} {'anon':>7} {'dirty':>7}")
    for name, r in sorted(best.items(), key=lambda kv: -kv[1]["rss"]):
        if r["rss"] == 0:
            continue
        print(f"{os.path.basename(name) if name.startswith('/') else name:<48} {r['rss']:>8} {r['anon']:>7} {r['dirty']:>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
