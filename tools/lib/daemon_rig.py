"""What the daemon benches share (tools/lib/eta_bench.py, tools/lib/tail_bench.py): starting `iapcontent daemon` on
a store and socket, and sending it one JSON-RPC call a line. Python 3 standard library only."""
import json, socket, subprocess, time


def start_daemon(args, bench):
    """Starts `args.bin daemon` with args.store, args.socket, args.catalog and args.daemon_arg; returns it and a
    connection to its socket once it listens (at most 10 s)."""
    command = [args.bin, "daemon", "--store", args.store, "--socket", args.socket, "--catalog", args.catalog] + args.daemon_arg
    log = subprocess.DEVNULL
    if args.daemon_log:  # debug logging (the connection count, mirrors, stalls) appended, one start after another
        command.append("--verbose")
        log = open(args.daemon_log, "ab")
    daemon = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    for _ in range(400):
        try:
            conn = socket.socket(socket.AF_UNIX); conn.connect(args.socket)
            return daemon, conn
        except OSError:
            time.sleep(0.025)
    daemon.kill(); raise SystemExit(bench + ": the daemon did not listen on " + args.socket)


def send(conn, method, **params):
    """One JSON-RPC 2.0 call, its id the current time in microseconds."""
    conn.sendall((json.dumps({"jsonrpc": "2.0", "id": int(time.time() * 1e6), "method": method, "params": params}) + "\n").encode())


def parser(at):
    """The arguments both benches take: BIN STORE SOCKET CATALOG PRODUCT, when to interrupt (--at of the bytes, for
    --down-for seconds), extra daemon arguments, a samples file and a timeout."""
    import argparse
    arguments = argparse.ArgumentParser()
    for name in ("bin", "store", "socket", "catalog", "product"):
        arguments.add_argument(name)
    arguments.add_argument("--at", type=float, default=at); arguments.add_argument("--down-for", type=float, default=3)
    arguments.add_argument("--daemon-arg", action="append", default=[]); arguments.add_argument("--samples")
    arguments.add_argument("--timeout", type=float, default=900)
    arguments.add_argument("--daemon-log", help="append the daemon's debug log to this file")
    return arguments


def product_download(line, product):
    """A notification line's method and its download, when that download is `product`'s; else None."""
    message = json.loads(line)
    download = (message.get("params") or {}).get("download")
    if not download or download.get("productID") != product:
        return None
    return message.get("method"), download
