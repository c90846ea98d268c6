# Sourced by the benches: sizes as people write them.
#   bytes <size>   → the size in bytes: a number, or one with a K, M or G suffix (either case; binary units)
bytes() { python3 -c "import sys;s=sys.argv[1];m={'K':1<<10,'M':1<<20,'G':1<<30};print(int(float(s[:-1])*m[s[-1].upper()]) if s[-1].upper() in m else int(s))" "$1"; }
