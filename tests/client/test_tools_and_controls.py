#!/usr/bin/env python3
"""Real-client test of the memory tools and the user's controls (docs/cli.md#mcp,
docs/cli.md#pause-and-resume).

`claude -p` (pinned, see claude_code.py) with `--plugin-dir <checkout>` runs in the throw-away
git project of test_session.py against its two loopback stand-ins (the scripted model and
tests/fake_mem0):

test_1  the model calls the plugin's `search_memories` and `add_memory` through MCP: the plugin's
        `.mcp.json` starts `mem0-hooks mcp`; the Mem0 stand-in sees the search and the add with
        our identity (user, project), the add stored verbatim and redacted; the search's lines
        reach the model in the tool result.
test_2  slash commands headless: `/mem0-native-hooks:remember <text>` stores the text, and
        `/mem0-native-hooks:recall <query>` puts the matching memory in the prompt the model
        gets.
test_3  `mem0-hooks pause`: a whole session (prompt, Read, failing Bash, reply, Stop, end)
        sends nothing to the Mem0 stand-in and queues nothing, and the user is told once; after
        `mem0-hooks resume` the next session's prompt recalls again.
test_4  hostile slash-command arguments (the here-document's delimiter on a line of its own,
        `$(…)`, backquotes, `;`, newlines): nothing of them runs, and `/remember` stores their
        words as typed.

Exit status: 0 passed, 1 failed, 77 skipped (npm missing or the registry unreachable).
Set MEM0_CLIENT_KEEP=1 to keep the temporary directories (request dumps, debug logs).
"""

import json
import os
import re
import subprocess
import sys
import unittest

import test_session
from clientlib import BIN_DIR, claude_or_exit, hook_outputs, locate, log, run_tests
from outbox import outbox_items
from seeds import tag
from test_session import (BASH_COMMAND, FINAL_TEXT, M_PROMPT, PROJECT_ID, PROMPT, PROMPT_LINE,
                          USER, SessionHarness, hook_runs, tool_results)

PLUGIN = "mem0-native-hooks"
TOOL = f"mcp__plugin_{PLUGIN}_mem0__"  # how Claude Code names the plugin server's tools
SERVER_CONNECTED = re.compile(r'MCP server "plugin:' + re.escape(PLUGIN) +
                              r':mem0": Successfully connected')
CLI_TIMEOUT_S = 30

REMEMBERED = "Ledger CSV exports use semicolons as separators for the bank's importer"
SECRET = "AKIAIOSFODNN7EXAMPLE"
ADDED = f"The staging bucket key {SECRET} was rotated; uploads now go through the gateway"


class MemoryToolsTest(SessionHarness, unittest.TestCase):
    def mem0_hooks(self, world, *args):
        """Run the CLI as the user would in the world's project."""
        proc = subprocess.run([os.path.join(BIN_DIR, "mem0-hooks"), *args], cwd=world.project,
                              env=self.env(world), capture_output=True, text=True,
                              timeout=CLI_TIMEOUT_S, stdin=subprocess.DEVNULL)
        log(f"    mem0-hooks {' '.join(args)} -> {proc.returncode}: "
            f"{(proc.stdout + proc.stderr).strip()[:200]}")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        return proc.stdout

    def outbox_items(self, world):
        return outbox_items(os.path.join(world.home, ".mem0", "state", "outbox"))

    # -- test 1 ----------------------------------------------------------------------------------
    def test_1_model_calls_the_memory_tools(self):
        world = self.world("tools")
        query = "nightly ledger import replica"
        self.api.script = [{"tool": TOOL + "search_memories", "input": {"query": query}},
                           {"tool": TOOL + "add_memory", "input": {"text": ADDED,
                                                                    "type": "decision"}},
                           {"text": "Found it and stored the rotation."}]
        run = self.claude(world, "tools", "What do we know about the ledger import? Store the "
                          "key rotation too.", "--allowedTools",
                          TOOL + "search_memories", TOOL + "add_memory")
        info = run.summary()
        self.assertRegex(run.debug, SERVER_CONNECTED, info)
        negotiated = re.findall(r'"negotiatedProtocolVersion":"([^"]+)"', run.debug)
        asked = re.findall(r"mcp: initialize by (.*)", run.hooks_log)
        self.assertEqual(len(negotiated), 1, info)
        log(f"    Claude Code's debug log: negotiatedProtocolVersion {negotiated[0]}; "
            f"the server's log: initialize by {asked}")

        # The search plan of peek: the query broad, and among decisions.
        searches = [r for r in self.mem0.calls("search") if r["body"].get("query") == query]
        self.assertEqual(len(searches), 2, f"the tool's searches: {self.mem0.searches()}\n{info}")
        for search in searches:
            filters = json.dumps(search["body"].get("filters"))
            self.assertIn(f'{{"user_id": "{USER}"}}', filters)
            self.assertIn(f'{{"app_id": "{PROJECT_ID}"}}', filters)
            log(f"    search_memories -> POST {search['path']} filters {filters}")

        # The tool result the model got holds the memory's line and its citation.
        results = [text for body in run.bodies for _, _, _, text in tool_results(body)]
        self.assertTrue(any(tag(M_PROMPT) in t for t in results),
                        f"tool results: {results}\n{info}")

        adds = [a for a in self.mem0.adds() if "rotated" in json.dumps(a)]
        self.assertEqual(len(adds), 1, f"adds: {self.mem0.adds()}\n{info}")
        add = adds[0]
        self.assertNotIn(SECRET, json.dumps(add))
        self.assertIs(add.get("infer"), False)
        self.assertEqual((add.get("user_id"), add.get("app_id")), (USER, PROJECT_ID))
        self.assertEqual((add.get("metadata") or {}).get("type"), "decision")
        self.assertEqual((add.get("metadata") or {}).get("agent"), "claude-code")
        log(f"    add_memory -> add {json.dumps(add)[:300]}")
        self.assertTrue(os.path.isdir(os.path.join(world.home, ".mem0", "state", "outbox")))
        self.assertEqual(self.outbox_items(world), [], "the add is still queued")

    # -- test 2 ----------------------------------------------------------------------------------
    def test_2_slash_commands(self):
        world = self.world("slash")
        run = self.claude(world, "remember", f"/{PLUGIN}:remember {REMEMBERED}")
        adds = [a for a in self.mem0.adds() if REMEMBERED in json.dumps(a)]
        self.assertEqual(len(adds), 1, f"adds: {self.mem0.adds()}\n{run.summary()}")
        self.assertEqual((adds[0].get("user_id"), adds[0].get("app_id")), (USER, PROJECT_ID))

        run = self.claude(world, "recall", f"/{PLUGIN}:recall nightly ledger import")
        self.assertTrue(locate(run.bodies[0], "nightly ledger import runs at 02:00 UTC"),
                        f"the recall's output is not in the prompt\n{run.summary()}")

    # -- test 3 ----------------------------------------------------------------------------------
    def test_3_pause_sends_and_queues_nothing(self):
        world = self.world("pause")
        self.mem0_hooks(world, "pause")
        self.mem0.reset()
        self.api.script = [{"tool": "Read", "input": {"file_path": world.sample}},
                           {"tool": "Bash", "input": {"command": BASH_COMMAND,
                                                      "description": "Reproduce the error"}},
                           {"text": FINAL_TEXT}]
        run = self.claude(world, "paused", PROMPT, "--allowedTools", "Bash")
        info = run.summary()
        self.assertGreaterEqual(len(hook_runs(run.debug)), 5, info)
        self.assertEqual(self.mem0.requests(), [], info)
        self.assertEqual(self.outbox_items(world), [], info)
        told = [o for o in hook_outputs(run.debug) if "paused by you" in json.dumps(o)]
        self.assertEqual(len(told), 1, info)
        log(f"    paused session: {len(hook_runs(run.debug))} hook runs, 0 requests to Mem0, "
            f"outbox empty; told once: {json.dumps(told[0])[:200]}")

        self.mem0_hooks(world, "resume")
        self.api.script = [{"text": FINAL_TEXT}]
        run = self.claude(world, "resumed", PROMPT)
        self.assertTrue(locate(run.bodies[0], PROMPT_LINE), run.summary())

    # -- test 4 ----------------------------------------------------------------------------------
    def test_4_slash_command_arguments_never_run(self):
        world = self.world("hostile")
        marker = lambda n: os.path.join(world.home, f"ran-{n}")
        typed = "\n".join([
            "Hostile words: $(touch " + marker(1) + ") `touch " + marker(2) + "` a; touch "
            + marker(3),
            "MEM0_ARGUMENTS_END",
            "touch " + marker(4),
            "!MEM0_ARGUMENTS_END",
            "touch " + marker(5),
            "MEM0_ARGUMENTS_END",
            "last line"])
        run = self.claude(world, "hostile", f"/{PLUGIN}:remember {typed}")
        ran = [n for n in range(1, 6) if os.path.exists(marker(n))]
        self.assertEqual(ran, [], f"typed text ran as a command\n{run.summary()}")
        adds = [a for a in self.mem0.adds() if "Hostile words:" in json.dumps(a)]
        self.assertEqual(len(adds), 1, f"adds: {self.mem0.adds()}\n{run.summary()}")
        content = adds[0]["messages"][0]["content"]
        # Claude Code writes a `!` that starts a line or follows a blank as `\!`.
        expected = " ".join(re.sub(r"(^|\s)!", r"\1\\!", typed, flags=re.M).split())
        self.assertEqual(content, expected)
        log(f"    hostile /remember stored as words: {content[:200]}")


def main():
    test_session.CLAUDE = claude_or_exit(test_session.HOOKS + ("mem0-hooks",))
    return run_tests()


if __name__ == "__main__":
    sys.exit(main())
