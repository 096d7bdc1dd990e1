"""A client of `mem0-hooks mcp` for the tests and the benchmark: newline-delimited JSON-RPC
over the server's stdin and stdout (docs/cli.md#mcp)."""

import json
import os
import select
import subprocess
import time


class McpClient:
    """One running `mem0-hooks mcp` in `cwd` with `env`: send lines, read its answers."""

    def __init__(self, bin_dir, env, cwd, stderr=subprocess.PIPE):
        self.proc = subprocess.Popen([os.path.join(bin_dir, "mem0-hooks"), "mcp"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=stderr, env=env, cwd=cwd)
        self.next_id = 0

    def write(self, data):
        self.proc.stdin.write(data if isinstance(data, bytes) else data.encode())
        self.proc.stdin.flush()

    def read(self, timeout=15):
        """The next answer line, parsed; an AssertionError after `timeout` seconds, or when the
        line is not one line."""
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            raise AssertionError(f"no answer within {timeout} s")
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError("the server closed stdout")
        assert line.endswith(b"\n") and line.count(b"\n") == 1, line
        return json.loads(line)

    def timed_request(self, method, params=None):
        """Send one request: (its answer, seconds from writing it to reading the answer)."""
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        start = time.perf_counter()
        self.write(json.dumps(message) + "\n")
        answer = self.read()
        elapsed = time.perf_counter() - start
        assert answer.get("id") == self.next_id, answer
        return answer, elapsed

    def request(self, method, params=None):
        return self.timed_request(method, params)[0]

    def initialize(self, version="2025-06-18", client="mem0-tests"):
        return self.request("initialize", {"protocolVersion": version, "capabilities": {},
                                           "clientInfo": {"name": client, "version": "1"}})

    def call(self, tool, **arguments):
        """The result of a tools/call."""
        answer = self.request("tools/call", {"name": tool, "arguments": arguments})
        assert "result" in answer, answer
        return answer["result"]

    def cpu_seconds(self):
        """User + system CPU time so far (/proc/<pid>/stat)."""
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def peak_rss_kib(self):
        """The peak resident size so far (/proc/<pid>/status VmHWM)."""
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        return 0

    def close(self, timeout=10):
        """Close stdin; the exit status."""
        self.proc.stdin.close()
        status = self.proc.wait(timeout)
        self.proc.stdout.close()
        return status

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                if stream:
                    stream.close()
            except (OSError, ValueError):
                pass
