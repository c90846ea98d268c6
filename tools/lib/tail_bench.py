#!/usr/bin/env python3
"""The measuring half of tools/bench-tail: how long each tenth of a download takes after a pause and a resume.
Python 3 standard library only.

  tail_bench.py BIN STORE SOCKET CATALOG PRODUCT [--at 0.15] [--down-for 3] [--daemon-arg ARG]...
                [--samples FILE] [--timeout 900]

Starts `BIN daemon` on an empty STORE, subscribes, adds a purchase of PRODUCT and reads every notification; at --at
of the bytes it pauses the download, --down-for seconds later resumes it, and waits for `download.finished`. The
instant each tenth of the bytes is reached (10 %, 20 %, ... 100 %) is interpolated between the two notifications
around it; the last tenth ends when the bytes reach the length (or, if no notification shows them all, at
`download.finished`). Judged are the tenths wholly after the resume: the last one against each of the others.
Prints one line: the seconds of every tenth (those that straddle the pause in brackets), the last tenth's time
divided by the shortest and by the median of the other judged tenths, and the whole time from the resume."""
import daemon_rig
import json, socket, statistics, subprocess, time

parser = daemon_rig.parser(at=0.15)
args = parser.parse_args()


def start_daemon():
    return daemon_rig.start_daemon(args, "tail_bench")


send = daemon_rig.send


def watch(daemon, conn):
    """Runs the download through its pause and resume; returns the samples, the resume instant, the end."""
    samples, length = [], None  # (monotonic seconds, downloadedBytes)
    paused_at = resumed_at = None
    buffer, deadline = b"", time.monotonic() + args.timeout
    send(conn, "subscribe")
    send(conn, "add", transactionID="t-tail", productID=args.product)
    conn.settimeout(0.05)
    while True:
        if time.monotonic() > deadline:
            raise SystemExit("tail_bench: not finished within %s s" % args.timeout)
        try:
            buffer += conn.recv(1 << 20)
        except socket.timeout:
            pass
        *lines, buffer = buffer.split(b"\n")
        now = time.monotonic()
        if paused_at is not None and resumed_at is None and now - paused_at >= args.down_for:
            resumed_at = now
            send(conn, "resume", productID=args.product)
        for line in lines:
            found = daemon_rig.product_download(line, args.product)
            if found is None:
                continue
            method, download = found
            if method == "download.finished" or download["state"] == "finished":
                return samples, length, resumed_at, now
            if download["state"] == "failed":
                raise SystemExit("tail_bench: the download failed: %s" % download.get("error"))
            length = download["expectedContentLength"]
            if download["state"] == "active" and (resumed_at is not None or paused_at is None):
                samples.append((now, download["downloadedBytes"]))
            if paused_at is None and download["downloadedBytes"] >= args.at * length:
                paused_at = now
                send(conn, "pause", productID=args.product)


def crossing(samples, target, end):
    """When the bytes reached `target`, interpolated between the samples around it (`end` if none reached it)."""
    for (t0, b0), (t1, b1) in zip(samples, samples[1:]):
        if b0 < target <= b1:
            return t0 + (t1 - t0) * (target - b0) / max(1, b1 - b0)
    return samples[0][0] if samples and samples[0][1] >= target else end


daemon, conn = start_daemon()
try:
    samples, length, resumed_at, finished_at = watch(daemon, conn)
finally:
    daemon.terminate(); daemon.wait(timeout=30)
if args.samples:
    with open(args.samples, "a") as out:
        for t, got in samples:
            out.write("%.3f\t%d\t%d\n" % (t - samples[0][0], got, length))
if resumed_at is None:
    raise SystemExit("tail_bench: the download finished before it was resumed (too small for --at %s); use a larger --size" % args.at)
edges = [crossing(samples, length * k // 10, finished_at) for k in range(11)]
tenths = [b - a for a, b in zip(edges, edges[1:])]
first_after = next(k for k in range(10) if length * k // 10 >= args.at * length and edges[k] >= resumed_at)
judged, last = tenths[first_after:9], tenths[9]
print("tenths (s): %s" % "  ".join(("%.2f" if k >= first_after else "[%.2f]") % s for k, s in enumerate(tenths)))
print("last tenth %.2f s; ÷ shortest judged tenth %.2f×, ÷ median %.2f× (judged: tenths %d–9 after the resume); "
      "resume to 100 %%: %.2f s, to download.finished %.2f s" % (
          last, last / min(judged), last / statistics.median(judged), first_after + 1, edges[10] - resumed_at,
          finished_at - resumed_at))
