#!/usr/bin/env python3
"""The measuring half of tools/bench-daemon: N subscribed clients on a running `iapcontent daemon` while it runs
the downloads this script adds, then the idle cost of those clients, then `status` throughput.

  daemon_bench.py SOCKET DAEMON_PID PRODUCT... [--clients 100] [--idle 10] [--status-seconds 5]

Prints one line per figure and exits 1 when one misses its target (p99 latency <= 50 ms, RSS <= 64 MiB,
idle CPU <= 2 % of a core, status >= 1000 calls/s). Latency: each notification carries the daemon's send
time (`params.time`); a client's latency is its receive time minus that (same machine, same clock)."""
import argparse, json, os, selectors, socket, sys, time

parser = argparse.ArgumentParser()
parser.add_argument("socket"); parser.add_argument("pid", type=int); parser.add_argument("products", nargs="+")
parser.add_argument("--clients", type=int, default=100); parser.add_argument("--idle", type=float, default=10)
parser.add_argument("--status-seconds", type=float, default=5)
args = parser.parse_args()
TICKS = os.sysconf("SC_CLK_TCK")

def cpu_seconds():
    fields = open(f"/proc/{args.pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime

def rss_kib(key="VmRSS"):
    for line in open(f"/proc/{args.pid}/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0

class Client:
    def __init__(self):
        self.sock = socket.socket(socket.AF_UNIX); self.sock.connect(args.socket); self.sock.setblocking(False)
        self.buffer = b""; self.finished = set(); self.next_id = 0
    def send(self, method, **params):
        self.next_id += 1
        self.sock.sendall((json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}) + "\n").encode())
    def lines(self):
        try:
            chunk = self.sock.recv(1 << 20)
        except BlockingIOError:
            return []
        if not chunk:
            raise SystemExit("the daemon closed a client connection")
        self.buffer += chunk
        *complete, self.buffer = self.buffer.split(b"\n")
        return complete

def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))] if values else float("nan")

selector = selectors.DefaultSelector()
clients = [Client() for _ in range(args.clients)]
for client in clients:
    client.send("subscribe"); selector.register(client.sock, selectors.EVENT_READ, client)
time.sleep(1)
baseline = rss_kib()
control = Client()
for i, product in enumerate(args.products):
    control.send("add", transactionID=f"bench-{i}", productID=product)
latencies, notifications = [], 0
rss_peak, started = rss_kib(), time.monotonic()
deadline = started + 600
while any(len(c.finished) < len(args.products) for c in clients) and time.monotonic() < deadline:
    for key, _ in selector.select(timeout=0.2):
        now = time.time()
        for line in key.data.lines():
            message = json.loads(line)
            params = message.get("params")
            if not params:
                continue
            notifications += 1
            latencies.append((now - params["time"]) * 1000)
            if message["method"] == "download.finished":
                key.data.finished.add(params["download"]["productID"])
    rss_peak = max(rss_peak, rss_kib())
    control.lines()
elapsed = time.monotonic() - started
done = sum(len(c.finished) == len(args.products) for c in clients)
print(f"downloads: {len(args.products)} products, seen finished by {done}/{len(clients)} clients in {elapsed:.1f} s")
print(f"notifications: {notifications} received ({notifications / elapsed:.0f}/s over {len(clients)} clients)")
p50, p99, worst = percentile(latencies, 50), percentile(latencies, 99), max(latencies or [float("nan")])
print(f"notification latency: p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {worst:.1f} ms")
print(f"daemon RSS: {baseline / 1024:.1f} MiB with {len(clients)} subscribed clients before any download")
print(f"daemon RSS: peak sampled {rss_peak / 1024:.1f} MiB, high-water mark {rss_kib('VmHWM') / 1024:.1f} MiB")

# Idle: every client connected and subscribed, nothing running.
for client in clients:
    while client.lines():
        pass
before, t0 = cpu_seconds(), time.monotonic()
time.sleep(args.idle)
idle = (cpu_seconds() - before) / (time.monotonic() - t0) * 100
print(f"idle CPU with {len(clients)} clients: {idle:.2f} % of a core over {args.idle:.0f} s")

# status: the calls/s one client reaches with 32 requests in flight, and the latency of each call.
status = Client(); status.sock.setblocking(True)
window, sent, answered, waits = 32, 0, 0, []
sent_at, buffer = {}, b""
t0 = time.monotonic()
while time.monotonic() - t0 < args.status_seconds or answered < sent:
    while sent - answered < window and time.monotonic() - t0 < args.status_seconds:
        status.send("status"); sent += 1; sent_at[status.next_id] = time.monotonic()
    chunk = status.sock.recv(1 << 20)
    if not chunk:
        raise SystemExit("the daemon closed the status connection")
    buffer += chunk
    *complete, buffer = buffer.split(b"\n")
    for line in complete:
        message = json.loads(line)
        if "result" in message:
            answered += 1; waits.append((time.monotonic() - sent_at.pop(message["id"])) * 1000)
rate = answered / (time.monotonic() - t0)
print(f"status: {rate:.0f} calls/s sustained over {args.status_seconds:.0f} s ({answered} calls, p99 {percentile(waits, 99):.1f} ms per call)")

failed = [name for name, ok in [("p99 latency <= 50 ms", p99 <= 50), ("RSS <= 64 MiB", rss_kib("VmHWM") <= 64 * 1024),
                                ("idle CPU <= 2 %", idle <= 2), ("status >= 1000/s", rate >= 1000),
                                ("every client saw every download finish", done == len(clients))] if not ok]
print("targets: " + ("all met" if not failed else "MISSED " + "; ".join(failed)))
sys.exit(1 if failed else 0)
