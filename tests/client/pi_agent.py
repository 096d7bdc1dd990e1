"""Install a pinned Pi coding agent from npm into a cache directory and find its `pi`.

The npm package `@mariozechner/pi-coding-agent` is a Node program (`bin/pi`); it loads the
extensions of ~/.pi/agent/extensions/ as they are (TypeScript or JavaScript, no build step).

    pi = ensure_pi()
    write_models(home, api.url)                 # a provider of api openai-completions
    proc = run(pi, prompt, cwd, client_env(home, MEM0_BASE_URL=...))
    out = rpc(pi, [{"type": "prompt", "message": "…"}, {"type": "compact"}], cwd, env)

`pi --mode rpc` (docs/rpc.md in the package) reads commands as JSON lines on stdin and writes
their responses and the agent's events as JSON lines on stdout; it exits when stdin ends.
"""

import json
import os
import subprocess
import threading
import time

import npmcache

PACKAGE = "@mariozechner/pi-coding-agent"
# Pinned so the test sees the same client every run; MEM0_PI_VERSION overrides.
PI_VERSION = "0.73.1"
PROVIDER_ID = "mem0fake"
MODEL_ID = "fake-chat-1"

Unavailable = npmcache.Unavailable


def version():
    return os.environ.get("MEM0_PI_VERSION") or PI_VERSION


def cache_dir():
    return npmcache.cache_root("MEM0_PI_DIR", "pi")


def client_env(home, **extra):
    """The whole environment of a `pi` run, built from scratch: HOME, and Pi kept off the
    network (PI_OFFLINE). `extra` adds to it."""
    return npmcache.scratch_env(home, {"TERM": "dumb", "PI_OFFLINE": "1"}, extra)


def write_models(home, api_url):
    """~/.pi/agent/models.json: the stand-in as provider PROVIDER_ID with model MODEL_ID."""
    path = os.path.join(home, ".pi", "agent", "models.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        json.dump({"providers": {PROVIDER_ID: {"baseUrl": api_url + "/v1",
                                               "api": "openai-completions", "apiKey": "sk-test",
                                               "models": [{"id": MODEL_ID, "name": MODEL_ID}]}}},
                  fh, indent=2)


def run(exe, prompt, cwd, env, timeout=120):
    """`pi -p --provider P --model M <prompt>` in cwd; the subprocess.CompletedProcess (text)."""
    return subprocess.run([exe, "-p", "--provider", PROVIDER_ID, "--model", MODEL_ID, prompt],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


class RpcRun:
    """What one `pi --mode rpc` printed: `lines` (its stdout's JSON objects, in order), stderr,
    returncode."""

    def __init__(self, lines, stderr, returncode):
        self.lines, self.stderr, self.returncode = lines, stderr, returncode

    def response(self, request_id):
        return next((m for m in self.lines if m.get("type") == "response"
                     and m.get("id") == request_id), None)

    def types(self):
        return [m.get("type") for m in self.lines]


def rpc(exe, commands, cwd, env, timeout=120):
    """`pi --mode rpc --provider P --model M` in cwd, sent `commands` one at a time: each gets
    the id `c<N>`, and the next is sent after its response (after agent_end too, for a prompt,
    whose response comes at once). Then stdin is closed and Pi's exit awaited. An RpcRun."""
    proc = subprocess.Popen([exe, "--mode", "rpc", "--provider", PROVIDER_ID, "--model", MODEL_ID],
                            cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    lines, stderr = [], []
    seen = threading.Condition()

    def read_stdout():
        for line in proc.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                message = {"type": "not-json", "text": line}
            with seen:
                lines.append(message)
                seen.notify_all()

    readers = [threading.Thread(target=read_stdout, daemon=True),
               threading.Thread(target=lambda: stderr.extend(proc.stderr), daemon=True)]
    for t in readers:
        t.start()
    deadline = time.monotonic() + timeout

    def count(kind):
        return sum(1 for m in lines if m.get("type") == kind)

    def wait_for(done):
        with seen:
            while not done():
                left = deadline - time.monotonic()
                if left <= 0 or proc.poll() is not None:
                    return
                seen.wait(min(left, 0.5))

    try:
        for n, command in enumerate(commands, 1):
            request_id, ends = f"c{n}", count("agent_end")
            proc.stdin.write(json.dumps(dict(command, id=request_id)) + "\n")
            proc.stdin.flush()
            wait_for(lambda: RpcRun(lines, "", None).response(request_id) is not None)
            if command.get("type") == "prompt":
                wait_for(lambda: count("agent_end") > ends)
        proc.stdin.close()
        proc.wait(timeout=max(1, deadline - time.monotonic()))
    except (OSError, subprocess.TimeoutExpired):
        proc.kill()
        proc.wait()
    for t in readers:
        t.join(timeout=5)
    for pipe in (proc.stdout, proc.stderr):
        pipe.close()
    return RpcRun(lines, "".join(stderr), proc.returncode)


def find_pi(prefix, want):
    exe = os.path.join(prefix, "node_modules", ".bin", "pi")
    if not os.access(exe, os.X_OK):
        return None
    try:
        proc = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL, env=client_env(prefix))
    except (OSError, subprocess.SubprocessError):
        return None
    return exe if proc.returncode == 0 and want in proc.stdout + proc.stderr else None


def ensure_pi(log=print):
    """The path of a working `pi` of the pinned version, installed if needed."""
    return npmcache.ensure("Pi", PACKAGE, version(), cache_dir(), find_pi,
                           npm_args=("--loglevel=warn",), log=log)


if __name__ == "__main__":  # manual use: python3 pi_agent.py  -> prints the client's path
    try:
        print(ensure_pi(log=lambda m: None))
    except Unavailable as exc:
        print(f"unavailable: {exc}")
        raise SystemExit(77)
