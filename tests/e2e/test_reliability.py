"""End-to-end: files that are not what they should be, and a key that is not a key (failures.md).

A FIFO where a file is expected (settings.json, the debug log, a session file) must not block a
hook or the CLI: each run exits at once. An API key with a line break in it must never reach the
wire as an extra header: no request at all, and a warning that names the variable, not the value.
"""

import os
import unittest

from hooklib import HookTest
import testmain  # noqa: E402
from hookevents import prompt_event

PROMPT = "Why does the stripe webhook handler retry invoices twice?"
BAD_KEY = "m0-abc\r\nX-Evil: 1"
QUICK_S = 1.0  # "at once": far below the 5 s default deadline


class Reliability(HookTest):

    def mem0_dir(self):
        path = os.path.join(self.home, ".mem0")
        os.makedirs(path, exist_ok=True)
        return path

    def prompt(self, env=None):
        return self.run_hook("on_user_prompt", prompt_event(PROMPT, cwd=self.project), env=env,
                             timeout=10)

    def test_fifo_as_settings_json_does_not_block_the_prompt_hook(self):
        os.mkfifo(os.path.join(self.mem0_dir(), "settings.json"))
        result = self.prompt()
        self.assertLess(result.elapsed, QUICK_S, result.stderr)
        self.assertEqual(len(self.fake.searches()), 1)  # the defaults apply: it still searches

    def test_fifo_as_the_debug_log_does_not_block_the_prompt_hook(self):
        log = os.path.join(self.mem0_dir(), "hooks.log")
        os.mkfifo(log)
        result = self.prompt(env=self.env(MEM0_DEBUG="1"))
        self.assertLess(result.elapsed, QUICK_S, result.stderr)
        self.assertEqual(len(self.fake.searches()), 1)

    def test_fifo_as_settings_and_session_file_does_not_block_the_cli(self):
        os.mkfifo(os.path.join(self.mem0_dir(), "settings.json"))
        sessions = os.path.join(self.home, ".mem0", "state", "sessions")
        os.makedirs(sessions)
        os.mkfifo(os.path.join(sessions, "sess-1.json"))
        for args in (("peek", "11111111"), ("doctor",)):
            with self.subTest(args=args):
                result = self.run_bin("mem0-hooks", None, args=args, timeout=10, text=True)
                self.assertIn(result.returncode, (0, 1), result.stderr)
                self.assertLess(result.elapsed, QUICK_S + 1.0, result.stderr)

    def test_api_key_with_a_line_break_sends_nothing_and_is_named_not_shown(self):
        result = self.prompt(env=self.env(MEM0_API_KEY=BAD_KEY, MEM0_DEBUG="1"))
        requests = self.fake.requests()
        self.assertEqual(requests, [])
        for request in requests:  # belt and braces: no injected header ever
            self.assertNotIn("X-Evil", request.get("headers", {}))
        stderr = result.stderr.decode(errors="replace")
        self.assertIn("MEM0_API_KEY", stderr)
        self.assertNotIn("m0-abc", stderr)
        self.assertNotIn("X-Evil", stderr)
        with open(os.path.join(self.home, ".mem0", "hooks.log"), encoding="utf-8") as f:
            log = f.read()
        self.assertIn("MEM0_API_KEY", log)
        self.assertNotIn("m0-abc", log)
        self.assertNotIn("X-Evil", log)

    def test_doctor_names_the_refused_key_without_showing_it(self):
        result = self.run_bin("mem0-hooks", None, args=("doctor",),
                              env=self.env(MEM0_API_KEY=BAD_KEY), timeout=10, text=True)
        self.assertEqual(result.returncode, 1, result.stderr)
        row = next(line for line in result.stdout.splitlines() if line.startswith("api key"))
        self.assertIn("refused", row)
        self.assertIn("MEM0_API_KEY", row)
        for shown in (result.stdout, result.stderr):
            self.assertNotIn("m0-abc", shown)
            self.assertNotIn("X-Evil", shown)
        self.assertEqual(self.fake.requests(), [])

    def test_api_key_with_a_line_break_in_a_profile_sends_nothing(self):
        with open(os.path.join(self.home, ".bashrc"), "w", encoding="utf-8") as f:
            f.write('export MEM0_API_KEY="m0-abc\rX-Evil: 1"\n')
        result = self.prompt(env=self.env(MEM0_API_KEY=None))
        self.assertEqual(self.fake.requests(), [])
        stderr = result.stderr.decode(errors="replace")
        self.assertIn("~/.bashrc", stderr)
        self.assertNotIn("m0-abc", stderr)


if __name__ == "__main__":
    testmain.main()
