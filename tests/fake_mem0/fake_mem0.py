#!/usr/bin/env python3
"""Loopback stand-in for the subset of the Mem0 HTTP API used by the hooks.

Python 3.11 standard library only.  Used by the tests, the demo and the
benchmark; it never talks to the network beyond the address it listens on.

    fake_mem0.py [--host 127.0.0.1] [--port 0] [--seed FILE]
                 [--api-key KEY] [--log FILE] [--latency-ms N]

On start it prints exactly one line ``PORT <n>`` to stdout.

API endpoints (``Authorization: Token <key>`` required):
    POST /v3/memories/search/    search with filters, top_k, threshold, rerank
    GET  /v1/memories/<uuid>/    one memory
    GET  /v1/ping/               liveness / key check

Control endpoints (no auth, never logged):
    GET  /_requests   JSON array of logged requests
    POST /_reset      clear the request log
    GET  /_control    current fault knobs
    POST /_control    replace the fault knobs ({} restores normal behaviour)
    POST /_seed       replace the stored memories with a JSON array

Fault knobs (POST /_control; --latency-ms sets the default latency):
    latency_ms   sleep before answering
    status       answer with this status ({"detail": "fault injected"})
    error_body   raw body for `status` (text/html when it starts with "<")
    retry_after  add a Retry-After header
    mode         normal | garbage | truncated | huge | silent | drip | empty
                 | array | memories_key
    huge_mb      size of the "huge" body in MiB (default 50)
    only_type    apply only to searches filtering on metadata.type == value
                 ("untyped": only to searches without a type filter)
    count        apply to the next `count` matching requests only
"""

import argparse
import json
import re
import select
import signal
import sys
import threading
import time
import uuid
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

SEARCH_PATH = "/v3/memories/search/"
PING_PATH = "/v1/ping/"
MEMORY_PATH = re.compile(r"^/v1/memories/([^/]+)/$")
UUID_RE = re.compile(
    r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
CONTROL_PATHS = ("/_requests", "/_reset", "/_control", "/_seed")
ENTITY_KEYS = ("user_id", "agent_id", "app_id", "run_id")

KNOB_NAMES = frozenset({"latency_ms", "status", "error_body", "retry_after",
                        "mode", "huge_mb", "only_type", "count"})
MODES = frozenset({"normal", "garbage", "truncated", "huge", "silent", "drip",
                   "empty", "array", "memories_key"})
MAX_FAULT_SECONDS = 120      # upper bound for the silent and drip modes
DRIP_CONTENT_LENGTH = 1 << 20

# ---------------------------------------------------------------------------
# Scoring (deterministic, so tests can predict it)
#
#   tokens(text): lower-case, split into [a-z0-9]+ runs, drop STOP_WORDS,
#                 strip one trailing "s" from tokens longer than 3 chars,
#                 keep the distinct set.
#   base score   = |query tokens & memory tokens| / |memory tokens|
#   rerank score = |query tokens & memory tokens| / |query tokens|
#
# A memory is a hit when base score > 0 and base score >= threshold
# (default 0.3).  Without rerank hits are ordered by base score desc, then
# created_at desc (newest first), then id.  With "rerank": true they are
# re-ordered by rerank score desc, then created_at asc (oldest first), then
# id.  The returned "score" is the score used for ordering.  The result is
# truncated to top_k (default 10).
# ---------------------------------------------------------------------------
STOP_WORDS = frozenset(
    "the a an and or of to in on for is are we i it this that with what how "
    "do does be use our my should which".split())
TOKEN_RE = re.compile(r"[a-z0-9]+")


def tokens(text):
    out = set()
    for tok in TOKEN_RE.findall(text.lower()):
        if tok in STOP_WORDS:
            continue
        if len(tok) > 3 and tok.endswith("s"):
            tok = tok[:-1]
        out.add(tok)
    return out


def created_ts(mem):
    value = mem.get("created_at")
    try:
        dt = datetime.fromisoformat(str(value))
    except ValueError:
        return 0.0
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.timestamp()


def now_iso():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# ---------------------------------------------------------------------------
# Filters
# ---------------------------------------------------------------------------
class BadRequest(Exception):
    pass


def check_filter(f):
    """Validate a filter tree; return True when it has an entity anchor
    (an entity key with a concrete, non-"*" value somewhere)."""
    if not isinstance(f, dict) or not f:
        raise BadRequest("unsupported filter: expected a non-empty object")
    anchored = False
    for key, value in f.items():
        if key in ("AND", "OR"):
            if not isinstance(value, list) or not value:
                raise BadRequest(f"unsupported filter {key}: expected a non-empty list")
            for sub in value:
                anchored = check_filter(sub) or anchored
        elif key in ENTITY_KEYS:
            if not isinstance(value, str) or not value:
                raise BadRequest(f"unsupported filter value for {key}: {value!r}")
            anchored = anchored or value != "*"
        elif key == "metadata":
            if not isinstance(value, dict) or not value:
                raise BadRequest(f"unsupported filter metadata: {value!r}")
        else:
            raise BadRequest(f"unsupported filter key: {key}")
    return anchored


def matches(f, mem):
    """All keys of one filter dict must hold (implicit AND)."""
    for key, value in f.items():
        if key == "AND":
            ok = all(matches(sub, mem) for sub in value)
        elif key == "OR":
            ok = any(matches(sub, mem) for sub in value)
        elif key == "metadata":
            md = mem.get("metadata")
            ok = isinstance(md, dict) and all(
                k in md and md[k] == v for k, v in value.items())
        else:
            field = mem.get(key)
            ok = field is not None if value == "*" else field == value
        if not ok:
            return False
    return True


def filter_types(f, found=None):
    """Every metadata.type value mentioned anywhere in a (possibly invalid) tree."""
    found = set() if found is None else found
    if isinstance(f, dict):
        for key, value in f.items():
            if key in ("AND", "OR") and isinstance(value, list):
                for sub in value:
                    filter_types(sub, found)
            elif key == "metadata" and isinstance(value, dict) and "type" in value:
                found.add(json.dumps(value["type"]))
    return found


# ---------------------------------------------------------------------------
# Shared state: memories, request log, fault knobs
# ---------------------------------------------------------------------------
def normalize_seed(items):
    if not isinstance(items, list):
        raise ValueError("seed must be a JSON array of memory objects")
    out = {}
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise ValueError(f"seed item {i} is not an object")
        mem = dict(item)
        mem["id"] = str(mem.get("id") or uuid.uuid4())
        if not isinstance(mem.get("memory"), str):
            raise ValueError(f"seed item {i}: 'memory' must be a string")
        for key in ("user_id", "app_id", "run_id", "metadata"):
            mem.setdefault(key, None)
        if mem.get("categories") is None:
            mem["categories"] = []
        if not mem.get("created_at"):
            mem["created_at"] = now_iso()
        if not mem.get("updated_at"):
            mem["updated_at"] = mem["created_at"]
        out[mem["id"]] = mem
    return out


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
    number("status", 100, integer=True)
    if knobs.get("status") is not None and knobs["status"] > 599:
        raise ValueError("status must be < 600")
    if knobs.get("mode") is not None and knobs["mode"] not in MODES:
        raise ValueError(f"mode must be one of {', '.join(sorted(MODES))}")
    for name in ("error_body", "only_type"):
        if knobs.get(name) is not None and not isinstance(knobs[name], str):
            raise ValueError(f"{name} must be a string")


class State:
    def __init__(self, api_key, latency_ms, log_path, memories):
        self.api_key = api_key
        self.default_latency_ms = latency_ms
        self.lock = threading.Lock()
        self.memories = memories
        self.log = []
        self.knobs = {}
        self.remaining = None
        self.stop = threading.Event()
        self.log_file = open(log_path, "a", encoding="utf-8") if log_path else None

    def record(self, entry):
        with self.lock:
            self.log.append(entry)
            if self.log_file:
                self.log_file.write(json.dumps(entry) + "\n")
                self.log_file.flush()

    def set_knobs(self, knobs):
        with self.lock:
            self.knobs = dict(knobs)
            self.remaining = knobs.get("count")

    def take_knobs(self, method, path, body):
        """Knobs that apply to this request (None for normal behaviour)."""
        with self.lock:
            if not self.knobs:
                return None
            only = self.knobs.get("only_type")
            if only is not None:
                if method != "POST" or path != SEARCH_PATH or not isinstance(body, dict):
                    return None
                types = filter_types(body.get("filters"))
                if only == "untyped" and types:
                    return None
                if only != "untyped" and json.dumps(only) not in types:
                    return None
            if self.remaining is not None:
                if self.remaining <= 0:
                    return None
                self.remaining -= 1
            return dict(self.knobs)

    def search(self, body):
        if not isinstance(body, dict):
            raise BadRequest("request body must be a JSON object")
        query = body.get("query")
        if not isinstance(query, str) or not query.strip():
            raise BadRequest("query is required and must be a non-empty string")
        filters = body.get("filters")
        if not isinstance(filters, dict):
            raise BadRequest("filters is required and must be an object")
        if not check_filter(filters):
            raise BadRequest("filters must contain at least one of user_id, agent_id, "
                             "app_id, run_id with a concrete (non-wildcard) value")
        top_k = body.get("top_k", 10)
        top_k = 10 if top_k is None else top_k
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
            raise BadRequest("top_k must be a positive integer")
        threshold = body.get("threshold", 0.3)
        threshold = 0.3 if threshold is None else threshold
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) \
                or not 0 <= threshold <= 1:
            raise BadRequest("threshold must be a number between 0 and 1")
        rerank = body.get("rerank", False)
        if not isinstance(rerank, bool) and rerank is not None:
            raise BadRequest("rerank must be a boolean")

        q = tokens(query)
        with self.lock:
            candidates = list(self.memories.values())
        hits = []
        for mem in candidates:
            if not matches(filters, mem):
                continue
            mt = tokens(mem["memory"])
            shared = len(q & mt)
            base = shared / len(mt) if mt else 0.0
            if base <= 0 or base < threshold:
                continue
            hits.append((base, shared / len(q), created_ts(mem), mem["id"], mem))
        if rerank:
            hits.sort(key=lambda h: (-h[1], h[2], h[3]))
        else:
            hits.sort(key=lambda h: (-h[0], -h[2], h[3]))
        return [dict(h[4], score=h[1] if rerank else h[0]) for h in hits[:top_k]]


# ---------------------------------------------------------------------------
# HTTP
# ---------------------------------------------------------------------------
def huge_body(mb):
    """(length, chunk iterator) of a valid JSON results array of ~mb MiB."""
    prefix, suffix = b'{"results": [', b'"end"]}'
    chunk = (b'"' + b"x" * 1021 + b'",') * 64          # 64 KiB of strings
    n = max(1, -(-(int(mb * 1024 * 1024) - len(prefix) - len(suffix)) // len(chunk)))
    length = len(prefix) + n * len(chunk) + len(suffix)
    return length, iter([prefix] + [chunk] * n + [suffix])


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; without TCP_NODELAY the second waits for
    # the client's delayed ACK (about 40 ms).
    disable_nagle_algorithm = True
    server_version = "fake-mem0/1.0"

    def log_message(self, format, *args):   # quiet: no access log
        pass

    # -- plumbing ----------------------------------------------------------
    def read_body(self):
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

    def start(self, status, length, content_type="application/json", extra=None):
        self.send_response(status)
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

    def client_gone(self, timeout):
        """Wait up to timeout for the client; True when it has disconnected."""
        try:
            readable, _, _ = select.select([self.connection], [], [], timeout)
            return bool(readable) and not self.connection.recv(65536)
        except OSError:
            return True

    # -- dispatch ------------------------------------------------------------
    def dispatch(self):
        state = self.server.state
        ts = time.time()
        try:
            raw = self.read_body()
        except ValueError:
            self.close_connection = True
            return self.send_json(400, {"detail": "Malformed request body"})
        path = urlsplit(self.path).path
        if path in CONTROL_PATHS:
            return self.control(path, raw)

        entry = {"ts": ts, "method": self.command, "path": self.path,
                 "headers": {k.lower(): v for k, v in self.headers.items()},
                 "body": None}
        parsed = not raw
        if raw:
            try:
                entry["body"] = json.loads(raw.decode("utf-8"))
                parsed = True
            except (UnicodeDecodeError, ValueError):
                entry["raw_body"] = raw.decode("utf-8", "replace")
        knobs = state.take_knobs(self.command, path, entry["body"])
        kind, status, extra, payload, ctype = self.plan(path, entry["body"], parsed, knobs)
        entry["status"] = status
        state.record(entry)             # logged before latency and faults

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

    def plan(self, path, body, parsed, knobs):
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

        status, obj = self.api(path, body, parsed)
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

    def api(self, path, body, parsed):
        """Normal behaviour of the API endpoints: (status, JSON object)."""
        state = self.server.state
        m = MEMORY_PATH.match(path)
        known = (self.command == "POST" and path == SEARCH_PATH) or \
                (self.command == "GET" and (path == PING_PATH or m))
        if not known:
            return 404, {"detail": "Not found"}
        if self.headers.get("Authorization") != f"Token {state.api_key}":
            return 401, {"detail": "Invalid API key"}
        if path == PING_PATH:
            return 200, {"status": "ok", "user_email": "dev@example.com"}
        if m:
            if not UUID_RE.match(m.group(1)):
                return 400, {"detail": "Invalid memory id"}
            with state.lock:
                mem = state.memories.get(m.group(1)) or state.memories.get(m.group(1).lower())
            return (200, dict(mem)) if mem else (404, {"error": "Memory not found!"})
        if not parsed:
            return 400, {"detail": "Invalid JSON body"}
        try:
            return 200, {"results": state.search(body)}
        except BadRequest as exc:
            return 400, {"detail": str(exc)}

    # -- faults --------------------------------------------------------------
    def silent(self):
        self.close_connection = True
        deadline = time.monotonic() + MAX_FAULT_SECONDS
        while time.monotonic() < deadline and not self.server.state.stop.is_set():
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
                if now > deadline or self.server.state.stop.is_set() \
                        or self.client_gone(next_byte - now):
                    return

    def huge(self, mb, extra):
        length, chunks = huge_body(mb)
        self.start(200, length, extra=extra)
        for chunk in chunks:
            if self.server.state.stop.is_set():
                self.close_connection = True
                return
            self.wfile.write(chunk)

    # -- control endpoints ---------------------------------------------------
    def control(self, path, raw):
        state = self.server.state
        if path == "/_requests" and self.command == "GET":
            with state.lock:
                return self.send_json(200, list(state.log))
        if path == "/_control" and self.command == "GET":
            with state.lock:
                return self.send_json(200, {"knobs": state.knobs, "remaining": state.remaining})
        if self.command != "POST" or path == "/_requests":
            return self.send_json(405, {"detail": "Method not allowed"})
        if path == "/_reset":
            with state.lock:
                state.log.clear()
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
        with state.lock:
            state.memories = memories
        return self.send_json(200, {"count": len(memories)})


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Loopback stand-in for the Mem0 API")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--seed", help="JSON array of memories")
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

    state = State(args.api_key, args.latency_ms, args.log, memories)
    server = Server((args.host, args.port), Handler)
    server.state = state
    signal.signal(signal.SIGTERM, lambda *_: state.stop.set())
    signal.signal(signal.SIGINT, lambda *_: state.stop.set())
    print(f"PORT {server.server_address[1]}", flush=True)

    thread = threading.Thread(target=server.serve_forever,
                              kwargs={"poll_interval": 0.2}, daemon=True)
    thread.start()
    while not state.stop.wait(0.5):
        pass
    server.shutdown()
    server.server_close()
    if state.log_file:
        with state.lock:
            state.log_file.close()
            state.log_file = None
    return 0


if __name__ == "__main__":
    sys.exit(main())
