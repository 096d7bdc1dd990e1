"""End-to-end: memory hygiene (docs/hygiene.md) with the built mem0-hooks against both flavours of
the stand-in: dream's dry run writes nothing, --apply deletes exactly the planned ids after an
undo file that import restores, a lock and an unwritable undo file stop it, a backend failing
halfway applies nothing; pin and unpin; stats equal what the stand-in holds; the use signal after
a Stop whose reply cites a memory, and not after an unrelated one."""

import fcntl
import hashlib
import json
import os
import shutil
from datetime import datetime, timedelta, timezone

from hooklib import BIN_DIR, kill_senders, senders_of, HookTest, PROJECT, USER
import seeds
from backends import per_backend
import testmain  # noqa: E402
from hookevents import prompt_event, session_end_event, stop_event
from waiting import wait_until

CLI = os.path.join(os.path.realpath(BIN_DIR), "mem0-hooks")


def ago(days):
    return (datetime.now(timezone.utc) - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


def mid(n):
    return f"{n:08x}-aaaa-4aaa-8aaa-{n:012x}"


EX_OLD, EX_NEW, NEAR_OLD, NEAR_NEW, EXPIRED = mid(1), mid(2), mid(3), mid(4), mid(5)
PG15, PG14, PINNED, PIN_DUP, OTHER_USER, KEEP = mid(6), mid(7), mid(8), mid(9), mid(10), mid(11)
WEBHOOK = mid(12)
PLANNED = {EX_OLD, NEAR_OLD, EXPIRED, PIN_DUP}


def corpus(backend):
    def m(mem_id, text, mtype, days, user=USER, metadata=None):
        return seeds.memory(mem_id, text, mtype, user=user, project=PROJECT, backend=backend,
                            created=ago(days), metadata=metadata)
    return [
        m(EX_OLD, "Use pnpm for every install in this repo.", "convention", 20),
        m(EX_NEW, "use PNPM for every install   in this repo", "convention", 2),
        m(NEAR_OLD, "Run the unit tests with ctest before every commit to main", "convention", 30),
        m(NEAR_NEW, "Run the unit tests with ctest before each commit to main", "convention", 3),
        m(EXPIRED, "Was half way through the refund flow of the billing service",
          "session_state", 120),
        m(PG15, "Use PostgreSQL 15 for the main database", "decision", 40),
        m(PG14, "Use PostgreSQL 14 for the main database", "decision", 50),
        m(PINNED, "Never commit generated protobuf files", "anti_pattern", 60,
          metadata={"type": "anti_pattern", "pinned": True}),
        m(PIN_DUP, "never commit generated protobuf files.", "anti_pattern", 1),
        m(OTHER_USER, "use pnpm for every install in this repo", "convention", 1,
          user="someone-else"),
        m(KEEP, "Money is stored in integer cents", "decision", 400),
        m(WEBHOOK, "Stripe webhook handler retries invoices with exponential backoff",
          "convention", 5),
    ]


def pending(home):
    """The outbox's queued items (docs/capture.md#the-outbox)."""
    outbox = os.path.join(home, ".mem0", "state", "outbox")
    return sorted(n for n in os.listdir(outbox) if n[:1].isdigit()) if os.path.isdir(outbox) else []


def tree(root):
    """Every file under `root` with a hash of its content."""
    out = {}
    for base, _, files in os.walk(root):
        for name in files:
            path = os.path.join(base, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, root)] = hashlib.sha256(f.read()).hexdigest()
    return out


class Hygiene:
    """The cases, run against each flavour (the subclasses)."""

    def setUp(self):
        super().setUp()
        self.addCleanup(kill_senders, self.home)

    def cli(self, *args, env=None):
        return self.run_bin(CLI, args=args, data=None, env=env, text=True, timeout=60)

    def ok(self, *args):
        result = self.cli(*args)
        self.assertEqual(result.returncode, 0, result.stderr + result.stdout)
        return result

    def stored(self):
        key = "app_id" if self.backend == "platform" else "agent_id"
        return {m["id"]: m for m in self.fake.memories()
                if m.get("user_id") == USER and m.get(key) == PROJECT}

    def writes(self):
        return [r for r in self.fake.requests() if r.get("endpoint") in ("add", "delete", "update")]

    def test_dry_run_writes_nothing_anywhere(self):
        self.ok("stats")  # the first run of a new HOME may set things up
        before = tree(self.home)
        for args in (("dream",), ("dream", "--json"), ("dream", "json", "global")):
            self.ok(*args)
        self.assertEqual(tree(self.home), before)
        self.assertEqual(self.writes(), [])
        self.assertIn("dry run: nothing changed", self.ok("dream").stdout)

    def test_the_plan_is_the_planted_one(self):
        plan = json.loads(self.ok("dream", "--json").stdout)["plan"]
        self.assertEqual(plan["memories"], 11)  # the other user's memory is not read
        drops = {i for g in plan["duplicates"] for i in g["drop"]} | {e["id"] for e in plan["expired"]}
        self.assertEqual(drops, PLANNED)
        keeps = {g["keep"] for g in plan["duplicates"]}
        self.assertEqual(keeps, {EX_NEW, NEAR_NEW, PINNED})
        self.assertEqual([c["ids"] for c in plan["conflicts"]], [sorted([PG15, PG14])])
        self.assertEqual(plan["expired"][0]["rule"], "retention_session_days: 90")
        self.assertTrue(plan["complete"])

    def test_apply_deletes_the_planned_ids_and_the_undo_file_brings_them_back(self):
        texts = {i: m["memory"] for i, m in self.stored().items()}
        result = self.ok("dream", "--apply", "--json")
        answer = json.loads(result.stdout)
        self.assertEqual(set(answer["applied"]["deleted"]), PLANNED)
        self.assertEqual(answer["applied"]["queued"], [])
        deleted = {r["path"].rstrip("/").rsplit("/", 1)[-1] for r in self.fake.requests()
                   if r.get("endpoint") == "delete"}
        self.assertEqual(deleted, PLANNED)
        self.assertEqual(set(texts) - set(self.stored()), PLANNED)
        self.assertEqual([r for r in self.writes() if r.get("endpoint") != "delete"], [])

        undo = answer["applied"]["undo"]
        self.assertTrue(undo.startswith(os.path.join(self.home, ".mem0", "undo", "dream-")))
        with open(undo) as f:
            lines = [json.loads(line) for line in f]
        self.assertEqual({l["id"] for l in lines}, PLANNED)
        for line in lines:
            self.assertEqual(set(line), {"id", "text", "type", "metadata", "created_at"})

        restored = self.ok("import", undo)
        now = {m["memory"] for m in self.stored().values()}
        for mem_id in PLANNED:
            self.assertIn(texts[mem_id], now, restored.stdout + restored.stderr)
        # A second apply finds nothing new to delete but the restored duplicates again.
        self.assertEqual(len(self.stored()), len(texts))

    def test_apply_in_words_prints_the_undo_file(self):
        out = self.ok("dream", "apply").stdout
        self.assertIn("deleted 4", out)
        self.assertIn("undo file: " + os.path.join(self.home, ".mem0", "undo", "dream-"), out)

    def test_a_second_apply_while_one_runs_is_refused(self):
        state = os.path.join(self.home, ".mem0", "state")
        os.makedirs(state, exist_ok=True)
        with open(os.path.join(state, "dream.lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            result = self.cli("dream", "--apply")
        self.assertEqual(result.returncode, 1)
        self.assertIn("another dream --apply is running", result.stderr)
        self.assertEqual(self.writes(), [])

    def test_an_undo_file_that_cannot_be_written_stops_before_any_delete(self):
        os.makedirs(os.path.join(self.home, ".mem0"), exist_ok=True)
        with open(os.path.join(self.home, ".mem0", "undo"), "w") as f:
            f.write("a file where the directory goes")
        result = self.cli("dream", "--apply")
        self.assertEqual(result.returncode, 1)
        self.assertIn("undo file not written, nothing deleted", result.stderr)
        self.assertEqual(self.writes(), [])
        self.assertEqual(pending(self.home), [])

    def test_a_backend_failing_halfway_applies_nothing(self):
        self.fake.seed(corpus(self.backend) + [
            seeds.memory(mid(1000 + i), f"filler memory number {i} about topic {i * 7}",
                         "task_learning", user=USER, project=PROJECT, backend=self.backend,
                         created=ago(1)) for i in range(150)])
        if self.backend == "platform":
            self.fake.control(status=500, only_endpoint="list", after=1)  # page 2 fails
        else:
            self.fake.control(mode="garbage", only_endpoint="list")
        result = self.cli("dream", "--apply", "--json")
        self.assertEqual(result.returncode, 1)
        answer = json.loads(result.stdout)
        self.assertFalse(answer["plan"]["complete"])
        self.assertTrue(answer["plan"]["problems"])
        self.assertIn("nothing is applied", answer["error"])
        self.fake.control()
        self.assertEqual(self.writes(), [])
        self.assertEqual(pending(self.home), [])

    def test_auto_dream_after_a_session_ends_with_capture_on_and_off(self):
        fillers = [seeds.memory(mid(2000 + i), f"filler memory number {i} about topic {i * 7}",
                                "task_learning", user=USER, project=PROJECT, backend=self.backend,
                                created=ago(1)) for i in range(10)]
        undo = os.path.join(self.home, ".mem0", "undo")
        for auto_save in ("true", "false"):
            with self.subTest(auto_save=auto_save):
                self.fake.reset()
                self.fake.seed(corpus(self.backend) + fillers)  # 21 of ours: past the gate of 20
                # The day's marker of the previous case goes: each case may dream once.
                shutil.rmtree(os.path.join(self.home, ".mem0", "state", "dream"), True)
                env = self.env(MEM0_AUTO_DREAM="true", MEM0_AUTO_SAVE=auto_save)
                self.run_hook("on_session_end", session_end_event(
                    "clear", session_id=f"s-auto-{auto_save}", cwd=self.project), env=env)
                self.assertTrue(wait_until(lambda: not senders_of(self.home), 30))
                left = set(self.stored())
                self.assertEqual(left & {EX_OLD, NEAR_OLD, EXPIRED, PIN_DUP}, set())
                self.assertIn(EX_NEW, left)
                self.assertIn(PG14, left)  # a conflict is only listed
                self.assertEqual(len(os.listdir(undo)), 1 if auto_save == "true" else 2)
        # Once a day per project: a second session end the same day deletes nothing.
        self.fake.reset()
        self.fake.seed(corpus(self.backend) + fillers)
        self.run_hook("on_session_end", session_end_event("clear", session_id="s-again",
                                                          cwd=self.project),
                      env=self.env(MEM0_AUTO_DREAM="true"))
        self.assertTrue(wait_until(lambda: not senders_of(self.home), 30))
        self.assertEqual(self.writes(), [])

    def test_pin_and_unpin(self):
        out = self.ok("pin", KEEP).stdout
        self.assertIn(f"pinned {KEEP}", out)
        meta = self.stored()[KEEP]["metadata"]
        self.assertIs(meta["pinned"], True)
        self.assertEqual(meta["type"], "decision")
        self.assertEqual(self.stored()[KEEP]["memory"], "Money is stored in integer cents")
        tour = json.loads(self.ok("tour", "--json").stdout)
        self.assertEqual({t["id"] for t in tour[:2]}, {KEEP, PINNED})
        self.ok("unpin", KEEP)
        self.assertIs(self.stored()[KEEP]["metadata"]["pinned"], False)
        refused = self.cli("pin", OTHER_USER)
        self.assertEqual(refused.returncode, 1)
        self.assertIn("not a memory of user", refused.stderr)

    def test_stats_equal_what_the_stand_in_holds(self):
        self.run_hook("on_user_prompt", prompt_event(
            "Why does the stripe webhook handler retry invoices twice?", session_id="s-1",
            cwd=self.project))
        stats = json.loads(self.ok("stats", "--json").stdout)
        held = self.stored()
        self.assertEqual(stats["memories"]["total"], len(held))
        by_type = {}
        for m in held.values():
            t = (m.get("metadata") or {}).get("type") or ""
            by_type[t] = by_type.get(t, 0) + 1
        self.assertEqual(stats["memories"]["by_type"], by_type)
        self.assertEqual(stats["memories"]["pinned"], 1)
        self.assertEqual(sum(stats["memories"]["by_age"].values()), len(held))
        self.assertEqual(stats["memories"]["by_age"][">90d"], 2)
        self.assertEqual(len(stats["days"]), 30)
        self.assertEqual(stats["days"][-1]["searches"], len(self.fake.searches()))
        self.assertEqual(stats["injected"]["runs"], 1)
        self.assertGreaterEqual(stats["injected"]["memories"], 1)
        self.assertEqual(set(stats["agents"]), {"claude-code"})
        self.assertEqual(len(json.loads(self.ok("stats", "json", "7").stdout)["days"]), 7)

    def test_the_use_signal_after_a_citing_reply_and_not_after_an_unrelated_one(self):
        def turn(session, reply):
            self.run_hook("on_user_prompt", prompt_event(
                "Why does the stripe webhook handler retry invoices twice?", session_id=session,
                cwd=self.project))
            self.run_hook("on_stop", stop_event(reply, session_id=session, cwd=self.project))
            log = json.loads(self.ok("log", "--session", session, "--json").stdout)
            injected = {m["id"] for r in log["runs"] for m in r["memories"]}
            self.assertIn(WEBHOOK, injected)
            return log["runs"][-1]

        used = turn("s-cite", f"The retries follow [mem0:{WEBHOOK[:8]}]: exponential backoff, "
                              "so a second attempt is expected.")
        self.assertEqual(used["hook"], "on_stop")
        self.assertEqual(used["used"], [WEBHOOK])
        self.assertIn("used by the reply: " + WEBHOOK, self.ok("log", "--session", "s-cite").stdout)
        unrelated = turn("s-other", "I renamed the CSS classes of the login page and fixed the "
                                    "footer alignment on small screens.")
        self.assertEqual(unrelated.get("used", []), [])
        stats = json.loads(self.ok("stats", "--json").stdout)
        self.assertEqual(stats["injected"]["used"], 1)


PlatformHygiene, SelfHostedHygiene = per_backend("Hygiene", Hygiene, HookTest, seed=corpus)


if __name__ == "__main__":
    testmain.main()
