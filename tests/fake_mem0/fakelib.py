"""Start and drive tests/fake_mem0/fake_mem0.py from Python tests.

    with FakeMem0(seed=[{"memory": "...", "user_id": "u", "app_id": "a"}]) as mem0:
        env = {"MEM0_BASE_URL": mem0.url, "MEM0_API_KEY": mem0.api_key}
        ...
        assert mem0.searches()[0]["filters"] == ...
        assert mem0.adds()[0]["metadata"]["type"] == "session_summary"

    FakeMem0(backend="selfhosted")   # the open-source REST server's API (X-API-Key, /search)
"""

import http.client
import json
import os
import select
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))

from loopback import StandIn  # noqa: E402

SERVER = os.path.join(HERE, "fake_mem0.py")
SAMPLE_SEED = os.path.join(HERE, "sample_memories.json")


class FakeMem0(StandIn):
    """The fake Mem0 server in its own process, on a free loopback port; requests() and
    reset() ask that process.

    seed: path of a JSON seed file, a list of memory dicts, or None (empty).
    backend: "platform" (Mem0's platform API) or "selfhosted" (the open-source REST server).
    """

    def __init__(self, seed=None, api_key="m0-test-key", latency_ms=0,
                 log_file=None, host="127.0.0.1", startup_timeout=10.0, backend="platform"):
        super().__init__()
        self.host = host
        self.api_key = api_key
        self.backend = backend
        self.returncode = None
        self._seed = seed
        self._latency_ms = latency_ms
        self._log_file = log_file
        self._startup_timeout = startup_timeout
        self._proc = None
        self._tmp_seed = None

    # -- lifecycle -------------------------------------------------------------
    def start(self):
        cmd = [sys.executable, SERVER, "--host", self.host, "--port", "0",
               "--api-key", self.api_key]
        seed = self._seed
        if isinstance(seed, (list, tuple)):
            fd, self._tmp_seed = tempfile.mkstemp(prefix="fake_mem0_seed_", suffix=".json")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(list(seed), fh)
            seed = self._tmp_seed
        if seed is not None:
            cmd += ["--seed", os.fspath(seed)]
        if self._log_file:
            cmd += ["--log", os.fspath(self._log_file)]
        if self._latency_ms:
            cmd += ["--latency-ms", str(self._latency_ms)]
        if self.backend != "platform":
            cmd += ["--backend", self.backend]
        self._proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + self._startup_timeout
        line = b""
        while not line.endswith(b"\n"):
            remaining = deadline - time.monotonic()
            ready, _, _ = select.select([self._proc.stdout], [], [], max(remaining, 0))
            if not ready:
                self.stop()
                raise RuntimeError("fake Mem0 server did not report its port in time")
            byte = os.read(self._proc.stdout.fileno(), 1)
            if not byte:
                self.stop()
                raise RuntimeError(f"fake Mem0 server exited during start-up "
                                   f"(status {self.returncode})")
            line += byte
        text = line.decode().strip()
        if not text.startswith("PORT "):
            self.stop()
            raise RuntimeError(f"unexpected start-up line from fake Mem0: {text!r}")
        self.port = int(text.split()[1])
        return self

    def stop(self):
        proc, self._proc = self._proc, None
        if proc is not None:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            self.returncode = proc.returncode
            proc.stdout.close()
        if self._tmp_seed:
            try:
                os.unlink(self._tmp_seed)
            except OSError:
                pass
            self._tmp_seed = None

    # -- API calls, for the stand-in's own tests --------------------------------------------
    def call(self, method, path, body=None, headers=(), timeout=5):
        """One raw API request with `headers` (a JSON body gets its Content-Type):
        (response, raw body)."""
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        headers = dict(headers)
        if body is not None:
            headers["Content-Type"] = "application/json"
            body = body if isinstance(body, (str, bytes)) else json.dumps(body)
        try:
            conn.request(method, path, body=body, headers=headers)
            resp = conn.getresponse()
            return resp, resp.read()
        finally:
            conn.close()

    # -- control API -------------------------------------------------------------
    def _call(self, method, path, obj=None):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=10)
        try:
            body = None if obj is None else json.dumps(obj)
            headers = {"Content-Type": "application/json"} if body is not None else {}
            conn.request(method, path, body=body, headers=headers)
            resp = conn.getresponse()
            data = json.loads(resp.read() or b"null")
            if resp.status != 200:
                raise RuntimeError(f"{method} {path} -> {resp.status}: {data}")
            return data
        finally:
            conn.close()

    def requests(self):
        """All logged API requests (dicts: ts, method, path, headers, body, endpoint, status)."""
        return self._call("GET", "/_requests")

    def calls(self, endpoint):
        """The logged requests of one endpoint (search, add, list, get, delete, event, ping)."""
        return [r for r in self.requests() if r.get("endpoint") == endpoint]

    def searches(self):
        """Parsed bodies of the logged search requests, oldest first."""
        return [r["body"] for r in self.calls("search")]

    def adds(self):
        """Parsed bodies of the logged add requests, oldest first (failed ones too)."""
        return [r["body"] for r in self.calls("add")]

    def deletes(self):
        """The memory ids of the logged delete requests, oldest first (failed ones too)."""
        return [r["path"].rstrip("/").rsplit("/", 1)[-1] for r in self.calls("delete")]

    def memories(self):
        """The memories stored now (seeded and added), in the order they were stored."""
        return self._call("GET", "/_memories")

    def reset(self):
        """Clear the request log."""
        self._call("POST", "/_reset", {})

    def control(self, **knobs):
        """Replace the fault knobs; control() restores normal behaviour."""
        return self._call("POST", "/_control", knobs)

    def seed(self, memories):
        """Replace the stored memories with a list of memory dicts."""
        return self._call("POST", "/_seed", list(memories))
