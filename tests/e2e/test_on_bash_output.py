"""End-to-end: the built on_bash_output against the fake Mem0 server (docs/hooks.md#bash-output-hook).

Payloads have the shapes Claude Code sends for Bash: a command that exits non-zero is a
PostToolUseFailure whose `error` is "Exit code N\\n<output>" (no tool_response); one that exits 0
is a PostToolUse whose tool_response has stdout (stderr merged in), stderr, interrupted and
isImage.
"""

import json
import os
import unittest

from hooklib import HookTest, and_terms, memory
import testmain  # noqa: E402
from hookevents import post_tool_use_event, post_tool_use_failure_event

AP = "aaaaaaaa-1111-4111-8111-000000000001"
BF = "bbbbbbbb-2222-4222-8222-000000000002"
TL = "cccccccc-3333-4333-8333-000000000003"
CONV = "dddddddd-4444-4444-8444-000000000004"
GIT = "eeeeeeee-5555-4555-8555-000000000005"
RUST = "ffffffff-6666-4666-8666-000000000006"

HEADING = "### Prior errors like this (mem0)"

PYTEST_ERROR = """Exit code 1
============================= test session starts ==============================
platform linux -- Python 3.11.2, pytest-7.2.1, pluggy-1.0.0
rootdir: /home/me/shop
collected 4 items

tests/test_price.py ...F                                                 [100%]

=================================== FAILURES ===================================
_______________________________ test_parse_price _______________________________
Traceback (most recent call last):
  File "/home/me/shop/tests/test_price.py", line 9, in test_parse_price
    assert parse_price("12,50") == 1250
  File "/home/me/shop/src/price.py", line 3, in parse_price
    return int(text.replace(".", ""))
ValueError: invalid literal for int() with base 10: '12,50'
=========================== short test summary info ============================
FAILED tests/test_price.py::test_parse_price - ValueError: invalid literal for int() with base 10: '12,50'
========================= 1 failed, 3 passed in 0.04s =========================="""
PYTEST_LINE = "ValueError: invalid literal for int() with base 10: '12,50'"

CARGO_ERROR = """Exit code 101
   Compiling shop v0.1.0 (/home/me/shop)
error[E0308]: mismatched types
 --> src/main.rs:4:18
  |
4 |     let n: i32 = "five";
  |            ---   ^^^^^^ expected `i32`, found `&str`
  |            |
  |            expected due to this

For more information about this error, try `rustc --explain E0308`.
error: could not compile `shop` (bin "shop") due to 1 previous error"""

NOT_A_REPO = ("Exit code 128\n"
              "fatal: not a git repository (or any of the parent directories): .git")


def bash_response(stdout, stderr=""):
    return {"stdout": stdout, "stderr": stderr, "interrupted": False, "isImage": False}


class OnBashOutput(HookTest):
    seed = [
        memory(AP, "parse_price crashed with ValueError invalid literal for int on a decimal comma",
               "anti_pattern", created="2026-11-01T09:00:00Z"),
        memory(BF, "Fixed ValueError invalid literal int base 10 by normalising the comma",
               "bug_fix", created="2026-11-02T09:00:00Z"),
        memory(TL, "invalid literal errors come from int on user input", "task_learning",
               created="2026-11-03T09:00:00Z"),
        memory(CONV, "literal int base 10 parsing", "convention",
               created="2026-11-04T09:00:00Z"),
        memory(GIT, "fatal not a git repository means the cwd left the checkout",
               "anti_pattern", created="2026-11-05T09:00:00Z"),
        memory(RUST, "mismatched types E0308 from a string literal where i32 was expected",
               "bug_fix", created="2026-11-06T09:00:00Z"),
    ]

    def failure(self, command, error, session="sess-1", env=None):
        payload = post_tool_use_failure_event("Bash", {"command": command,
                                                       "description": "Run it"},
                                              error, session_id=session, cwd=self.project)
        return self.run_hook("on_bash_output", payload, env=env)

    def success(self, command, stdout, stderr="", session="sess-1", env=None, **fields):
        payload = post_tool_use_event("Bash", {"command": command, "description": "Run it"},
                                      bash_response(stdout, stderr), session_id=session,
                                      cwd=self.project, **fields)
        return self.run_hook("on_bash_output", payload, env=env)

    def search_types(self):
        return [(and_terms(s["filters"])[-1].get("metadata", {}).get("type", "broad"), s["top_k"])
                for s in self.fake.searches()]

    def test_failing_pytest_shows_prior_errors_in_the_documented_format(self):
        result = self.failure("pytest -q --tb=native", PYTEST_ERROR)
        self.assertEqual(result.specific()["hookEventName"], "PostToolUseFailure")
        self.assertIsNone(result.system_message())
        self.assertEqual(result.context().split("\n"), [
            HEADING,
            "",
            "- [anti_pattern] parse_price crashed with ValueError invalid literal for int on a "
            "decimal comma [mem0:aaaaaaaa]",
            "- [bug_fix] Fixed ValueError invalid literal int base 10 by normalising the comma "
            "[mem0:bbbbbbbb]",
            "- [task_learning] invalid literal errors come from int on user input [mem0:cccccccc]",
            "- [convention] literal int base 10 parsing [mem0:dddddddd]",
        ])
        searches = self.fake.searches()
        self.assertEqual(len(searches), 1)
        self.assertEqual(searches[0]["query"], PYTEST_LINE)
        self.assertEqual(searches[0]["top_k"], 10)
        self.assertEqual(self.search_types(), [("broad", 10)])

    def test_cargo_and_git_failures_send_their_error_line(self):
        ctx = self.failure("cargo build", CARGO_ERROR).context()
        self.assertIn("- [bug_fix] mismatched types E0308 from a string literal where i32 was "
                      "expected [mem0:ffffffff]", ctx)
        ctx = self.failure("git status", NOT_A_REPO).context()
        self.assertIn("- [anti_pattern] fatal not a git repository means the cwd left the "
                      "checkout [mem0:eeeeeeee]", ctx)
        self.assertEqual([s["query"] for s in self.fake.searches()], [
            "error[E0308]: mismatched types",
            "fatal: not a git repository (or any of the parent directories): .git"])

    def test_a_command_that_succeeds_quietly_sends_nothing(self):
        result = self.success("ls -la", "total 8\ndrwxr-xr-x 2 me me 4096 Mar 10 12:00 .\n"
                                        "-rw-r--r-- 1 me me  120 Mar 10 12:00 README.md\n")
        self.assertEqual(result.stdout, b"")
        self.assertEqual(self.fake.requests(), [])

    def test_a_successful_command_that_printed_a_traceback_is_looked_up(self):
        trace = ('Traceback (most recent call last):\n'
                 '  File "/home/me/shop/src/price.py", line 3, in <module>\n'
                 "ValueError: invalid literal for int() with base 10: '12,50'\n")
        result = self.success("python src/price.py || true", "parsing...\n" + trace, trace)
        self.assertEqual(result.specific()["hookEventName"], "PostToolUse")
        self.assertIn("[mem0:aaaaaaaa]", result.context())
        self.assertEqual([s["query"] for s in self.fake.searches()], [PYTEST_LINE])

    def test_once_per_error_line_per_session(self):
        self.assertIsNotNone(self.failure("pytest", PYTEST_ERROR).context())
        again = self.failure("pytest -x", PYTEST_ERROR)
        self.assertEqual(again.stdout, b"")
        self.assertEqual(len(self.fake.searches()), 1)
        # another error line in the same session is looked up
        self.assertIsNotNone(self.failure("git status", NOT_A_REPO).context())
        self.assertEqual(len(self.fake.searches()), 2)
        # another session looks the first line up again
        self.assertIsNotNone(self.failure("pytest", PYTEST_ERROR, session="sess-2").context())
        self.assertEqual(len(self.fake.searches()), 3)
        path = os.path.join(self.home, ".mem0", "state", "sessions", "sess-1.json")
        with open(path) as f:
            state = json.load(f)
        self.assertEqual(len(state["errors"]), 2)
        # The lines are kept as hashes only; `awaiting` holds the injected memories' own text,
        # for the use signal (docs/hygiene.md#the-use-signal).
        self.assertTrue(state["awaiting"])
        del state["awaiting"]
        self.assertNotIn("ValueError", json.dumps(state))

    def test_git_commit_merge_and_rebase_are_skipped(self):
        self.success('git commit -am "Fix ValueError: in parse_price"',
                     "[main 4f1c2d3] Fix ValueError: in parse_price\n"
                     " 1 file changed, 2 insertions(+), 1 deletion(-)\n"
                     "Traceback mentioned in the message\n")
        self.failure("git merge origin/legacy",
                     "Exit code 128\nfatal: refusing to merge unrelated histories")
        self.failure("git -C /home/me/shop rebase main",
                     "Exit code 1\nerror: could not apply 1a2b3c4... Fix panic: on empty input")
        self.assertEqual(self.fake.requests(), [])

    def test_error_words_only_in_the_event_json_send_nothing(self):
        payload = post_tool_use_event(
            "Bash", {"command": "grep -rn 'Traceback\\|panic:\\|FATAL:' logs/ || echo clean",
                     "description": "Look for ValueError: and KeyError: lines\nfatal: too"},
            bash_response("clean\n"), cwd=self.project)
        self.assertEqual(self.run_hook("on_bash_output", payload).stdout, b"")
        self.assertEqual(self.fake.requests(), [])

    def test_other_tools_and_missing_key_send_nothing(self):
        payload = post_tool_use_failure_event("Read", {"file_path": "/x"}, PYTEST_ERROR,
                                              cwd=self.project)
        self.assertEqual(self.run_hook("on_bash_output", payload).stdout, b"")
        # No key: nothing for the model; the user is told once in the session.
        no_key = self.env(MEM0_API_KEY=None)
        told = self.failure("pytest", PYTEST_ERROR, env=no_key)
        self.assertEqual(told.json(), {"systemMessage": "mem0: no API key, recall and capture are "
                                                        "off (run mem0-hooks doctor)"})
        self.assertEqual(self.failure("pytest", PYTEST_ERROR, env=no_key).stdout, b"")
        self.assertEqual(self.failure("pytest", PYTEST_ERROR,
                                      env=self.env(MEM0_AUTO_SEARCH="false")).stdout, b"")
        self.assertEqual(self.fake.requests(), [])

    def test_thorough_sends_three_typed_searches(self):
        result = self.failure("pytest", PYTEST_ERROR, env=self.env(MEM0_SEARCH_PLAN="thorough"))
        self.assertEqual(sorted(self.search_types()),
                         [("anti_pattern", 5), ("broad", 10), ("bug_fix", 3)])
        self.assertEqual({s["query"] for s in self.fake.searches()}, {PYTEST_LINE})
        self.assertEqual(result.context().split("\n")[2].split("]")[0], "- [anti_pattern")

    def test_rate_limit_is_told_to_the_user_once_per_session(self):
        self.fake.control(status=429)
        result = self.failure("pytest", PYTEST_ERROR)
        self.assertEqual(result.system_message(), "mem0: recall skipped — rate limited")
        self.assertIsNone(result.specific())  # nothing for the model
        # Paused: the next error of the session sends nothing and says nothing.
        self.assertEqual(self.failure("git status", NOT_A_REPO).stdout, b"")
        self.assertEqual(len(self.fake.searches()), 1)

    def test_show_recall_counts_the_memories(self):
        result = self.failure("pytest", PYTEST_ERROR, env=self.env(MEM0_SHOW_RECALL="on"))
        self.assertEqual(result.system_message(), "mem0: 4 memories recalled")
        self.assertEqual(len([l for l in result.context().split("\n") if l.startswith("- [")]), 4)


if __name__ == "__main__":
    testmain.main()
