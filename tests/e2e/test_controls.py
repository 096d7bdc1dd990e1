"""End-to-end: the user's controls (docs/cli.md#pause-and-resume, docs/cli.md#log) with the built
hooks and mem0-hooks against the fake Mem0 server."""

import json
import os
import time
import unittest

from hooklib import HookTest, memory
from outbox import outbox_items
import testmain  # noqa: E402
from hookevents import (post_compact_event, post_tool_use_failure_event, prompt_event,
                        read_event, session_end_event, session_start_event, stop_event)

WEBHOOK = "11111111-aaaa-4aaa-8aaa-000000000001"
PROMPT = "Why does the stripe webhook handler retry invoices twice?"
LONG = "We changed the stripe webhook handler so that invoices are retried once, not twice. " * 3
PAUSED = "mem0: paused by you until you resume \u2014 mem0-hooks resume"


class Controls(HookTest):
    seed = [memory(WEBHOOK, "The stripe webhook handler retries invoices with exponential backoff",
                   "decision")]

    def setUp(self):
        super().setUp()
        self.outbox = os.path.join(self.home, ".mem0", "state", "outbox")

    def cli(self, *args):
        result = self.run_bin("mem0-hooks", None, args=args, text=True)
        # doctor fails a check here (the hooks are not wired in this HOME): exit 1
        self.assertIn(result.returncode, (0, 1) if args[0] == "doctor" else (0,), result.stderr)
        return result.stdout

    def pending(self):
        return outbox_items(self.outbox)

    def system_message(self, result):
        return json.loads(result.stdout).get("systemMessage", "") if result.stdout else ""

    def every_hook(self, session):
        """Each automatic hook with an input that makes it search or capture: (name, payload)."""
        big = os.path.join(self.project, "webhooks.py")
        with open(big, "w") as f:
            f.write("def handle(event):\n    return event\n" * 100)
        with open(os.path.join(self.project, "CLAUDE.md"), "w") as f:
            f.write("## Conventions\n\n" + LONG + "\n")
        common = {"session_id": session, "cwd": self.project}
        return [
            ("on_user_prompt", prompt_event(PROMPT, **common)),
            ("on_file_read", read_event(big, **common)),
            ("on_bash_output", post_tool_use_failure_event(
                "Bash", {"command": "pytest"}, "Exit code 1\nValueError: invalid literal for int()",
                **common)),
            ("on_stop", stop_event(LONG, **common)),
            ("on_session_start", session_start_event("startup", **common)),
            ("on_compact", post_compact_event(LONG, **common)),
            ("on_session_end", session_end_event("prompt_input_exit", **common)),
        ]

    def test_paused_hooks_send_and_queue_nothing_until_resumed(self):
        self.assertIn("paused for project", self.cli("pause"))
        messages = []
        for name, payload in self.every_hook("paused-1"):
            messages.append(self.system_message(self.run_hook(name, payload)))
        time.sleep(0.5)  # a sender, had one started, would have sent by now
        self.assertEqual(self.fake.requests(), [])
        self.assertEqual(self.pending(), [])
        self.assertEqual(messages[0], PAUSED)  # the first run says so, once
        self.assertEqual([m for m in messages[1:] if PAUSED in m], [])
        self.assertIn("paused      by you for project", self.cli("doctor"))

        # What the user asks for explicitly is not paused: remember sends at once.
        self.assertIn("stored as ", self.cli("remember", "Invoices are retried at most five times"))
        adds = self.fake.adds()
        self.assertEqual(len(adds), 1)
        self.assertIn("five times", adds[0]["messages"][0]["content"])
        self.fake.reset()

        self.assertIn("resumed for project", self.cli("resume"))
        result = self.run_hook("on_user_prompt", prompt_event(PROMPT, session_id="paused-2",
                                                              cwd=self.project))
        self.assertIn("[mem0:11111111]", json.loads(result.stdout)["hookSpecificOutput"]
                      ["additionalContext"])
        self.assertTrue(self.fake.searches())

    def test_log_shows_injected_ids_and_skips_with_their_reasons(self):
        common = {"session_id": "log-1", "cwd": self.project}
        self.run_hook("on_user_prompt", prompt_event(PROMPT, **common))
        self.run_hook("on_user_prompt", prompt_event(PROMPT, **common))
        self.run_hook("on_user_prompt", prompt_event("/help", **common))
        self.run_hook("on_stop", stop_event("Done.", **common))
        text = self.cli("log", "--session", "log-1")
        self.assertIn("injected 1 memory", text)
        self.assertIn(WEBHOOK + " [decision]", text)
        self.assertIn("skipped deduped: 1 memory already shown in this session", text)
        self.assertIn("skipped gated: a prompt under 20 characters, or a slash command", text)
        self.assertIn("skipped gated: a reply under 100 characters", text)
        self.assertIn("totals: 4 runs, 1 memory injected", text)
        log = json.loads(self.cli("log", "--session", "log-1", "--json"))
        self.assertEqual([r["hook"] for r in log["runs"]], ["on_user_prompt"] * 3 + ["on_stop"])
        self.assertEqual(log["runs"][0]["memories"], [{"id": WEBHOOK, "type": "decision"}])
        self.assertIn("last skip   ", self.cli("doctor"))

    def test_log_finds_other_agents_sessions_by_their_own_ids(self):
        # A Copilot CLI prompt (camelCase) and a Codex one: their sessions are copilot-<id> and
        # codex-<id>, and `log --session <id>` finds each by the agent's own id.
        gemini = prompt_event(PROMPT, session_id="gm-1", cwd=self.project)
        self.run_bin("on_user_prompt", json.dumps(gemini).encode(), args=("--agent", "gemini-cli"))
        copilot = {"sessionId": "cp-1", "cwd": self.project, "prompt": PROMPT}
        self.run_bin("on_user_prompt", json.dumps(copilot).encode(), args=("--agent", "copilot"))
        self.run_bin("on_user_prompt", json.dumps(prompt_event(
            PROMPT, session_id="cx-1", cwd=self.project)).encode(), args=("--agent", "codex"))
        for agent, session in (("copilot", "cp-1"), ("codex", "cx-1")):
            log = json.loads(self.cli("log", "--session", session, "--json"))
            self.assertEqual(log["session"], f"{agent}-{session}", log)
            self.assertEqual(log["runs"][0]["memories"], [{"id": WEBHOOK, "type": "decision"}])
        # Without --session, the session of the agent whose variable is set (Gemini CLI's), not
        # the latest one (Codex's).
        result = self.run_bin("mem0-hooks", None, args=("log", "--json"), text=True,
                              env=dict(self.env(), GEMINI_SESSION_ID="gm-1"))
        self.assertEqual(json.loads(result.stdout)["session"], "gemini-cli-gm-1", result.stderr)


if __name__ == "__main__":
    testmain.main()
