"""End-to-end: the built on_file_read against the fake Mem0 server (docs/hooks.md#file-read-hook)."""

import os
import unittest

from hooklib import BIN_DIR, HookTest, and_terms, memory, shell_quote
import testmain  # noqa: E402
from gitrepo import make_repo
from hookevents import read_event

CONV = "aaaaaaaa-1111-4111-8111-000000000001"
DEC = "bbbbbbbb-2222-4222-8222-000000000002"
WORK = "cccccccc-3333-4333-8333-000000000003"
CONV2 = "dddddddd-4444-4444-8444-000000000004"

REL = "src/billing/invoice.py"
CLI_PATH = os.path.join(os.path.realpath(BIN_DIR), "mem0-hooks")
CLI = shell_quote(CLI_PATH)  # as the hooks name it to the model
DETAILS = f"Need details? Run `{CLI} peek <id8>` with the 8-character id a memory line ends with."
NO_KEY = "mem0: no API key, recall and capture are off (run mem0-hooks doctor)"


class OnFileRead(HookTest):
    seed = [
        memory(WORK, "Refactored src billing invoice py totals last sprint", "task_learning",
               created="2026-11-29T09:00:00Z"),
        memory(DEC, "Decided invoice py renders PDF with WeasyPrint", "decision",
               created="2026-11-01T09:00:00Z"),
        memory(CONV, "src billing invoice py stores money as integer cents", "convention",
               created="2026-10-01T09:00:00Z"),
        memory(CONV2, "billing invoice py functions take a customer id first", "convention",
               created="2026-11-28T09:00:00Z"),
    ]

    def setUp(self):
        super().setUp()
        # A real repository layout, written directly: the hook reads git's files, never git.
        make_repo(self.project)
        self.file = self.write(REL, 4000)

    def write(self, rel, size):
        path = os.path.join(self.project, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("x" * size)
        return path

    def read(self, path, session="sess-1", env=None, offset=None, limit=None):
        payload = read_event(path, session_id=session, cwd=self.project, offset=offset,
                             limit=limit)
        return self.run_hook("on_file_read", payload, env=env)

    def test_conventions_first_in_the_documented_format(self):
        ctx = self.read(self.file).context()
        lines = ctx.split("\n")
        self.assertEqual(lines[0], f"Prior work on `{REL}` — 4 memories found.")
        self.assertEqual(lines[1], DETAILS)
        self.assertEqual(lines[2], "")
        types = [line.split("]")[0] for line in lines[3:]]
        self.assertEqual(types, ["- [convention", "- [convention", "- [decision",
                                 "- [task_learning"])
        self.assertRegex(lines[3], r"^- \[convention\] \(\d+(m|h|d|mo) ago\) .+ \[mem0:[0-9a-f]{8}\]$")
        self.assertIn("src billing invoice py stores money as integer cents [mem0:aaaaaaaa]", ctx)

    def test_lean_sends_one_search_with_the_file_query(self):
        self.read(self.file)
        searches = self.fake.searches()
        self.assertEqual(len(searches), 1)
        self.assertEqual(searches[0]["query"], f"{REL} invoice.py")
        self.assertEqual(searches[0]["top_k"], 10)

    def test_thorough_sends_three_searches(self):
        self.read(self.file, env=self.env(MEM0_SEARCH_PLAN="thorough"))
        kinds = sorted((and_terms(s["filters"])[-1].get("metadata", {}).get("type", "broad"),
                        s["top_k"]) for s in self.fake.searches())
        self.assertEqual(kinds, [("broad", 10), ("convention", 5), ("decision", 3)])

    def test_gated_files_make_no_request(self):
        small = self.write("src/small.py", 100)
        png = self.write("assets/logo.png", 5000)
        vendored = self.write("node_modules/lib/index.js", 5000)
        directory = os.path.join(self.project, "src")
        fifo = os.path.join(self.project, "pipe.py")
        os.mkfifo(fifo)
        dangling = os.path.join(self.project, "gone.py")
        os.symlink(os.path.join(self.project, "missing.py"), dangling)
        for path in [small, png, vendored, directory, fifo, dangling]:
            with self.subTest(path=path):
                result = self.read(path)
                self.assertEqual(result.stdout, b"")
        self.assertEqual(self.fake.requests(), [])

    def test_once_per_file_version_per_session(self):
        self.assertIsNotNone(self.read(self.file).context())
        self.assertEqual(self.read(self.file).stdout, b"")
        self.assertEqual(self.read(self.file, offset=10, limit=20).stdout, b"")
        self.assertEqual(len(self.fake.searches()), 1)
        os.utime(self.file, ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))
        self.read(self.file)
        self.assertEqual(len(self.fake.searches()), 2)
        self.read(self.file, session="sess-2")
        self.assertEqual(len(self.fake.searches()), 3)

    def test_a_checkout_under_a_build_directory_is_still_looked_up(self):
        project = make_repo(os.path.join(self.home, "build", "billing"))
        path = os.path.join(project, REL)
        os.makedirs(os.path.dirname(path))
        with open(path, "w") as f:
            f.write("x" * 4000)
        payload = read_event(path, session_id="s-build", cwd=project)
        self.assertIn("[mem0:aaaaaaaa]", self.run_hook("on_file_read", payload).context())
        self.assertEqual(self.fake.searches()[0]["query"], f"{REL} invoice.py")

    def test_relative_path_is_resolved_against_cwd(self):
        self.read(REL)
        self.assertEqual(self.fake.searches()[0]["query"], f"{REL} invoice.py")

    def test_never_emits_a_permission_decision(self):
        result = self.read(self.file)
        self.assertNotIn(b"permissionDecision", result.stdout)
        self.assertNotIn(b"permissionDecision", self.read("/etc/passwd", session="s9").stdout)

    def test_details_line_points_at_a_mem0_hooks_that_exists(self):
        ctx = self.read(self.file).context()
        self.assertTrue(os.path.isabs(CLI_PATH))
        self.assertTrue(os.access(CLI_PATH, os.X_OK))
        self.assertIn(f"`{CLI} peek <id8>`", ctx)
        self.assertNotIn("search_memories", ctx)
        self.assertIsNone(self.read(self.write("src/other.py", 4000)).system_message())

    def test_rate_limit_is_told_to_the_user_once_per_session(self):
        self.fake.control(status=429)
        result = self.read(self.file)
        self.assertEqual(result.json(), {"systemMessage": "mem0: recall skipped — rate limited"})
        self.assertIsNone(result.context())  # nothing for the model
        # Paused now: the next reads of the session send nothing and say nothing.
        other = self.write("src/other.py", 4000)
        self.assertEqual(self.read(other).stdout, b"")
        self.assertEqual(len(self.fake.searches()), 1)
        self.assertRegex(self.read(other, session="sess-2").system_message(),
                         r"^mem0: recall paused — rate limited by Mem0, retrying in \d+ s$")

    def test_no_key_is_told_once_per_session(self):
        env = self.env(MEM0_API_KEY=None)
        self.assertEqual(self.read(self.file, env=env).json(), {"systemMessage": NO_KEY})
        self.assertEqual(self.read(self.write("src/b.py", 4000), env=env).stdout, b"")
        self.assertEqual(self.fake.requests(), [])

    def test_show_recall_counts_the_memories(self):
        result = self.read(self.file, env=self.env(MEM0_SHOW_RECALL="true"))
        self.assertEqual(result.system_message(), "mem0: 4 memories recalled")


if __name__ == "__main__":
    testmain.main()
