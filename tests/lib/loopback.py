"""One base for the loopback stand-ins (the fake Mem0 and Anthropic APIs, the raw and canned
servers of the hardening tests): start on a free loopback port, record the requests, stop.

    class Api(HttpStandIn): ...              # in-process HTTP server on a daemon thread
    with HttpStandIn(json_handler({"GET": (503, {"detail": "down"})})) as server:
        ... server.url ... server.requests()

Python standard library only; nothing here talks beyond the loopback address it listens on.
"""

import json
import socket
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOOPBACK = "127.0.0.1"


def free_ports(n, host=LOOPBACK):
    """n distinct loopback ports that were free a moment ago (bound, then released)."""
    socks = []
    try:
        for _ in range(n):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind((host, 0))
            socks.append(sock)
        return [sock.getsockname()[1] for sock in socks]
    finally:
        for sock in socks:
            sock.close()


def closed_port():
    """A loopback port nobody listens on."""
    return free_ports(1)[0]


class Lifecycle:
    """start() returns self, stop() is safe to repeat; `with X() as x:` does both."""

    def start(self):
        raise NotImplementedError

    def stop(self):
        raise NotImplementedError

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False


class RequestLog:
    """A thread-safe list of request entries, mirrored as JSON lines to `path` when given."""

    def __init__(self, path=None):
        self._lock = threading.Lock()
        self._entries = []
        self._file = open(path, "a", encoding="utf-8") if path else None

    def record(self, entry):
        with self._lock:
            self._entries.append(entry)
            if self._file:
                self._file.write(json.dumps(entry) + "\n")
                self._file.flush()

    def entries(self):
        with self._lock:
            return list(self._entries)

    def clear(self):
        with self._lock:
            self._entries.clear()

    def close(self):
        with self._lock:
            if self._file:
                self._file.close()
                self._file = None


class StandIn(Lifecycle):
    """A loopback stand-in: host, port and url once started; requests() it saw, oldest
    first; reset() forgets them."""

    host = LOOPBACK
    scheme = "http"

    def __init__(self, log_path=None):
        self.port = None
        self.log = RequestLog(log_path)

    @property
    def url(self):
        return f"{self.scheme}://{self.host}:{self.port}" if self.port else None

    def record(self, entry):
        self.log.record(entry)

    def requests(self):
        return self.log.entries()

    def reset(self):
        self.log.clear()


class LoopbackHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128
    stand_in = None  # the HttpStandIn serving through this server

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError, ssl.SSLError)):
            super().handle_error(request, client_address)


class RecordingHandler(BaseHTTPRequestHandler):
    """Request plumbing shared by the HTTP stand-ins: quiet, HTTP/1.1, bodies read whole
    (Content-Length or chunked), JSON answers, log entries."""

    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; without TCP_NODELAY the second waits for
    # the client's delayed ACK (about 40 ms).
    disable_nagle_algorithm = True

    def log_message(self, format, *args):  # no access log on stderr
        pass

    @property
    def stand_in(self):
        return self.server.stand_in

    def read_body(self):
        """The request body (bytes); ValueError when its framing is broken."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            parts = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        if length < 0:
            raise ValueError("negative Content-Length")
        return self.rfile.read(length) if length else b""

    def entry(self, raw):
        """A log entry: ts, method, path, headers (lower-case names), body (parsed JSON or
        None), and raw_body (text) when the body is not JSON."""
        entry = {"ts": time.time(), "method": self.command, "path": self.path,
                 "headers": {k.lower(): v for k, v in self.headers.items()}, "body": None}
        if raw:
            try:
                entry["body"] = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                entry["raw_body"] = raw.decode("utf-8", "replace")
        return entry

    def start(self, status, length, content_type="application/json", extra=None):
        self.send_response(status)
        if content_type:                          # None: no Content-Type (an empty redirect)
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(length))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()

    def send(self, status, payload, content_type="application/json", extra=None):
        self.start(status, len(payload), content_type, extra)
        self.wfile.write(payload)

    def send_json(self, status, obj, extra=None):
        self.send(status, json.dumps(obj).encode(), extra=extra)

    def start_events(self, content_type="text/event-stream", extra=None):
        """Start a 200 answer of server-sent events, written next to wfile; it has no length,
        so the connection closes after it."""
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.close_connection = True


def json_handler(answers):
    """A handler class answering each method with a fixed (status, JSON object) and
    recording every request; other methods get 405."""

    class Handler(RecordingHandler):
        def answer(self):
            self.stand_in.record(self.entry(self.read_body()))
            status, obj = answers.get(self.command, (405, {"detail": "Method not allowed"}))
            self.send_json(status, obj)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = answer

    return Handler


class HttpStandIn(StandIn):
    """An HTTP stand-in served by `handler` (a RecordingHandler subclass) on a daemon
    thread; HTTPS when an ssl_context is given."""

    handler = None

    def __init__(self, handler=None, port=0, ssl_context=None, log_path=None, host=None):
        super().__init__(log_path)
        self.handler = handler or self.handler
        self.host = host or self.host
        self._bind_port = port
        self._ssl_context = ssl_context
        self.scheme = "https" if ssl_context else "http"
        self._server = None
        self._thread = None

    def start(self):
        self._server = LoopbackHTTPServer((self.host, self._bind_port), self.handler)
        self._server.stand_in = self
        if self._ssl_context is not None:
            self._server.socket = self._ssl_context.wrap_socket(self._server.socket,
                                                                server_side=True)
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.2},
                                        name=type(self).__name__, daemon=True)
        self._thread.start()
        return self

    def serve_until_interrupted(self):
        """For manual use from a shell: print the port, then serve until Ctrl-C."""
        print(f"PORT {self.port}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            self.stop()

    def stop(self):
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
            self._thread.join()
        self.log.close()
