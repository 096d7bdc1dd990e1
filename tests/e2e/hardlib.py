"""Helpers for the hardening tests: timed runs with peak memory, raw loopback servers, checks.

Python standard library only (plus GNU time for the peak-memory figures, skipped when absent).
"""

import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

from hooklib import BIN_DIR, EXIT_SLACK_S, HookTest, SANITIZED, payload_event
from hookevents import prompt_event, read_event
from loopback import LOOPBACK, StandIn
from runresult import RunResult

TIME_BIN = "/usr/bin/time"
MAX_RSS_KB = 40 * 1024          # peak resident memory allowed for one hook run
DASH = "\u2014"

KEY_REJECTED = f"mem0: recall skipped {DASH} API key rejected"
RATE_LIMITED = f"mem0: recall skipped {DASH} rate limited"


def incomplete(kind, failed=1, planned=1):
    return f"mem0: recall incomplete {DASH} {failed} of {planned} searches failed ({kind})"


def _gnu_time():
    if not os.access(TIME_BIN, os.X_OK):
        return False
    try:
        out = subprocess.run([TIME_BIN, "--version"], capture_output=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return b"GNU" in out.stdout + out.stderr


HAVE_GNU_TIME = _gnu_time()
NO_GNU_TIME = ("GNU time (/usr/bin/time) is not installed: peak memory not measured "
               "(apt-get install -y time)")


# -- measurements, printed once per test module ---------------------------------------------------
MEASUREMENTS = []


def record(case, program, result, budget_ms=None):
    MEASUREMENTS.append((case, program, result.elapsed, result.peak_kb, budget_ms))


def print_measurements(title):
    if not MEASUREMENTS:
        return
    out = [f"\n{title}", f"{'case':34} {'program':15} {'wall ms':>8} {'budget':>7} {'peak RSS':>9}"]
    for case, program, elapsed, peak_kb, budget in MEASUREMENTS:
        rss = f"{peak_kb / 1024:.1f} MB" if peak_kb else "n/a"
        out.append(f"{case:34} {program:15} {elapsed * 1000:8.0f} {budget or '':>7} {rss:>9}")
    print("\n".join(out), file=sys.stderr)


# -- running the executables ----------------------------------------------------------------------
def run_timed(argv, data=b"", env=None, cwd=None, timeout=60, preexec_fn=None):
    """Run argv under GNU time (when present): wall time measured here, peak RSS by time(1)."""
    stats = None
    cmd = list(argv)
    if HAVE_GNU_TIME:
        fd, stats = tempfile.mkstemp(prefix="mem0_rss_")
        os.close(fd)
        cmd = [TIME_BIN, "-f", "%M", "-o", stats] + cmd
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, input=data, capture_output=True, env=env, cwd=cwd,
                              timeout=timeout, preexec_fn=preexec_fn)
        elapsed = time.monotonic() - start
        peak = None
        if stats:
            with open(stats) as f:
                lines = f.read().split()
            peak = int(lines[-1]) if lines and lines[-1].isdigit() else None
    finally:
        if stats:
            os.unlink(stats)
    return RunResult.of(proc, elapsed, peak_kb=peak)


def problem_lines(text):
    """The `mem0: …` lines of a text (recall problems and pauses): what a hook's systemMessage
    holds for the user, and what its additionalContext must not hold."""
    return [line for line in (text or "").split("\n") if line.startswith("mem0:")]


def assert_valid_json_file(test, path):
    with open(path, "rb") as f:
        raw = f.read()
    try:
        obj = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        test.fail(f"{path} is not valid JSON ({exc}): {raw[:200]!r}")
    test.assertIsInstance(obj, dict, path)
    return obj


# -- raw loopback servers -------------------------------------------------------------------------
def read_http_request(conn, timeout=5.0):
    """Read one HTTP/1.1 request (headers + Content-Length body) from conn; b"" on failure."""
    conn.settimeout(timeout)
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return data
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        match = re.search(rb"(?im)^content-length:\s*(\d+)", head)
        length = int(match.group(1)) if match else 0
        while len(body) < length:
            chunk = conn.recv(65536)
            if not chunk:
                break
            body += chunk
        return head + b"\r\n\r\n" + body
    except OSError:
        return data


def http_response(status, body=b"", headers=None, reason="X"):
    lines = [f"HTTP/1.1 {status} {reason}", f"Content-Length: {len(body)}",
             "Connection: close"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


class RawServer(StandIn):
    """A loopback TCP server calling handler(conn, server) per connection in a thread.

    handler None: listen but never accept (connections wait in the backlog).
    Every raw request read with `server.read(conn)` is recorded: requests() lists them (bytes).
    """

    def __init__(self, handler=None):
        super().__init__()
        self.handler = handler
        self.stopped = threading.Event()
        self.sock = None
        self.thread = None

    def start(self):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((LOOPBACK, 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        if self.handler is not None:
            self.thread = threading.Thread(target=self._serve, daemon=True)
            self.thread.start()
        return self

    def _serve(self):
        self.sock.settimeout(0.1)
        while not self.stopped.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn):
        try:
            self.handler(conn, self)
        except OSError:
            pass
        finally:
            conn.close()

    def read(self, conn):
        request = read_http_request(conn)
        self.record(request)
        return request

    def stop(self):
        self.stopped.set()
        if self.thread:
            self.thread.join(2)
        if self.sock:
            self.sock.close()


def answering(status, body=b"", headers=None):
    """A RawServer handler answering every request with one fixed response."""
    def handler(conn, server):
        server.read(conn)
        conn.sendall(http_response(status, body, headers))
    return handler


def closing_at_once(conn, server):
    """A RawServer handler that reads the request and closes without a byte."""
    server.read(conn)


# -- test bases -----------------------------------------------------------------------------------
class HardTest(HookTest):
    """HookTest plus timed runs (wall time and peak memory) of any of the built executables."""

    def hook_payload(self, hook, session="sess-hard", **extra):
        if hook == "on_user_prompt":
            return prompt_event("Why does the stripe webhook handler retry invoices twice?",
                                session_id=session, cwd=self.project, **extra)
        return read_event(self.big_file(), session_id=session, cwd=self.project,
                          tool_use_id="toolu_hard", **extra)

    def big_file(self, rel="src/billing/invoice.py", size=4000):
        path = os.path.join(self.project, rel)
        if not os.path.exists(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write("x" * size)
        return path

    def run_timed_hook(self, hook, payload, env=None, timeout=60):
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        result = run_timed([os.path.join(BIN_DIR, hook)], data,
                           env=env if env is not None else self.env(), cwd=self.project,
                           timeout=timeout)
        self.assertEqual(result.returncode, 0,
                         f"{hook} exited {result.returncode}: {result.stderr[-500:]!r}")
        if result.stdout:
            self.assert_one_json_object(result.stdout, payload_event(payload))
        return result

    def run_timed_cli(self, *args, env=None, timeout=60):
        return run_timed([os.path.join(BIN_DIR, "mem0-hooks"), *args], b"",
                         env=env if env is not None else self.env(), cwd=self.project,
                         timeout=timeout)

    def assert_within_budget(self, result, budget_ms):
        self.assertLessEqual(result.elapsed, budget_ms / 1000 + EXIT_SLACK_S,
                             f"took {result.elapsed * 1000:.0f} ms; budget {budget_ms} ms + "
                             f"{EXIT_SLACK_S * 1000:.0f} ms")

    def assert_bounded_memory(self, result, limit_kb=MAX_RSS_KB):
        """Peak RSS below limit_kb; a skipped sub-test (not a pass) when GNU time is missing or
        the build is sanitized (the sanitizers' own shadow memory dwarfs the limit)."""
        with self.subTest(check="peak RSS"):
            if not HAVE_GNU_TIME:
                self.skipTest(NO_GNU_TIME)
            if SANITIZED:
                self.skipTest("sanitized build: peak RSS is the sanitizer's, not the hook's")
            self.assertIsNotNone(result.peak_kb, "GNU time reported no peak RSS")
            self.assertLess(result.peak_kb, limit_kb,
                            f"peak RSS {result.peak_kb / 1024:.1f} MB >= {limit_kb / 1024:.0f} MB")
