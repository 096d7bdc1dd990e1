#!/usr/bin/env python3
"""Self-test of the shared test helpers: python3 tests/lib/test_lib.py"""

import json
import io
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from backends import per_backend  # noqa: E402
import hookevents as ev  # noqa: E402
from gitrepo import make_repo  # noqa: E402
from loopback import HttpStandIn, closed_port, free_ports, json_handler  # noqa: E402
from runresult import RunResult, assert_one_json_object  # noqa: E402
import seeds  # noqa: E402
import testmain  # noqa: E402

COMMON = {"session_id", "hook_event_name", "permission_mode"}


def out(obj):
    return json.dumps(obj).encode()


class OneJsonObject(unittest.TestCase):
    CONTEXT = {"hookEventName": "UserPromptSubmit", "additionalContext": "ctx"}

    def test_accepts_the_documented_shapes(self):
        for obj in ({"hookSpecificOutput": self.CONTEXT},
                    {"hookSpecificOutput": self.CONTEXT, "systemMessage": "mem0: key rejected"},
                    {"systemMessage": "mem0: no API key"},
                    {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                            "updatedInput": {"user_id": "u"}}}):
            with self.subTest(obj=obj):
                self.assertEqual(assert_one_json_object(out(obj) + b"\n"), obj)
        self.assertEqual(assert_one_json_object(out({"hookSpecificOutput": self.CONTEXT}),
                                                "UserPromptSubmit")["hookSpecificOutput"],
                         self.CONTEXT)

    def test_rejects_everything_else(self):
        bad = {
            "unknown top-level key": out({"hookSpecificOutput": self.CONTEXT, "extra": 1}),
            "empty object": b"{}",
            "array": b"[]",
            "systemMessage not a string": out({"systemMessage": 5}),
            "empty systemMessage": out({"systemMessage": ""}),
            "no hookEventName": out({"hookSpecificOutput": {"additionalContext": "c"}}),
            "unknown specific key": out({"hookSpecificOutput": dict(self.CONTEXT, x=1)}),
            "context not a string": out({"hookSpecificOutput": dict(self.CONTEXT,
                                                                    additionalContext=[])}),
            "permission decision": out({"hookSpecificOutput": dict(
                self.CONTEXT, permissionDecision="allow")}),
            "trailing garbage": out({"systemMessage": "m"}) + b" x",
            "two objects": out({"systemMessage": "m"}) * 2,
            "leading space": b" " + out({"systemMessage": "m"}),
        }
        for name, stdout in bad.items():
            with self.subTest(name):
                self.assertRaises(AssertionError, assert_one_json_object, stdout)
        self.assertRaises(UnicodeDecodeError, assert_one_json_object,
                          b'{"systemMessage": "\xff"}')
        self.assertRaises(AssertionError, assert_one_json_object,
                          out({"hookSpecificOutput": self.CONTEXT}), "PreToolUse")


class Results(unittest.TestCase):
    def test_accessors(self):
        both = RunResult(0, out({"hookSpecificOutput": {"hookEventName": "E",
                                                        "additionalContext": "a\nb"},
                                 "systemMessage": "seen"}), b"", 0.1)
        self.assertEqual((both.context(), both.system_message()), ("a\nb", "seen"))
        self.assertEqual(both.json()["systemMessage"], "seen")
        message_only = RunResult(0, out({"systemMessage": "seen"}), b"", 0.1)
        self.assertEqual((message_only.context(), message_only.system_message()),
                         (None, "seen"))
        silent = RunResult(0, b"", b"", 0.1)
        self.assertEqual((silent.json(), silent.context(), silent.system_message()),
                         (None, None, None))
        self.assertRaises(ValueError, RunResult(0, b"not json", b"", 0).json)

    def test_of_a_process_decodes_on_request(self):
        proc = subprocess.run([sys.executable, "-c", "print('caf\\u00e9\\nline 2')"],
                              capture_output=True)
        raw, text = RunResult.of(proc, 0.5), RunResult.of(proc, 0.5, text=True)
        self.assertEqual(raw.stdout, "café\nline 2\n".encode())
        self.assertEqual(text.stdout, "café\nline 2\n")
        self.assertEqual(raw.lines(), text.lines())
        self.assertEqual(text.lines(), ["café", "line 2"])
        self.assertEqual((text.returncode, text.elapsed, text.peak_kb), (0, 0.5, None))


class Events(unittest.TestCase):
    def test_every_builder_names_its_event_and_has_the_common_fields(self):
        events = {
            "UserPromptSubmit": ev.prompt_event("p"),
            "PreToolUse": ev.read_event("/f"),
            "SessionStart": ev.session_start_event("startup"),
            "Stop": ev.stop_event("done"),
            "PostCompact": ev.post_compact_event("summary"),
            "SessionEnd": ev.session_end_event("clear"),
            "PostToolUse": ev.post_tool_use_event("Bash", {"command": "ls"},
                                                  {"stdout": "x", "stderr": ""}),
            "PostToolUseFailure": ev.post_tool_use_failure_event("Bash", {"command": "ls"},
                                                                 "Exit code 1\nboom"),
        }
        for name, payload in events.items():
            with self.subTest(name):
                self.assertEqual(payload["hook_event_name"], name)
                self.assertLessEqual(COMMON, set(payload))
                self.assertNotIn("cwd", payload)  # left out unless given
                json.dumps(payload)

    def test_event_fields(self):
        self.assertEqual(ev.prompt_event("p", session_id="s", cwd="/c", transcript_path="/t"),
                         {"session_id": "s", "transcript_path": "/t", "cwd": "/c",
                          "hook_event_name": "UserPromptSubmit", "permission_mode": "default",
                          "prompt": "p"})
        read = ev.read_event("/f", offset=3, limit=4)
        self.assertEqual((read["tool_name"], read["tool_use_id"], read["tool_input"]),
                         ("Read", "toolu_1", {"file_path": "/f", "offset": 3, "limit": 4}))
        failure = ev.post_tool_use_failure_event("Bash", {"command": "make"}, "Exit code 2")
        self.assertEqual((failure["error"], failure["is_interrupt"]), ("Exit code 2", False))
        self.assertNotIn("tool_response", failure)
        self.assertEqual(ev.session_start_event("resume")["source"], "resume")
        self.assertEqual(ev.stop_event("m", agent_id="a1")["agent_id"], "a1")
        self.assertEqual(ev.post_compact_event("s", trigger="manual")["trigger"], "manual")
        self.assertEqual(ev.session_end_event("logout")["reason"], "logout")

    def test_fields_can_be_overridden_or_left_out(self):
        odd = ev.read_event(None, tool_name=5, tool_use_id=ev.OMIT, hook_event_name=ev.OMIT,
                            session_id={})
        self.assertEqual(odd, {"session_id": {}, "permission_mode": "default", "tool_name": 5,
                               "tool_input": {"file_path": None}})
        self.assertEqual(ev.read_event("/f", tool_input="x")["tool_input"], "x")
        self.assertEqual(ev.prompt_event("p", prompt=42)["prompt"], 42)


class Repo(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="mem0_lib_")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def read(self, *parts):
        with open(os.path.join(self.dir, *parts)) as f:
            return f.read()

    def test_checkout_with_and_without_origin(self):
        make_repo(os.path.join(self.dir, "a"))
        self.assertEqual(self.read("a", ".git", "HEAD"), "ref: refs/heads/main\n")
        self.assertNotIn("remote", self.read("a", ".git", "config"))
        make_repo(os.path.join(self.dir, "b"), origin="git@github.com:acme/b.git", branch="dev")
        self.assertEqual(self.read("b", ".git", "HEAD"), "ref: refs/heads/dev\n")
        self.assertIn('[remote "origin"]\n\turl = git@github.com:acme/b.git\n',
                      self.read("b", ".git", "config"))

    def test_linked_worktree(self):
        main, tree = os.path.join(self.dir, "main"), os.path.join(self.dir, "trees", "wt")
        make_repo(main, origin="https://example.com/acme/x.git", worktree=tree)
        admin = os.path.join(main, ".git", "worktrees", "wt")
        self.assertEqual(self.read("trees", "wt", ".git"), f"gitdir: {admin}\n")
        with open(os.path.join(admin, "HEAD")) as f:
            self.assertEqual(f.read(), "ref: refs/heads/feature\n")
        with open(os.path.join(admin, "commondir")) as f:
            common = os.path.normpath(os.path.join(admin, f.read().strip()))
        self.assertEqual(common, os.path.join(main, ".git"))
        if shutil.which("git"):  # git itself agrees on the layout
            env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", HOME=self.dir)
            got = subprocess.run(["git", "-C", tree, "config", "remote.origin.url"],
                                 capture_output=True, text=True, env=env)
            self.assertEqual(got.stdout.strip(), "https://example.com/acme/x.git", got.stderr)


class Loopback(unittest.TestCase):
    def test_http_stand_in_answers_records_and_stops(self):
        with HttpStandIn(json_handler({"GET": (503, {"detail": "down"})})) as server:
            self.assertTrue(server.url.startswith("http://127.0.0.1:"))
            with self.assertRaises(urllib.error.HTTPError) as caught:
                urllib.request.urlopen(server.url + "/v1/ping/?x=1", timeout=5)
            self.assertEqual(caught.exception.code, 503)
            self.assertEqual(json.loads(caught.exception.read()), {"detail": "down"})
            request = urllib.request.Request(server.url + "/p", data=b'{"a": 1}', method="POST")
            with self.assertRaises(urllib.error.HTTPError) as caught:
                urllib.request.urlopen(request, timeout=5)
            self.assertEqual(caught.exception.code, 405)
            seen = server.requests()
            self.assertEqual([(r["method"], r["path"], r["body"]) for r in seen],
                             [("GET", "/v1/ping/?x=1", None), ("POST", "/p", {"a": 1})])
            server.reset()
            self.assertEqual(server.requests(), [])
            port = server.port
        with self.assertRaises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=2).close()

    def test_ports(self):
        ports = free_ports(5)
        self.assertEqual(len(set(ports)), 5)
        with self.assertRaises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", closed_port()), timeout=2).close()


class Seeds(unittest.TestCase):
    def test_a_memory_per_backend_and_its_tag(self):
        platform = seeds.memory("c0de0001-0000", "t", "fact", user="u", project="p")
        self.assertEqual((platform["app_id"], platform["metadata"]), ("p", {"type": "fact"}))
        selfhosted = seeds.memory("c0de0001-0000", "t", user="u", project="p",
                                  backend="selfhosted")
        self.assertEqual((selfhosted["agent_id"], selfhosted["metadata"]), ("p", None))
        self.assertNotIn("app_id", selfhosted)
        self.assertEqual(seeds.tag("c0de0001-0000"), "[mem0:c0de0001]")
        memory = seeds.builder(user="u", project="p", created="2026-01-01T00:00:00Z")
        self.assertEqual(memory("c0de0001-0000", "t", "fact", created="2026-11-20T10:00:00Z"),
                         platform)
        self.assertEqual(memory("c0de0001-0000", "t", metadata=None, backend="selfhosted",
                                created="2026-11-20T10:00:00Z"), selfhosted)
        self.assertEqual(memory("c0de0001-0000", "t")["created_at"], "2026-01-01T00:00:00Z")


class PerBackend(unittest.TestCase):
    def test_a_class_per_backend_with_its_seed(self):
        class Base(unittest.TestCase):
            backend, seed = None, []

        class Cases:
            def test_a(self):
                pass

            def test_b(self):
                pass
        platform, selfhosted = per_backend("Cases", Cases, Base, seed=lambda b: [b],
                                           selfhosted={"test_b": None})
        self.assertEqual((platform.__name__, platform.backend, platform.seed),
                         ("PlatformCases", "platform", ["platform"]))
        self.assertEqual((selfhosted.__name__, selfhosted.backend, selfhosted.seed),
                         ("SelfHostedCases", "selfhosted", ["selfhosted"]))
        self.assertTrue(issubclass(platform, Base) and issubclass(selfhosted, Cases))
        names = unittest.TestLoader().getTestCaseNames
        self.assertEqual((names(platform), names(selfhosted)), (["test_a", "test_b"], ["test_a"]))
        self.assertEqual(per_backend("Cases", Cases, Base)[0].seed, [])  # the base's


class TestMain(unittest.TestCase):

    def status_of(self, *cases):
        suite = unittest.TestSuite(cases)
        return testmain.exit_status(unittest.TextTestRunner(stream=io.StringIO()).run(suite))

    def test_a_skipped_case_makes_the_program_skipped_and_a_failure_failed(self):
        class Cases(unittest.TestCase):
            def test_passes(self):
                pass

            def test_skips(self):
                self.skipTest("not here")

            def test_fails(self):
                self.fail("broken")
        self.assertEqual(self.status_of(Cases("test_passes")), 0)
        self.assertEqual(self.status_of(Cases("test_passes"), Cases("test_skips")), 77)
        self.assertEqual(self.status_of(Cases("test_skips"), Cases("test_fails")), 1)


if __name__ == "__main__":
    testmain.main()
