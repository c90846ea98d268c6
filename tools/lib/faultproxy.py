#!/usr/bin/env python3
"""A small fault-injecting HTTP/1.1 reverse proxy for tools/soak (loopback only).

Forwards GET/HEAD to an upstream (nginx) and, per request, at random (seeded):
  drop   — forward part of the body, then close the connection
  stall  — forward part of the body, then go silent for --stall seconds, then close
  503    — answer 503 with Retry-After: 1 without contacting the upstream
  ok     — forward faithfully
Counts body bytes sent per path and writes them to --stats (JSON) on every request, so callers can compute
re-fetched bytes. Stops by itself after --lifetime seconds.
"""
import argparse, http.client, json, random, socket, socketserver, sys, threading, time
from http.server import BaseHTTPRequestHandler

ap = argparse.ArgumentParser()
ap.add_argument("--upstream-port", type=int, required=True)
ap.add_argument("--port", type=int, default=0)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--fault-rate", type=float, default=0.3)
ap.add_argument("--stall", type=float, default=8.0)
ap.add_argument("--lifetime", type=float, default=3600)
ap.add_argument("--stats", required=True)
ap.add_argument("--port-file", required=True)
args = ap.parse_args()
rng = random.Random(args.seed)
lock = threading.Lock()
stats = {"requests": 0, "faults": {"drop": 0, "stall": 0, "503": 0}, "bytes": {}}

def record(path, sent=0, fault=None):
    with lock:
        if fault: stats["faults"][fault] += 1
        stats["bytes"][path] = stats["bytes"].get(path, 0) + sent
        with open(args.stats + ".tmp", "w") as f: json.dump(stats, f)
        import os; os.replace(args.stats + ".tmp", args.stats)

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_HEAD(self): self.forward(head=True)
    def do_GET(self): self.forward(head=False)
    def forward(self, head):
        path = self.path.split("?")[0]
        with lock:
            stats["requests"] += 1
            roll = rng.random()
            fault = None
            if path.endswith(".tar.zst") and not head and roll < args.fault_rate:
                fault = rng.choice(["drop", "stall", "503"])
            cut = rng.random()
        if fault == "503":
            self.send_response(503); self.send_header("Retry-After", "1"); self.send_header("Content-Length", "0")
            self.end_headers(); record(path, 0, "503"); return
        up = http.client.HTTPConnection("127.0.0.1", args.upstream_port, timeout=30)
        headers = {k: v for k, v in self.headers.items() if k.lower() in ("range", "if-range", "accept-encoding", "if-none-match")}
        up.request("HEAD" if head else "GET", self.path, headers=headers)
        r = up.getresponse()
        self.send_response(r.status)
        length = None
        for k, v in r.getheaders():
            if k.lower() in ("connection", "keep-alive", "transfer-encoding"): continue
            if k.lower() == "content-length": length = int(v)
            self.send_header(k, v)
        self.end_headers()
        if head: record(path); up.close(); return
        limit = int((length or 0) * cut) if fault else None
        sent = 0
        try:
            while True:
                chunk = r.read(65536)
                if not chunk: break
                if limit is not None and sent + len(chunk) > limit:
                    chunk = chunk[: max(0, limit - sent)]
                    self.wfile.write(chunk); sent += len(chunk); self.wfile.flush()
                    if fault == "stall": time.sleep(args.stall)
                    record(path, sent, fault); self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR); return
                self.wfile.write(chunk); sent += len(chunk)
        except OSError:  # the client went away (reset, broken pipe, or gone before our shutdown: ENOTCONN)
            pass
        finally:
            up.close()
        record(path, sent)

class Server(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        # A client killed with SIGKILL mid-response is the point of the soak, not an error worth a traceback.
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)): return
        super().handle_error(request, client_address)

srv = Server(("127.0.0.1", args.port), Handler)
with open(args.port_file, "w") as f: f.write(str(srv.server_address[1]))
threading.Timer(args.lifetime, srv.shutdown).start()
srv.serve_forever()
