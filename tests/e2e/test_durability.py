"""End-to-end: durability (docs/failures.md#a-crash).

Durable writes (docs/state.md#atomic-writes), traced with strace: a queued capture and the pause
file are fsynced before their rename and their directory after it; the outbox's state file,
which only saves work, is not (skipped where strace is missing). Killed at any point: capture
hooks and senders are SIGKILLed at random moments, hundreds of times; then no item is torn,
every capture a hook finished is delivered, and after the flush nothing is sent again.
"""

import json
import os
import random
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from hooklib import BIN_DIR, SANITIZED, HookTest, SenderTest
from outbox import outbox_items
import testmain  # noqa: E402
from hookevents import post_compact_event, session_end_event, stop_event

SUMMARY = ("We moved the retry logic of the billing worker into one helper with full jitter and "
           "a 30 second ceiling, and every caller now goes through it. ")


def capture_text(n):
    """The n-th capture of the kill loop, as the server gets it."""
    return f"Capture number {n}: the retry logic of worker {n} moved. {SUMMARY.strip()}"


CALL = re.compile(r'^(?:\d+ +)?(\w+)\((.*)\) = (-?\d+)')


@unittest.skipUnless(shutil.which("strace"), "strace is not installed (scripts/setup.sh)")
class DurableWrites(HookTest):

    def traced(self, argv, data=b"", env=None):
        """The (call, arguments) of the fsync and rename calls of argv and its children."""
        out = os.path.join(tempfile.mkdtemp(dir=self.home), "trace")
        env = dict(env or self.env())
        # LeakSanitizer cannot run under ptrace: a sanitized build traced here checks no leaks.
        env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "detect_leaks=0"]))
        subprocess.run(["strace", "-f", "-y", "-o", out,
                        "-e", "trace=fsync,fdatasync,rename,renameat,renameat2", *argv],
                       input=data, env=env, cwd=self.project, capture_output=True,
                       timeout=60, check=True)
        with open(out) as f:
            return [(m[1], m[2]) for m in map(CALL.match, f) if m and m[3] == "0"]

    def assert_durable(self, calls, target):
        """The write of `target` fsyncs its temporary file, renames it, then fsyncs its
        directory."""
        directory, name = os.path.split(target)
        temp = re.compile(re.escape(os.path.join(directory, "." + name)) + r"\.\w{6}")
        renamed = [i for i, (call, args) in enumerate(calls)
                   if call.startswith("rename") and args.endswith(f'"{target}"')]
        self.assertTrue(renamed, f"no rename onto {target}: {calls}")
        i = renamed[0]
        self.assertTrue(any(call in ("fsync", "fdatasync") and temp.search(args)
                            for call, args in calls[:i]), f"temporary file not synced: {calls}")
        self.assertTrue(any(call == "fsync" and args.endswith(f"<{directory}>")
                            for call, args in calls[i + 1:]), f"{directory} not synced: {calls}")

    def test_a_queued_capture_and_the_pause_are_synced_the_outbox_state_is_not(self):
        state = os.path.join(self.home, ".mem0", "state")
        self.fake.control(status=503, only_endpoint="add")
        event = stop_event(SUMMARY, session_id="s-durable", cwd=self.project)
        calls = self.traced([os.path.join(BIN_DIR, "on_stop")], json.dumps(event).encode())
        self.assert_durable(calls, os.path.join(state, "outbox", "000000000001.json"))
        # The outbox's state file only saves work (its numbers come from the items too).
        numbers = os.path.join(state, "outbox", "state.json")
        self.assertTrue(any(args.endswith(f'"{numbers}"') for call, args in calls
                            if call.startswith("rename")), calls)
        self.assertFalse(any(call in ("fsync", "fdatasync") and ".state.json." in args
                             for call, args in calls), calls)

        calls = self.traced([os.path.join(BIN_DIR, "mem0-hooks"), "pause"])
        self.assert_durable(calls, os.path.join(state, "pause.json"))


class KilledAtAnyPoint(SenderTest):

    RUNS = 300          # capture hooks started, each killed at a random moment (or finishing)
    # The loop stops early past this, and says how far it got; a sanitized build's runs (and so
    # its kill window) are several times longer.
    LOOP_LIMIT_S = 70 if SANITIZED else 40

    def pending(self):
        return outbox_items(self.outbox)

    def delivered(self):
        """The texts of the adds the server took, one entry per add."""
        return [m["content"] for r in self.fake.requests()
                if r.get("endpoint") == "add" and r.get("status") == 200
                for m in r["body"]["messages"]]

    def start(self, hook):
        return subprocess.Popen([os.path.join(BIN_DIR, hook)], stdin=subprocess.PIPE,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                env=self.env(), cwd=self.project)

    def test_no_item_torn_none_lost_none_sent_twice_after_the_flush(self):
        rng = random.Random(int(os.environ.get("MEM0_KILL_SEED", time.time_ns())))
        self.fake.control(latency_ms=15)  # a sender is mid-request when killed
        finished, killed_hooks, killed_senders = [], 0, 0
        # The kill comes at a random moment of a hook's run: time whole runs first (a sanitized
        # build runs many times slower than the 30 ms a plain one takes here). The first run
        # is cold (a sanitized one by several times), so the window comes from the fastest.
        took = []
        for warm in range(3):
            text = capture_text(-1 - warm)
            begun = time.monotonic()
            proc = self.start("on_compact")
            proc.stdin.write(json.dumps(post_compact_event(text, session_id="s-kill-time",
                                                           cwd=self.project)).encode())
            proc.stdin.close()
            if proc.wait(timeout=30) == 0:
                finished.append(text)  # it queued its capture like any finished run
            took.append(time.monotonic() - begun)
        window = max(0.03, 1.5 * min(took))
        started = time.monotonic()
        runs = 0
        for runs in range(1, self.RUNS + 1):
            text = capture_text(runs)
            event = post_compact_event(text, session_id=f"s-kill-{runs % 7}", cwd=self.project)
            proc = self.start("on_compact")
            proc.stdin.write(json.dumps(event).encode())
            proc.stdin.close()
            try:  # a run that ends before its kill moment is not waited for any longer
                proc.wait(timeout=rng.uniform(0, window))
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
            if proc.wait(timeout=10) == 0:
                finished.append(text)  # the hook ran to its end: it queued the capture
            else:
                killed_hooks += 1
            if rng.random() < 0.5:
                time.sleep(rng.uniform(0, 0.03))
                killed_senders += self.stop_senders()
            if time.monotonic() - started > self.LOOP_LIMIT_S:
                break
        loop_s = time.monotonic() - started
        print(f"\nkill loop: {runs} hook runs ({killed_hooks} killed, {len(finished)} finished), "
              f"{killed_senders} senders killed, {loop_s:.1f} s, kill window "
              f"{window * 1000:.0f} ms", flush=True)
        self.assertGreaterEqual(runs, 200, "too few runs in the time allowed")
        self.assertGreater(killed_hooks, 0)
        self.assertGreater(len(finished), 0)
        self.assertGreater(killed_senders, 0)

        # No item torn: each one parses, and none was set aside as corrupt.
        for name in self.pending():
            with open(os.path.join(self.outbox, name)) as f:
                json.load(f)
        rejected = os.path.join(self.outbox, "rejected")
        self.assertEqual(os.listdir(rejected) if os.path.isdir(rejected) else [], [])

        # The flush: a sender nobody kills empties the outbox.
        self.fake.control()
        deadline = time.monotonic() + 60
        while (self.pending() or self.senders()) and time.monotonic() < deadline:
            if not self.senders():
                self.run_hook("on_session_end", session_end_event("other", session_id="s-flush",
                                                                  cwd=self.project))
            time.sleep(0.1)
        self.assertEqual(self.pending(), [])
        delivered = self.delivered()
        lost = [t for t in finished if t not in delivered]
        self.assertEqual(lost, [], f"{len(lost)} finished captures never delivered")
        ours = {capture_text(i) for i in range(-3, runs + 1)}  # below 1: the timing runs
        self.assertEqual([t for t in delivered if t not in ours], [], "a torn text was sent")

        # Nothing is sent again after the flush.
        count = len(self.fake.calls("add"))
        self.run_hook("on_session_end", session_end_event("other", session_id="s-after", cwd=self.project))
        time.sleep(0.5)
        self.assertEqual(len(self.fake.calls("add")), count)
        # A sender killed between the server's answer and the deletion sends that batch again.
        repeats = len(delivered) - len(set(delivered))
        self.assertLessEqual(repeats, 4 * killed_senders)
        print(f"delivered {len(delivered)} adds, {len(set(delivered))} distinct", flush=True)


if __name__ == "__main__":
    testmain.main()
