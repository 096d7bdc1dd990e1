#!/usr/bin/env python3
"""The JS hosts' shims (shims/core.js with shims/opencode/mem0.js or shims/pi/mem0.js) under node, with stand-in
executables: what the shim sends, what it applies, and every failure it must absorb.

Each shim is loaded as install writes it (its CONFIG line filled in, here with a directory of
shell scripts standing in for the hooks), and its prompt handler is called as the host calls it
(OpenCode's `chat.message`, Pi's `before_agent_start`). The stand-in executable records its
stdin and arguments, then: prints a context (applied: a synthetic part, a user message); is
missing; exits 3; prints text that is not JSON; or sleeps past the row's deadline. Each failure
must inject nothing, log one `mem0:` line, and let the handler return normally. Pi's shim also
starts the memory tools' server, missing there too: one line more, and the hooks still run.
OpenCode's bus events (`event`, not awaited by OpenCode) carry the session's latest messages,
fetched through a stand-in `ctx.client`, and `dispose` waits for their rows; a fetch that
fails, throws or hangs logs one line and the row still runs.

Exit status: 0 passed, 1 failed, 77 skipped (no node).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import testmain  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DEADLINE_MS = 700

# Calls the shim's prompt handler once; prints {"injected": [...], "threw": bool}.
DRIVER = r"""
const [shim, host] = process.argv.slice(1);
const mod = await import(shim);
let injected = [], threw = false;
try {
  if (host === "opencode") {
    const hooks = await mod.Mem0({ directory: "/work/p", worktree: "/work/p" });
    const output = { message: { id: "msg_1" }, parts: [{ type: "text", text: "why?" }] };
    await hooks["chat.message"]({ sessionID: "ses_1" }, output);
    injected = output.parts.slice(1).filter((p) => p.synthetic).map((p) => p.text);
  } else {
    const handlers = {};
    await mod.default({ on: (n, f) => { (handlers[n] ||= []).push(f); },
                        registerTool: () => {}, registerCommand: () => {} });
    const ctx = { cwd: "/work/p", sessionManager: { getSessionId: () => "u1" } };
    for (const f of handlers.before_agent_start) {
      const r = await f({ type: "before_agent_start", prompt: "why?" }, ctx);
      if (r && r.message) injected.push(r.message.content);
    }
  }
} catch (e) { threw = true; }
console.log(JSON.stringify({ injected, threw }));
"""

EVENTS = {"opencode": "chat.message", "pi": "before_agent_start"}

# OpenCode's bus events as OpenCode sends them: `event` called and not awaited, then `dispose`
# awaited (at exit). ctx.client.session.messages answers as `mode` says. Prints {"calls": [the
# client's arguments], "threw": bool, "seen": whether the stand-in had finished at dispose's
# end}.
BUS_DRIVER = r"""
import fs from "node:fs";
const [shim, mode, done] = process.argv.slice(1);
const mod = await import(shim);
const calls = [];
const messages = (args) => {
  calls.push(args);
  if (mode === "throws") throw new Error("no client here");
  if (mode === "hangs") return new Promise(() => {});
  if (mode === "error") return Promise.resolve({ error: { name: "UnknownError" } });
  return Promise.resolve({ data: [{ info: { role: "assistant" }, parts: [{ type: "text", text: "R" }] }] });
};
let threw = false;
try {
  const hooks = await mod.Mem0({ directory: "/work/p", worktree: "/work/p",
                                 client: { session: { messages } } });
  hooks.event(undefined);
  hooks.event({ event: { type: "message.updated", properties: { sessionID: "ses_1" } } });
  hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_1" } } });
  await hooks.dispose();
} catch (e) { threw = true; }
console.log(JSON.stringify({ calls, threw, seen: fs.existsSync(done) }));
"""


class ShimTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="mem0_shims_")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.bin = os.path.join(self.dir, "bin")
        os.makedirs(self.bin)
        self.seen = os.path.join(self.dir, "seen")

    def stand_in(self, body, name="on_user_prompt"):
        """The hook stand-in: records its arguments and stdin, then runs `body` (sh)."""
        path = os.path.join(self.bin, name)
        with open(path, "w") as fh:
            fh.write(f'#!/bin/sh\necho "$@" > {self.seen}.args\ncat > {self.seen}.stdin\n{body}\n')
        os.chmod(path, 0o755)

    def write_shim(self, host, event, executable):
        """The shim as install writes it, its one row running `executable` at `event`."""
        source = ""
        for part in ("core.js", os.path.join(host, "mem0.js")):  # as install writes them
            with open(os.path.join(REPO, "shims", part), encoding="utf-8") as fh:
                source += fh.read()
        config = {"agent": host, "bin": self.bin, "hooks": [{"event": event, "executable":
                                              executable, "matcher": "",
                                              "timeout_ms": DEADLINE_MS, "once": False}],
                  "commands": {}}
        source, n = re.subn(r"^const CONFIG = .*$", "const CONFIG = " + json.dumps(config) + ";",
                            source, count=1, flags=re.M)
        self.assertEqual(n, 1, "the shim has no CONFIG line")
        shim = os.path.join(self.dir, f"{host}.mjs")
        with open(shim, "w", encoding="utf-8") as fh:
            fh.write(source)
        return shim

    def run_shim(self, host):
        shim = self.write_shim(host, EVENTS[host], "on_user_prompt")
        proc = subprocess.run(["node", "--input-type=module", "-e", DRIVER, shim, host],
                              capture_output=True, text=True, timeout=30, cwd=self.dir)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        result = json.loads(proc.stdout.strip().splitlines()[-1])
        self.assertFalse(result["threw"], "the handler threw into the host")
        logged = [l for l in proc.stderr.splitlines() if l.startswith("mem0: ")]
        # Pi's shim also starts the memory tools' server, which the stand-in directory lacks.
        tools = [l for l in logged if l.startswith("mem0: mem0-hooks mcp:")]
        if host == "pi":
            self.assertEqual(len(tools), 1, logged)
            self.assertIn("ENOENT", tools[0])
        return result["injected"], [l for l in logged if l not in tools]

    def test_context_applied_and_payload_sent(self):
        self.stand_in(r"""printf '{"context":"CTX line"}\n'""")
        for host, fields in (("opencode", {"hook_event_name": "chat.message", "sessionID": "ses_1",
                                           "directory": "/work/p"}),
                             ("pi", {"hook_event_name": "before_agent_start", "sessionId": "u1",
                                     "cwd": "/work/p", "prompt": "why?"})):
            with self.subTest(host=host):
                injected, logged = self.run_shim(host)
                self.assertEqual(injected, ["CTX line"])
                self.assertEqual(logged, [])
                with open(self.seen + ".args") as fh:
                    self.assertEqual(fh.read().split(), ["--agent", host])
                with open(self.seen + ".stdin") as fh:
                    payload = json.load(fh)
                for key, value in fields.items():
                    self.assertEqual(payload.get(key), value, payload)

    def test_failures_inject_nothing_and_log_one_line(self):
        for host in ("opencode", "pi"):
            done = f"{self.seen}.{host}.done"  # the sleeper's, written after the deadline
            cases = [("missing", None, "ENOENT"), ("exit 3", "exit 3", "exit 3"),
                     ("not JSON", "echo 'oops {'", "output is not JSON"),
                     ("deadline", f"sleep 5; touch {done}", f"no answer in {DEADLINE_MS} ms")]
            for name, body, says in cases:
                with self.subTest(host=host, case=name):
                    if body is None:
                        shutil.rmtree(self.bin)
                        os.makedirs(self.bin)
                    else:
                        self.stand_in(body)
                    injected, logged = self.run_shim(host)
                    self.assertEqual(injected, [])
                    self.assertEqual(len(logged), 1, logged)
                    self.assertIn(says, logged[0])
                    # The handler (and node) returned while the stand-in still slept.
                    self.assertFalse(os.path.exists(done))

    def test_opencode_bus_events_carry_messages_and_dispose_waits(self):
        # At session.idle the shim fetches the session's latest messages through OpenCode's
        # client and sends them; OpenCode does not await `event`, so dispose must wait for the
        # row (the stand-in finishes 0.3 s after its start). A failed fetch logs one line and the
        # row still runs, with no messages.
        done = f"{self.seen}.done"
        reply = [{"info": {"role": "assistant"}, "parts": [{"type": "text", "text": "R"}]}]
        cases = [("ok", reply, None), ("error", [], "UnknownError"),
                 ("throws", [], "no client here"), ("hangs", [], "no answer in 3000 ms")]
        for mode, sent, says in cases:
            with self.subTest(mode=mode):
                for path in (done, self.seen + ".stdin"):
                    if os.path.exists(path):
                        os.remove(path)
                self.stand_in(f"sleep 0.3; touch {done}", name="on_stop")
                shim = self.write_shim("opencode", "session.idle", "on_stop")
                proc = subprocess.run(["node", "--input-type=module", "-e", BUS_DRIVER, shim,
                                       mode, done], capture_output=True, text=True, timeout=30,
                                      cwd=self.dir)
                self.assertEqual(proc.returncode, 0, proc.stderr)
                result = json.loads(proc.stdout.strip().splitlines()[-1])
                self.assertFalse(result["threw"], "a handler threw into the host")
                # One fetch, for session.idle only, the last 20 messages of its session.
                self.assertEqual(result["calls"], [{"path": {"id": "ses_1"},
                                                    "query": {"limit": 20}}])
                self.assertTrue(result["seen"], "dispose returned before the row finished")
                with open(self.seen + ".stdin") as fh:
                    payload = json.load(fh)
                self.assertEqual((payload.get("hook_event_name"), payload.get("sessionID"),
                                  payload.get("messages")), ("session.idle", "ses_1", sent))
                logged = [l for l in proc.stderr.splitlines() if l.startswith("mem0: ")]
                self.assertEqual(len(logged), 1 if says else 0, logged)
                if says:
                    self.assertIn(says, logged[0])


if __name__ == "__main__":
    if not shutil.which("node"):
        print("SKIPPED: node is not installed")
        sys.exit(77)
    testmain.main(argv=[sys.argv[0], "-v"])
