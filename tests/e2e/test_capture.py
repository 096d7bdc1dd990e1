"""End-to-end: capture through the outbox and the detached sender (docs/capture.md), the built
executables against a fake Mem0 of their own (one per test, so that a sender still running from
one test never writes into another's record)."""

import concurrent.futures
import fcntl
import json
import os
import socket
import time
import unittest

from hooklib import PROJECT, USER, SenderTest
from outbox import outbox_items, parked_items
import testmain  # noqa: E402
from hookevents import prompt_event, session_end_event, stop_event

LONG = " ".join(["We moved the retry logic of the sync worker into one helper."] * 3)


def closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class CaptureTest(SenderTest):
    # -- helpers -------------------------------------------------------------------------------
    def stop(self, message, **env):
        return self.run_hook("on_stop", stop_event(message, session_id="s-1", cwd=self.project),
                             env=self.env(**env))

    def pending(self):
        return outbox_items(self.outbox)

    def rejected(self):
        try:
            return sorted(os.listdir(os.path.join(self.outbox, "rejected")))
        except FileNotFoundError:
            return []

    def added_texts(self):
        return [m["content"] for body in self.fake.adds() for m in body["messages"]]

    # -- the tests -----------------------------------------------------------------------------
    def test_stop_returns_at_once_while_the_server_takes_seconds(self):
        self.fake.control(latency_ms=2000, only_endpoint="add")
        result = self.stop(LONG)
        self.assertEqual(result.stdout, b"")
        self.assertLess(result.elapsed, 0.5, "Stop waited for the server")
        self.wait_for("the add", lambda: len(self.fake.memories()) == 1)
        body = self.fake.adds()[0]
        self.assertEqual(body["user_id"], USER)
        self.assertEqual(body["app_id"], PROJECT)
        # Team memory, on by default (docs/capture.md#team-memory): the session as run_id.
        self.assertEqual(body["run_id"], "s-1")
        self.assertEqual(body["metadata"]["author"], USER)
        self.assertEqual(body["messages"][0]["role"], "assistant")
        self.assertEqual(body["metadata"]["type"], "session_summary")
        self.assertEqual(body["metadata"]["session_id"], "s-1")
        self.assertRegex(body["expiration_date"], r"^\d{4}-\d{2}-\d{2}$")
        self.wait_for("an empty outbox", lambda: not self.pending())

    def test_an_outage_keeps_every_capture_and_delivers_them_in_order_later(self):
        self.fake.control(status=503, only_endpoint="add")
        for i in range(6):
            self.stop(f"capture number {i}: " + LONG)
        self.wait_for("the senders to give up", lambda: not self.senders())
        self.assertEqual(len(self.pending()), 6)
        self.assertEqual(self.fake.memories(), [])
        self.fake.control()
        self.fake.reset()
        self.run_hook("on_session_end", session_end_event("other", cwd=self.project))
        self.wait_for("six adds", lambda: len(self.fake.memories()) == 6)
        self.wait_for("an empty outbox", lambda: not self.pending())
        order = [int(t.split(":")[0].split()[-1]) for t in self.added_texts()]
        # Four at a time in parallel: every item of a batch goes before any of the next.
        self.assertEqual(sorted(order[:4]), [0, 1, 2, 3])
        self.assertEqual(sorted(order[4:]), [4, 5])

    def test_unreachable_then_back(self):
        offline = f"http://127.0.0.1:{closed_port()}"
        self.stop("first offline capture. " + LONG, MEM0_BASE_URL=offline)
        self.stop("second offline capture. " + LONG, MEM0_BASE_URL=offline)
        self.wait_for("the senders to give up", lambda: not self.senders())
        self.assertEqual(len(self.pending()), 2)
        self.run_hook("on_session_end", session_end_event("other", cwd=self.project))
        self.wait_for("both adds", lambda: len(self.fake.memories()) == 2)
        # Both went in one parallel batch: their order at the server is not defined.
        self.assertEqual(sorted(t.split(" offline")[0] for t in self.added_texts()),
                         ["first", "second"])

    def test_with_capture_off_a_remember_that_waited_is_delivered_and_captures_stay_back(self):
        # A capture queued while capture was on, for a server that is down (its pause is that
        # server's): it must stay back once capture is off.
        offline = f"http://127.0.0.1:{closed_port()}"
        self.stop("held-back capture. " + LONG, MEM0_BASE_URL=offline)
        self.wait_for("the sender to give up", lambda: not self.senders())
        off = self.env(MEM0_AUTO_SAVE="false")
        self.fake.control(status=503, only_endpoint="add")
        remembered = self.run_bin("mem0-hooks", args=("remember", "Invoices are retried at most "
                                                      "five times"), env=off, text=True)
        self.assertEqual(remembered.returncode, 0, remembered.stderr)
        self.assertIn("queued", remembered.stdout)
        self.assertEqual(len(self.pending()), 2)
        self.fake.control()
        self.fake.reset()
        self.run_bin("mem0-hooks", args=("doctor", "--reset"), env=off)  # ends the 503's pause
        # The next hook run starts a sender for what the user asked for, capture off or not.
        self.run_hook("on_session_end", session_end_event("other", cwd=self.project), env=off)
        self.wait_for("the remembered add", lambda: len(self.fake.memories()) == 1)
        self.wait_for("the senders to finish", lambda: not self.senders())
        self.assertEqual(len(self.added_texts()), 1)
        self.assertIn("five times", self.added_texts()[0])
        self.assertEqual(len(self.pending()), 1, "the held-back capture left, or the add stayed")

    def test_a_refused_capture_is_set_aside_not_lost(self):
        self.fake.control(status=422, only_endpoint="add")
        self.stop(LONG)
        # The copy is written before the item leaves the queue: wait for both steps.
        self.wait_for("the rejection", lambda: len(self.rejected()) == 1 and not self.pending())
        with open(os.path.join(self.outbox, "rejected", self.rejected()[0])) as f:
            kept = json.load(f)
        self.assertEqual(kept["status"], 422)
        self.assertIn("retry logic", kept["item"])
        doctor = self.run_bin("mem0-hooks", args=("doctor",), text=True)
        self.assertIn("1 rejected", doctor.stdout)

    def test_twenty_concurrent_stops_lose_nothing_and_double_nothing(self):
        messages = [f"parallel capture {i:02d}: " + LONG for i in range(20)]
        with concurrent.futures.ThreadPoolExecutor(max_workers=20) as pool:
            results = list(pool.map(self.stop, messages + messages[:5]))
        self.assertTrue(all(r.returncode == 0 for r in results))
        self.wait_for("twenty adds", lambda: len(self.fake.memories()) >= 20, timeout=20)
        self.wait_for("an empty outbox",
                      lambda: not self.pending() and not parked_items(self.outbox), timeout=20)
        time.sleep(0.3)
        texts = self.added_texts()
        self.assertEqual(sorted(texts), sorted(messages), "a capture was lost or sent twice")
        self.assertFalse(any(b"capture lost" in r.stderr for r in results))

    def test_a_capture_that_cannot_wait_for_the_queue_is_parked_then_delivered(self):
        self.stop("The first capture makes the outbox. " + LONG)
        self.wait_for("the first add", lambda: len(self.fake.memories()) == 1)
        with open(os.path.join(self.outbox, "state.json.lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            result = self.stop("Parked while the queue was locked. " + LONG)
            self.assertNotIn(b"capture lost", result.stderr)
            self.assertEqual(self.pending(), [])
            self.assertEqual(len(parked_items(self.outbox)), 1)
            time.sleep(1.5)  # the sender it started waits for the lock too, and leaves it parked
            self.assertEqual(len(parked_items(self.outbox)), 1)
        # The next hook run's sender queues it and sends it.
        def next_hook_run_delivers():
            self.run_hook("on_session_end", session_end_event("other", cwd=self.project))
            time.sleep(0.3)
            return len(self.fake.memories()) == 2
        self.wait_for("the parked capture delivered", next_hook_run_delivers, timeout=20)
        self.assertEqual(parked_items(self.outbox), [])
        self.assertEqual(self.pending(), [])
        self.assertTrue(self.added_texts()[-1].startswith("Parked while the queue was locked."))

    def test_a_sender_killed_mid_round_loses_nothing(self):
        self.fake.control(status=503, only_endpoint="add")
        for i in range(8):
            self.stop(f"item {i} of the killed round. " + LONG)
        self.wait_for("the senders to give up", lambda: not self.senders())
        self.assertEqual(len(self.pending()), 8)
        self.fake.reset()
        self.fake.control(latency_ms=3000, only_endpoint="add")
        self.run_hook("on_session_end", session_end_event("other", cwd=self.project))
        self.wait_for("a sender in flight", lambda: self.fake.calls("add") or False)
        self.stop_senders()
        self.assertEqual(len(self.pending()), 8, "an item left before the server answered")
        self.fake.control()
        # Later hook runs start the sender again (the first may still find the dying one's lock).
        def next_hook_run_drains():
            self.run_hook("on_session_end", session_end_event("other", cwd=self.project))
            time.sleep(0.3)
            return not self.pending()
        self.wait_for("an empty outbox", next_hook_run_drains, timeout=20)
        delivered = {t.split(" of")[0] for t in self.added_texts()}
        self.assertEqual(delivered, {f"item {i}" for i in range(8)})

    def test_what_one_session_captures_the_next_one_recalls(self):
        self.stop("The billing service rounds partial refunds down to whole cents; we decided "
                  "this after the ledger mismatch of the refund batch.")
        self.wait_for("the add", lambda: len(self.fake.memories()) == 1)
        result = self.run_hook("on_user_prompt", prompt_event(
            "how does the billing service round partial refunds?", session_id="s-2",
            cwd=self.project))
        self.assertIn("rounds partial refunds down to whole cents", result.context())

    def test_capture_off_queues_nothing(self):
        self.stop(LONG, MEM0_AUTO_SAVE="false")
        self.assertEqual(self.pending(), [])
        time.sleep(0.3)
        self.assertEqual(self.fake.adds(), [])

    def test_a_subagent_stop_is_not_captured(self):
        self.run_hook("on_stop", stop_event(LONG, agent_id="agent-1", cwd=self.project))
        self.assertEqual(self.pending(), [])


if __name__ == "__main__":
    testmain.main()
