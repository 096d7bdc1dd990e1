"""End-to-end: the run's deadline bounds the state locks, and a deadline spent before the
searches sends and counts nothing (docs/failures.md#time-budget, docs/state.md#locks)."""

import fcntl
import hashlib
import json
import os
import subprocess
import time
import unittest
from datetime import datetime, timezone

from hooklib import BIN_DIR, HookTest, memory
import testmain  # noqa: E402
from gitrepo import make_repo
from hookevents import prompt_event
from runresult import RunResult

SESSION = "sess-deadline"
NOTE = "11111111-aaaa-4aaa-8aaa-000000000001"
REMOTE_URL = "git@github.com:acme/billing.git"
REMOTE_KEY = "remote:" + hashlib.sha256(REMOTE_URL.encode()).hexdigest()[:16]
REMOTE_PROJECT = "proj-e2e"  # the seed's app id
PROMPT = "How are stripe invoices rounded in the billing code?"
BUDGET_MS = 300


def today():
    return datetime.now(timezone.utc).strftime("%Y-%m-%d")


class Deadlines(HookTest):
    seed = [memory(NOTE, "Stripe invoices are rounded half-even in the billing code",
                   "convention")]

    def state(self, *parts):
        return os.path.join(self.home, ".mem0", "state", *parts)

    def hold(self, path):
        """An exclusive flock on `<path>.lock` until the test ends, as a stuck hook holds it."""
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        self.addCleanup(os.close, fd)
        fcntl.flock(fd, fcntl.LOCK_EX)

    def test_stuck_state_locks_cost_no_more_than_the_budget(self):
        # The project id comes through the remote's map entry, so the run also heals the map.
        repo = make_repo(os.path.join(self.home, "billing"), origin=REMOTE_URL)
        mem0_dir = os.path.join(self.home, ".mem0")
        os.makedirs(mem0_dir)
        with open(os.path.join(mem0_dir, "project_map.json"), "w") as f:
            json.dump({REMOTE_KEY: REMOTE_PROJECT}, f)
        for path in (self.state("usage.json"), self.state("backoff.json"),
                     self.state("sessions", SESSION + ".json"),
                     os.path.join(mem0_dir, "project_map.json")):
            self.hold(path)

        env = self.env(MEM0_TIMEOUT_MS=str(BUDGET_MS), MEM0_PROJECT_ID=None)
        result = self.run_hook("on_user_prompt", prompt_event(PROMPT, session_id=SESSION, cwd=repo),
                               env=env)
        self.assertLess(result.elapsed, 0.6, f"took {result.elapsed * 1000:.0f} ms")
        self.assertIn("[mem0:11111111]", result.context() or "")
        self.assertEqual(len(self.fake.searches()), 1)
        self.assertIn(b"lock busy", result.stderr)

    def test_spent_deadline_sends_counts_and_pauses_nothing(self):
        # stdin stays open past the deadline: the hook has its input but no time left.
        payload = json.dumps(prompt_event(PROMPT, session_id=SESSION, cwd=self.project)).encode()
        env = self.env(MEM0_TIMEOUT_MS="100")
        for _ in range(3):
            start = time.monotonic()
            proc = subprocess.Popen([os.path.join(BIN_DIR, "on_user_prompt")],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, env=env, cwd=self.project)
            proc.stdin.write(payload)
            proc.stdin.flush()
            time.sleep(0.3)
            out, err = proc.communicate(timeout=10)
            result = RunResult(proc.returncode, out, err, time.monotonic() - start)
            self.assertEqual(result.returncode, 0, err)
            if out:
                self.assert_one_json_object(out, "UserPromptSubmit")
        self.assertEqual(self.fake.searches(), [])
        usage_path = self.state("usage.json")
        if os.path.exists(usage_path):
            with open(usage_path) as f:
                self.assertEqual(json.load(f).get(today(), {}).get("searches", 0), 0)
        self.assertFalse(os.path.exists(self.state("backoff.json")), "a run that sent nothing "
                         "fed the back-off")


if __name__ == "__main__":
    testmain.main()
