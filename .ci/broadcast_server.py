#!/usr/bin/env python3
"""A live HTTP broadcast relay for tests, serving a broadcast folder.

The folder is what a CSTV+ relay saves (and what `gamewire broadcast`
writes): `sync.json`, `<signup>/start.bin`, and per fragment
`<n>/full.bin` and `<n>/delta.bin`. The server answers as a relay does:

    GET /sync          the folder's sync.json ("fragment" is the first one)
    GET /<n>/start     <n>/start.bin
    GET /<n>/full      <n>/full.bin
    GET /<n>/delta     <n>/delta.bin

and releases the fragments as a live broadcast produces them: the first
fragment when the first /sync is asked for, then one more every
--interval-ms. A fragment not released yet, or not in the folder, is 404.

--end stop serves one more delta after the folder's last, holding a single
DEM_Stop record (the broadcast ends); --end idle (the default) serves 404
from there on (the client stops after its idle time-out).

--hold-from N --hold-until FILE holds the deltas from fragment N on (404)
until FILE exists, then releases them at the usual pace: a test sees the
client's first rows, creates FILE, and knows those rows came before the
broadcast's end.

Faults (--fault KIND[@WHERE], repeatable; WHERE is a fragment number for
its delta, or sync, start or full; the default is the third delta):

    notfound     404 three times although released
    500          HTTP 500 three times, then the fragment
    500-always   HTTP 500 for ever (retries run out)
    slow         the first answer waits --slow-ms before its headers
    cut          the first answer sends half its body and closes
    reset        the first request's connection is reset, no answer
    restart      the server stops listening for --restart-ms, then comes
                 back on the same port (a relay restarted mid-match)
    endless      a body that never ends (no Content-Length)
    huge-length  Content-Length of 2^50 bytes, then a few bytes and a close
    absurd-sync  /sync says fragment 10^18 and tps 10^9
    not-json     /sync is not JSON

The chosen port is the first line on standard output. Standard library
only.
"""

import argparse
import json
import os
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FAULTS = {
    "notfound", "500", "500-always", "slow", "cut", "reset", "restart",
    "endless", "huge-length", "absurd-sync", "not-json",
}


class Relay:
    """The broadcast folder and the state of its faults."""

    def __init__(self, args):
        self.dir = args.dir
        with open(os.path.join(self.dir, "sync.json"), "rb") as f:
            self.sync = json.loads(f.read())
        self.first = int(self.sync["fragment"])
        self.signup = int(self.sync.get("signup_fragment", 0))
        numbered = sorted(
            int(n) for n in os.listdir(self.dir)
            if n.isdigit() and os.path.isfile(os.path.join(self.dir, n, "delta.bin"))
        )
        self.last = self.first
        while self.last + 1 in numbered:
            self.last += 1
        self.interval = args.interval_ms / 1000.0
        self.end = args.end
        self.slow = args.slow_ms / 1000.0
        self.restart_pause = args.restart_ms / 1000.0
        self.started = None
        self.hold_from = args.hold_from
        self.hold_until = args.hold_until
        self.lock = threading.Lock()
        self.faults = {}
        for spec in args.fault:
            kind, _, where = spec.partition("@")
            if kind not in FAULTS:
                raise SystemExit(f"unknown fault {kind!r} (one of {sorted(FAULTS)})")
            if not where:
                where = "sync" if kind in ("absurd-sync", "not-json") else str(self.first + 2)
            self.faults[where] = {"kind": kind, "hits": 0}
        self.restart_requested = threading.Event()

    def released(self):
        """The newest fragment released so far."""
        with self.lock:
            if self.started is None:
                self.started = time.monotonic()
            if self.interval <= 0:
                newest = self.last + 1
            else:
                newest = self.first + int((time.monotonic() - self.started) / self.interval)
        if self.hold_from is not None and not os.path.exists(self.hold_until):
            newest = min(newest, self.hold_from - 1)
        return newest

    def fault(self, where):
        """The fault to play for this request, if any (counting hits)."""
        with self.lock:
            f = self.faults.get(where)
            if f is None:
                return None
            f["hits"] += 1
            kind, hits = f["kind"], f["hits"]
        once = {"slow", "cut", "reset", "restart", "huge-length"}
        if kind in once and hits > 1:
            return None
        if kind in ("notfound", "500") and hits > 3:
            return None
        return kind


def stop_record(tick):
    """One broadcast record: DEM_Stop (command 0), the tick, the unused byte."""
    return bytes([0]) + struct.pack("<I", tick) + bytes([0])


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # The headers and the body are two writes: with Nagle's algorithm the
    # body waits for the client's delayed ACK (40 ms a request).
    disable_nagle_algorithm = True
    relay = None

    def log_message(self, fmt, *args):
        if os.environ.get("BROADCAST_SERVER_LOG"):
            sys.stderr.write("%s\n" % (fmt % args))

    def send_body(self, body, status=200, ctype="application/octet-stream"):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def not_found(self):
        self.send_body(b"not found\n", 404, "text/plain")

    def do_GET(self):
        relay = self.relay
        parts = [p for p in self.path.split("?")[0].split("/") if p]
        if parts == ["sync"]:
            where, path = "sync", None
        elif len(parts) == 2 and parts[0].isdigit() and parts[1] in ("start", "full", "delta"):
            n, kind = int(parts[0]), parts[1]
            where = {"start": "start", "full": "full"}.get(kind, str(n))
            path = os.path.join(relay.dir, parts[0], kind + ".bin")
        else:
            return self.not_found()
        released = relay.released()
        fault = relay.fault(where)
        if fault == "restart":
            relay.restart_requested.set()
            return self.reset()
        if fault == "reset":
            return self.reset()
        if fault == "notfound":
            return self.not_found()
        if fault in ("500", "500-always"):
            return self.send_body(b"server error\n", 500, "text/plain")
        if fault == "slow":
            time.sleep(relay.slow)
        if where == "sync":
            sync = dict(relay.sync)
            if fault == "absurd-sync":
                sync.update(fragment=10**18, tps=10**9, signup_fragment=0)
            body = json.dumps(sync).encode()
            if fault == "not-json":
                body = b"<html>relay</html>"
            return self.send_body(body, ctype="application/json")
        if kind != "start" and n > released:
            return self.not_found()
        if kind == "delta" and n == relay.last + 1 and relay.end == "stop":
            return self.send_body(stop_record(0))
        if kind == "start" and n != relay.signup:
            return self.not_found()
        try:
            with open(path, "rb") as f:
                body = f.read()
        except OSError:
            return self.not_found()
        if fault == "cut":
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        if fault == "huge-length":
            self.send_response(200)
            self.send_header("Content-Length", str(1 << 50))
            self.end_headers()
            self.wfile.write(body[:1024])
            self.close_connection = True
            return
        if fault == "endless":
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            chunk = b"\x07" * 65536
            try:
                while True:
                    self.wfile.write(chunk)
            except OSError:
                pass
            self.close_connection = True
            return
        self.send_body(body)

    def reset(self):
        """Closes the connection with a TCP reset, answering nothing."""
        try:
            self.connection.setsockopt(
                socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
            )
        except OSError:
            pass
        self.close_connection = True
        try:
            self.connection.close()
        except OSError:
            pass


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        """A client that hangs up (a time-out, a closed pooled connection)
        is part of the game; anything else is printed."""
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dir", required=True, help="the broadcast folder")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0: any free port")
    parser.add_argument("--interval-ms", type=float, default=3000.0,
                        help="one fragment released every this many ms (0: all at once)")
    parser.add_argument("--end", choices=("idle", "stop"), default="idle")
    parser.add_argument("--fault", action="append", default=[], metavar="KIND[@WHERE]")
    parser.add_argument("--slow-ms", type=float, default=3000.0)
    parser.add_argument("--restart-ms", type=float, default=1000.0)
    parser.add_argument("--hold-from", type=int, metavar="N",
                        help="hold the deltas from fragment N on until --hold-until exists")
    parser.add_argument("--hold-until", metavar="FILE")
    args = parser.parse_args()
    if (args.hold_from is None) != (args.hold_until is None):
        parser.error("--hold-from and --hold-until go together")
    relay = Relay(args)
    Handler.relay = relay
    server = Server((args.host, args.port), Handler)
    port = server.server_address[1]
    print(port, flush=True)
    while True:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            while not relay.restart_requested.wait(0.2):
                pass
        except KeyboardInterrupt:
            server.shutdown()
            return
        relay.restart_requested.clear()
        server.shutdown()
        server.server_close()
        time.sleep(relay.restart_pause)
        while True:
            try:
                server = Server((args.host, port), Handler)
                break
            except OSError:
                time.sleep(0.05)


if __name__ == "__main__":
    main()
