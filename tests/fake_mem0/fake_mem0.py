#!/usr/bin/env python3
"""Loopback stand-in for the subset of the Mem0 HTTP API used by the hooks.

Python 3.11 standard library only (plus tests/lib/loopback.py, the stand-ins' shared base).
Used by the tests, the demo and the benchmark; it never talks to the network beyond the
address it listens on.

    fake_mem0.py [--host 127.0.0.1] [--port 0] [--seed FILE] [--backend platform|selfhosted]
                 [--api-key KEY] [--log FILE] [--latency-ms N]

On start it prints exactly one line ``PORT <n>`` to stdout.

API endpoints (``Authorization: Token <key>`` required; behaviour in memstore.py):
    POST   /v3/memories/search/  search: query, filters, top_k, threshold, rerank   "search"
    POST   /v3/memories/add/     add: messages, ids, metadata, infer, ...           "add"
    POST   /v3/memories/         list: filters, page, page_size (also in the query)  "list"
    GET    /v1/memories/<uuid>/  one memory                                          "get"
    DELETE /v1/memories/<uuid>/  delete one memory                                   "delete"
    PUT    /v1/memories/<uuid>/  update text and/or metadata: {"text", "metadata"}   "update"
    GET    /v1/event/<id>/       the outcome of an infer add                         "event"
    GET    /v1/ping/             liveness / key check                                "ping"
Every API request is logged with its endpoint name (the last column; null when unknown).

--backend selfhosted serves the open-source Mem0 REST server instead (server/main.py, FastAPI),
as strictly as it does (``X-API-Key: <key>`` required; a Token header is 401):
    POST   /search                search: query, filters (flat), top_k, threshold    "search"
    POST   /memories              add, synchronous: {"results": [...]}                "add"
    GET    /memories?user_id=...  list: ids and top_k in the query, oldest first     "list"
    GET    /memories/<id>         one memory, or null                                "get"
    DELETE /memories/<id>         delete one memory                                  "delete"
    PUT    /memories/<id>         update: {"text", "metadata"}; {"message"}, 404    "update"
No trailing slashes: such a path is 307 to the one without (empty body, as FastAPI's
redirect_slashes); the platform paths are 404 {"detail": "Not Found"}, a known path with
another method 405. Malformed fields are 422, unknown body fields are ignored; filters and
answers are described in memstore.py. The control endpoints and knobs are the same.

Control endpoints (no auth, never logged):
    GET  /_requests   JSON array of logged requests
    POST /_reset      clear the request log
    GET  /_control    current fault knobs
    POST /_control    replace the fault knobs ({} restores normal behaviour)
    POST /_seed       replace the stored memories with a JSON array
    GET  /_memories   the stored memories, in the order they were stored

Fault knobs (POST /_control; --latency-ms sets the default latency). They apply to every API
endpoint unless only_endpoint / only_type narrow them:
    latency_ms     sleep before answering
    status         answer with this status ({"detail": "fault injected"}); nothing is stored
    error_body     raw body for `status` (text/html when it starts with "<")
    retry_after    add a Retry-After header
    mode           normal | garbage | truncated | huge | silent | drip | empty
                   | array | memories_key (garbage, huge, silent, drip: nothing is stored;
                   the others reshape the answer of a request that was carried out)
    huge_mb        size of the "huge" body in MiB (default 50)
    store          false: adds are answered as usual but nothing is stored
    only_endpoint  apply only to requests of this endpoint (search, add, list, ...)
    only_type      apply only to searches filtering on metadata.type == value
                   ("untyped": only to searches without a type filter)
    count          apply to the next `count` matching requests only
    after          let the first `after` matching requests through untouched (a backend that
                   fails halfway: the second page of a listing)
"""

import argparse
import json
import os
import re
import select
import signal
import sys
import threading
import time
from urllib.parse import parse_qs, urlsplit

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))

from loopback import HttpStandIn, RecordingHandler  # noqa: E402
from memstore import (ApiError, Store, filter_types, flat_filter_types,  # noqa: E402
                      normalize_seed)

ROUTES = (  # (method, path pattern, endpoint name)
    ("POST", re.compile(r"^/v3/memories/search/$"), "search"),
    ("POST", re.compile(r"^/v3/memories/add/$"), "add"),
    ("POST", re.compile(r"^/v3/memories/$"), "list"),
    ("GET", re.compile(r"^/v1/memories/([^/]+)/$"), "get"),
    ("DELETE", re.compile(r"^/v1/memories/([^/]+)/$"), "delete"),
    ("PUT", re.compile(r"^/v1/memories/([^/]+)/$"), "update"),
    ("GET", re.compile(r"^/v1/event/([^/]+)/$"), "event"),
    ("GET", re.compile(r"^/v1/ping/$"), "ping"),
)
SELFHOSTED_ROUTES = (
    ("POST", re.compile(r"^/search$"), "search"),
    ("POST", re.compile(r"^/memories$"), "add"),
    ("GET", re.compile(r"^/memories$"), "list"),
    ("GET", re.compile(r"^/memories/([^/]+)$"), "get"),
    ("DELETE", re.compile(r"^/memories/([^/]+)$"), "delete"),
    ("PUT", re.compile(r"^/memories/([^/]+)$"), "update"),
)
BACKENDS = {"platform": ROUTES, "selfhosted": SELFHOSTED_ROUTES}
ENDPOINTS = frozenset(name for _, _, name in ROUTES)  # the self-hosted names are among them
UUID_RE = re.compile(
    r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
CONTROL_PATHS = ("/_requests", "/_reset", "/_control", "/_seed", "/_memories")

KNOB_NAMES = frozenset({"latency_ms", "status", "error_body", "retry_after", "mode",
                        "huge_mb", "store", "only_endpoint", "only_type", "count",
                        "after"})
MODES = frozenset({"normal", "garbage", "truncated", "huge", "silent", "drip",
                   "empty", "array", "memories_key"})
MAX_FAULT_SECONDS = 120      # upper bound for the silent and drip modes
DRIP_CONTENT_LENGTH = 1 << 20


def route(method, path, routes=ROUTES):
    """(endpoint name, path argument or None); (None, None) for an unknown request."""
    for want, pattern, name in routes:
        m = pattern.match(path)
        if m and method == want:
            return name, (m.group(1) if m.groups() else None)
    return None, None


def validate_knobs(knobs):
    if not isinstance(knobs, dict):
        raise ValueError("knobs must be a JSON object")
    unknown = sorted(set(knobs) - KNOB_NAMES)
    if unknown:
        raise ValueError(f"unknown knobs: {', '.join(unknown)}")

    def number(name, minimum, integer=False):
        v = knobs.get(name)
        kinds = int if integer else (int, float)
        if v is not None and (isinstance(v, bool) or not isinstance(v, kinds) or v < minimum):
            raise ValueError(f"{name} must be a number >= {minimum}")

    number("latency_ms", 0)
    number("huge_mb", 0)
    number("count", 0, integer=True)
    number("after", 0, integer=True)
    number("status", 100, integer=True)
    if knobs.get("status") is not None and knobs["status"] > 599:
        raise ValueError("status must be < 600")
    if knobs.get("mode") is not None and knobs["mode"] not in MODES:
        raise ValueError(f"mode must be one of {', '.join(sorted(MODES))}")
    if knobs.get("only_endpoint") is not None and knobs["only_endpoint"] not in ENDPOINTS:
        raise ValueError(f"only_endpoint must be one of {', '.join(sorted(ENDPOINTS))}")
    if knobs.get("store") is not None and not isinstance(knobs["store"], bool):
        raise ValueError("store must be a boolean")
    for name in ("error_body", "only_type"):
        if knobs.get(name) is not None and not isinstance(knobs[name], str):
            raise ValueError(f"{name} must be a string")


class State:
    """The API key, the fault knobs and the memory store shared by the handler threads."""

    def __init__(self, api_key, latency_ms, memories, backend="platform"):
        self.backend = backend
        self.routes = BACKENDS[backend]
        self.api_key = api_key
        self.default_latency_ms = latency_ms
        self.store = Store(memories)
        self.lock = threading.Lock()
        self.knobs = {}
        self.remaining = None
        self.passed = 0
        self.stop = threading.Event()

    def set_knobs(self, knobs):
        with self.lock:
            self.knobs = dict(knobs)
            self.remaining = knobs.get("count")
            self.passed = knobs.get("after", 0)

    def take_knobs(self, endpoint, body):
        """Knobs that apply to this request (None for normal behaviour)."""
        with self.lock:
            if not self.knobs:
                return None
            only = self.knobs.get("only_endpoint")
            if only is not None and endpoint != only:
                return None
            only = self.knobs.get("only_type")
            if only is not None:
                if endpoint != "search" or not isinstance(body, dict):
                    return None
                types = (flat_filter_types if self.backend == "selfhosted"
                         else filter_types)(body.get("filters"))
                if only == "untyped" and types:
                    return None
                if only != "untyped" and json.dumps(only) not in types:
                    return None
            if self.passed > 0:
                self.passed -= 1
                return None
            if self.remaining is not None:
                if self.remaining <= 0:
                    return None
                self.remaining -= 1
            return dict(self.knobs)


def huge_body(mb):
    """(length, chunk iterator) of a valid JSON results array of ~mb MiB."""
    prefix, suffix = b'{"results": [', b'"end"]}'
    chunk = (b'"' + b"x" * 1021 + b'",') * 64          # 64 KiB of strings
    n = max(1, -(-(int(mb * 1024 * 1024) - len(prefix) - len(suffix)) // len(chunk)))
    length = len(prefix) + n * len(chunk) + len(suffix)
    return length, iter([prefix] + [chunk] * n + [suffix])


class Handler(RecordingHandler):
    server_version = "fake-mem0/1.0"

    @property
    def state(self):
        return self.stand_in.state

    def client_gone(self, timeout):
        """Wait up to timeout for the client; True when it has disconnected."""
        try:
            readable, _, _ = select.select([self.connection], [], [], timeout)
            return bool(readable) and not self.connection.recv(65536)
        except OSError:
            return True

    # -- dispatch ------------------------------------------------------------
    def dispatch(self):
        state = self.state
        try:
            raw = self.read_body()
        except ValueError:
            self.close_connection = True
            return self.send_json(400, {"detail": "Malformed request body"})
        url = urlsplit(self.path)
        if url.path in CONTROL_PATHS:
            return self.control(url.path, raw)

        entry = self.entry(raw)
        endpoint, arg = route(self.command, url.path, state.routes)
        entry["endpoint"] = endpoint
        knobs = state.take_knobs(endpoint, entry["body"])
        kind, status, extra, payload, ctype = self.plan(
            endpoint, arg, entry["body"], "raw_body" not in entry, knobs)
        entry["status"] = status
        self.stand_in.record(entry)             # logged before latency and faults

        latency = (knobs or {}).get("latency_ms")
        latency = state.default_latency_ms if latency is None else latency
        if latency and state.stop.wait(latency / 1000.0):
            self.close_connection = True
            return
        try:
            if kind == "send":
                self.send(status, payload, ctype, extra)
            elif kind == "silent":
                self.silent()
            elif kind == "drip":
                self.drip(extra)
            elif kind == "huge":
                self.huge(payload, extra)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = dispatch

    def plan(self, endpoint, arg, body, parsed, knobs):
        """(kind, status, extra headers, payload, content type) of the answer."""
        knobs = knobs or {}
        extra = {}
        if knobs.get("retry_after") is not None:
            extra["Retry-After"] = str(knobs["retry_after"])
        if knobs.get("status") is not None:
            error_body = knobs.get("error_body")
            if error_body is None:
                return "send", knobs["status"], extra, \
                    json.dumps({"detail": "fault injected"}).encode(), "application/json"
            ctype = "text/html; charset=utf-8" if error_body.lstrip().startswith("<") \
                else "application/json"
            return "send", knobs["status"], extra, error_body.encode(), ctype
        mode = knobs.get("mode") or "normal"
        if mode == "silent":
            return "silent", 0, extra, None, None
        if mode == "drip":
            return "drip", 200, extra, None, None
        if mode == "huge":
            return "huge", 200, extra, knobs.get("huge_mb") or 50, None
        if mode == "garbage":
            return "send", 200, extra, b"this is not json <<<", "application/json"

        status, obj = self.api(endpoint, arg, body, parsed, knobs.get("store", True))
        if status == 307:                       # obj is the Location
            return "send", status, dict(extra, Location=obj), b"", None
        if mode == "normal":
            return "send", status, extra, json.dumps(obj).encode(), "application/json"
        results = obj.get("results", []) if status == 200 and isinstance(obj, dict) else []
        if mode == "truncated":
            data = json.dumps({"results": results}).encode()
            data = data[:len(data) // 2]
        elif mode == "empty":
            data = json.dumps({"results": []}).encode()
        elif mode == "array":
            data = json.dumps(results).encode()
        else:  # memories_key
            data = json.dumps({"memories": results}).encode()
        return "send", 200, extra, data, "application/json"

    def api(self, endpoint, arg, body, parsed, store):
        """Normal behaviour of the API endpoints: (status, JSON object)."""
        state = self.state
        if state.backend == "selfhosted":
            return self.selfhosted_api(endpoint, arg, body, parsed, store)
        if endpoint is None:
            return 404, {"detail": "Not found"}
        if self.headers.get("Authorization") != f"Token {state.api_key}":
            return 401, {"detail": "Invalid API key"}
        if endpoint == "ping":
            return 200, {"status": "ok", "user_email": "dev@example.com"}
        if endpoint in ("get", "delete"):
            if not UUID_RE.match(arg):
                return 400, {"detail": "Invalid memory id"}
            if endpoint == "delete":
                return (200, {"message": "Memory deleted successfully!"}) \
                    if state.store.delete(arg) else (404, {"error": "Memory not found!"})
            mem = state.store.get(arg)
            return (200, mem) if mem else (404, {"error": "Memory not found!"})
        if endpoint == "update":
            if not UUID_RE.match(arg):
                return 400, {"detail": "Invalid memory id"}
            try:
                mem = state.store.update(arg, body if parsed else None)
            except ApiError as exc:
                return exc.status, {"detail": exc.detail}
            return (200, mem) if mem else (404, {"error": "Memory not found!"})
        if endpoint == "event":
            event = state.store.event(arg)
            return (200, event) if event else (404, {"detail": "Event not found"})
        if not parsed:
            return 400, {"detail": "Invalid JSON body"}
        try:
            if endpoint == "search":
                return 200, {"results": state.store.search(body)}
            if endpoint == "add":
                return 200, state.store.add(body, store=store)
            query = {k: v[-1] for k, v in parse_qs(urlsplit(self.path).query).items()}
            base = f"http://{self.headers.get('Host') or self.stand_in.host}"
            return 200, state.store.list(body, query, base)
        except ApiError as exc:
            return exc.status, {"detail": exc.detail}

    def selfhosted_api(self, endpoint, arg, body, parsed, store):
        """Normal behaviour of the self-hosted server's endpoints: (status, JSON object), or
        (307, Location) for a path with a trailing slash."""
        state = self.state
        url = urlsplit(self.path)
        if endpoint is None:
            def known(path):
                return any(pattern.match(path) for _, pattern, _ in state.routes)
            if known(url.path):
                return 405, {"detail": "Method Not Allowed"}
            if url.path != "/" and known(url.path.rstrip("/")):
                query = f"?{url.query}" if url.query else ""
                host = self.headers.get("Host") or f"{self.stand_in.host}:{self.stand_in.port}"
                return 307, f"http://{host}{url.path.rstrip('/')}{query}"
            return 404, {"detail": "Not Found"}
        # An empty --api-key is a server run with AUTH_DISABLED=true: no key needed, but a key
        # that is sent is still checked.
        key = self.headers.get("X-API-Key")
        if key is None and state.api_key:
            return 401, {"detail": "Authentication required. Provide a Bearer token or "
                                   "X-API-Key header."}
        if key is not None and key != state.api_key:
            return 401, {"detail": "Invalid API key"}
        try:
            if endpoint == "get":
                return 200, state.store.get_selfhosted(arg)
            if endpoint == "delete":
                return (200, {"message": "Memory deleted successfully"}) \
                    if state.store.delete(arg) else (404, {"detail": "Memory not found"})
            if endpoint == "update":
                if not parsed:
                    return 422, {"detail": [{"type": "json_invalid", "loc": ["body", 0],
                                             "msg": "JSON decode error"}]}
                if not state.store.update(arg, body, selfhosted=True):
                    return 404, {"detail": f"Memory with id {arg} not found. "
                                           "Please provide a valid 'memory_id'"}
                return 200, {"message": "Memory updated successfully!"}
            if endpoint == "list":
                query = {k: v[-1] for k, v in parse_qs(url.query).items()}
                return 200, state.store.list_selfhosted(query)
            if not parsed:
                return 422, {"detail": [{"type": "json_invalid", "loc": ["body", 0],
                                         "msg": "JSON decode error"}]}
            if endpoint == "search":
                return 200, state.store.search_selfhosted(body)
            return 200, state.store.add_selfhosted(body, store=store)
        except ApiError as exc:
            return exc.status, {"detail": exc.detail}

    # -- faults --------------------------------------------------------------
    def silent(self):
        self.close_connection = True
        deadline = time.monotonic() + MAX_FAULT_SECONDS
        while time.monotonic() < deadline and not self.state.stop.is_set():
            if self.client_gone(0.25):
                return

    def drip(self, extra):
        self.close_connection = True
        self.start(200, DRIP_CONTENT_LENGTH, extra=extra)
        data = b'{"results": [' + b" " * (DRIP_CONTENT_LENGTH - 13)
        deadline = time.monotonic() + MAX_FAULT_SECONDS
        for i in range(len(data)):
            self.wfile.write(data[i:i + 1])
            next_byte = time.monotonic() + 1.0
            while (now := time.monotonic()) < next_byte:
                if now > deadline or self.state.stop.is_set() \
                        or self.client_gone(next_byte - now):
                    return

    def huge(self, mb, extra):
        length, chunks = huge_body(mb)
        self.start(200, length, extra=extra)
        for chunk in chunks:
            if self.state.stop.is_set():
                self.close_connection = True
                return
            self.wfile.write(chunk)

    # -- control endpoints ---------------------------------------------------
    def control(self, path, raw):
        state = self.state
        if self.command == "GET":
            if path == "/_requests":
                return self.send_json(200, self.stand_in.requests())
            if path == "/_memories":
                return self.send_json(200, state.store.all())
            if path == "/_control":
                with state.lock:
                    return self.send_json(200, {"knobs": state.knobs,
                                                "remaining": state.remaining})
        if self.command != "POST" or path in ("/_requests", "/_memories"):
            return self.send_json(405, {"detail": "Method not allowed"})
        if path == "/_reset":
            self.stand_in.reset()
            return self.send_json(200, {"ok": True})
        try:
            data = json.loads(raw.decode("utf-8") or "null")
            if path == "/_control":
                validate_knobs(data)
                state.set_knobs(data)
                return self.send_json(200, {"knobs": data})
            memories = normalize_seed(data)
        except (UnicodeDecodeError, ValueError) as exc:
            return self.send_json(400, {"detail": str(exc)})
        state.store.replace(memories)
        return self.send_json(200, {"count": len(memories)})


class FakeMem0Server(HttpStandIn):
    handler = Handler

    def __init__(self, state, host, port, log_path=None):
        super().__init__(port=port, log_path=log_path, host=host)
        self.state = state


def main(argv=None):
    ap = argparse.ArgumentParser(description="Loopback stand-in for the Mem0 API")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--seed", help="JSON array of memories")
    ap.add_argument("--backend", choices=sorted(BACKENDS), default="platform",
                    help="the API to serve: Mem0's platform or the self-hosted REST server")
    ap.add_argument("--api-key", default="m0-test-key")
    ap.add_argument("--log", help="append one JSON line per API request")
    ap.add_argument("--latency-ms", type=float, default=0.0)
    args = ap.parse_args(argv)

    memories = {}
    if args.seed:
        try:
            with open(args.seed, encoding="utf-8") as fh:
                memories = normalize_seed(json.load(fh))
        except (OSError, ValueError) as exc:
            print(f"fake_mem0: cannot load seed {args.seed}: {exc}", file=sys.stderr)
            return 2

    state = State(args.api_key, args.latency_ms, memories, args.backend)
    server = FakeMem0Server(state, args.host, args.port, args.log).start()
    signal.signal(signal.SIGTERM, lambda *_: state.stop.set())
    signal.signal(signal.SIGINT, lambda *_: state.stop.set())
    print(f"PORT {server.port}", flush=True)
    while not state.stop.wait(0.5):
        pass
    server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
