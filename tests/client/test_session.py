#!/usr/bin/env python3
"""Real-client session test: a real Claude Code runs a whole session with the whole hook set.

`claude -p` (pinned, see claude_code.py) with `--plugin-dir <checkout>` (all nine rows of
hooks.json) runs in a throw-away git project against two loopback stand-ins:
- a scripted model (ScriptedModel below, on top of fake_anthropic.py): per turn it calls the
  tools of a script in order, one per request, then ends the turn with a final text;
- tests/fake_mem0, seeded with memories that each hook's query finds (and no other's).

test_1  one session: SessionStart -> prompt -> Read -> failing Bash -> final text -> Stop ->
        exit -> SessionEnd. What each hook printed reaches the model, in the place checked
        here; the Stop capture and the CLAUDE.md import reach the fake Mem0; a second
        session's prompt recalls what the first one captured.
test_2  `claude -p` does not wait for Mem0: a later session of the same project, with the add
        endpoint answering after 3 s, takes about as long as with it answering at once.
test_3  (finding A) the guard blocks a Write to Claude Code's own MEMORY.md (a control run
        without our hooks shows that Claude Code would write it).
test_4  (finding B) `updatedInput` without a permission decision, on a stdio MCP server
        named mem0 (fake_mcp.py): the server gets the completed arguments, and the call still
        needs a permission.
test_6  the plugin's own MCP server (its .mcp.json; here fake_mcp.py in its place): Claude Code
        names its tools mcp__plugin_mem0-native-hooks_mem0__<tool>; the guard runs for them and
        leaves the call as the model made it (that server refuses identity arguments).
test_5  (finding C) a headless compaction (`claude -p /compact --resume <id>`) fires
        PostCompact, and the summary is captured.

Where hook context reaches the model (Claude Code 2.1.332, observed and asserted): every
additionalContext goes into the request body's `messages` as a message with role "system"
whose text is "<Event>[:<Tool>] hook additional context: <the hook's text>"; never into the
`system` parameter:
- SessionStart and UserPromptSubmit: one system message right after the first user message
  (the prompt), "SessionStart hook additional context: ..." first, then (after Claude Code's
  own environment text) "UserPromptSubmit hook additional context: ...";
- PreToolUse on Read: "PreToolUse:Read hook additional context: ...", a system message right
  after the user message carrying the Read's tool_result, from the next request on;
- PostToolUseFailure on Bash: "PostToolUseFailure:Bash hook additional context: ...", the same
  right after the failing Bash's tool_result (is_error true).
In the newest request such a message's content is a list of text blocks; in the later
requests that repeat it, a plain string.

Exit status: 0 passed, 1 failed, 77 skipped (npm missing or the registry unreachable).
Set MEM0_CLIENT_KEEP=1 to keep the temporary directories (request dumps, debug logs).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time
import unittest
from datetime import datetime, timezone

import fake_anthropic
from clientlib import (HERE, REPO, claude_or_exit, client_env, hook_outputs, locate, log,
                       plugin_root, read_text, run_tests, scratch_dir)
from fakelib import FakeMem0
from gitrepo import make_repo
from runresult import RunResult
import seeds
from seeds import tag
from waiting import wait_until

FAKE_MCP = os.path.join(HERE, "fake_mcp.py")
CLAUDE = None  # set in main()
RUN_TIMEOUT_S = 120
CAPTURE_WAIT_S = 10.0   # the sender is detached: how long to poll the fake Mem0 for an add
ADD_LATENCY_MS = 3000   # test_2: the add endpoint's delay
MAX_EXTRA_S = 2.0       # test_2: what the slow add may cost `claude -p` at most

HOOKS = ("on_user_prompt", "on_file_read", "on_session_start", "on_tool_guard",
         "on_bash_output", "on_compact", "on_stop", "on_session_end")

USER = "tester"
ORIGIN = "git@github.com:acme/payments-api.git"
PROJECT_ID = "acme-payments-api"  # the slug the hooks derive from ORIGIN
REL = "src/upload.py"
PROMPT = "Why does the nightly ledger import reject some files?"
BASH_COMMAND = "python3 -c \"import sys; raise ValueError('payload too large')\""
ERROR_LINE = "ValueError: payload too large"
FINAL_TEXT = ("Summary of the investigation: uploads bigger than the quarantine threshold are "
              "diverted to the cold bucket, and the retry worker never drains that bucket, so "
              "those imports stall forever.")
PROMPT_2 = ("What did we find about the quarantine threshold, the cold bucket and the retry "
            "worker that never drains it?")
COMPACT_SUMMARY = ("<analysis>The user asked about the ledger import; I read src/upload.py and "
                   "ran a failing check.</analysis>\n\n<summary>1. Primary request: find why "
                   "the nightly ledger import rejects files. 2. Finding: uploads above the "
                   "quarantine threshold go to the cold bucket and are never drained.</summary>")
COMPACT_BODY = "find why the nightly ledger import rejects files"

# Seeded memories. The fake scores a memory by the share of its tokens found in the query
# (hit at >= 0.3), so each text shares a third or more of its tokens with exactly one hook's
# query and none with the others'. Only the two "recent" types (decision, convention) are shown
# by the SessionStart banner, which claims them for the session; the others are found by the
# hooks that follow.
M_DECISION = "d0000001-0000-4000-8000-000000000001"
M_CONVENTION = "d0000002-0000-4000-8000-000000000002"
M_PROMPT = "d0000003-0000-4000-8000-000000000003"    # PROMPT
M_FILE = "d0000004-0000-4000-8000-000000000004"      # "src/upload.py upload.py"
M_ERROR = "d0000005-0000-4000-8000-000000000005"     # ERROR_LINE


memory = seeds.builder(user=USER, project=PROJECT_ID, created="2026-09-01T09:00:00Z")


SEED = [
    memory(M_DECISION, "Money amounts are integer cents in every service", "decision"),
    memory(M_CONVENTION, "Handlers validate request schemas with pydantic", "convention"),
    memory(M_PROMPT, "nightly ledger import runs at 02:00 UTC on the replica", "architecture"),
    memory(M_FILE, "src upload py streams chunks to disk", "architecture"),
    memory(M_ERROR, "ValueError payload too large comes from MAX_BODY_BYTES in the gateway",
           "anti_pattern"),
]


BANNER = f"### mem0: {len(SEED)} memories for {PROJECT_ID} (user {USER}, branch main)"
PROMPT_HEADING = "### Relevant memories (auto-retrieved for this request)"
PROMPT_LINE = ("- [architecture] nightly ledger import runs at 02:00 UTC on the replica "
               f"{tag(M_PROMPT)}")
FILE_HEADER = f"Prior work on `{REL}` \u2014 1 memories found."
ERROR_HEADING = "### Prior errors like this (mem0)"
ERROR_LINE_SHOWN = ("- [anti_pattern] ValueError payload too large comes from MAX_BODY_BYTES in "
                    f"the gateway {tag(M_ERROR)}")
# A file line carries the memory's age: "- [type] (Nmo ago) text [mem0:id8]".
START_LINES = [re.compile(r"- \[decision\] \(\d+(mo|d|h|m) ago\) Money amounts are integer "
                          r"cents in every service " + re.escape(tag(M_DECISION))),
               re.compile(r"- \[convention\] \(\d+(mo|d|h|m) ago\) Handlers validate request "
                          r"schemas with pydantic " + re.escape(tag(M_CONVENTION)))]
FILE_LINE = re.compile(r"- \[architecture\] \(\d+(mo|d|h|m) ago\) src upload py streams chunks "
                       r"to disk " + re.escape(tag(M_FILE)))

CLAUDE_MD = """# Payments API

## Build and test

Run `make build` and then `make test`; the build needs Python 3.11 and GNU make 4.

## Style rules

Keep money in integer cents, never floats, and format amounts only at the edges.
"""
CLAUDE_MD_SECTIONS = [
    "## Build and test\n\nRun `make build` and then `make test`; the build needs Python 3.11 "
    "and GNU make 4.",
    "## Style rules\n\nKeep money in integer cents, never floats, and format amounts only at "
    "the edges.",
]

UPLOAD_PY = '''"""Uploads: accept a file, check its size, hand it to the ledger importer."""

import os

MAX_BODY_BYTES = 10 * 1024 * 1024
QUARANTINE_BYTES = 8 * 1024 * 1024
CHUNK = 64 * 1024


class PayloadTooLarge(ValueError):
    """The body is larger than MAX_BODY_BYTES."""


def check_size(size: int) -> None:
    if size > MAX_BODY_BYTES:
        raise PayloadTooLarge("payload too large")


def destination(size: int) -> str:
    """Where an upload of this size goes: small ones straight to the importer, big ones to the
    cold bucket, which the retry worker drains."""
    return "cold" if size > QUARANTINE_BYTES else "hot"


def stream_to_disk(source, path: str) -> int:
    """Copy an upload to disk in chunks; return the number of bytes written."""
    written = 0
    with open(path, "wb") as out:
        while True:
            block = source.read(CHUNK)
            if not block:
                break
            out.write(block)
            written += len(block)
            check_size(written)
    return written


def accept(source, name: str, spool: str) -> str:
    """Spool an upload and say where it goes next, as "<hot|cold>:<path>"."""
    path = os.path.join(spool, os.path.basename(name))
    size = stream_to_disk(source, path)
    return f"{destination(size)}:{path}"


def pending(spool: str) -> list:
    """The spooled uploads not yet handed to the importer, oldest first."""
    names = [n for n in os.listdir(spool) if not n.startswith(".")]
    return sorted(names, key=lambda n: os.path.getmtime(os.path.join(spool, n)))


def purge(spool: str, keep: int = 100) -> int:
    """Delete all but the newest `keep` spooled uploads; return how many were deleted."""
    names = pending(spool)
    doomed = names[:-keep] if keep else names
    for name in doomed:
        os.unlink(os.path.join(spool, name))
    return len(doomed)


def describe(size: int) -> str:
    """A human-readable size: bytes, KiB or MiB with one decimal."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KiB"
    return f"{size / (1024 * 1024):.1f} MiB"
'''


# -- the scripted model ----------------------------------------------------------------------
COMPACT_MARK = "Your task is to create a detailed summary of the conversation"


def _blocks(msg):
    content = (msg or {}).get("content")
    return content if isinstance(content, list) else []


def is_tool_result_message(msg):
    return any(isinstance(b, dict) and b.get("type") == "tool_result" for b in _blocks(msg))


def tool_results(body):
    """(index of the message, tool_use_id, is_error, text) of every tool_result block."""
    out = []
    for i, msg in enumerate(body.get("messages") or []):
        for block in _blocks(msg):
            if isinstance(block, dict) and block.get("type") == "tool_result":
                inner = block.get("content")
                text = inner if isinstance(inner, str) else json.dumps(inner)
                out.append((i, block.get("tool_use_id"), bool(block.get("is_error")), text))
    return out


class ScriptedModel(fake_anthropic.FakeAnthropic):
    """The Messages API stand-in with a script: `script` is a list of steps, each
    {"tool": name, "input": {...}} or {"text": final text}. In a turn (the messages after the
    last user message that carries no tool_result) the model answers step k when the turn
    holds k tool results, so step 0 answers the prompt and each tool result moves one step on;
    past the end the last step repeats. A compaction request (its last user message asks for
    "a detailed summary of the conversation") gets `compact_summary`; a request offering no
    tools gets a short side text."""

    def __init__(self):
        super().__init__(read_path=None)
        self.script = [{"text": FINAL_TEXT}]
        self.compact_summary = COMPACT_SUMMARY

    def answer(self, body):
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        last_user = fake_anthropic.last_user_message(body)
        if COMPACT_MARK in fake_anthropic._text_of((last_user or {}).get("content")):
            return "compact", [{"type": "text", "text": self.compact_summary}], "end_turn"
        if not body.get("tools"):
            return "side", [{"type": "text", "text": fake_anthropic.SIDE_TEXT}], "end_turn"
        start = 0
        for i, msg in enumerate(messages):
            if msg.get("role") == "user" and not is_tool_result_message(msg):
                start = i
        done = sum(1 for msg in messages[start:] for b in _blocks(msg)
                   if isinstance(b, dict) and b.get("type") == "tool_result")
        step = self.script[min(done, len(self.script) - 1)]
        if "tool" in step:
            return "tool_use", [
                {"type": "text", "text": f"Calling {step['tool']}."},
                {"type": "tool_use", "id": self.next_id("toolu"), "name": step["tool"],
                 "input": step["input"]}], "tool_use"
        return "final", [{"type": "text", "text": step["text"]}], "end_turn"


# -- reading what happened ----------------------------------------------------------------------
def message_index(path):
    """The index of the message a located path is in (None when not in `messages`)."""
    m = re.match(r"body\.messages\[(\d+)\]", path)
    return int(m.group(1)) if m else None


def describe(body, path):
    i = message_index(path)
    if i is None:
        return path[len("body."):]
    rest = path[len(f"body.messages[{i}]"):]
    return f"messages[{i}] (role {body['messages'][i].get('role')}){rest}"


def context_of(debug, event):
    """The additionalContext our hook printed for `event` (the last one), or None."""
    found = None
    for obj in hook_outputs(debug):
        specific = obj.get("hookSpecificOutput") or {}
        if specific.get("hookEventName") == event and specific.get("additionalContext"):
            found = specific["additionalContext"]
    return found


def hook_runs(debug, durations=False):
    """(event[:matcher], executable, status) of each hook run the debug log reports, in order;
    with durations, a fourth item: the run's milliseconds (None when not logged)."""
    pattern = re.compile(r"Hooks: (\S+) \[(.*?)\] \(plugin [^)]*\) finished with status (\d+) "
                         r"\((\d+)ms\)|\] (SessionEnd:\S+|PostCompact:\S+) \[(.*?)\] completed "
                         r"with status (\d+)")
    runs = []
    for m in pattern.finditer(debug):
        if m.group(1):
            run = (m.group(1), os.path.basename(m.group(2)), int(m.group(3)), int(m.group(4)))
        else:
            run = (m.group(5), os.path.basename(m.group(6)), int(m.group(7)), None)
        runs.append(run if durations else run[:3])
    return runs


class Run(RunResult):
    """One `claude -p` run and everything it left behind."""

    def __init__(self, label, proc, elapsed, api, world, debug_log):
        super().__init__(proc.returncode, proc.stdout, proc.stderr, elapsed)
        self.label = label
        self.requests = api.requests()
        self.bodies = [r["body"] for r in api.messages()]
        self.kinds = [r["reply"] for r in api.messages()]
        self.debug = read_text(debug_log)
        self.hooks_log = read_text(os.path.join(world.home, ".mem0", "hooks.log"))
        try:
            self.result = json.loads(proc.stdout)
        except ValueError:
            self.result = None

    @property
    def session_id(self):
        return (self.result or {}).get("session_id")

    def summary(self):
        lines = [f"[{self.label}] claude exit {self.returncode} in {self.elapsed:.2f} s",
                 f"stdout: {self.stdout[-1500:]}", f"stderr: {self.stderr[-1500:]}",
                 f"model requests: {self.kinds}",
                 "hook runs: " + ", ".join(f"{e} {x} -> {s}" for e, x, s in hook_runs(self.debug)),
                 "hooks.log:\n    " + "\n    ".join(self.hooks_log.splitlines()[-40:])]
        return "\n".join(lines)


class World:
    """A HOME and a project (a git repo with CLAUDE.md and src/upload.py) under `root`."""

    def __init__(self, root):
        self.home = os.path.join(root, "home")
        self.project = os.path.join(root, "project")
        os.makedirs(self.home)
        os.makedirs(os.path.join(self.project, "src"))
        make_repo(self.project, origin=ORIGIN)
        with open(os.path.join(self.project, "CLAUDE.md"), "w", encoding="utf-8") as fh:
            fh.write(CLAUDE_MD)
        self.sample = os.path.join(self.project, REL)
        with open(self.sample, "w", encoding="utf-8") as fh:
            fh.write(UPLOAD_PY)
        assert os.path.getsize(self.sample) >= 2048  # the Read hook skips files under 1,500 bytes

    def auto_memory_file(self):
        """Claude Code's own auto-memory file for this project: ~/.claude/projects/<the project
        path, each character other than A-Z, a-z, 0-9 replaced by '-'>/memory/MEMORY.md"""
        slug = re.sub(r"[^A-Za-z0-9]", "-", os.path.realpath(self.project))
        return os.path.join(self.home, ".claude", "projects", slug, "memory", "MEMORY.md")


# -- the tests ---------------------------------------------------------------------------------
class SessionHarness:
    """What a real-client session test sets up (the stand-ins, the plugin) and runs (`claude -p`
    in a world); shared with test_memory_tools.py."""
    maxDiff = None

    def setUp(self):
        self.scratch = scratch_dir(self, "mem0_session_")
        self.mem0 = FakeMem0(seed=SEED).start()
        self.addCleanup(self.mem0.stop)
        self.api = ScriptedModel().start()
        self.addCleanup(self.api.stop)
        self.plugin = plugin_root(self.scratch)

    def world(self, name):
        return World(os.path.join(self.scratch, name))

    def env(self, world, **extra):
        # MEM0_DEBUG: the hooks log to ~/.mem0/hooks.log
        return client_env(world.home, self.api.url, self.mem0.url, USER,
                          **{"MEM0_API_KEY": self.mem0.api_key, "MEM0_DEBUG": "1", **extra})

    def claude(self, world, label, prompt, *extra, plugin=True, env=None):
        """Run `claude -p prompt` in the world's project; the model requests, hook runs and logs
        of this run only (the stand-in's log is cleared first)."""
        self.api.reset()
        debug_log = os.path.join(self.scratch, f"debug-{label}.log")
        cmd = [CLAUDE, "-p", prompt, "--output-format", "json", "--debug-file", debug_log]
        if plugin:
            cmd += ["--plugin-dir", self.plugin]
        cmd += list(extra)
        start = time.monotonic()
        try:
            proc = subprocess.run(cmd, cwd=world.project, env=self.env(world, **(env or {})),
                                  capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as exc:
            self.fail(f"[{label}] claude did not finish in {RUN_TIMEOUT_S} s; "
                      f"stderr: {exc.stderr}")
        run = Run(label, proc, time.monotonic() - start, self.api, world, debug_log)
        if os.environ.get("MEM0_CLIENT_KEEP"):
            with open(os.path.join(self.scratch, f"requests-{label}.json"), "w") as fh:
                json.dump(run.requests, fh, indent=1)
        log(f"    [{label}] claude -p exited {run.returncode} after {run.elapsed:.2f} s; "
            f"model requests: {', '.join(run.kinds)}")
        self.assertEqual(run.returncode, 0, run.summary())
        self.assertIsInstance(run.result, dict, run.summary())
        self.assertFalse(run.result.get("is_error"), run.summary())
        return run

    def wait_for_adds(self, want, timeout=CAPTURE_WAIT_S):
        """Poll the fake Mem0 until want(adds) is true; return (adds, seconds waited)."""
        start = time.monotonic()
        while True:
            adds = self.mem0.adds()
            if want(adds) or time.monotonic() - start > timeout:
                return adds, time.monotonic() - start
            time.sleep(0.1)


class SessionTest(SessionHarness, unittest.TestCase):
    # -- assertions shared by the tests ----------------------------------------------------------
    def assert_context(self, run, label, context, k, follows):
        """The hook's whole additionalContext reached the model in request k (0-based) as
        "<label> hook additional context: <context>", inside a message with role "system" that
        directly follows the message for which follows(message) is true; never in the `system`
        parameter. Returns the index of that message."""
        body = run.bodies[k]
        needle = f"{label} hook additional context: {context}"
        paths = locate(body, needle)
        self.assertTrue(paths, f"{label} context not in model request {k + 1}\n{run.summary()}")
        indexes = {message_index(p) for p in paths}
        self.assertEqual(len(indexes), 1, f"{label} context in several places: {paths}")
        i = indexes.pop()
        self.assertIsNotNone(i, f"{label} context outside `messages`: {paths}")
        where = describe(body, paths[0])
        self.assertEqual(body["messages"][i]["role"], "system", where)
        self.assertTrue(follows(body["messages"][i - 1]),
                        f"{where} does not follow the expected message: "
                        f"{json.dumps(body['messages'][i - 1])[:500]}")
        self.assertFalse(locate(body.get("system"), context),
                         f"{label} context also in the `system` parameter")
        log(f"    {label} context ({len(context)} bytes) in model request {k + 1} at {where}, "
            f"as \"{label} hook additional context: ...\"")
        return i

    def first_request_with_result(self, run, tool_use_id):
        """The index of the first model request that carries the tool_result of tool_use_id."""
        for k, body in enumerate(run.bodies):
            if any(tid == tool_use_id for _, tid, _, _ in tool_results(body)):
                return k
        self.fail(f"no model request carries the result of {tool_use_id}\n{run.summary()}")

    def tool_use_ids(self, run, name):
        """The ids of the model's tool_use blocks calling `name`, in order."""
        ids = []
        for msg in (run.bodies[-1].get("messages") or []):
            for block in _blocks(msg):
                if isinstance(block, dict) and block.get("type") == "tool_use" \
                        and block.get("name") == name:
                    ids.append(block["id"])
        return ids

    # -- test 1 ----------------------------------------------------------------------------------
    def test_1_full_session(self):
        """SessionStart -> prompt -> Read -> failing Bash -> final text -> Stop -> SessionEnd."""
        world = self.world("w1")
        self.api.script = [
            {"tool": "Read", "input": {"file_path": world.sample}},
            {"tool": "Bash", "input": {"command": BASH_COMMAND,
                                       "description": "Reproduce the upload size error"}},
            {"text": FINAL_TEXT},
        ]
        run = self.claude(world, "session1", PROMPT, "--allowedTools", "Bash")
        info = run.summary()
        self.assertEqual(run.kinds, ["tool_use", "tool_use", "final"], info)
        self.assertEqual(run.result.get("result"), FINAL_TEXT, info)
        self.assertEqual(run.result.get("permission_denials"), [], info)

        # The hook runs, in order, with their events (Claude Code's debug log).
        runs = hook_runs(run.debug)
        order = [(event, exe) for event, exe, _ in runs]
        log("    hook runs: " + ", ".join(f"{e} {x} -> {s}" for e, x, s in runs))
        expected = [("SessionStart:startup", "on_session_start"),
                    ("UserPromptSubmit", "on_user_prompt"),
                    ("PreToolUse:Read", "on_file_read"),
                    ("PostToolUseFailure:Bash", "on_bash_output"),
                    ("Stop", "on_stop"),
                    ("SessionEnd:other", "on_session_end")]
        self.assertEqual(order, expected, info)
        self.assertTrue(all(status == 0 for _, _, status in runs), info)
        self.assertNotIn("PostToolUse:Bash", run.debug, "the failing Bash also fired PostToolUse")

        first = run.bodies[0]

        def is_prompt(msg):
            return msg.get("role") == "user" and PROMPT in json.dumps(msg.get("content"))

        # 1. The SessionStart banner and its memory lines: in the first request, a role-"system"
        #    message right after the prompt's user message.
        start = context_of(run.debug, "SessionStart")
        self.assertTrue(start, f"no SessionStart output\n{info}")
        self.assertTrue(start.startswith(BANNER + "\n\n"), start)
        for pattern in START_LINES:
            self.assertRegex(start, pattern)
        self.assertEqual(start.count("[mem0:"), 2, start)
        i_start = self.assert_context(run, "SessionStart", start, 0, is_prompt)

        # 2. The prompt hook's memory lines (the banner's memories are not repeated): the same
        #    system message, a later paragraph.
        prompt = context_of(run.debug, "UserPromptSubmit")
        self.assertTrue(prompt, f"no UserPromptSubmit output\n{info}")
        self.assertTrue(prompt.startswith(PROMPT_HEADING + "\n\n" + PROMPT_LINE + "\n"), prompt)
        self.assertEqual(prompt.count("[mem0:"), 1, prompt)
        i_prompt = self.assert_context(run, "UserPromptSubmit", prompt, 0, is_prompt)
        self.assertEqual(i_start, i_prompt, "the two contexts are in different messages")
        system_text = json.dumps(first["messages"][i_start]["content"])
        self.assertLess(system_text.index("SessionStart hook additional context: "),
                        system_text.index("UserPromptSubmit hook additional context: "))
        # Each request repeats the conversation: the same message is in the later requests.
        for k in range(1, len(run.bodies)):
            self.assertEqual(json.dumps(run.bodies[k]["messages"][i_start]["content"]).count(
                "hook additional context: "), 2)

        # 3. The Read hook's "Prior work on" block: a role-"system" message right after the
        #    user message carrying the Read's tool_result, from the request that carries it on.
        file_ctx = context_of(run.debug, "PreToolUse")
        self.assertTrue(file_ctx, f"no PreToolUse output\n{info}")
        self.assertTrue(file_ctx.startswith(FILE_HEADER + "\n"), file_ctx)
        self.assertRegex(file_ctx, FILE_LINE)
        [read_id] = self.tool_use_ids(run, "Read")
        k_read = self.first_request_with_result(run, read_id)
        self.assertEqual(k_read, 1, info)
        for k in range(k_read):
            self.assertFalse(locate(run.bodies[k], file_ctx), f"request {k + 1}")
        self.assert_context(run, "PreToolUse:Read", file_ctx, k_read,
                            lambda msg: any(b.get("tool_use_id") == read_id
                                            for b in _blocks(msg) if isinstance(b, dict)))

        # 4. The Bash hook's block, after the failing command (it ran on PostToolUseFailure, see
        #    the hook runs above): a role-"system" message right after the tool_result.
        bash_ctx = context_of(run.debug, "PostToolUseFailure")
        self.assertTrue(bash_ctx, f"no PostToolUseFailure output\n{info}")
        self.assertEqual(bash_ctx, ERROR_HEADING + "\n\n" + ERROR_LINE_SHOWN)
        [bash_id] = self.tool_use_ids(run, "Bash")
        k_bash = self.first_request_with_result(run, bash_id)
        self.assertEqual(k_bash, 2, info)
        for k in range(k_bash):
            self.assertFalse(locate(run.bodies[k], ERROR_HEADING), f"request {k + 1}")
        bash_result = [r for r in tool_results(run.bodies[k_bash]) if r[1] == bash_id][0]
        self.assertTrue(bash_result[2], "the Bash tool_result is not an error")
        self.assertIn("Traceback (most recent call last)", bash_result[3])
        self.assertIn(ERROR_LINE, bash_result[3])
        self.assert_context(run, "PostToolUseFailure:Bash", bash_ctx, k_bash,
                            lambda msg: any(b.get("tool_use_id") == bash_id
                                            for b in _blocks(msg) if isinstance(b, dict)))
        searches = self.mem0.searches()
        self.assertEqual([s.get("query") for s in searches],
                         [PROMPT, f"{REL} {os.path.basename(REL)}", ERROR_LINE])
        log(f"    mem0 searches: {[s.get('query') for s in searches]}")

        # 5. The captures: the Stop summary and the CLAUDE.md import (the sender is detached).
        def complete(adds):
            types = [(a.get("metadata") or {}).get("type") for a in adds]
            return types.count("session_summary") >= 1 and types.count("project_profile") >= 2

        adds, waited = self.wait_for_adds(complete)
        log(f"    {len(adds)} add(s) at the fake Mem0 {waited:.1f} s after claude exited: "
            + ", ".join((a.get("metadata") or {}).get("type", "?") for a in adds))
        self.assertTrue(complete(adds), f"captures missing after {CAPTURE_WAIT_S} s: "
                        f"{json.dumps(adds)[:3000]}\n{info}")
        self.check_adds(adds, run.session_id)

        # 7. A second session in the same project recalls what the first captured.
        self.api.script = [{"text": "The cold bucket is never drained by the retry worker."}]
        run2 = self.claude(world, "session2", PROMPT_2)
        self.assertNotEqual(run2.session_id, run.session_id)
        summary_id = next(m["id"] for m in self.mem0.memories()
                          if (m.get("metadata") or {}).get("type") == "session_summary")
        recalled = f"- [session_summary] {FINAL_TEXT} {tag(summary_id)}"
        context2 = context_of(run2.debug, "UserPromptSubmit")
        self.assertIn(recalled, (context2 or "").splitlines(), run2.summary())
        self.assert_context(run2, "UserPromptSubmit", context2, 0,
                            lambda msg: PROMPT_2 in json.dumps(msg.get("content")))
        log(f"    session 2 recalled the first session's capture: {recalled[:70]}...")

    def check_adds(self, adds, session_id):
        for add in adds:
            # Team memory, on by default (docs/capture.md#team-memory): 0.3's add fields.
            self.assertEqual(add.get("run_id"), (add.get("metadata") or {}).get("session_id"),
                             json.dumps(add))
            self.assertTrue(add.get("agent_id", "").startswith(f"{PROJECT_ID}-"),
                            json.dumps(add))
            self.assertEqual((add.get("user_id"), add.get("app_id")), (USER, PROJECT_ID))
        summaries = [a for a in adds if (a.get("metadata") or {}).get("type") == "session_summary"]
        self.assertEqual(len(summaries), 1, json.dumps(summaries))
        stop = summaries[0]
        self.assertEqual(stop["messages"], [{"role": "assistant", "content": FINAL_TEXT}])
        self.assertIs(stop.get("infer"), True)
        self.assertEqual(stop["metadata"].get("source"), "stop")
        self.assertEqual(stop["metadata"].get("session_id"), session_id)
        imports = [a for a in adds if (a.get("metadata") or {}).get("type") == "project_profile"]
        self.assertEqual(len(imports), 2, json.dumps(imports))
        # Sent four at a time in parallel: the order of arrival varies.
        self.assertEqual(sorted(json.dumps(a["messages"]) for a in imports),
                         sorted(json.dumps([{"role": "user", "content": s}])
                                for s in CLAUDE_MD_SECTIONS))
        for add in imports:
            self.assertIs(add.get("infer"), False)
            self.assertEqual(add["metadata"].get("file"), "CLAUDE.md")
            self.assertEqual(add["metadata"].get("source"), "auto-import")
        log("    captured: session_summary (role assistant, the final text, infer true), "
            "2 x project_profile from CLAUDE.md (infer false); no run_id")

    # -- test 2 ----------------------------------------------------------------------------------
    def test_2_stop_does_not_wait_for_mem0(self):
        """With every add answered after 3 s, `claude -p` takes about as long as without: the
        Stop capture goes out from the detached sender, after Claude Code has exited."""
        world = self.world("timing")
        hooks_log = os.path.join(world.home, ".mem0", "hooks.log")

        def session(label, final):
            self.api.script = [
                {"tool": "Read", "input": {"file_path": world.sample}},
                {"tool": "Bash", "input": {"command": BASH_COMMAND, "description": "Reproduce"}},
                {"text": final}]
            return self.claude(world, label, PROMPT, "--allowedTools", "Bash")

        def stop_delivery():
            """(hook, time) of the sender that delivered the last Stop capture, from the hooks'
            log; None while it has not. Mostly the Stop hook's own sender; under load the
            SessionEnd hook's may take the lock first, and then the Stop's exits at once."""
            lines = read_text(hooks_log).splitlines()
            started = max(i for i, line in enumerate(lines)
                          if " on_stop debug starting the sender" in line)
            for line in lines[started + 1:]:
                m = re.match(r"(\S+) (on_stop|on_session_end) debug sender: 1 delivered", line)
                if m:
                    stamp = datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%fZ")
                    return m.group(2), stamp.replace(tzinfo=timezone.utc).timestamp()
            return None

        def measured(label, slow):
            """One session; (run, its Stop capture's arrival and delivery from the exit, s).
            Returns once the capture was delivered, so no sender outlives the measurement."""
            final = FINAL_TEXT.replace("Summary of the investigation", f"Look {label}")
            if slow:
                self.mem0.control(latency_ms=ADD_LATENCY_MS, only_endpoint="add")
            else:
                self.mem0.control()
            self.mem0.reset()
            run = session(label, final)
            exited = time.time()
            adds, _ = self.wait_for_adds(lambda adds: any(
                a.get("messages") == [{"role": "assistant", "content": final}] for a in adds))
            self.assertEqual(len(adds), 1, f"the Stop capture did not arrive\n{run.summary()}")
            arrived = self.mem0.calls("add")[0]["ts"] - exited
            done = wait_until(stop_delivery, CAPTURE_WAIT_S, 0.1)
            self.assertIsNotNone(done, "no sender reported the delivery\n" + run.summary())
            return run, arrived, done[1] - exited, done[0]

        # The first session loads the binaries and imports CLAUDE.md. In the measured ones (the
        # same project, the import done) the only add is the Stop capture, sent by the sender
        # the Stop hook starts. Each kind runs twice, alternating; the faster run counts.
        session("warmup", FINAL_TEXT)
        self.wait_for_adds(lambda adds: len(adds) >= 3)
        results = {False: [], True: []}
        for label, slow in (("fast-1", False), ("slow-1", True), ("fast-2", False),
                            ("slow-2", True)):
            results[slow].append(measured(label, slow))
        fast = min(r[0].elapsed for r in results[False])
        slow = min(r[0].elapsed for r in results[True])
        for kind, label in ((False, "at once"), (True, f"after {ADD_LATENCY_MS} ms")):
            for run, arrived, delivered, sender in results[kind]:
                log(f"    [{run.label}] adds answered {label}: claude -p {run.elapsed:.2f} s; "
                    f"the Stop capture reached the fake {arrived:+.2f} s and {sender}'s sender "
                    f"logged its delivery {delivered:+.2f} s from claude's exit; hook durations: "
                    + ", ".join(f"{e} {ms} ms" for e, _, _, ms in
                                hook_runs(run.debug, durations=True) if ms is not None))
        log(f"    claude -p, best of 2: {fast:.2f} s with adds answered at once, {slow:.2f} s "
            f"with adds answered after {ADD_LATENCY_MS} ms: {slow - fast:+.2f} s")
        self.assertLess(slow - fast, MAX_EXTRA_S, "claude -p waited for Mem0")
        for run, arrived, delivered, _ in results[True]:
            # The sender got its answer ~3 s after the add arrived, long after claude exited.
            self.assertGreater(delivered - arrived, ADD_LATENCY_MS / 1000 - 0.5, run.label)
            self.assertGreater(delivered, 2.0, run.label)
            self.assertEqual([(e, x) for e, x, _ in hook_runs(run.debug)],
                             [("SessionStart:startup", "on_session_start"),
                              ("UserPromptSubmit", "on_user_prompt"),
                              ("PreToolUse:Read", "on_file_read"),
                              ("PostToolUseFailure:Bash", "on_bash_output"),
                              ("Stop", "on_stop"), ("SessionEnd:other", "on_session_end")])

    # -- test 3 (finding A) ------------------------------------------------------------------------
    def test_3_guard_blocks_native_memory_write(self):
        """A Write to Claude Code's own MEMORY.md: without our hooks Claude Code writes it
        (its auto-memory directory needs no permission); with them the guard exits 2, the file
        stays unwritten, and the model reads the block message in the tool result."""
        note = "- uploads above the quarantine threshold go to the cold bucket\n"
        prompt = "Remember for later that big uploads go to the cold bucket"

        control = self.world("guard-control")
        target = control.auto_memory_file()
        self.api.script = [{"tool": "Write", "input": {"file_path": target, "content": note}},
                           {"text": "Noted in memory."}]
        run = self.claude(control, "guard-control", prompt, plugin=False)
        self.assertTrue(os.path.isfile(target), "control: Claude Code did not write its own "
                        "MEMORY.md without our hooks\n" + run.summary())
        log(f"    control (no hooks): Claude Code wrote {target.replace(control.home, '~')}")

        world = self.world("guard")
        cases = [("guard-automem", world.auto_memory_file(), [], None),
                 # The brief's path, with every permission check off: only the hook stops it.
                 ("guard-bypass",
                  os.path.join(world.home, ".claude", "projects", "x", "memory", "MEMORY.md"),
                  ["--dangerously-skip-permissions"], {"IS_SANDBOX": "1"})]
        for label, path, extra, env in cases:
            self.api.script = [{"tool": "Write", "input": {"file_path": path, "content": note}},
                               {"text": "Noted in memory."}]
            run = self.claude(world, label, prompt, *extra, env=env)
            info = run.summary()
            self.assertFalse(os.path.exists(path), f"{path} was written\n{info}")
            self.assertIn(("PreToolUse:Write", "on_tool_guard", 2), hook_runs(run.debug), info)
            self.assertEqual(len(run.bodies), 2, info)
            results = tool_results(run.bodies[1])
            self.assertEqual(len(results), 1, info)
            _, _, is_error, text = results[0]
            self.assertTrue(is_error, text)
            self.assertIn(f"Blocked: {path} is Claude Code's own memory", text)
            self.assertIn("keeps its memories in Mem0", text)
            self.assertIn("add_memory", text)
            self.assertIn(f"blocked a write to {path}", run.hooks_log)
            denied = [d.get("tool_name") for d in run.result.get("permission_denials") or []]
            log(f"    [{label}] hook exit 2, file not written, tool_result (is_error) to the "
                f"model: {text.splitlines()[0][:90]}...; permission_denials: {denied}")

    # -- test 4 (finding B) ------------------------------------------------------------------------
    def test_4_mcp_updated_input_without_permission_decision(self):
        """on_tool_guard completes an mcp__mem0__add_memory call with `updatedInput` and no
        permissionDecision. Observed with Claude Code 2.1.332: the input IS replaced (the MCP
        server receives user_id, app_id and metadata), and the call is still subject to the
        permission check (without --allowedTools it is denied: no implicit approval)."""
        world = self.world("mcp")
        record = os.path.join(self.scratch, "mcp-calls.jsonl")
        config = {"mcpServers": {"mem0": {"type": "stdio", "command": sys.executable,
                                          "args": [FAKE_MCP, record]}}}
        text = "Uploads above the quarantine threshold must go through the chunked endpoint"
        self.api.script = [{"tool": "mcp__mem0__add_memory", "input": {"text": text}},
                           {"text": "Stored it in Mem0."}]
        mcp = ["--mcp-config", json.dumps(config), "--strict-mcp-config"]
        run = self.claude(world, "mcp", "Please store this upload rule in mem0 for me",
                          *mcp, "--allowedTools", "mcp__mem0__add_memory")
        info = run.summary()
        if "MCP server \"mem0\": Successfully connected" not in run.debug:
            self.skipTest("the stdio MCP server could not be loaded:\n" + "\n".join(
                line for line in run.debug.splitlines() if "MCP" in line)[-3000:])
        hook_out = [o["hookSpecificOutput"] for o in hook_outputs(run.debug)
                    if (o.get("hookSpecificOutput") or {}).get("updatedInput")]
        self.assertEqual(len(hook_out), 1, info)
        self.assertNotIn("permissionDecision", hook_out[0])
        calls = [json.loads(line) for line in read_text(record).splitlines()]
        self.assertEqual(len(calls), 1, info)
        received = calls[0]["arguments"]
        log(f"    guard answered updatedInput (no permissionDecision); the MCP server received "
            f"{json.dumps(received)}")
        # The behaviour we rely on: Claude Code applies updatedInput without a decision.
        self.assertEqual(received, {"text": text, "user_id": USER, "app_id": PROJECT_ID,
                                    "metadata": {"type": "task_learning", "source": "mcp",
                                                 "session_id": run.session_id}})
        self.assertIn("modified tool input keys: [text, user_id, app_id, metadata]", run.debug)
        self.assertEqual(run.result.get("permission_denials"), [], info)

        # And updatedInput is not an approval: without --allowedTools the call is denied.
        os.unlink(record)
        run = self.claude(world, "mcp-not-allowed", "Please store this upload rule in mem0 now",
                          *mcp)
        denied = run.result.get("permission_denials") or []
        self.assertEqual([d.get("tool_name") for d in denied], ["mcp__mem0__add_memory"],
                         run.summary())
        self.assertFalse(os.path.exists(record), "the MCP tool ran without permission")
        log(f"    without --allowedTools: denied by Claude Code (permission_denials input: "
            f"{sorted(denied[0].get('tool_input', {}))}), the server got no call")

    # -- test 5 (finding C) ------------------------------------------------------------------------
    def test_5_compact_is_captured(self):
        """`claude -p /compact --resume <session>`: the model's summary reaches PostCompact and
        is captured as compact_summary."""
        world = self.world("compact")
        self.api.script = [{"tool": "Read", "input": {"file_path": world.sample}},
                           {"text": FINAL_TEXT}]
        first = self.claude(world, "before-compact", PROMPT)
        self.wait_for_adds(lambda adds: any((a.get("metadata") or {}).get("type") ==
                                            "session_summary" for a in adds))
        self.mem0.reset()
        run = self.claude(world, "compact", "/compact", "--resume", first.session_id)
        info = run.summary()
        self.assertEqual(run.kinds, ["compact"], info)  # one model call: the summary request
        self.assertEqual(run.session_id, first.session_id, info)
        runs = hook_runs(run.debug)
        log("    hook runs: " + ", ".join(f"{e} {x} -> {s}" for e, x, s in runs))
        # The slash command is no prompt (no UserPromptSubmit) and ends no turn (no Stop);
        # SessionStart:compact runs before PostCompact.
        self.assertEqual(runs, [("SessionStart:resume", "on_session_start", 0),
                                ("SessionStart:compact", "on_session_start", 0),
                                ("PostCompact:manual", "on_compact", 0),
                                ("SessionEnd:other", "on_session_end", 0)], info)
        types = sorted({t for search in self.mem0.searches()
                        for t in re.findall(r'"type": "(\w+)"', json.dumps(search.get("filters")))})
        log(f"    SessionStart resume/compact searched metadata.type {types}; the session_summary "
            f"of the first session is not among them")

        def captured(adds):
            return [a for a in adds if (a.get("metadata") or {}).get("type") == "compact_summary"]

        adds, waited = self.wait_for_adds(captured)
        found = captured(adds)
        self.assertEqual(len(found), 1, f"no compact_summary add after {waited:.1f} s\n{info}")
        add = found[0]
        self.assertEqual(add.get("run_id"), first.session_id)
        self.assertEqual(add["metadata"].get("source"), "compact")
        self.assertEqual(add["metadata"].get("session_id"), first.session_id)
        content = add["messages"][0]["content"]
        self.assertEqual(add["messages"][0]["role"], "assistant")
        self.assertIn(COMPACT_BODY, content)
        log(f"    compact_summary captured {waited:.1f} s after exit: {content[:100]!r}...")
        if "<analysis>" in content:
            log("    NOTE: the capture holds the model's <analysis> scratchpad and the <summary> "
                "tags verbatim (Claude Code passes compact_summary raw)")

    # -- test 6 ------------------------------------------------------------------------------------
    def test_6_plugin_server_calls_are_left_alone(self):
        """A call of the plugin's own server gets no updatedInput (docs/hooks.md#tool-guard)."""
        world = self.world("own-mcp")
        record = os.path.join(self.scratch, "own-mcp-calls.jsonl")
        plugin = os.path.join(self.scratch, "plugin-own-mcp")
        os.makedirs(os.path.join(plugin, ".claude-plugin"))
        shutil.copy(os.path.join(REPO, ".claude-plugin", "plugin.json"),
                    os.path.join(plugin, ".claude-plugin", "plugin.json"))
        shutil.copy(os.path.join(REPO, "hooks.json"), os.path.join(plugin, "hooks.json"))
        os.makedirs(os.path.join(plugin, "build"))
        os.symlink(os.path.join(self.plugin, "build", "bin"), os.path.join(plugin, "build", "bin"))
        with open(os.path.join(plugin, ".mcp.json"), "w", encoding="utf-8") as fh:
            json.dump({"mcpServers": {"mem0": {"command": sys.executable,
                                               "args": [FAKE_MCP, record]}}}, fh)
        tool = "mcp__plugin_mem0-native-hooks_mem0__add_memory"
        text = "The nightly import retries each file three times"
        self.api.script = [{"tool": tool, "input": {"text": text}}, {"text": "Stored."}]
        self.plugin, saved = plugin, self.plugin
        try:
            run = self.claude(world, "own-mcp", "Remember the retry rule", "--allowedTools", tool)
        finally:
            self.plugin = saved
        info = run.summary()
        calls = [json.loads(line) for line in read_text(record).splitlines()]
        self.assertEqual(calls, [{"name": "add_memory", "arguments": {"text": text}}], info)
        self.assertIn((f"PreToolUse:{tool}", "on_tool_guard", 0), hook_runs(run.debug), info)
        self.assertFalse([o for o in hook_outputs(run.debug)
                          if (o.get("hookSpecificOutput") or {}).get("updatedInput")], info)
        log(f"    {tool}: the guard ran, printed nothing; the server got {calls[0]['arguments']}")


def main():
    global CLAUDE
    CLAUDE = claude_or_exit(HOOKS)
    return run_tests()


if __name__ == "__main__":
    sys.exit(main())
