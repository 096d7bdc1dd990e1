"""End-to-end: the state directory on a full disk (docs/failures.md#a-full-disk).

The state directory is a small tmpfs mounted for the test (skipped where this machine does not
allow a mount), filled to its last byte after one capture was queued while Mem0 refused adds.
Then every hook still exits 0 within its budget, the queued capture is intact, no state file is
left torn and no temporary file is left behind, and the user is told once per session that
captures cannot be stored. Once there is room again, the queued capture is delivered.
"""

import json
import os
import subprocess
import tempfile
import time
import unittest

from hooklib import HookTest
from outbox import outbox_items
from waiting import wait_until
import testmain  # noqa: E402
from hookevents import prompt_event

SUMMARY = ("We moved the retry logic of the billing worker into one helper with full jitter and "
           "a 30 second ceiling, and every caller now goes through it. ")
PROMPT = "Why does the stripe webhook handler retry invoices twice?"
NO_SPACE = "mem0: captures cannot be stored"
BUDGET_S = 2.0


class FullDisk(HookTest):

    def setUp(self):
        super().setUp()
        self.mount = tempfile.mkdtemp(prefix="mem0_full_disk_")
        self.addCleanup(os.rmdir, self.mount)
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k,mode=0700", "tmpfs",
                                  self.mount], capture_output=True, text=True)
        if mounted.returncode != 0:
            self.skipTest("cannot mount a tmpfs here: " + mounted.stderr.strip())
        self.addCleanup(subprocess.run, ["umount", "-l", self.mount])
        self.state = os.path.join(self.mount, "state")

    def hook(self, name, payload):
        start = time.monotonic()
        result = self.run_hook(name, payload, env=self.env(MEM0_STATE_DIR=self.state))
        self.assertLess(time.monotonic() - start, BUDGET_S, result.stderr)
        return result

    def compact(self, text):
        return self.hook("on_compact", {"hook_event_name": "PostCompact", "session_id": "s-disk",
                                        "cwd": self.project, "compact_summary": text})

    def prompt(self, session):
        return self.hook("on_user_prompt", prompt_event(PROMPT, session_id=session,
                                                        cwd=self.project))

    def pending(self):
        outbox = os.path.join(self.state, "outbox")
        items = {}
        for name in outbox_items(outbox):
            with open(os.path.join(outbox, name), "rb") as f:
                items[name] = f.read()
        return items

    def fill(self):
        """Write until the filesystem is full."""
        with open(os.path.join(self.mount, "filler"), "wb", buffering=0) as f:
            try:
                while True:
                    f.write(b"x" * 4096)
            except OSError:
                pass
        with open(os.path.join(self.mount, "filler"), "ab", buffering=0) as f:
            try:
                while True:
                    f.write(b"x")
            except OSError:
                pass

    def assert_nothing_torn(self):
        for root, _, files in os.walk(self.state):
            for name in files:
                path = os.path.join(root, name)
                self.assertFalse(name.startswith(".") and ".json." in name,
                                 f"a temporary file was left behind: {path}")
                if name.endswith(".json"):
                    with open(path, encoding="utf-8") as f:
                        json.load(f)  # raises on a torn file

    def test_a_full_disk_loses_nothing_and_is_told_once(self):
        self.fake.control(status=503, only_endpoint="add")
        self.compact("First. " + SUMMARY * 2)
        queued = self.pending()
        self.assertEqual(len(queued), 1)

        self.fill()
        self.compact("Second. " + SUMMARY * 2)  # cannot be stored: the hook still exits 0
        self.assertEqual(self.pending(), queued, "what was queued changed")
        first = self.prompt("s-one")
        self.assertIn(NO_SPACE, first.system_message() or "")
        self.assertNotIn(NO_SPACE, self.prompt("s-one").system_message() or "")
        self.assertIn(NO_SPACE, self.prompt("s-two").system_message() or "")  # another session
        self.assert_nothing_torn()

        os.remove(os.path.join(self.mount, "filler"))
        self.fake.control()
        self.hook("on_session_end", {"hook_event_name": "SessionEnd", "session_id": "s-disk",
                                     "cwd": self.project, "reason": "other"})
        wait_until(lambda: not self.pending(), 10)
        self.assertEqual(self.pending(), {}, "the queued capture was not delivered")
        self.assertIn("First.", json.dumps(self.fake.adds()[-1]))
        self.assertNotIn(NO_SPACE, self.prompt("s-three").system_message() or "")
        self.assert_nothing_torn()


if __name__ == "__main__":
    testmain.main()
