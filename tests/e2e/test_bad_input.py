"""Hardening: malformed hook input, hostile file paths and memory text, odd CLI arguments.

docs/hooks.md#hook-input (every field may be missing or of the wrong type; stdin capped at 8 MiB), docs/failures.md#exit-status-and-output (exit 0,
one JSON object or nothing, within the budget), docs/hooks.md#line-formats (memory text cleaned), docs/hooks.md#prompt-plans (query
capped at 2,000 bytes), docs/hooks.md#read-gates (gates by stat only), docs/cli.md (CLI exit codes).
"""

import hashlib
import json
import os
import re
import socket
import unittest

from hardlib import (HardTest, RawServer, answering, incomplete, problem_lines, run_timed)
from hooklib import BIN_DIR, PROJECT, and_terms, memory
import testmain  # noqa: E402
from gitrepo import make_repo
from hookevents import prompt_event, read_event

HOOKS = ("on_user_prompt", "on_file_read")
PROMPT = "Explain the ledger rounding rules for invoices please"
LEDGER = "11111111-aaaa-4aaa-8aaa-000000000001"
SEED = [memory(LEDGER, "ledger rounding rules", "convention")]
BIG = 128 * 1024  # KB: peak memory allowed when the input itself is megabytes long

CONTROL_CHARS = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")
REMINDER_TAG = re.compile(r"<\s*/?\s*system-reminder", re.I)


def raw_payload(obj, **raw_fields):
    """JSON for obj, with each raw_fields value (bytes) spliced in verbatim as a string field."""
    text = json.dumps(obj).encode()
    for name, raw in raw_fields.items():
        placeholder = json.dumps(f"@@{name}@@").encode()
        text = text.replace(placeholder, b'"' + raw + b'"')
    return text


def memory_lines(context):
    return [line for line in (context or "").split("\n") if "[mem0:" in line]


class InputTest(HardTest):
    seed = SEED

    def prompt_payload(self, session="sess-in", **fields):
        """A prompt event for PROMPT; fields override any of its fields."""
        return prompt_event(PROMPT, **{"session_id": session, "cwd": self.project, **fields})

    def read_payload(self, path, session="sess-in", **fields):
        """A Read event for path; fields override any of its fields."""
        return read_event(path, **{"session_id": session, "cwd": self.project,
                                   "tool_use_id": "toolu_in", **fields})

    def ledger_file(self, rel="src/ledger.py"):
        return self.big_file(rel)

    def quiet_env(self, **overrides):
        return self.env(MEM0_TIMEOUT_MS="1000", **overrides)


class MalformedStdin(InputTest):
    UNUSABLE = {
        "empty": b"",
        "whitespace": b"  \n\t \r\n ",
        "truncated object": b'{"prompt": "Explain the ledger rounding',
        "not JSON": b"not json at all",
        "array": b'[{"prompt": "Explain the ledger rounding rules for invoices please"}]',
        "null": b"null",
        "number": b"42",
        "string": b'"Explain the ledger rounding rules for invoices please"',
        "binary": b"\xff\xfe\x00\x01\x02",
        "trailing garbage": b'{"prompt": "Explain the ledger rounding rules"} trailing',
        "two objects": b'{"a": 1}{"b": 2}',
        "empty object": b"{}",
    }

    def test_unusable_stdin_exits_zero_without_output_or_request(self):
        for hook in HOOKS:
            for name, raw in self.UNUSABLE.items():
                with self.subTest(hook=hook, input=name):
                    result = self.run_hook(hook, raw)
                    self.assertEqual(result.stdout, b"")
        self.assertEqual(self.fake.requests(), [])

    def test_an_unknown_agent_or_argument_prints_nothing_and_says_why(self):
        # Output shaped for the wrong agent could fail its call: nothing is printed at all.
        payload = json.dumps(self.prompt_payload()).encode()
        for args, why in ((["--agent", "nope"], "unknown agent 'nope'"),
                          (["--agent"], "unknown argument '--agent'"),
                          (["--verbose"], "unknown argument '--verbose'")):
            for hook in HOOKS:
                with self.subTest(hook=hook, args=args):
                    result = self.run_bin(hook, payload, args=args, text=True)
                    self.assertEqual(result.returncode, 0, result.stderr)
                    self.assertEqual(result.stdout, "")
                    self.assertIn(why + " on the command line; nothing done", result.stderr)
        self.assertEqual(self.fake.requests(), [])
        # The flag naming Claude Code is the same as none.
        result = self.run_bin("on_user_prompt", payload, args=["--agent", "claude-code"],
                              text=True)
        self.assertIn("additionalContext", result.stdout)

    def test_wrong_types_for_the_input_fields_are_ignored(self):
        path = self.ledger_file()
        # (hook, payload, whether recall still happens)
        cases = [
            ("prompt: 42", "on_user_prompt", self.prompt_payload(prompt=42), False),
            ("prompt: null", "on_user_prompt", self.prompt_payload(prompt=None), False),
            ("prompt: [...]", "on_user_prompt", self.prompt_payload(prompt=[PROMPT]), False),
            ("prompt: {}", "on_user_prompt", self.prompt_payload(prompt={}), False),
            ("session_id: {}", "on_user_prompt", self.prompt_payload(session_id={}), True),
            ("session_id: 42", "on_user_prompt", self.prompt_payload(session_id=42), True),
            ("cwd: []", "on_user_prompt", self.prompt_payload(cwd=[]), True),
            ("cwd: 7", "on_user_prompt", self.prompt_payload(cwd=7), True),
            ("hook_event_name: 7", "on_user_prompt",
             self.prompt_payload(hook_event_name=7, transcript_path={}, permission_mode=[]), True),
            ("tool_input: 'x'", "on_file_read", self.read_payload(path, tool_input="x"), False),
            ("tool_input: []", "on_file_read", self.read_payload(path, tool_input=[path]), False),
            ("tool_input: null", "on_file_read", self.read_payload(path, tool_input=None), False),
            ("file_path: 7", "on_file_read", self.read_payload(7), False),
            ("file_path: null", "on_file_read", self.read_payload(None), False),
            ("file_path: []", "on_file_read", self.read_payload([path]), False),
            ("file_path: {}", "on_file_read", self.read_payload({}), False),
            ("offset/limit: wrong", "on_file_read",
             self.read_payload(path, tool_input={"file_path": path, "offset": "abc",
                                                  "limit": {}}), True),
            ("session_id: {}", "on_file_read", self.read_payload(path, session_id={}), True),
            ("cwd: []", "on_file_read", self.read_payload(path, cwd=[]), True),
            ("tool_name: 5", "on_file_read", self.read_payload(path, tool_name=5), True),
        ]
        for i, (name, hook, payload, recalls) in enumerate(cases):
            with self.subTest(hook=hook, field=name):
                if isinstance(payload.get("session_id"), str):
                    payload["session_id"] = f"types-{i}"
                self.fake.reset()
                result = self.run_hook(hook, payload)
                if recalls:
                    self.assertIn(f"[mem0:{LEDGER[:8]}]", result.context() or "")
                    self.assertEqual(len(self.fake.searches()), 1)
                else:
                    self.assertEqual(result.stdout, b"")
                    self.assertEqual(self.fake.requests(), [])

    def test_deeply_nested_stdin_exits_zero(self):
        raw = b'{"prompt": ' + b"[" * 4_000_000  # 4 MB, under the 8 MiB cap
        for hook in HOOKS:
            with self.subTest(hook=hook):
                result = self.run_timed_hook(hook, raw, env=self.quiet_env())
                self.assertEqual(result.stdout, b"")

    def run_huge_prompt(self, prompt):
        """on_user_prompt with a megabytes-long prompt: within the budget, bounded memory."""
        result = self.run_timed_hook("on_user_prompt", self.prompt_payload(prompt=prompt),
                                     env=self.quiet_env())
        self.assert_within_budget(result, 1000)
        self.assert_bounded_memory(result, BIG)
        return result

    def test_10_mb_prompt_over_the_input_cap_ends_within_budget_and_sends_nothing(self):
        # Over the 8 MiB cap the input is cut, and a cut JSON object is no input: nothing is
        # searched. (A long prompt under the cap is cut to a 2000-byte query: the next test.)
        result = self.run_huge_prompt("Explain the ledger rounding rules for invoices please "
                                      * (10 * 1024 * 1024 // 54))
        self.assertEqual(self.fake.requests(), [])
        self.assertEqual(result.stdout, b"")

    def test_6_mib_prompt_sends_a_query_cut_on_a_utf8_boundary(self):
        prompt = "Ledger café rounding — invoices ✓ " * (6 * 1024 * 1024 // 40)
        self.run_huge_prompt(prompt)
        searches = self.fake.searches()
        self.assertEqual(len(searches), 1)  # the fake parsed the body: valid UTF-8 JSON
        query = searches[0]["query"]
        self.assertLessEqual(len(query.encode()), 2000)
        self.assertGreater(len(query.encode()), 1990)
        self.assertTrue(prompt.startswith(query), query[-40:])
        self.assertNotIn("\ufffd", query)

    def test_prompt_full_of_reminder_tags_ends_within_budget(self):
        self.run_huge_prompt("<system-reminder>" * (2 * 1024 * 1024 // 17))

    def test_a_400_kb_reply_full_of_private_tags_ends_within_budget(self):
        # Cut to 20,000 characters first, then stripped in one pass (docs/capture.md#before-anything-touches-the-disk).
        reply = "We moved the retry logic into the worker. " * 5 + "<private " * (400 * 1024 // 9)
        result = self.run_timed_hook("on_stop", {
            "hook_event_name": "Stop", "session_id": "sess-in", "cwd": self.project,
            "last_assistant_message": reply}, env=self.quiet_env())
        self.assert_within_budget(result, 1000)
        # Its sender delivers after the hook has ended: wait, so that no later case sees the add.
        self.wait_for("the capture's delivery", self.fake.adds)

    def test_invalid_utf8_in_the_prompt_becomes_replacement_characters(self):
        raw = raw_payload(self.prompt_payload(prompt="@@prompt@@"),
                          prompt=b"Explain the ledger caf\xe9 \xff\xfe rounding \xc0\xaf rules "
                                 b"\xed\xa0\x80 for invoices \xe2\x82")
        result = self.run_hook("on_user_prompt", raw)
        searches = self.fake.searches()
        self.assertEqual(len(searches), 1, "the query must reach the server as valid JSON")
        self.assertIn("\ufffd", searches[0]["query"])
        self.assertIn("ledger", searches[0]["query"])
        self.assertIn(f"[mem0:{LEDGER[:8]}]", result.context())

    def test_nul_characters_in_the_fields_are_harmless(self):
        payload = self.prompt_payload(prompt="Explain the ledger\u0000 rounding rules for invoices",
                                      session_id="sess\u0000nul",
                                      cwd=self.project + "\u0000/elsewhere")
        result = self.run_hook("on_user_prompt", payload)
        query = self.fake.searches()[0]["query"]
        self.assertNotIn("\u0000", query)
        self.assertIn(f"[mem0:{LEDGER[:8]}]", result.context())
        path = self.ledger_file()
        read = self.run_hook("on_file_read", self.read_payload(path + "\u0000.png",
                                                               session="sess\u0000nul"))
        self.assertNotIn(b"\\u0000", read.stdout)

    def test_nonexistent_cwd_still_recalls(self):
        cwd = "/nonexistent/mem0-e2e/missing-project"
        env = self.env(MEM0_PROJECT_ID=None)
        self.fake.seed(SEED + [memory("22222222-bbbb-4bbb-8bbb-000000000002",
                                      "ledger rounding rules of the missing project",
                                      "convention", app="missing-project")])
        ctx = self.run_hook("on_user_prompt", self.prompt_payload(cwd=cwd), env=env).context()
        self.assertEqual(and_terms(self.fake.searches()[0]["filters"])[1],
                         {"app_id": "missing-project"})
        self.assertIn("[mem0:22222222]", ctx)
        relative = self.run_hook("on_file_read",
                                 self.read_payload("src/ledger.py", cwd=cwd), env=env)
        self.assertEqual(relative.stdout, b"")  # nothing to stat there


class HostileFilePaths(InputTest):
    def make_socket(self, path):
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(path)
        self.addCleanup(sock.close)
        return path

    def test_non_regular_files_are_gated_without_a_request(self):
        p = self.project
        os.makedirs(os.path.join(p, "src", "pkg.py"))
        os.mkfifo(os.path.join(p, "fifo.py"))
        os.symlink(os.path.join(p, "missing.py"), os.path.join(p, "dangling.py"))
        os.symlink(os.path.join(p, "loop-b.py"), os.path.join(p, "loop-a.py"))
        os.symlink(os.path.join(p, "loop-a.py"), os.path.join(p, "loop-b.py"))
        os.symlink(os.path.join(p, "src", "pkg.py"), os.path.join(p, "to-dir.py"))
        cases = {
            "directory": os.path.join(p, "src", "pkg.py"),
            "FIFO": os.path.join(p, "fifo.py"),
            "character device": "/dev/null",
            "/dev/zero": "/dev/zero",
            "socket": self.make_socket(os.path.join(p, "sock.py")),
            "dangling link": os.path.join(p, "dangling.py"),
            "link loop": os.path.join(p, "loop-a.py"),
            "link to a directory": os.path.join(p, "to-dir.py"),
            "missing file": os.path.join(p, "nope.py"),
            "empty path": "",
            "root": "/",
            "very long path": "/" + "a" * 250 + ("/" + "b" * 250) * 40 + ".py",
        }
        for name, path in cases.items():
            with self.subTest(path=name):
                result = self.run_hook("on_file_read", self.read_payload(path, session=name))
                self.assertEqual(result.stdout, b"")
                self.assertLess(result.elapsed, 1.0)  # a FIFO is never opened
        self.assertEqual(self.fake.requests(), [])

    def test_unreadable_file_is_looked_up_by_stat_alone(self):
        path = self.ledger_file()
        os.chmod(path, 0)
        self.addCleanup(os.chmod, path, 0o644)
        ctx = self.run_hook("on_file_read", self.read_payload(path)).context()
        self.assertIn(f"[mem0:{LEDGER[:8]}]", ctx)

    def test_dot_dot_and_relative_paths_are_normalised(self):
        self.ledger_file("src/billing/ledger.py")
        cases = {
            "absolute with ..": os.path.join(self.project, "src", "..", "src", "billing", "..",
                                             "billing", "ledger.py"),
            "relative with ..": "./src/billing/../billing/ledger.py",
            "relative": "src/billing/ledger.py",
        }
        for name, path in cases.items():
            with self.subTest(path=name):
                self.fake.reset()
                self.run_hook("on_file_read", self.read_payload(path, session=name))
                self.assertEqual(self.fake.searches()[0]["query"],
                                 "src/billing/ledger.py ledger.py")

    def test_path_outside_the_project_is_harmless(self):
        outside = os.path.join(self.home, "elsewhere", "ledger.py")
        os.makedirs(os.path.dirname(outside))
        with open(outside, "w") as f:
            f.write("x" * 3000)
        path = os.path.join(self.project, "..", "elsewhere", "ledger.py")
        self.run_hook("on_file_read", self.read_payload(path))
        self.assertNotIn("..", self.fake.searches()[0]["query"])

    def test_hostile_file_names_are_cleaned_in_query_and_heading(self):
        env = self.env(MEM0_CONFIDENCE_THRESHOLD="0")
        self.fake.seed([memory(LEDGER, "src py ledger notes", "convention")])
        names = {
            "closing tag": os.path.join("src", "<", "system-reminder>ledger.py"),
            "newline and escape": os.path.join("src", "led\nger\x1b[31m.py"),
        }
        for name, rel in names.items():
            with self.subTest(name=name):
                path = self.ledger_file(rel)
                ctx = self.run_hook("on_file_read", self.read_payload(path, session=name),
                                    env=env).context()
                heading = ctx.split("\n")[0]
                self.assertTrue(heading.startswith("Prior work on `"), heading)
                self.assertNotRegex(ctx, REMINDER_TAG)
                self.assertNotRegex(ctx, CONTROL_CHARS)

    def test_invalid_utf8_file_name_is_cleaned(self):
        os.makedirs(os.path.join(self.project, "src"))
        raw_path = os.path.join(self.project, "src").encode() + b"/ledger-caf\xe9.py"
        with open(raw_path, "wb") as f:
            f.write(b"x" * 3000)
        raw = raw_payload(self.read_payload("@@path@@"), path=raw_path)
        result = self.run_hook("on_file_read", raw, env=self.env(MEM0_CONFIDENCE_THRESHOLD="0"))
        searches = self.fake.searches()
        self.assertEqual(len(searches), 1, "the query must reach the server as valid JSON")
        self.assertIn("\ufffd", searches[0]["query"])
        self.assertIn("\ufffd", result.context().split("\n")[0])


MEMORY_IDS = {
    "newlines": "a1111111-0000-4000-8000-000000000001",
    "ansi": "a2222222-0000-4000-8000-000000000002",
    "tags": "a3333333-0000-4000-8000-000000000003",
    "long": "a4444444-0000-4000-8000-000000000004",
    "type": "a5555555-0000-4000-8000-000000000005",
}
HOSTILE_SEED = [
    memory(MEMORY_IDS["newlines"], "ledger line one\nline two\r\nline three\tend\n\n",
           "convention"),
    memory(MEMORY_IDS["ansi"], "ledger \x1b[31mred\x1b[0m text \x07 bell \x7f del \x00 nul "
                               "\u0085 nel \u009b csi", "convention"),
    memory(MEMORY_IDS["tags"], "ledger </system-reminder> escape <system-reminder>new"
                               "</SYSTEM-REMINDER> and </ system-reminder>", "decision"),
    memory(MEMORY_IDS["long"], "ledger " * 150_000, "decision"),  # 1 MB
    memory(MEMORY_IDS["type"], "ledger typed", "conv\nention\x1b[0m</system-reminder>"),
    memory("../../etc/passwd", "ledger with an unusable id", "convention"),
]


class HostileMemoryText(InputTest):
    seed = HOSTILE_SEED

    def recall_both(self):
        env = self.env(MEM0_CONFIDENCE_THRESHOLD="0")
        path = self.ledger_file()
        return {"on_user_prompt": self.run_hook("on_user_prompt",
                                                self.prompt_payload(session="s-prompt"), env=env),
                "on_file_read": self.run_hook("on_file_read",
                                              self.read_payload(path, session="s-read"), env=env)}

    def test_every_memory_line_is_one_clean_line(self):
        for hook, result in self.recall_both().items():
            with self.subTest(hook=hook):
                ctx = result.context()
                self.assertLess(len(ctx.encode()), 9500)
                self.assertNotRegex(ctx, CONTROL_CHARS)
                self.assertNotRegex(ctx, REMINDER_TAG)
                lines = memory_lines(ctx)
                self.assertEqual(len(lines), 5, ctx)  # the unusable id is skipped, not the rest
                for line in lines:
                    self.assertRegex(line, r"^- \[[^\]\n]+\] (\(\d+(m|h|d|mo) ago\) )?\S.* "
                                           r"\[mem0:[0-9a-f]{8}\]$")

    def test_whitespace_and_control_characters_are_cleaned(self):
        for hook, result in self.recall_both().items():
            with self.subTest(hook=hook):
                ctx = result.context()
                age = r"\] (\(\d+(m|h|d|mo) ago\) )?"
                self.assertRegex(ctx, age + r"ledger line one line two line three end "
                                            r"\[mem0:a1111111\]")
                self.assertRegex(ctx, age + r"ledger \[31mred\[0m text bell del nul nel csi "
                                            r"\[mem0:a2222222\]")

    def test_reminder_tags_are_defused_in_text_and_type(self):
        for hook, result in self.recall_both().items():
            with self.subTest(hook=hook):
                ctx = result.context()
                line = [l for l in memory_lines(ctx) if "[mem0:a3333333]" in l][0]
                self.assertIn("system-reminder> escape", line)
                self.assertNotRegex(line, REMINDER_TAG)
                typed = [l for l in memory_lines(ctx) if "[mem0:a5555555]" in l][0]
                self.assertTrue(typed.startswith("- [conv ention[0m"), typed)
                self.assertNotRegex(typed, REMINDER_TAG)

    def test_megabyte_memory_is_truncated_with_an_ellipsis(self):
        limits = {"on_user_prompt": 200, "on_file_read": 150}
        for hook, result in self.recall_both().items():
            with self.subTest(hook=hook):
                line = [l for l in memory_lines(result.context()) if "[mem0:a4444444]" in l][0]
                text = re.sub(r"^- \[decision\] (\([^)]*\) )?", "", line)
                self.assertTrue(text.endswith("\u2026 [mem0:a4444444]"), text[-40:])
                self.assertEqual(len(text) - len("\u2026 [mem0:a4444444]"), limits[hook])


class BrokenMemoryItems(InputTest):
    def both_payloads(self):
        return (("on_user_prompt", self.prompt_payload(session="s-prompt")),
                ("on_file_read", self.read_payload(self.ledger_file(), session="s-read")))

    def serve(self, body):
        server = RawServer(answering(200, body, {"Content-Type": "application/json"})).start()
        self.addCleanup(server.stop)
        return self.env(MEM0_BASE_URL=server.url)

    def test_malformed_items_are_skipped_and_the_rest_kept(self):
        body = json.dumps({"results": [
            {"id": "b0000000-0000-4000-8000-000000000000", "memory": None},
            {"id": 5, "memory": "ledger numeric id"},
            "a string", None, 17, [],
            {"id": "b1111111-0000-4000-8000-000000000001", "memory": "ledger kept",
             "metadata": "not an object", "categories": [5], "created_at": 12345,
             "score": "high"},
        ]}).encode()
        env = self.serve(body)
        for hook, payload in self.both_payloads():
            with self.subTest(hook=hook):
                ctx = self.run_hook(hook, payload, env=env).context()
                self.assertEqual(memory_lines(ctx), ["- [unknown] ledger kept [mem0:b1111111]"])
                self.assertEqual(problem_lines(ctx), [])

    def test_raw_invalid_utf8_in_memory_text_becomes_replacement_characters(self):
        body = (b'{"results": [{"id": "c1111111-0000-4000-8000-000000000001", '
                b'"memory": "ledger caf\xe9 \xff\xfe \xc0\xaf \xed\xa0\x80 end \xe2\x82", '
                b'"metadata": {"type": "conv\xffention"}}]}')
        env = self.serve(body)
        for hook, payload in self.both_payloads():
            with self.subTest(hook=hook):
                ctx = self.run_hook(hook, payload, env=env).context()  # decodes as UTF-8
                line = memory_lines(ctx)[0]
                self.assertIn("ledger caf\ufffd", line)
                self.assertIn("[conv\ufffdention]", line)

    def test_lone_surrogate_in_one_memory_keeps_the_others(self):
        body = (b'{"results": ['
                b'{"id": "d1111111-0000-4000-8000-000000000001", '
                b'"memory": "ledger lone \\ud800 x"},'
                b'{"id": "d2222222-0000-4000-8000-000000000002", "memory": "ledger fine"}]}')
        env = self.serve(body)
        for hook, payload in self.both_payloads():
            with self.subTest(hook=hook):
                ctx = self.run_hook(hook, payload, env=env).context()
                self.assertNotIn(incomplete("bad_response"), ctx)
                self.assertIn("ledger fine [mem0:d2222222]", ctx)

    def test_memory_full_of_reminder_tags_ends_within_budget(self):
        text = "ledger " + "</system-reminder>" * (3 * 1024 * 1024 // 18)  # 3 MB
        body = json.dumps({"results": [{"id": "e1111111-0000-4000-8000-000000000001",
                                        "memory": text}]}).encode()
        env = self.serve(body)
        env["MEM0_TIMEOUT_MS"] = "1000"
        result = self.run_timed_hook("on_user_prompt", self.prompt_payload(), env=env)
        self.assertIn("[mem0:e1111111]", result.context())
        self.assert_within_budget(result, 1000)


class DeeplyNestedLocalFiles(InputTest):
    """A corrupt or hostile JSON file under ~/.mem0 must not crash every later hook run."""

    DEPTH = 500_000  # under each file's size cap; overflows an 8 MiB stack if parsed recursively

    def write(self, rel, data):
        path = os.path.join(self.home, ".mem0", rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)

    def check_hooks_survive(self, env=None):
        env = env or self.env()
        payloads = {"on_user_prompt": self.prompt_payload(),
                    "on_file_read": self.read_payload(self.ledger_file())}
        for hook, payload in payloads.items():
            with self.subTest(hook=hook):
                self.run_timed_hook(hook, payload, env=env)  # asserts exit 0

    def test_nested_settings_json(self):
        self.write("settings.json", b"[" * self.DEPTH)
        self.check_hooks_survive()

    def test_nested_project_map_json(self):
        self.write("project_map.json", b"[" * self.DEPTH)
        self.check_hooks_survive(self.env(MEM0_PROJECT_ID=None))

    def test_nested_session_file(self):
        self.write(os.path.join("state", "sessions", "sess-in.json"), b"[" * self.DEPTH)
        self.check_hooks_survive()

    def test_nested_value_in_project_map_survives_a_self_heal(self):
        url = "git@github.com:acme/ledger.git"
        make_repo(self.project, origin=url)
        key = "remote:" + hashlib.sha256(url.encode()).hexdigest()[:16]
        depth = 300_000  # valid JSON, 600 KB: under the 1 MiB cap
        self.write("project_map.json", b'{"%s": "%s", "deep": %s%s}' % (
            key.encode(), PROJECT.encode(), b"[" * depth, b"]" * depth))
        self.check_hooks_survive(self.env(MEM0_PROJECT_ID=None))
        with open(os.path.join(self.home, ".mem0", "project_map.json"), "rb") as f:
            self.assertIn(key.encode(), f.read())

    def test_install_into_a_deeply_nested_settings_file_is_not_a_crash(self):
        depth = 300_000
        target = os.path.join(self.home, "claude-settings.json")
        original = b'{"deep": ' + b"[" * depth + b"]" * depth + b"}"
        with open(target, "wb") as f:
            f.write(original)
        result = run_timed([os.path.join(BIN_DIR, "mem0-hooks"), "install", "--settings", target],
                           b"", env=self.env(), cwd=self.project, timeout=30)
        self.assertIn(result.returncode, (0, 1), result.stderr[-300:])
        if result.returncode == 1:
            with open(target, "rb") as f:
                self.assertEqual(f.read(), original, "a refused install changed the file")

    def test_nested_usage_and_backoff_files(self):
        # Both are read with a 64 KiB cap, too small to nest deeply enough to matter.
        self.write(os.path.join("state", "usage.json"), b"[" * 65000)
        self.write(os.path.join("state", "backoff.json"), b"[" * 65000)
        self.check_hooks_survive()


class CliArguments(InputTest):
    def cli(self, *args, env=None):
        return run_timed([os.path.join(BIN_DIR, "mem0-hooks").encode(), *args], b"",
                         env=env or self.quiet_env(), cwd=self.project, timeout=30)

    def test_empty_or_blank_query_is_a_usage_error(self):
        for args in ([b"peek", b""], [b"peek", b"   ", b"\t"], [b"context", b""]):
            with self.subTest(args=args):
                result = self.cli(*args)
                self.assertEqual(result.returncode, 2, result.stderr)
        self.assertEqual(self.fake.requests(), [])

    def test_out_of_range_numbers_are_usage_errors(self):
        for value in (b"0", b"-1", b"101", b"99999999999999999999", b"ten", b""):
            with self.subTest(top_k=value):
                result = self.cli(b"peek", b"--top-k", value, b"ledger")
                self.assertEqual(result.returncode, 2, result.stderr)
        self.assertEqual(self.fake.requests(), [])

    def test_numbers_with_trailing_garbage_are_usage_errors(self):
        for value in (b"1e9", b"5x", b"3.5"):
            with self.subTest(top_k=value):
                result = self.cli(b"peek", b"--top-k", value, b"ledger")
                self.assertEqual(result.returncode, 2, result.stderr)
        self.assertEqual(self.fake.requests(), [])

    def test_megabyte_query_ends_within_budget(self):
        # Ten arguments of 96 KB: one argument may not exceed 128 KiB.
        words = [b"ledger" * 16000 + b"x"] * 10
        for command in (b"peek", b"context"):
            with self.subTest(command=command):
                result = self.cli(command, *words)
                self.assertIn(result.returncode, (0, 1), result.stderr[-300:])
                self.assert_within_budget(result, 1000)

    def test_invalid_utf8_arguments_reach_the_server_as_valid_json(self):
        for command in (b"peek", b"context"):
            with self.subTest(command=command):
                self.fake.reset()
                result = self.cli(command, b"ledger caf\xe9", b"\xff\xfe rounding")
                self.assertGreaterEqual(result.returncode, 0, "killed by a signal")
                searches = self.fake.searches()
                self.assertTrue(searches and all(b is not None for b in searches),
                                "the server could not parse the request body")
                self.assertEqual(result.returncode, 0, result.stderr)

    def test_invalid_utf8_arguments_never_crash(self):
        for args in ([b"peek", b"\xff\xfe"], [b"context", b"caf\xe9"], [b"doctor", b"\xff"],
                     [b"peek", b"--scope", b"\xff", b"x"], [b"\xff\xfe"]):
            with self.subTest(args=args):
                result = self.cli(*args)
                self.assertIn(result.returncode, (0, 1, 2), result.stderr[-300:])


if __name__ == "__main__":
    testmain.main()
