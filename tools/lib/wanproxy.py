#!/usr/bin/env python3
"""A TCP proxy that adds WAN latency on loopback (tools/bench-wan). Python 3 standard library only.

  wanproxy.py --upstream-port P --delay-ms D --port-file FILE [--port 0] [--lifetime S] [--stats FILE]

Listens on 127.0.0.1 and forwards every connection to 127.0.0.1:P. Each block received in either direction is
stamped on arrival and released to the other side at arrival + D ms (never earlier than the block before it), so
the round trip grows by 2 × D (--delay-ms 20: 40 ms RTT) and byte order is kept. It delays, it does not throttle:
there is no rate limit of its own and no window, only a safety cap on bytes held per direction (--max-buffer,
default 64 MiB; reading pauses above it), far above rate × delay at the rates benched. New connections also pay the
TCP handshake: the first request bytes reach the upstream one RTT later than they would otherwise (as with a real
SYN / SYN-ACK), unless --no-handshake. FIN and reset are forwarded after the same delay.

Opt-in, --rate-per-connection BYTES/S: also paces the upstream-to-client direction of each connection at that rate
(serialisation delay, no burst: a per-TCP-connection throttle as a shaper in the network does it, across all the
requests of a keep-alive connection). Off by default: then the proxy only delays. nginx's `limit_rate` is per
request and lets the first second's worth of each response through at once, so clients that make many small range
requests escape it; this option does not let them.

Counts connections and bytes (up = client to upstream, down = upstream to client) and writes them as JSON to
--stats on every connection opened or closed, every second while bytes move, and on exit. Stops by itself after
--lifetime seconds (default 3600), and on SIGTERM/SIGINT.
"""
import argparse, asyncio, collections, json, os, signal, socket, sys, time

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("--upstream-port", type=int, required=True)
ap.add_argument("--upstream-host", default="127.0.0.1")
ap.add_argument("--port", type=int, default=0, help="port to listen on (0: any free port)")
ap.add_argument("--port-file", required=True, help="written with the listening port once it accepts")
ap.add_argument("--delay-ms", type=float, default=20.0, help="one-way delay per direction (RTT = 2 x this)")
ap.add_argument("--lifetime", type=float, default=3600.0, help="seconds until the proxy exits by itself")
ap.add_argument("--stats", help="JSON stats file")
ap.add_argument("--max-buffer", type=int, default=64 << 20, help="bytes held per direction before reading pauses")
ap.add_argument("--rate-per-connection", type=float, default=0,
                help="bytes/s cap on the upstream-to-client direction of each connection (0: none, the default)")
ap.add_argument("--no-handshake", action="store_true", help="do not charge new connections one RTT")
ap.add_argument("--first-bytes", help="append the wall-clock time (time.time()) at which each connection's first "
                "byte towards the client is handed to it, one line each (tools/bench-ondemand)")
args = ap.parse_args()
DELAY = args.delay_ms / 1000.0
RATE = args.rate_per_connection
PIECE = 64 << 10  # paced blocks are released in pieces of at most this size
if RATE > 0:  # held bytes are what is in flight on the modelled path: no need to buffer seconds of data
    args.max_buffer = min(args.max_buffer, int(RATE * DELAY) + (1 << 20))
START = time.time()
stats = {"delay_ms": args.delay_ms, "rate_per_connection": RATE, "connections": 0, "active": 0, "bytes_up": 0, "bytes_down": 0,
         "upstream_failures": 0, "max_held_bytes": 0,
         # release punctuality (timer wake-ups later than due: a busy machine, or the proxy itself behind)
         "releases": 0, "late_over_2ms": 0, "late_over_10ms": 0, "late_ms_max": 0.0}


def write_stats():
    if not args.stats:
        return
    stats["uptime_s"] = round(time.time() - START, 3)
    tmp = args.stats + ".tmp"
    with open(tmp, "w") as f:
        json.dump(stats, f)
    os.replace(tmp, args.stats)


class Direction:
    """One direction of one connection: blocks wait in a queue until their release time, then go to `dst`."""

    def __init__(self, conn, key):
        self.conn, self.key = conn, key
        self.queue = collections.deque()  # (release time, bytes | None for EOF)
        self.held = 0
        self.timer = None
        self.src = None  # transport we read from
        self.dst = None  # transport we write to (None until the upstream is connected)
        self.dst_paused = False  # dst's write buffer is above its high-water mark
        self.reading_paused = False
        self.last_release = 0.0
        self.eof_queued = False
        self.paced = RATE > 0 and key == "bytes_down"
        self.done = False  # EOF delivered, or the destination is gone (nothing more to deliver)

    def push(self, data, release):
        if self.done or self.eof_queued:
            return  # the destination is gone, or data after EOF: drop
        if data is not None and self.paced:
            # Serialisation at RATE: a piece takes len/RATE on the wire, after the piece before it and after its delay.
            for i in range(0, len(data), PIECE):
                piece = data[i:i + PIECE] if len(data) > PIECE else data
                self.last_release = max(release, self.last_release) + len(piece) / RATE
                self.queue.append((self.last_release, piece))
        else:
            release = max(release, self.last_release)
            self.last_release = release
            self.queue.append((release, data))
        if data is None:
            self.eof_queued = True
        else:
            self.held += len(data)
            stats[self.key] += len(data)
            if self.held > stats["max_held_bytes"]:
                stats["max_held_bytes"] = self.held
            self.update_reading()
        if self.timer is None and self.dst is not None:
            self.timer = self.conn.loop.call_at(self.queue[0][0], self.flush)

    def flush(self):
        self.timer = None
        if self.dst is None or self.done:
            return
        loop = self.conn.loop
        now = loop.time()
        if self.queue and self.queue[0][0] <= now:
            late = (now - self.queue[0][0]) * 1000
            stats["releases"] += 1
            if late > 2:
                stats["late_over_2ms"] += 1
                if late > 10:
                    stats["late_over_10ms"] += 1
            if late > stats["late_ms_max"]:
                stats["late_ms_max"] = round(late, 3)
        out = []
        eof = False
        while self.queue and self.queue[0][0] <= now:
            _, data = self.queue.popleft()
            if data is None:
                eof = True
                break
            out.append(data)
            self.held -= len(data)
        if out and not self.dst.is_closing():
            if args.first_bytes and self.key == "bytes_down" and not getattr(self, "told_first", False):
                self.told_first = True
                with open(args.first_bytes, "a") as f:
                    f.write("%.6f\n" % time.time())
            self.dst.write(b"".join(out) if len(out) > 1 else out[0])
        if eof:
            self.done = True
            if not self.dst.is_closing() and self.dst.can_write_eof():
                self.dst.write_eof()
            self.conn.maybe_close()
            return
        if self.queue:
            self.timer = loop.call_at(self.queue[0][0], self.flush)
        self.update_reading()

    def abandon(self):
        """The destination socket is gone: drop what waits for it."""
        self.done = True
        self.queue.clear(); self.held = 0
        if self.timer is not None:
            self.timer.cancel(); self.timer = None
        self.dst_paused = False
        self.update_reading()  # keep draining the source (its bytes are dropped) so it sees no stall
        self.conn.maybe_close()

    def update_reading(self):
        if self.src is None or self.src.is_closing():
            return
        want_pause = not self.done and (self.dst_paused or self.held > args.max_buffer)
        if want_pause and not self.reading_paused:
            self.src.pause_reading(); self.reading_paused = True
        elif not want_pause and self.reading_paused:
            self.src.resume_reading(); self.reading_paused = False


class Side(asyncio.Protocol):
    """The protocol of one socket; `inbound` is the direction it feeds, `outbound` the one that writes to it."""

    def __init__(self, conn, inbound, outbound):
        self.conn, self.inbound, self.outbound = conn, inbound, outbound
        self.transport = None
        self.lost = False

    def connection_made(self, transport):
        transport.set_write_buffer_limits(high=4 << 20, low=1 << 20)
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.transport = transport
        self.inbound.src = transport
        self.outbound.dst = transport

    def data_received(self, data):
        self.inbound.push(data, self.conn.loop.time() + DELAY + self.conn.handshake_extra())

    def eof_received(self):
        self.inbound.push(None, self.conn.loop.time() + DELAY)
        return True  # keep the other half open until the EOF has travelled

    def connection_lost(self, exc):
        # Closed or reset: what it sent is queued; the other side gets FIN after the delay. Nothing more can be
        # delivered to it.
        self.lost = True
        self.inbound.push(None, self.conn.loop.time() + DELAY)
        self.outbound.abandon()
        self.conn.maybe_finish()

    def pause_writing(self):
        self.outbound.dst_paused = True; self.outbound.update_reading()

    def resume_writing(self):
        self.outbound.dst_paused = False; self.outbound.update_reading()


class Connection:
    def __init__(self, loop):
        self.loop = loop
        self.accepted = loop.time()
        self.up = Direction(self, "bytes_up")
        self.down = Direction(self, "bytes_down")
        self.client = Side(self, self.up, self.down)
        self.upstream = None
        self.connecting = True
        self.finished = False
        stats["connections"] += 1
        stats["active"] += 1
        write_stats()

    def handshake_extra(self):
        # Client bytes may not reach the upstream before one RTT after accept (SYN, SYN-ACK), plus their own delay.
        if args.no_handshake:
            return 0.0
        return max(0.0, self.accepted + 2 * DELAY - self.loop.time())

    async def connect(self):
        try:
            _, self.upstream = await self.loop.create_connection(
                lambda: Side(self, self.down, self.up), args.upstream_host, args.upstream_port)
        except OSError:
            stats["upstream_failures"] += 1
            self.connecting = False
            if self.client.transport is not None:
                self.client.transport.abort()
            self.maybe_finish()
            return
        self.connecting = False
        if self.up.queue and self.up.timer is None:
            self.up.timer = self.loop.call_at(self.up.queue[0][0], self.up.flush)

    def maybe_close(self):
        # Both directions delivered their EOF (or lost their destination): close both sockets (close() sends what
        # is still buffered first).
        if self.up.done and self.down.done:
            for side in (self.client, self.upstream):
                if side is not None and side.transport is not None and not side.transport.is_closing():
                    side.transport.close()

    def maybe_finish(self):
        if self.finished or not self.client.lost or self.connecting:
            return
        if self.upstream is not None and not self.upstream.lost:
            return
        self.finished = True
        stats["active"] -= 1
        write_stats()


async def main():
    loop = asyncio.get_running_loop()
    stop = loop.create_future()

    def accept():
        conn = Connection(loop)
        loop.create_task(conn.connect())
        return conn.client

    server = await loop.create_server(accept, "127.0.0.1", args.port, reuse_address=True, backlog=512)
    port = server.sockets[0].getsockname()[1]
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(port))
    os.replace(tmp, args.port_file)
    write_stats()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: stop.done() or stop.set_result(None))
    loop.call_later(args.lifetime, lambda: stop.done() or stop.set_result(None))

    last = (0, 0)

    async def periodic():
        nonlocal last
        while True:
            await asyncio.sleep(1.0)
            now = (stats["bytes_up"], stats["bytes_down"])
            if now != last:
                last = now
                write_stats()

    ticker = loop.create_task(periodic())
    await stop
    ticker.cancel()
    server.close()
    write_stats()


try:
    asyncio.run(main())
except KeyboardInterrupt:
    pass
finally:
    write_stats()
