#!/usr/bin/env python3
"""The measuring half of tools/bench-eta: how true `timeRemaining` is. Python 3 standard library only.

  eta_bench.py BIN STORE SOCKET CATALOG PRODUCT [--mode plain|resume|restart] [--at 0.3] [--down-for 3]
               [--daemon-arg ARG]... [--samples FILE] [--timeout 900]

Starts `BIN daemon` on an empty STORE, subscribes, adds a purchase of PRODUCT and reads every notification.
--mode resume: at --at of the bytes it pauses the download for --down-for seconds, then resumes it; --mode restart:
at --at it kills the daemon (SIGKILL), waits --down-for seconds and starts it again on the same store. Judged are
the estimates of the last phase (all of a plain download; what follows the resume or the restart), from 10 % of the
bytes on, each against the time that was really left until `download.finished`. Prints one line: the mode, the
estimates judged, the share within ±25 % of the truth, the median and 90th-percentile error, the estimates still
-1, and how long after the last start (`add`, `resume`, the daemon listening again) the first estimate came."""
import daemon_rig
import json, os, signal, socket, subprocess, sys, time

parser = daemon_rig.parser(at=0.3)
parser.add_argument("--mode", choices=("plain", "resume", "restart"), default="plain")
args = parser.parse_args()


def start_daemon():
    return daemon_rig.start_daemon(args, "eta_bench")


send = daemon_rig.send


samples = []  # (monotonic time, phase, downloadedBytes, expected, timeRemaining)
phase, deadline = 0, time.monotonic() + args.timeout
daemon, conn = start_daemon()
starts = [time.monotonic()]  # when each phase's transfer was asked to run
send(conn, "subscribe")
send(conn, "add", transactionID="t-eta", productID=args.product)
paused_at = None
buffer, finished_at = b"", None
while finished_at is None:
    if time.monotonic() > deadline:
        daemon.kill(); raise SystemExit("eta_bench: not finished within %s s" % args.timeout)
    conn.settimeout(0.1)
    try:
        chunk = conn.recv(1 << 20)
    except socket.timeout:
        chunk = b""
    buffer += chunk
    *lines, buffer = buffer.split(b"\n")
    now = time.monotonic()
    if paused_at is not None and phase == 0 and now - paused_at >= args.down_for:
        phase = 1; starts.append(now)
        send(conn, "resume", productID=args.product)
    for line in lines:
        found = daemon_rig.product_download(line, args.product)
        if found is None:
            continue
        method, download = found
        if method == "download.finished":
            finished_at = now; break
        if download["state"] != "active":
            continue
        fraction = download["downloadedBytes"] / max(1, download["expectedContentLength"])
        samples.append((now, phase, download["downloadedBytes"], download["expectedContentLength"], download["timeRemaining"]))
        if phase == 0 and args.mode == "resume" and paused_at is None and fraction >= args.at:
            paused_at = now; send(conn, "pause", productID=args.product)
        elif phase == 0 and args.mode == "restart" and fraction >= args.at:
            daemon.send_signal(signal.SIGKILL); daemon.wait(); conn.close()
            time.sleep(args.down_for)
            daemon, conn = start_daemon()
            phase = 1; starts.append(time.monotonic())
            send(conn, "subscribe")
            buffer = b""; break
daemon.send_signal(signal.SIGTERM); daemon.wait(timeout=30)


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))] if values else float("nan")


if args.samples:
    with open(args.samples, "a") as out:
        for t, ph, got, total, eta in samples:
            out.write("%s\t%.3f\t%d\t%d\t%d\t%.3f\t%.3f\n" % (args.mode, t - starts[0], ph, got, total, eta, finished_at - t))
judged = [s for s in samples if s[1] == phase and s[2] >= s[3] / 10]
errors = [abs(eta - (finished_at - t)) / (finished_at - t) for t, _, _, _, eta in judged if eta >= 0 and finished_at - t > 1]
unknown = sum(1 for s in judged if s[4] < 0)
first = next((s[0] - starts[phase] for s in samples if s[1] == phase and s[4] >= 0), float("nan"))
print("%-8s %9d %11.0f%% %9.0f%% %9.0f%% %8d %12.2f s  %6.1f s" % (
    args.mode, len(errors), 100 * sum(1 for e in errors if e <= 0.25) / max(1, len(errors)),
    100 * percentile(errors, 50), 100 * percentile(errors, 90), unknown, first, finished_at - starts[phase]))
