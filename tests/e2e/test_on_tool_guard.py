"""End-to-end: the built on_tool_guard as Claude Code runs it (docs/hooks.md#tool-guard): writes to Claude
Code's own memory files are blocked (exit 2, one stderr line), Mem0 MCP calls are completed
(updatedInput), everything else passes silently. The guard never talks to the network."""

import json
import os
import unittest

from hooklib import PROJECT, SANITIZED, USER, HookTest
import testmain  # noqa: E402
from hookevents import pre_tool_use_event

HOOK = "on_tool_guard"
BUDGET_S = 0.5 if SANITIZED else 0.05  # best of several runs, process start included
SCOPE = {"AND": [{"user_id": USER}, {"app_id": PROJECT}]}


class OnToolGuard(HookTest):

    def guard(self, tool_name, tool_input, env=None, **fields):
        """Run the guard on one PreToolUse event, whatever its exit status (a RunResult with
        text stdout and stderr)."""
        payload = pre_tool_use_event(tool_name, tool_input, cwd=self.project, **fields)
        return self.run_bin(HOOK, json.dumps(payload).encode(), env=env, text=True)

    def assert_blocked(self, result, path):
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertEqual(result.stdout, "")
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertTrue(result.stderr.endswith("\n"))
        self.assertIn(path, lines[0])
        self.assertIn("Mem0", lines[0])
        self.assertIn("add_memory", lines[0])

    def assert_silent(self, result):
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, "")
        self.assertEqual(result.stderr, "")

    def assert_no_request(self):
        self.assertEqual(self.fake.requests(), [])

    def memory_md(self):
        return os.path.join(self.home, ".claude", "projects", "-work-app", "memory", "MEMORY.md")

    def updated_input(self, tool_name, tool_input, env=None):
        """Run the guard through hooklib (exit 0, one JSON object of the documented shape, no
        permissionDecision) and return its updatedInput."""
        payload = pre_tool_use_event(tool_name, tool_input, cwd=self.project)
        result = self.run_hook(HOOK, payload, env=env)
        specific = result.specific()
        self.assertIsNotNone(specific, "no output")
        self.assertEqual(specific["hookEventName"], "PreToolUse")
        self.assertNotIn("additionalContext", specific)
        return specific["updatedInput"]

    # --- native memory files -------------------------------------------------------------------

    def test_memory_md_writes_are_blocked(self):
        path = self.memory_md()
        cases = [("Write", {"file_path": path, "content": "- prefers tabs\n"}),
                 ("Edit", {"file_path": path, "old_string": "a", "new_string": "b"}),
                 ("MultiEdit", {"file_path": path,
                                "edits": [{"old_string": "a", "new_string": "b"}]})]
        for tool, tool_input in cases:
            with self.subTest(tool=tool):
                self.assert_blocked(self.guard(tool, tool_input), path)
        self.assertFalse(os.path.exists(path))
        self.assert_no_request()

    def test_memory_directory_and_windows_paths_are_blocked(self):
        for path in (os.path.join(self.home, ".claude", "memory", "notes.md"),
                     "C:\\Users\\me\\.claude\\projects\\x\\memory\\MEMORY.md"):
            with self.subTest(path=path):
                self.assert_blocked(self.guard("Write", {"file_path": path, "content": "x"}), path)

    def test_other_files_pass_silently(self):
        for path in (os.path.join(self.project, "docs", "MEMORY.md"),
                     os.path.join(self.project, "src", "app.py"),
                     os.path.join(self.home, ".claude", "settings.json"),
                     os.path.join(self.home, ".claude", "CLAUDE.md")):
            with self.subTest(path=path):
                self.assert_silent(self.guard("Write", {"file_path": path, "content": "x"}))
        # Reading a memory file is fine; only writes are guarded.
        self.assert_silent(self.guard("Read", {"file_path": self.memory_md()}))
        self.assert_no_request()

    def test_the_block_can_be_turned_off(self):
        path = self.memory_md()
        write = {"file_path": path, "content": "x"}
        for value in ("off", "false", "0"):
            with self.subTest(env=value):
                env = self.env(MEM0_BLOCK_NATIVE_MEMORY=value)
                self.assert_silent(self.guard("Write", write, env=env))
        os.makedirs(os.path.join(self.home, ".mem0"))
        with open(os.path.join(self.home, ".mem0", "settings.json"), "w") as f:
            json.dump({"block_native_memory": False}, f)
        self.assert_silent(self.guard("Write", write))
        # The environment wins over settings.json.
        env = self.env(MEM0_BLOCK_NATIVE_MEMORY="on")
        self.assert_blocked(self.guard("Write", write, env=env), path)

    # --- Mem0 MCP tools ------------------------------------------------------------------------

    def test_add_memory_without_identity_is_completed(self):
        for tool in ("mcp__mem0__add_memory", "mcp__plugin_mem0_mem0__add_memory"):
            with self.subTest(tool=tool):
                updated = self.updated_input(tool, {"text": "Money is integer cents",
                                                    "infer": False})
                self.assertEqual(updated, {
                    "text": "Money is integer cents", "infer": False,
                    "user_id": USER, "app_id": PROJECT,
                    "metadata": {"type": "task_learning", "source": "mcp",
                                 "session_id": "sess-1"}})
        self.assert_no_request()

    def test_add_memory_with_its_own_user_gets_only_metadata_defaults(self):
        updated = self.updated_input("mcp__mem0__add_memory",
                                     {"text": "t", "user_id": "someone-else",
                                      "metadata": {"type": "decision"}})
        self.assertEqual(updated, {"text": "t", "user_id": "someone-else",
                                   "metadata": {"type": "decision", "source": "mcp",
                                                "session_id": "sess-1"}})

    def test_searches_and_listings_get_the_project_scope(self):
        updated = self.updated_input("mcp__mem0__search_memories", {"query": "retry policy"})
        self.assertEqual(updated, {"query": "retry policy", "filters": SCOPE})
        updated = self.updated_input("mcp__plugin_mem0_mem0__get_memories",
                                     {"filters": {"metadata": {"type": "decision"}}, "page": 1})
        self.assertEqual(updated, {"page": 1, "filters": {"AND": [
            {"user_id": USER}, {"app_id": PROJECT}, {"metadata": {"type": "decision"}}]}})
        self.assert_no_request()

    def test_complete_calls_and_delete_tools_print_nothing(self):
        cases = [
            ("mcp__mem0__add_memory", {"text": "t", "user_id": USER, "app_id": PROJECT,
                                       "metadata": {"type": "decision", "source": "me",
                                                    "session_id": "s"}}),
            ("mcp__mem0__search_memories", {"query": "q", "filters": SCOPE}),
            ("mcp__mem0__get_memories", {"filters": {"user_id": "bob"}}),
            ("mcp__mem0__delete_all_memories", {}),
            ("mcp__plugin_mem0_mem0__delete_memory", {"memory_id": "abc"}),
            ("mcp__mem0__delete_entities", {"user_id": USER}),
            ("mcp__mem0__update_memory", {"memory_id": "abc", "text": "t"}),
            ("mcp__mem0__list_entities", {}),
        ]
        for tool, tool_input in cases:
            with self.subTest(tool=tool):
                self.assert_silent(self.guard(tool, tool_input))
        self.assert_no_request()

    def test_malformed_input_prints_nothing(self):
        add, search = "mcp__mem0__add_memory", "mcp__mem0__search_memories"
        cases = [(tool, bad) for tool in (add, search) for bad in ("text=hello", ["t"], None, 5)]
        cases += [(add, {"text": "t", "metadata": "type=decision"}),
                  (search, {"query": "q", "filters": "user_id=me"}),
                  (search, {"query": "q", "filters": [{"app_id": PROJECT}]})]
        for tool, tool_input in cases:
            with self.subTest(tool=tool, tool_input=tool_input):
                self.assert_silent(self.guard(tool, tool_input))
        for raw in (b"", b"not json", b"[]", b'{"tool_name": "Write", "tool_input": '):
            with self.subTest(raw=raw):
                result = self.run_bin(HOOK, raw, text=True)
                self.assertEqual(result.returncode, 0)
                self.assertEqual(result.stdout, "")

    # --- time ----------------------------------------------------------------------------------

    def test_runs_take_milliseconds(self):
        path = self.memory_md()
        runs = {
            "block": lambda: self.guard("Write", {"file_path": path, "content": "x"}),
            "pass": lambda: self.guard("Write", {"file_path": "/repo/a.py", "content": "x"}),
            "complete": lambda: self.guard("mcp__mem0__add_memory", {"text": "t"}),
        }
        for name, run in runs.items():
            with self.subTest(case=name):
                best = min(run().elapsed for _ in range(5))
                self.assertLess(best, BUDGET_S, f"{name}: best of 5 took {best * 1000:.1f} ms")


if __name__ == "__main__":
    testmain.main()
