#!/usr/bin/env python3
"""Real-client end-to-end test: a real Claude Code runs the built hooks.

Claude Code (pinned, installed from npm into a cache dir, see claude_code.py) runs
`claude -p <prompt>` in a throw-away project against two loopback stand-ins:
- fake_anthropic.py for the Anthropic Messages API: the "model" answers the first turn with a
  Read of src/billing/invoice.py and the second (carrying the tool_result) with plain text;
- tests/fake_mem0 for the Mem0 API, seeded with one memory that matches the prompt and one
  `convention` memory that matches the file query.
Then it checks that what our hooks printed reached the model: the prompt hook's lines in the
first model request, the Read hook's lines in the request carrying the tool_result.

Variants: (a) the checkout loaded as a plugin (`--plugin-dir`, wiring from hooks.json and
.claude-plugin/plugin.json); (b) no plugin, `~/.claude/settings.json` written by
`mem0-hooks install --settings ...`. A third test reads a file outside the project and checks
that Claude Code still denies it (our Read hook never auto-approves; a control run with a
stub hook that answers `permissionDecision: allow` proves the check can tell).
The use signal (UseSignalTest, docs/hygiene.md): after a turn whose reply cites the injected
memory, by its tag or by its words, `mem0-hooks log --json` shows it in the Stop run's `used`;
after an unrelated reply, nothing is used.

Exit status: 0 passed, 1 failed, 77 skipped (npm missing or the registry unreachable).

Running Claude Code non-interactively with a fresh HOME needs no onboarding flags:
- `-p` (print mode) skips the workspace-trust dialog and the onboarding screens;
- `ANTHROPIC_API_KEY` in the environment is used as is in print mode (no "use this key?"
  approval, no login); `ANTHROPIC_BASE_URL` points every model call at the stand-in;
- `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`, `DISABLE_AUTOUPDATER=1`, `DISABLE_TELEMETRY=1`,
  `DISABLE_ERROR_REPORTING=1` keep it off the network (no update check, telemetry, bootstrap,
  model catalogue); with them Claude Code 2.1.332 sends nothing but POST /v1/messages;
- `--output-format json` gives `permission_denials` and the result text;
  `--debug-file PATH` records each hook's raw output;
- the environment is built from scratch (no CLAUDE_* / ANTHROPIC_* / XDG_* of the caller), so
  a developer's own Claude Code configuration never leaks into the run.

Set MEM0_CLIENT_KEEP=1 to keep the temporary directories (request dumps, debug logs).
"""

import hashlib
import json
import os
import shlex
import subprocess
import sys
import time
import unittest

from clientlib import (BIN_DIR, claude_or_exit, client_env, locate, log, plugin_root,
                       read_text, run_tests, scratch_dir)
from fake_anthropic import FakeAnthropic
from fakelib import FakeMem0
import seeds
from runresult import RunResult

CLAUDE = None  # set in main()
RUN_TIMEOUT_S = 180

USER = "tester"
PROJECT_ID = "proj-client-e2e"
REL = "src/billing/invoice.py"
PROMPT = "Explain how partial refund rounding works"

# Memory texts share (almost) all their tokens with one query and none with the other, so the
# fake's token-overlap scoring returns each memory for exactly one hook.
PROMPT_MEM = "a1b2c3d4-1111-4111-8111-000000000001"  # matches the prompt only
FILE_MEM = "c0ffee00-2222-4222-8222-000000000002"    # matches "src/billing/invoice.py invoice.py"


memory = seeds.builder(user=USER, project=PROJECT_ID, created="2026-10-01T09:00:00Z")


# Types the SessionStart banner does not show (it shows decisions, conventions, session state and
# task learnings, and claims them for the session), so that the prompt and read hooks find them.
SEED = [
    memory(PROMPT_MEM, "partial refund rounding rule", "fact"),
    memory(FILE_MEM, "src billing invoice py stores money as integer cents", "note"),
]
PROMPT_HEADING = "### Relevant memories (auto-retrieved for this request)"
PROMPT_LINE = f"- [fact] partial refund rounding rule {seeds.tag(PROMPT_MEM)}"
FILE_HEADER = f"Prior work on `{REL}`"
FILE_TAG = seeds.tag(FILE_MEM)

INVOICE_PY = '''"""Invoices: line items, totals and rounding. Money is kept in integer cents."""

from dataclasses import dataclass, field


@dataclass
class LineItem:
    description: str
    quantity: int
    unit_cents: int
    tax_rate_bp: int = 0  # basis points

    def net_cents(self) -> int:
        return self.quantity * self.unit_cents

    def tax_cents(self) -> int:
        # Round half up on the whole line, never per unit.
        return (self.net_cents() * self.tax_rate_bp + 5000) // 10000


@dataclass
class Invoice:
    customer_id: str
    number: str
    items: list = field(default_factory=list)
    refunds_cents: int = 0

    def add(self, item: LineItem) -> None:
        if item.quantity <= 0:
            raise ValueError("quantity must be positive")
        self.items.append(item)

    def net_cents(self) -> int:
        return sum(item.net_cents() for item in self.items)

    def tax_cents(self) -> int:
        return sum(item.tax_cents() for item in self.items)

    def total_cents(self) -> int:
        return self.net_cents() + self.tax_cents() - self.refunds_cents

    def refund(self, cents: int) -> None:
        if cents <= 0 or cents > self.total_cents():
            raise ValueError("refund out of range")
        self.refunds_cents += cents


def format_cents(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{cents // 100}.{cents % 100:02d}"


def render_text(invoice: Invoice) -> str:
    lines = [f"Invoice {invoice.number} for {invoice.customer_id}"]
    for item in invoice.items:
        lines.append(f"  {item.description:<30} {item.quantity:>4} x "
                     f"{format_cents(item.unit_cents):>10} = {format_cents(item.net_cents()):>10}")
    lines.append(f"  {'net':<30} {format_cents(invoice.net_cents()):>29}")
    lines.append(f"  {'tax':<30} {format_cents(invoice.tax_cents()):>29}")
    if invoice.refunds_cents:
        lines.append(f"  {'refunds':<30} {format_cents(-invoice.refunds_cents):>29}")
    lines.append(f"  {'total':<30} {format_cents(invoice.total_cents()):>29}")
    return "\\n".join(lines)
'''


# -- wiring the hooks into Claude Code's settings (variant b) -------------------------------
def write_settings_fallback(settings_path, bin_dir):
    """What `mem0-hooks install --settings PATH` does, for builds that do not have the CLI yet:
    merge the two hook entries (absolute paths) into the settings file, keeping other keys."""
    try:
        with open(settings_path, encoding="utf-8") as fh:
            settings = json.load(fh)
    except FileNotFoundError:
        settings = {}
    hooks = settings.setdefault("hooks", {})

    def command(name):
        return shlex.quote(os.path.join(bin_dir, name))

    hooks.setdefault("UserPromptSubmit", []).append(
        {"hooks": [{"type": "command", "command": command("on_user_prompt"), "timeout": 8}]})
    hooks.setdefault("PreToolUse", []).append(
        {"matcher": "Read",
         "hooks": [{"type": "command", "command": command("on_file_read"), "timeout": 6}]})
    os.makedirs(os.path.dirname(settings_path), exist_ok=True)
    with open(settings_path, "w", encoding="utf-8") as fh:
        json.dump(settings, fh, indent=2)
    return "written by the test (no mem0-hooks CLI in this build)"


def install_hooks(settings_path, bin_dir, env):
    cli = os.path.join(bin_dir, "mem0-hooks")
    if not os.access(cli, os.X_OK):
        return write_settings_fallback(settings_path, bin_dir)
    proc = subprocess.run([cli, "install", "--settings", settings_path], env=env,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise AssertionError(f"mem0-hooks install failed ({proc.returncode}):\n"
                             f"{proc.stdout}\n{proc.stderr}")
    return f"written by {cli} install"


# -- helpers ---------------------------------------------------------------------------------
def tool_results(body):
    """(tool_use_id, is_error, text) for each tool_result block in a request body."""
    out = []
    for msg in body.get("messages") or []:
        content = msg.get("content") if isinstance(msg, dict) else None
        if not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                inner = block.get("content")
                text = inner if isinstance(inner, str) else json.dumps(inner)
                out.append((block.get("tool_use_id"), bool(block.get("is_error")), text))
    return out


def describe(obj, path):
    """'messages[3] (role system)' style hint for a located JSON path."""
    parts = path.split(".")
    if len(parts) > 1 and parts[1].startswith("messages["):
        index = int(parts[1][len("messages["):].split("]")[0])
        return f"{parts[1].split(']')[0]}] (role {obj['messages'][index].get('role')})"
    return ".".join(parts[1:3])


def sample_project(scratch):
    """(home, project, sample) under `scratch`: an empty HOME and a project holding REL."""
    home, project = os.path.join(scratch, "home"), os.path.join(scratch, "project")
    os.makedirs(home)
    sample = os.path.join(project, REL)
    os.makedirs(os.path.dirname(sample))
    with open(sample, "w", encoding="utf-8") as fh:
        fh.write(INVOICE_PY)
    return home, project, sample


class Run(RunResult):
    """One `claude -p` run and everything it left behind."""

    def __init__(self, proc, elapsed, api, mem0, debug_log):
        super().__init__(proc.returncode, proc.stdout, proc.stderr, elapsed)
        self.requests = api.requests()
        self.messages = api.messages()
        self.searches = mem0.searches()
        self.debug = read_text(debug_log)
        try:
            self.result = self.json()
        except ValueError:
            self.result = None

    def summary(self):
        lines = [f"claude exit {self.returncode} in {self.elapsed:.1f} s",
                 f"stdout: {self.stdout[-1500:]}", f"stderr: {self.stderr[-1500:]}"]
        for r in self.requests:
            body = r["body"] if isinstance(r["body"], dict) else {}
            lines.append(f"  {r['method']} {r['path']} -> {r['reply']} "
                         f"(tools {len(body.get('tools') or [])}, "
                         f"stream {body.get('stream')}, {len(r['raw'])} bytes)")
        lines.append(f"  mem0 searches: {[s.get('query') for s in self.searches]}")
        hook_lines = [line for line in self.debug.splitlines() if "hook" in line.lower()]
        lines.append("  debug log (hook lines):\n    " + "\n    ".join(hook_lines[-40:]))
        return "\n".join(lines)


class ClaudeCodeRun(unittest.TestCase):
    """Each test's stand-ins and project, a `claude -p` run, and the recall checks."""
    maxDiff = None

    def setUp(self):
        self.scratch = scratch_dir(self, "mem0_client_")
        self.home, self.project, self.sample = sample_project(self.scratch)
        self.assertGreaterEqual(os.path.getsize(self.sample), 2048)
        self.mem0 = FakeMem0(seed=SEED).start()
        self.addCleanup(self.mem0.stop)
        self.api = FakeAnthropic(read_path=self.sample).start()
        self.addCleanup(self.api.stop)

    def env(self):
        env = client_env(self.home, self.api.url, self.mem0.url, USER,
                         MEM0_API_KEY=self.mem0.api_key, MEM0_PROJECT_ID=PROJECT_ID)
        if self.mem0.backend != "platform":
            env["MEM0_BACKEND"] = self.mem0.backend
        return env

    def claude(self, label, *extra):
        debug_log = os.path.join(self.scratch, f"debug-{label}.log")
        cmd = [CLAUDE, "-p", PROMPT, "--output-format", "json", "--debug-file", debug_log,
               *extra]
        log(f"    running: claude -p {PROMPT!r} {' '.join(extra)}".rstrip())
        start = time.monotonic()
        try:
            proc = subprocess.run(cmd, cwd=self.project, env=self.env(), capture_output=True,
                                  text=True, timeout=RUN_TIMEOUT_S, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as exc:
            self.fail(f"claude did not finish in {RUN_TIMEOUT_S} s; requests so far: "
                      f"{[(r['method'], r['path']) for r in self.api.requests()]}\n"
                      f"stderr: {exc.stderr}")
        run = Run(proc, time.monotonic() - start, self.api, self.mem0, debug_log)
        if os.environ.get("MEM0_CLIENT_KEEP"):
            with open(os.path.join(self.scratch, f"requests-{label}.json"), "w") as fh:
                json.dump(run.requests, fh, indent=1)
        log(f"    claude exited {run.returncode} after {run.elapsed:.1f} s; "
            f"{len(run.messages)} model request(s), {len(run.requests)} request(s) in all: "
            + ", ".join(f"{r['method']} {r['path']}" for r in run.requests))
        self.assertEqual(run.returncode, 0, run.summary())
        self.assertIsInstance(run.result, dict, run.summary())
        return run

    # -- the shared assertions ---------------------------------------------------------------
    def expected_filters(self):
        """The project scope's filters: the platform's OR of the user's memories and the shared
        memory of Mem0's newer plugin (a project without a remote: the `local-` agent id), or a
        self-hosted server's flat object."""
        if self.mem0.backend == "selfhosted":
            return {"user_id": USER, "agent_id": PROJECT_ID}
        root = os.path.realpath(self.project).encode()
        agent = f"local-{PROJECT_ID}-{hashlib.sha256(root).hexdigest()[:10]}"
        return {"OR": [{"AND": [{"user_id": USER}, {"app_id": PROJECT_ID}]},
                       {"AND": [{"agent_id": agent}, {"app_id": PROJECT_ID}]},
                       {"AND": [{"agent_id": PROJECT_ID}, {"app_id": PROJECT_ID}]}]}

    def check_recall(self, run):
        info = run.summary()
        self.assertEqual(run.result.get("is_error"), False, info)
        self.assertEqual(run.result.get("permission_denials"), [], info)
        self.assertIn("integer cents", run.result.get("result", ""), info)
        self.assertGreaterEqual(len(run.messages), 2, info)
        raws = [r["raw"] for r in run.messages]
        bodies = [r["body"] for r in run.messages]

        # 1. The prompt hook's context reached the first model request.
        first = bodies[0]
        self.assertIn(PROMPT, json.dumps(first), info)
        self.assertIn(PROMPT_HEADING, json.dumps(first), info)
        self.assertTrue(locate(first, PROMPT_LINE), f"{PROMPT_LINE!r} not in the first model "
                        f"request\n{info}")
        where = locate(first, PROMPT_LINE)[0]
        log(f"    prompt-hook context in model request 1 at {describe(first, where)}")

        # 2. The model asked for the Read; the request carrying its tool_result has the file
        #    hook's context, and no earlier request has it.
        carrying = [i for i, body in enumerate(bodies)
                    if any(not err and "integer cents" in text
                           for _, err, text in tool_results(body))]
        self.assertTrue(carrying, f"no request carries a successful Read tool_result\n{info}")
        k = carrying[0]
        self.assertGreater(k, 0, info)
        for i in range(k):
            self.assertNotIn(FILE_HEADER, json.dumps(bodies[i]), f"request {i + 1}\n{info}")
        header_at = locate(bodies[k], FILE_HEADER)
        self.assertTrue(header_at, f"{FILE_HEADER!r} not in model request {k + 1}\n{info}")
        tagged = [p for p in locate(bodies[k], FILE_TAG) if p in header_at]
        self.assertTrue(tagged, f"{FILE_TAG} not next to {FILE_HEADER!r}\n{info}")
        self.assertTrue(any("[note]" in text and FILE_TAG in text
                            for text in self.strings_at(bodies[k], tagged)), info)
        log(f"    file-hook context in model request {k + 1} (the one with the tool_result) "
            f"at {describe(bodies[k], tagged[0])}")
        # The prompt memory stays in the conversation; it is not injected twice by the file hook.
        self.assertNotIn(seeds.tag(PROMPT_MEM),
                         "".join(self.strings_at(bodies[k], tagged)), info)

        # 3. The fake Mem0 saw the prompt search and the file search.
        queries = [s.get("query", "") for s in run.searches]
        self.assertTrue(any(PROMPT in q for q in queries), info)
        self.assertTrue(any(REL in q for q in queries), info)
        for search in run.searches:
            self.assertEqual(search.get("filters"), self.expected_filters(), info)
        log(f"    mem0 searches: {queries}")

        # 4. Our hooks never hand Claude Code a permission decision.
        for raw in raws:
            self.assertNotIn("permissionDecision", raw, info)
        outputs = [line for line in run.debug.splitlines() if "hookSpecificOutput" in line]
        self.assertTrue(outputs, f"the debug log shows no hook output\n{info}")
        for line in outputs:
            self.assertNotIn("permissionDecision", line, info)
        log(f"    {len(outputs)} hook-output line(s) in the debug log, none with "
            f"permissionDecision")

    @staticmethod
    def strings_at(body, paths):
        out = []
        for path in paths:
            node = body
            for part in path.replace("[", ".[").split(".")[1:]:
                node = node[int(part[1:-1])] if part.startswith("[") else node[part]
            out.append(node)
        return out


class ClaudeCodeTest(ClaudeCodeRun):
    # -- the tests -----------------------------------------------------------------------------
    def test_a_plugin_dir(self):
        """`claude --plugin-dir <checkout>` runs both hooks from hooks.json."""
        root = plugin_root(self.scratch)
        log(f"    plugin dir: {root} (hooks from {BIN_DIR})")
        run = self.claude("plugin", "--plugin-dir", root)
        self.check_recall(run)
        # hooks.json quotes the plugin root, so a path with spaces stays one word.
        self.assertIn(f'"{root}"/build/bin/on_file_read', run.debug,
                      "the debug log does not name the plugin's on_file_read")

    def test_b_settings_install(self):
        """`mem0-hooks install --settings ~/.claude/settings.json` wires the same hooks."""
        settings = os.path.join(self.home, ".claude", "settings.json")
        os.makedirs(os.path.dirname(settings))
        with open(settings, "w", encoding="utf-8") as fh:
            json.dump({"includeCoAuthoredBy": False}, fh)  # a user's existing setting
        how = install_hooks(settings, BIN_DIR, self.env())
        with open(settings, encoding="utf-8") as fh:
            written = json.load(fh)
        log(f"    {settings}: {how}")
        self.assertEqual(written.get("includeCoAuthoredBy"), False, "install dropped a setting")
        commands = json.dumps(written.get("hooks"))
        self.assertIn(os.path.join(BIN_DIR, "on_user_prompt"), commands)
        self.assertIn(os.path.join(BIN_DIR, "on_file_read"), commands)
        run = self.claude("settings")
        self.check_recall(run)

    def test_d_rejected_key_is_said_to_the_user_once_and_not_to_the_model(self):
        """A key Mem0 rejects: one visible line for the user (systemMessage), none for the model."""
        root = plugin_root(self.scratch)
        env = dict(self.env(), MEM0_API_KEY="m0-this-key-is-wrong-0000")
        debug_log = os.path.join(self.scratch, "debug-rejected.log")
        # stream-json shows what Claude Code shows the user of each hook's output.
        proc = subprocess.run([CLAUDE, "-p", PROMPT, "--output-format", "stream-json", "--verbose",
                               "--debug-file", debug_log, "--plugin-dir", root],
                              cwd=self.project, env=env, capture_output=True, text=True,
                              timeout=RUN_TIMEOUT_S, stdin=subprocess.DEVNULL)
        self.assertEqual(proc.returncode, 0, proc.stderr[-2000:])
        line = "mem0: recall skipped \u2014 API key rejected"
        shown = [event for event in proc.stdout.splitlines() if "API key rejected" in event]
        log(f"    lines for the user naming the rejected key: {len(shown)}")
        self.assertEqual(len(shown), 1, "\n".join(shown) or proc.stdout[-3000:])
        event = json.loads(shown[0])  # the hook's stdout, as Claude Code reports it
        self.assertEqual(json.loads(event["stdout"]), {"systemMessage": line}, shown[0])
        bodies = json.dumps([r["body"] for r in self.api.requests()])
        self.assertNotIn("API key rejected", bodies, "the model was told about the key")
        self.assertTrue(self.mem0.requests(), "no hook reached the Mem0 stand-in")

    def test_e_selfhosted_server(self):
        """MEM0_BACKEND=selfhosted: the same recall from the open-source server's stand-in,
        which refuses the platform's header, filters and paths."""
        self.mem0.stop()
        seed = [{**{k: v for k, v in m.items() if k not in ("app_id", "categories")},
                 "agent_id": PROJECT_ID} for m in SEED]
        self.mem0 = FakeMem0(seed=seed, backend="selfhosted").start()
        self.addCleanup(self.mem0.stop)
        run = self.claude("selfhosted", "--plugin-dir", plugin_root(self.scratch))
        self.check_recall(run)
        calls = self.mem0.requests()
        log(f"    self-hosted stand-in saw: {[(c['method'], c['path'], c['status']) for c in calls]}")
        self.assertTrue(calls)
        self.assertTrue(all(c["status"] == 200 for c in calls), calls)
        self.assertTrue(all(c["headers"].get("x-api-key") == self.mem0.api_key for c in calls))

    def test_c_read_outside_project_not_auto_approved(self):
        """A Read outside the project stays subject to Claude Code's permission check."""
        outside = os.path.join(self.scratch, "elsewhere", "secrets.py")
        os.makedirs(os.path.dirname(outside))
        with open(outside, "w", encoding="utf-8") as fh:
            fh.write("TOKEN = 'not for the model'\n" * 100)
        self.api.read_path = outside

        # Control: a hook that answers "allow" makes Claude Code read the file; this proves
        # that permission_denials can tell an auto-approving hook apart.
        stub = os.path.join(self.scratch, "allow_hook.sh")
        with open(stub, "w", encoding="utf-8") as fh:
            fh.write("#!/bin/sh\ncat >/dev/null\nprintf '%s' '{\"hookSpecificOutput\":"
                     "{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"allow\"}}'\n")
        os.chmod(stub, 0o755)
        control = self.claude("control", "--settings", json.dumps(
            {"hooks": {"PreToolUse": [{"matcher": "Read", "hooks": [
                {"type": "command", "command": stub}]}]}}))
        self.assertEqual(control.result.get("permission_denials"), [],
                         "control: an allow hook should let the read through\n"
                         + control.summary())
        self.api.reset()

        root = plugin_root(self.scratch)
        run = self.claude("outside", "--plugin-dir", root)
        denied = [d.get("tool_input", {}).get("file_path")
                  for d in run.result.get("permission_denials") or []
                  if d.get("tool_name") == "Read"]
        self.assertEqual(denied, [outside], run.summary())
        self.assertTrue(any(outside in s.get("query", "") for s in run.searches),
                        "the Read hook did not run for the outside file\n" + run.summary())
        for r in run.messages:
            self.assertNotIn("permissionDecision", r["raw"], run.summary())
            self.assertNotIn("not for the model", r["raw"], run.summary())
        log("    outside read denied by Claude Code with our hook installed; allowed with "
            "the control hook")


# The use signal (docs/hygiene.md): replies the model stand-in ends the turn with. The first cites
# the prompt memory by its tag, the second by its words only (all four of them, no tag), the third
# shares no word with it.
REPLY_TAG = (f"Partial refunds round half up on the whole line, as recorded in "
             f"{seeds.tag(PROMPT_MEM)}.")
REPLY_WORDS = "The partial refund follows the rounding rule: half up on the whole line."
REPLY_UNRELATED = "I renamed the CSS classes of the login page and fixed the footer alignment."


class UseSignalTest(ClaudeCodeRun):
    """A turn of a real Claude Code (plugin wiring, so Stop runs on_stop with what Claude Code
    hands it): the prompt hook injects the prompt memory, the model stand-in answers at once
    (no Read) with one of the replies above, and `mem0-hooks log --json` afterwards, with the
    same HOME, shows the Stop run's `used`."""

    def setUp(self):
        super().setUp()
        self.api.read_path = None  # the answer comes in the first model request

    def turn(self, label, reply):
        self.api.final_text = reply
        run = self.claude(label, "--plugin-dir", plugin_root(self.scratch))
        self.assertEqual(run.result.get("result"), reply, run.summary())
        first = run.messages[0]["body"]
        self.assertTrue(locate(first, PROMPT_LINE), f"{PROMPT_LINE!r} not in the first model "
                        f"request\n{run.summary()}")
        session = run.result.get("session_id")
        self.assertTrue(session, run.summary())
        proc = subprocess.run([os.path.join(BIN_DIR, "mem0-hooks"), "log", "--session", session,
                               "--json"], cwd=self.project, env=self.env(), capture_output=True,
                              text=True, timeout=60, stdin=subprocess.DEVNULL)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        runs = json.loads(proc.stdout)["runs"]
        log(f"    log --session {session}: " + ", ".join(
            f"{r.get('hook')} (memories {[m['id'][:8] for m in r.get('memories') or []]}, "
            f"used {r.get('used', [])})" for r in runs))
        injected = [m["id"] for r in runs if r.get("hook") == "on_user_prompt"
                    for m in r.get("memories") or []]
        self.assertIn(PROMPT_MEM, injected, f"{runs}\n{run.summary()}")
        stops = [r for r in runs if r.get("hook") == "on_stop"]
        self.assertEqual(len(stops), 1, f"{runs}\n{run.summary()}")
        return stops[0].get("used", [])

    def test_f_reply_citing_the_tag_marks_the_memory_used(self):
        self.assertEqual(self.turn("use-tag", REPLY_TAG), [PROMPT_MEM])

    def test_g_reply_holding_its_words_marks_the_memory_used(self):
        self.assertNotIn("mem0:", REPLY_WORDS)
        self.assertEqual(self.turn("use-words", REPLY_WORDS), [PROMPT_MEM])

    def test_h_unrelated_reply_marks_nothing_used(self):
        self.assertEqual(self.turn("use-none", REPLY_UNRELATED), [])


def main():
    global CLAUDE
    CLAUDE = claude_or_exit(["on_user_prompt", "on_file_read", "on_stop", "mem0-hooks"])
    return run_tests()


if __name__ == "__main__":
    sys.exit(main())
