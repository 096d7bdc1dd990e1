"""End-to-end: a move between Mem0 deployments with `mem0-hooks export` and `import`
(docs/cli.md#export-and-import): from the Platform flavour of the stand-in to its self-hosted
flavour and back, with the built mem0-hooks."""

import collections
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from hooklib import BIN_DIR, kill_senders, EXEC_WRAPPER, PROJECT, USER, memory
import testmain  # noqa: E402
from fakelib import FakeMem0

SEED = [
    memory("11111111-aaaa-4aaa-8aaa-000000000001",
           "Invoices are retried at most five times, with exponential backoff", "decision",
           created="2026-11-18T10:00:00Z"),
    memory("22222222-bbbb-4bbb-8bbb-000000000002", "Use ruff, not flake8", "convention",
           created="2026-11-19T10:00:00Z"),
    memory("33333333-cccc-4ccc-8ccc-000000000003",
           "Never retry a webhook that answered 4xx", "anti_pattern",
           created="2026-11-20T10:00:00Z"),
    {**memory("44444444-dddd-4ddd-8ddd-000000000004", "Stripe events are deduplicated by id",
              "decision", created="2026-11-21T10:00:00Z"),
     "metadata": {"type": "decision", "source": "cli", "ticket": "BILL-7"}},
    memory("55555555-eeee-4eee-8eee-000000000005", "Another user's memory", "decision",
           user="someone-else"),
]
OURS = {m["memory"]: (m["metadata"] or {}).get("type") for m in SEED if m["user_id"] == USER}


class ExportImport(unittest.TestCase):
    def setUp(self):
        self.home = tempfile.mkdtemp(prefix="mem0_e2e_move_")
        self.addCleanup(shutil.rmtree, self.home, True)
        self.project = os.path.join(self.home, "project")
        os.makedirs(self.project)
        self.addCleanup(kill_senders, self.home)
        self.platform = FakeMem0(seed=SEED).start()
        self.addCleanup(self.platform.stop)
        self.selfhosted = FakeMem0(backend="selfhosted").start()
        self.addCleanup(self.selfhosted.stop)


    def cli(self, fake, *args, timeout_ms=15000, wait_s=60):
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": self.home, "USER": USER,
               "MEM0_API_KEY": fake.api_key, "MEM0_BASE_URL": fake.url,
               "MEM0_PROJECT_ID": PROJECT, "MEM0_USER_ID": USER,
               "MEM0_TIMEOUT_MS": str(timeout_ms)}
        if fake.backend != "platform":
            env["MEM0_BACKEND"] = fake.backend
        for key in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
            if key in os.environ:
                env[key] = os.environ[key]
        return subprocess.run([*EXEC_WRAPPER, os.path.join(BIN_DIR, "mem0-hooks"), *args],
                              cwd=self.project, env=env, capture_output=True, text=True,
                              timeout=wait_s, stdin=subprocess.DEVNULL)

    def export(self, fake, name):
        result = self.cli(fake, "export", "--output", name)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(os.path.join(self.project, name)) as f:
            return [json.loads(line) for line in f]

    def stored(self, fake):
        """text → metadata.type of the user's memories of the project that `fake` holds."""
        project_key = "app_id" if fake.backend == "platform" else "agent_id"
        return {m["memory"]: (m.get("metadata") or {}).get("type") for m in fake.memories()
                if m.get("user_id") == USER and m.get(project_key) == PROJECT}

    def test_platform_to_selfhosted_and_back(self):
        lines = self.export(self.platform, "platform.jsonl")
        self.assertEqual({l["text"]: l["type"] for l in lines}, OURS)
        for line in lines:
            self.assertEqual(set(line), {"id", "text", "type", "metadata", "created_at"})
        ticket = [l for l in lines if l["text"] == "Stripe events are deduplicated by id"]
        self.assertEqual(ticket[0]["metadata"]["ticket"], "BILL-7")

        moved = self.cli(self.selfhosted, "import", "platform.jsonl")
        self.assertEqual(moved.returncode, 0, moved.stderr)
        self.assertEqual(moved.stdout, f"mem0: imported platform.jsonl into project {PROJECT}: "
                                       "4 added, 0 queued, 0 already there, 0 failed\n")
        self.assertEqual(self.stored(self.selfhosted), OURS)
        for add in self.selfhosted.adds():
            self.assertIs(add["infer"], False)  # verbatim
        [kept] = [m for m in self.selfhosted.memories() if m["memory"].startswith("Stripe events")]
        self.assertEqual(kept["metadata"]["ticket"], "BILL-7")
        self.assertEqual(kept["metadata"]["source"], "cli")

        adds = len(self.selfhosted.adds())
        again = self.cli(self.selfhosted, "import", "platform.jsonl")
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertIn("0 added, 0 queued, 4 already there, 0 failed", again.stdout)
        self.assertEqual(len(self.selfhosted.adds()), adds)  # idempotent: nothing sent
        self.assertEqual(len(self.stored(self.selfhosted)), 4)

        back = self.export(self.selfhosted, "selfhosted.jsonl")
        self.assertEqual({l["text"]: l["type"] for l in back}, OURS)
        fresh = FakeMem0().start()
        self.addCleanup(fresh.stop)
        returned = self.cli(fresh, "import", "selfhosted.jsonl")
        self.assertEqual(returned.returncode, 0, returned.stderr)
        self.assertIn("4 added, 0 queued, 0 already there, 0 failed", returned.stdout)
        self.assertEqual(self.stored(fresh), OURS)
        # Into the Platform that still holds them: nothing twice.
        home = self.cli(self.platform, "import", "selfhosted.jsonl")
        self.assertIn("0 added, 0 queued, 4 already there, 0 failed", home.stdout)
        self.assertEqual(self.platform.adds(), [])

    def test_a_bad_line_is_reported_by_number_and_the_rest_goes_in(self):
        with open(os.path.join(self.project, "mixed.jsonl"), "w") as f:
            f.write(json.dumps({"text": "Queue writes through the outbox", "type": "convention"})
                    + "\n")
            f.write('{"text": "cut short\n')
            f.write(json.dumps({"text": "Deploys happen on Tuesdays"}) + "\n")
            f.write(json.dumps({"type": "decision"}) + "\n")
        result = self.cli(self.selfhosted, "import", "mixed.jsonl")
        self.assertEqual(result.returncode, 1)
        self.assertEqual(result.stderr, "mem0-hooks import: line 2: not JSON\n"
                                        "mem0-hooks import: line 4: no \"text\"\n")
        self.assertIn("2 added, 0 queued, 0 already there, 2 failed", result.stdout)
        self.assertEqual(self.stored(self.selfhosted),
                         {"Queue writes through the outbox": "convention",
                          "Deploys happen on Tuesdays": "decision"})

    def write_lines(self, name, lines):
        with open(os.path.join(self.project, name), "w") as f:
            for line in lines:
                f.write(json.dumps(line) + "\n")

    def texts(self, fake):
        """How many times each text is stored for the user's project."""
        return collections.Counter(self.stored_all(fake))

    def stored_all(self, fake):
        project_key = "app_id" if fake.backend == "platform" else "agent_id"
        return [m["memory"] for m in fake.memories()
                if m.get("user_id") == USER and m.get(project_key) == PROJECT]

    # 3,000 lines against a server that takes 50 ms an answer: each delivery has its own budget
    # (the call's 5 s would end long before), the outbox never fills, each line is stored once.
    # Costs about 40 s (3,000 adds, four at a time, 50 ms each).
    def test_three_thousand_lines_against_a_slow_server_are_each_stored_once(self):
        slow = FakeMem0(latency_ms=50).start()
        self.addCleanup(slow.stop)
        count = 3000
        wanted = [f"Imported decision number {i}: keep the ledger balanced" for i in range(count)]
        self.write_lines("many.jsonl", [{"text": t, "type": "decision"} for t in wanted])
        result = self.cli(slow, "import", "many.jsonl", timeout_ms=5000, wait_s=300)
        self.assertEqual(result.returncode, 0, result.stderr[-2000:])
        self.assertEqual(result.stdout, f"mem0: imported many.jsonl into project {PROJECT}: "
                                        f"{count} added, 0 queued, 0 already there, 0 failed\n")
        stored = self.texts(slow)
        self.assertEqual(set(stored), set(wanted))
        self.assertEqual(set(stored.values()), {1})
        self.assertEqual(len(slow.adds()), count)

    # A line the server refuses (a 4xx) is a failure of that line, not a queued memory.
    def test_a_line_the_server_rejects_counts_as_failed(self):
        self.write_lines("three.jsonl", [{"text": "Rejected by the server, this one"},
                                         {"text": "Second line goes in"},
                                         {"text": "Third line goes in"}])
        self.selfhosted.control(status=422, only_endpoint="add", count=1)
        result = self.cli(self.selfhosted, "import", "three.jsonl")
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("2 added, 0 queued, 0 already there, 1 failed", result.stdout)
        rejected = [l for l in result.stderr.splitlines()
                    if l.startswith("mem0-hooks import:") and "rejected" in l]
        self.assertEqual(len(rejected), 1, result.stderr)
        self.assertRegex(rejected[0], r"^mem0-hooks import: line [123]: rejected by Mem0")
        self.assertEqual(len(self.stored_all(self.selfhosted)), 2)

    # An add whose answer does not come in time may have been stored all the same (the stand-in
    # stores it before it waits): the retry looks for the text first and does not add it again.
    def test_an_add_retried_after_a_timeout_is_not_stored_twice(self):
        self.write_lines("one.jsonl", [{"text": "Ledger entries are immutable once posted"}])
        self.platform.control(latency_ms=4000, only_endpoint="add", count=1)
        result = self.cli(self.platform, "import", "one.jsonl", timeout_ms=1000)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("1 added, 0 queued, 0 already there, 0 failed", result.stdout)
        self.assertEqual(self.texts(self.platform)["Ledger entries are immutable once posted"], 1)
        self.assertEqual(len(self.platform.adds()), 1)
        checks = [s for s in self.platform.searches()
                  if s["query"] == "Ledger entries are immutable once posted"]
        self.assertEqual(len(checks), 1)

    # Metadata values are redacted like the text; identity keys of the line are not kept.
    def test_metadata_is_redacted_and_identity_keys_dropped(self):
        key = "AKIAIOSFODNN7EXAMPLE"
        self.write_lines("meta.jsonl", [{"text": "Rotate the deploy key monthly", "metadata": {
            "user_id": "eve", "agent_id": "x", "app_id": "other-app", "run_id": "r1",
            "note": f"old key {key}", "ticket": "OPS-9"}}])
        result = self.cli(self.selfhosted, "import", "meta.jsonl")
        self.assertEqual(result.returncode, 0, result.stderr)
        [add] = self.selfhosted.adds()
        self.assertNotIn(key, json.dumps(add))
        meta = add["metadata"]
        for identity in ("user_id", "agent_id", "app_id", "run_id"):
            self.assertNotIn(identity, meta)
        self.assertEqual(meta["ticket"], "OPS-9")
        self.assertTrue(meta["note"].startswith("old key "), meta)
        self.assertEqual(add["user_id"], USER)


if __name__ == "__main__":
    testmain.main()
