#!/usr/bin/env python3
"""The measuring half of tools/bench-eta: how true `timeRemaining` is. Python 3 standard library only.

  eta_bench.py BIN STORE SOCKET CATALOG PRODUCT [--pause-at 0.4] [--pause-for 3] [--kill-at 0.7] [--down-for 2]
               [--daemon-arg ARG]... [--samples FILE]

Starts `BIN daemon`, subscribes, adds a purchase of PRODUCT and reads every notification. At --pause-at of the
bytes it pauses the download for --pause-for seconds and resumes it; at --kill-at it kills the daemon (SIGKILL),
waits --down-for seconds and starts it again on the same store. When the download is finished, each estimate told
from 10 % of the bytes on is compared with the truth: the running time that was really left until
`download.finished` (time paused or with no daemon not counted: no estimate can know of a pause to come).
Prints, per phase (first start, after the resume, after the restart): the estimates, the share within ±25 % of the
truth, the median and 90th-percentile error, the estimates still -1, and how long after each start the first
estimate came. Exit 1 if the download does not finish within --timeout seconds."""
import argparse, json, os, signal, socket, subprocess, sys, time

parser = argparse.ArgumentParser()
for name in ("bin", "store", "socket", "catalog", "product"):
    parser.add_argument(name)
parser.add_argument("--pause-at", type=float, default=0.4); parser.add_argument("--pause-for", type=float, default=3)
parser.add_argument("--kill-at", type=float, default=0.7); parser.add_argument("--down-for", type=float, default=2)
parser.add_argument("--daemon-arg", action="append", default=[]); parser.add_argument("--samples")
parser.add_argument("--timeout", type=float, default=900)
args = parser.parse_args()


def start_daemon():
    command = [args.bin, "daemon", "--store", args.store, "--socket", args.socket, "--catalog", args.catalog] + args.daemon_arg
    daemon = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(400):
        try:
            conn = socket.socket(socket.AF_UNIX); conn.connect(args.socket)
            return daemon, conn
        except OSError:
            time.sleep(0.025)
    raise SystemExit("eta_bench: the daemon did not listen on " + args.socket)


def send(conn, method, **params):
    conn.sendall((json.dumps({"jsonrpc": "2.0", "id": int(time.time() * 1e6), "method": method, "params": params}) + "\n").encode())


samples = []  # (monotonic time, phase, downloadedBytes, expected, timeRemaining)
downtime = []  # (from, to): no transfer running on purpose (paused, killed)
starts = {}  # phase -> when its transfer was asked to run
phase, deadline = "start", time.monotonic() + args.timeout
daemon, conn = start_daemon()
starts[phase] = time.monotonic()
send(conn, "subscribe")
send(conn, "add", transactionID="t-eta", productID=args.product)
paused_at = killed = None
buffer, finished_at = b"", None
while finished_at is None:
    if time.monotonic() > deadline:
        daemon.kill(); raise SystemExit("eta_bench: not finished within %s s" % args.timeout)
    conn.settimeout(0.2)
    try:
        chunk = conn.recv(1 << 20)
    except socket.timeout:
        chunk = b""
    buffer += chunk
    *lines, buffer = buffer.split(b"\n")
    now = time.monotonic()
    if paused_at is not None and phase == "start" and now - paused_at >= args.pause_for:
        phase = "resume"; starts[phase] = now; downtime.append((paused_at, now))
        send(conn, "resume", productID=args.product)
    for line in lines:
        message = json.loads(line)
        download = (message.get("params") or {}).get("download")
        if not download or download.get("productID") != args.product:
            continue
        if message["method"] == "download.finished":
            finished_at = now; break
        if download["state"] != "active":
            continue
        fraction = download["downloadedBytes"] / max(1, download["expectedContentLength"])
        samples.append((now, phase, download["downloadedBytes"], download["expectedContentLength"], download["timeRemaining"]))
        if paused_at is None and fraction >= args.pause_at:
            paused_at = now; send(conn, "pause", productID=args.product)
        elif phase == "resume" and killed is None and fraction >= args.kill_at:
            killed = now
            daemon.send_signal(signal.SIGKILL); daemon.wait(); conn.close()
            time.sleep(args.down_for)
            daemon, conn = start_daemon()
            phase = "restart"; starts[phase] = time.monotonic(); downtime.append((killed, starts[phase]))
            send(conn, "subscribe")
            buffer = b""; break
send(conn, "status")
daemon.send_signal(signal.SIGTERM); daemon.wait(timeout=30)


def running_time(a, b):
    """Seconds from a to b, less the downtime between them."""
    return (b - a) - sum(max(0, min(b, to) - max(a, start)) for start, to in downtime)


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))] if values else float("nan")


if args.samples:
    with open(args.samples, "w") as out:
        for t, ph, got, total, eta in samples:
            out.write("%.3f\t%s\t%d\t%d\t%.3f\t%.3f\n" % (t - starts["start"], ph, got, total, eta, running_time(t, finished_at)))
print("%-8s %9s %12s %10s %10s %8s %14s" % ("phase", "estimates", "within 25%", "median err", "p90 err", "unknown", "first estimate"))
all_errors = []
for ph in ("start", "resume", "restart"):
    chosen = [s for s in samples if s[1] == ph and s[2] >= s[3] / 10]
    errors = [abs(eta - running_time(t, finished_at)) / running_time(t, finished_at)
              for t, _, _, _, eta in chosen if eta >= 0 and running_time(t, finished_at) > 1]
    unknown = sum(1 for s in chosen if s[4] < 0)
    first = next((s[0] - starts[ph] for s in samples if s[1] == ph and s[4] >= 0), float("nan"))
    all_errors += errors
    within = sum(1 for e in errors if e <= 0.25)
    print("%-8s %9d %11.0f%% %9.0f%% %9.0f%% %8d %12.2f s" % (
        ph, len(errors), 100 * within / max(1, len(errors)), 100 * percentile(errors, 50), 100 * percentile(errors, 90),
        unknown, first))
print("all      %9d %11.0f%% %9.0f%% %9.0f%%" % (
    len(all_errors), 100 * sum(1 for e in all_errors if e <= 0.25) / max(1, len(all_errors)),
    100 * percentile(all_errors, 50), 100 * percentile(all_errors, 90)))
