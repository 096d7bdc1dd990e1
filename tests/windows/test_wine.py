"""End-to-end under wine: the Windows executables (build-windows/bin/*.exe) against the fake Mem0
server on loopback (docs/windows.md#testing-under-wine). Run by `scripts/test.sh --windows`.

Under wine, HOME does not reach a Windows program and USERPROFILE points into the prefix, so the
hooks' state is the prefix's %USERPROFILE%\\.mem0: each test empties it, and the tests run one at
a time. Paths are handed to the hooks in Windows form (Z:\\... is wine's drive for /)."""

import os
import subprocess
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
WINE_RUN = os.path.join(ROOT, "scripts", "wine-run.sh")
os.environ.setdefault("MEM0_BIN_DIR", os.path.join(ROOT, "build-windows", "bin"))
os.environ["MEM0_EXEC_WRAPPER"] = WINE_RUN
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))

from hooklib import HookTest, memory  # noqa: E402
from outbox import outbox_items  # noqa: E402
import testmain  # noqa: E402
from hookevents import prompt_event, read_event, session_end_event, stop_event  # noqa: E402

PREFIX = os.environ.get("WINEPREFIX",
                        os.path.expanduser("~/.cache/mem0-native-hooks/wine-prefix"))
LONG = " ".join(["We moved the retry logic of the sync worker into one helper."] * 3)
PROMPT = "Why does the stripe webhook handler retry invoices twice?"


def windows_path(path):
    """`path` as wine's Windows programs name it: Z: is the Unix root."""
    return "Z:" + os.path.abspath(path).replace("/", "\\")


def wine_home():
    """The Unix directory of %USERPROFILE% in the prefix (wine names it after the Unix user)."""
    users = os.path.join(PREFIX, "drive_c", "users")
    names = [n for n in os.listdir(users) if n != "Public"]
    if len(names) != 1:
        raise unittest.SkipTest(f"cannot tell the wine user's profile in {users}: {names}")
    return os.path.join(users, names[0])


class Wine(HookTest):
    seed = [memory("11111111-aaaa-4aaa-8aaa-000000000001",
                   "Stripe webhook handler retries invoices with exponential backoff",
                   "convention"),
            memory("77777777-aaaa-4aaa-8aaa-000000000007",
                   "src/billing/invoice.py keeps money as integer cents", "convention")]

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(os.path.join(os.environ["MEM0_BIN_DIR"], "on_user_prompt.exe")):
            raise unittest.SkipTest("no Windows build (scripts/build.sh --windows)")
        # The first program of a prefix starts wine's services, which inherit its stdio: warm it
        # before any output is captured.
        subprocess.run([WINE_RUN, "--warm"], check=True, timeout=300)
        super().setUpClass()

    def setUp(self):
        super().setUp()
        self.profile = wine_home()
        self.mem0 = os.path.join(self.profile, ".mem0")
        subprocess.run(["rm", "-rf", self.mem0], check=True)
        self.addCleanup(subprocess.run, ["rm", "-rf", self.mem0])
        self.outbox = os.path.join(self.mem0, "state", "outbox")
        self.win_project = windows_path(self.project)

    def env(self, **overrides):
        # wine's prefix is not under the test's HOME (wine-run.sh would make a new one there).
        return super().env(WINEPREFIX=PREFIX, **overrides)

    def pending(self):
        return outbox_items(self.outbox)

    def wait_for(self, what, check, timeout=20.0):
        super().wait_for(what, check, timeout)  # a program under wine starts slower

    def context(self, result):
        import json
        out = json.loads(result.stdout)
        return out.get("hookSpecificOutput", {}).get("additionalContext", "")

    def test_bad_stdin_exits_0_and_prints_nothing(self):
        for data in (b"{not json", b"", b"\xff\xfe\x00", b"[1,2]"):
            result = self.run_bin("on_user_prompt.exe", data)
            self.assertEqual(result.returncode, 0)
            self.assertEqual(result.stdout, b"", data)

    def test_prompt_recall(self):
        result = self.run_hook("on_user_prompt.exe",
                               prompt_event(PROMPT, session_id="s-1", cwd=self.win_project))
        ctx = self.context(result)
        self.assertIn("Stripe webhook handler retries invoices with exponential backoff "
                      "[mem0:11111111]", ctx)
        self.assertEqual(self.fake.searches()[0]["query"], PROMPT)
        # The state is the Windows profile's, as Mem0's plugin keeps it.
        self.assertTrue(os.path.isdir(os.path.join(self.mem0, "state")), self.mem0)

    def test_file_recall_with_a_windows_path_once_per_version_in_every_spelling(self):
        src = os.path.join(self.project, "src", "billing")
        os.makedirs(src)
        path = os.path.join(src, "invoice.py")
        with open(path, "w") as f:
            f.write("# invoices\n" + "x = 1\n" * 400)
        win = windows_path(path)
        first = self.run_hook("on_file_read.exe", read_event(win, session_id="s-2",
                                                             cwd=self.win_project))
        self.assertIn("src/billing/invoice.py keeps money as integer cents", self.context(first))
        searches = len(self.fake.searches())
        self.assertGreater(searches, 0)
        # Git Bash's /z/..., Cursor's /z:/... and Z:/...: the same file, already looked up.
        unix = os.path.abspath(path)
        for spelling in ("/z" + unix, "/z:" + unix, "Z:" + unix, win.lower()):
            again = self.run_hook("on_file_read.exe", read_event(spelling, session_id="s-2",
                                                                 cwd=self.win_project))
            self.assertEqual(again.stdout, b"", spelling)
        self.assertEqual(len(self.fake.searches()), searches)

    def test_a_stop_capture_is_delivered_by_the_detached_sender(self):
        result = self.run_hook("on_stop.exe", stop_event(LONG, session_id="s-3",
                                                         cwd=self.win_project))
        self.assertEqual(result.stdout, b"")
        self.wait_for("the add", lambda: len(self.fake.adds()) == 1)
        body = self.fake.adds()[0]
        self.assertEqual(body["metadata"]["type"], "session_summary")
        self.assertIn("retry logic", body["messages"][0]["content"])
        self.wait_for("an empty outbox", lambda: not self.pending())

    def test_a_full_outbox_is_flushed_by_session_end(self):
        self.fake.control(status=503, only_endpoint="add")
        for i in range(5):
            self.run_hook("on_stop.exe", stop_event(f"capture number {i}: " + LONG,
                                                    session_id="s-4", cwd=self.win_project))
        self.wait_for("five queued", lambda: len(self.pending()) == 5)
        time.sleep(1.0)  # the last sender gives up on the 503
        self.fake.control()
        self.fake.reset()
        self.run_hook("on_session_end.exe", session_end_event("other", session_id="s-4",
                                                              cwd=self.win_project))
        self.wait_for("five adds", lambda: len(self.fake.adds()) == 5, timeout=60)
        self.wait_for("an empty outbox", lambda: not self.pending())

    def test_peek_and_doctor(self):
        self.run_hook("on_user_prompt.exe",
                      prompt_event(PROMPT, session_id="s-5", cwd=self.win_project))
        peek = self.run_bin("mem0-hooks.exe", None, args=("peek", PROMPT), text=True)
        self.assertEqual(peek.returncode, 0, peek.stderr)
        self.assertIn("exponential backoff", peek.stdout)
        doctor = self.run_bin("mem0-hooks.exe", None, args=("doctor",), text=True, timeout=60)
        self.assertIn(".mem0", doctor.stdout)


if __name__ == "__main__":
    testmain.main()
