"""End-to-end: the built on_session_start against the fake Mem0 server (docs/hooks.md#session-start-hook)."""

import json
import os
import re
import time
import unittest

from hooklib import (HookTest, and_terms, memory, PROJECT, project_filters, shared_agent,
                     USER)
import testmain  # noqa: E402
from gitrepo import make_repo
from hookevents import prompt_event, session_start_event
from loopback import closed_port

FACT = "11111111-aaaa-4aaa-8aaa-000000000001"
DECISION = "22222222-bbbb-4bbb-8bbb-000000000002"
CONVENTION = "33333333-cccc-4ccc-8ccc-000000000003"
STATE = "44444444-dddd-4ddd-8ddd-000000000004"
LEARNING = "55555555-eeee-4eee-8eee-000000000005"
ANTI = "66666666-ffff-4fff-8fff-000000000006"
OTHER_USER = "77777777-aaaa-4aaa-8aaa-000000000007"
OTHER_PROJECT = "88888888-bbbb-4bbb-8bbb-000000000008"

NO_KEY = "mem0: no API key, recall and capture are off (run mem0-hooks doctor)"
RESUME_HEADING = "### Session context recovered from mem0"
RESUME_FOOTER = "These memories provide context for resuming work."

CLAUDE_MD = """# Billing service

## Build

Configure with cmake -DMEM0_WERROR=ON and build only the targets you need.

## Style

Money is integer cents everywhere; Decimal is forbidden in the API layer.
"""
SECTIONS = [
    "## Build\n\nConfigure with cmake -DMEM0_WERROR=ON and build only the targets you need.",
    "## Style\n\nMoney is integer cents everywhere; Decimal is forbidden in the API layer.",
]
FILE_LINE = re.compile(r"^- \[(\w+)\] \((\d+(m|h|d|mo) ago)\) (.*) \[mem0:([0-9a-f]{8})\]$")


class OnSessionStart(HookTest):
    seed = [  # newest first: fact, decision, convention, session_state, task_learning, anti
        memory(FACT, "The billing service runs on Python 3.11", "fact",
               created="2026-11-21T10:00:00Z"),
        memory(DECISION, "Recent decision learnings: render invoice PDFs server side",
               "decision", created="2026-11-20T10:00:00Z"),
        memory(CONVENTION, "src/billing/invoice.py keeps money as integer cents", "convention",
               created="2026-11-19T10:00:00Z"),
        memory(STATE, "Session state current task: invoice PDF rendering, next step fonts",
               "session_state", created="2026-11-18T10:00:00Z"),
        memory(LEARNING, "Stripe retries webhooks for three days", "task_learning",
               created="2026-11-17T10:00:00Z"),
        memory(ANTI, "KeyError customer in the webhook handler", "anti_pattern",
               created="2026-11-16T10:00:00Z"),
        memory(OTHER_USER, "A decision of another user", "decision", user="someone-else",
               created="2026-11-22T10:00:00Z"),
        memory(OTHER_PROJECT, "A decision of another project", "decision", app="other-project",
               created="2026-11-22T10:00:00Z"),
    ]

    def start(self, source, session="sess-1", env=None):
        return self.run_hook("on_session_start",
                             session_start_event(source, session_id=session, cwd=self.project),
                             env=env)

    def debug_env(self, **overrides):
        return self.env(MEM0_DEBUG="1", **overrides)

    def log_lines(self, needle):
        try:
            with open(os.path.join(self.home, ".mem0", "hooks.log"), encoding="utf-8") as f:
                return [line for line in f if needle in line]
        except FileNotFoundError:
            return []

    def wait_for_senders(self, rounds):
        """Wait until `rounds` detached sender rounds have finished (MEM0_DEBUG logs each)."""
        self.wait_for(f"{rounds} sender round(s)",
                      lambda: len([line for line in self.log_lines(" debug sender: ")
                                   if " delivered, " in line]) >= rounds)

    # -- startup and clear -----------------------------------------------------------------

    def test_startup_shows_count_user_branch_and_recent_memories(self):
        make_repo(self.project, branch="feature/pdf")
        result = self.start("startup")
        lines = result.context().split("\n")
        self.assertEqual(lines[0],
                         f"### mem0: 6 memories for {PROJECT} (user {USER}, branch feature/pdf)")
        self.assertEqual(lines[1], "")
        shown = [FILE_LINE.match(line) for line in lines[2:]]
        self.assertTrue(all(shown), lines)
        self.assertEqual([(m.group(1), m.group(5)) for m in shown],
                         [("decision", DECISION[:8]), ("convention", CONVENTION[:8]),
                          ("session_state", STATE[:8]), ("task_learning", LEARNING[:8])])
        self.assertEqual(shown[1].group(4), "src/billing/invoice.py keeps money as integer cents")
        self.assertIsNone(result.system_message())
        self.assertEqual(result.json()["hookSpecificOutput"]["hookEventName"], "SessionStart")

    def test_startup_sends_one_list_request_with_the_project_filters(self):
        self.start("clear")
        calls = self.fake.requests()
        self.assertEqual([c["endpoint"] for c in calls], ["list"])
        self.assertEqual(calls[0]["method"], "POST")
        self.assertEqual(calls[0]["path"].split("?")[0], "/v3/memories/")
        self.assertIn("page=1", calls[0]["path"])
        self.assertIn("page_size=20", calls[0]["path"])
        self.assertEqual(calls[0]["body"]["filters"],
                         project_filters(USER, PROJECT, shared_agent(PROJECT, root=self.project)))

    def test_shown_memories_are_not_injected_again_in_the_session(self):
        first = self.start("startup").context()
        self.assertIn(f"[mem0:{DECISION[:8]}]", first)
        again = self.start("clear").context()
        self.assertEqual(again.split("\n"), [f"### mem0: 6 memories for {PROJECT} (user {USER})"])
        other = self.start("startup", session="sess-2").context()
        self.assertIn(f"[mem0:{DECISION[:8]}]", other)

    def test_startup_takes_about_one_request(self):
        self.fake.control(latency_ms=400)
        result = self.start("startup")
        self.assertIn("### mem0: 6 memories", result.context())
        self.assertLess(result.elapsed, 2 * 0.4)  # one round trip, not two

    def test_a_failed_list_shows_the_problem_instead_of_the_header(self):
        self.fake.control(status=429, retry_after="12")
        result = self.start("startup")
        # For the user, not the model.
        self.assertEqual(result.json(),
                         {"systemMessage": "mem0: recall skipped \u2014 rate limited (retry after 12 s)"})
        # The shared back-off now pauses the next hook, which sends nothing; the same session
        # is not told again, another one is.
        self.fake.control()
        self.fake.reset()
        self.assertEqual(self.start("resume").stdout, b"")
        paused = self.start("resume", session="sess-2")
        self.assertIsNone(paused.context())
        self.assertRegex(paused.system_message(), r"^mem0: recall paused \u2014 rate limited by "
                                                  r"Mem0, retrying in \d+ s$")
        self.assertEqual(self.fake.calls("search"), [])
        self.assertEqual(self.fake.calls("list"), [])

    # -- resume and compact ----------------------------------------------------------------

    def test_resume_and_compact_inject_the_resume_plan(self):
        for source in ("resume", "compact"):
            with self.subTest(source):
                self.fake.reset()
                lines = self.start(source, session="sess-" + source).context().split("\n")
                self.assertEqual(lines[0], RESUME_HEADING)
                self.assertEqual(lines[1], "")
                self.assertIn("- [session_state] Session state current task: invoice PDF "
                              f"rendering, next step fonts [mem0:{STATE[:8]}]", lines)
                self.assertIn("- [decision] Recent decision learnings: render invoice PDFs "
                              f"server side [mem0:{DECISION[:8]}]", lines)
                self.assertEqual(lines[-1], RESUME_FOOTER)
                searches = sorted((s["query"], and_terms(s["filters"])[-1], s["top_k"])
                                  for s in self.fake.searches())
                self.assertEqual(searches, [
                    ("recent decisions and learnings", {"metadata": {"type": "decision"}}, 3),
                    ("session state current task", {"metadata": {"type": "session_state"}}, 3),
                ])
                self.assertEqual(self.fake.calls("list"), [])

    def test_resume_imports_nothing(self):
        with open(os.path.join(self.project, "CLAUDE.md"), "w") as f:
            f.write(CLAUDE_MD)
        self.start("resume", env=self.debug_env())
        self.start("compact", env=self.debug_env())
        time.sleep(0.5)
        self.assertEqual(self.fake.adds(), [])

    # -- no key ------------------------------------------------------------------------------

    def test_no_key_prints_only_the_visible_line(self):
        with open(os.path.join(self.project, "CLAUDE.md"), "w") as f:
            f.write(CLAUDE_MD)
        for source in ("startup", "resume", "clear", "compact"):
            with self.subTest(source):
                result = self.start(source, session="nokey-" + source,
                                    env=self.env(MEM0_API_KEY=None))
                self.assertEqual(result.json(), {"systemMessage": NO_KEY})
        time.sleep(0.3)
        self.assertEqual(self.fake.requests(), [])

    def test_no_key_is_said_once_per_session_by_whichever_hook_runs_first(self):
        env = self.env(MEM0_API_KEY=None)
        self.assertEqual(self.start("startup", env=env).system_message(), NO_KEY)
        self.assertEqual(self.start("compact", env=env).stdout, b"")
        prompt = prompt_event("Why does the stripe webhook handler retry invoices twice?",
                              session_id="sess-1", cwd=self.project)
        self.assertEqual(self.run_hook("on_user_prompt", prompt, env=env).stdout, b"")
        prompt["session_id"] = "sess-2"  # SessionStart did not run for this one
        self.assertEqual(self.run_hook("on_user_prompt", prompt, env=env).system_message(), NO_KEY)
        self.assertEqual(self.start("resume", session="sess-2", env=env).stdout, b"")

    def test_a_full_outbox_and_rejected_captures_are_told_once(self):
        outbox = os.path.join(self.home, ".mem0", "state", "outbox")
        os.makedirs(os.path.join(outbox, "rejected"))
        for i in range(1, 1001):
            with open(os.path.join(outbox, f"{i:012d}.json"), "w") as f:
                f.write('{"kind":"add","body":"{}"}')
        with open(os.path.join(outbox, "rejected", "000000000001.json"), "w") as f:
            f.write('{"status":422,"error":"bad","item":"{}"}')
        # No search (auto_search off), and a server the sender cannot reach, so that the
        # outbox stays as it is while the test looks.
        env = self.env(MEM0_AUTO_SEARCH="false", MEM0_BASE_URL=f"http://127.0.0.1:{closed_port()}")
        result = self.start("startup", env=env)
        self.assertIsNone(result.context())
        self.assertEqual(result.system_message().split("\n"), [
            "mem0: capture outbox full (1000 items or 20 MB) \u2014 new memories are not saved "
            "until it drains (run mem0-hooks doctor)",
            f"mem0: 1 capture rejected by Mem0, kept in {outbox}/rejected (run mem0-hooks doctor)",
        ])
        self.assertIsNone(self.start("compact", env=env).system_message())

    def test_show_recall_counts_the_memories_shown(self):
        result = self.start("startup", env=self.env(MEM0_SHOW_RECALL="on"))
        self.assertEqual(result.system_message(), "mem0: 4 memories recalled")

    def test_unknown_source_prints_nothing(self):
        result = self.start("reload")
        self.assertEqual(result.stdout, b"")
        self.assertEqual(self.fake.requests(), [])

    # -- project files -----------------------------------------------------------------------

    def project_profile_ids(self):
        return sorted(m["id"] for m in self.fake.memories()
                      if (m.get("metadata") or {}).get("type") == "project_profile")

    def test_claude_md_is_imported_once_and_replaced_when_changed(self):
        path = os.path.join(self.project, "CLAUDE.md")
        with open(path, "w") as f:
            f.write(CLAUDE_MD)
        result = self.start("startup", env=self.debug_env())
        self.assertIn("### mem0: 6 memories", result.context())  # the list ran before the import

        adds = self.wait_for("the import's two adds",
                             lambda: len(self.fake.adds()) >= 2 and self.fake.adds())
        self.wait_for_senders(1)
        self.assertEqual(len(adds), 2, adds)
        # The sender sends a few items in parallel: they may arrive in either order.
        adds = sorted(adds, key=lambda b: SECTIONS.index(b["messages"][0]["content"])
                      if b["messages"][0]["content"] in SECTIONS else -1)
        for body, section in zip(adds, SECTIONS):
            self.assertIs(body["infer"], False)
            self.assertEqual(body["messages"], [{"role": "user", "content": section}])
            self.assertEqual(body["metadata"]["type"], "project_profile")
            self.assertEqual(body["metadata"]["source"], "auto-import")
            self.assertEqual(body["metadata"]["file"], "CLAUDE.md")
            self.assertEqual((body["user_id"], body["app_id"]), (USER, PROJECT))
        old_ids = self.project_profile_ids()
        self.assertEqual(len(old_ids), 2)

        # Unchanged: a second startup imports nothing, and starts no sender for it.
        self.fake.reset()
        self.start("startup", session="sess-2", env=self.debug_env())
        time.sleep(0.5)
        self.assertEqual(len(self.log_lines(" debug sender: ")), 1, "a sender ran for nothing")
        self.assertEqual(self.fake.adds(), [])
        self.assertEqual(self.fake.deletes(), [])

        # Changed: the old memories are deleted and the new sections added.
        self.fake.reset()
        with open(path, "w") as f:
            f.write(CLAUDE_MD.replace("integer cents", "integer cents (int64)"))
        self.start("startup", session="sess-3", env=self.debug_env())
        self.wait_for("two deletes and two adds",
                      lambda: len(self.fake.adds()) >= 2 and len(self.fake.deletes()) >= 2)
        self.wait_for_senders(2)
        self.assertEqual(sorted(self.fake.deletes()), old_ids)
        self.assertEqual(sorted(b["messages"][0]["content"] for b in self.fake.adds()),
                         [SECTIONS[0], SECTIONS[1].replace("integer cents",
                                                           "integer cents (int64)")])
        new_ids = self.project_profile_ids()
        self.assertEqual(len(new_ids), 2)
        self.assertFalse(set(new_ids) & set(old_ids))

    def test_an_import_the_full_outbox_refuses_is_withdrawn_and_retried(self):
        with open(os.path.join(self.project, "CLAUDE.md"), "w") as f:
            f.write(CLAUDE_MD)
        # Room for one item only, and a server that keeps the queue from draining.
        state = os.path.join(self.home, ".mem0", "state")
        outbox = os.path.join(state, "outbox")
        os.makedirs(outbox)
        for i in range(1, 1000):
            with open(os.path.join(outbox, f"{i:012d}.json"), "w") as f:
                json.dump({"kind": "add", "body": {"messages": [
                    {"role": "user", "content": f"filler {i}"}]}}, f)
        self.fake.control(status=503, only_endpoint="add")
        self.start("startup", env=self.debug_env())
        self.wait_for_senders(1)
        self.assertTrue(self.log_lines("import of " + PROJECT + "/CLAUDE.md withdrawn"))
        pending = lambda: sorted(n for n in os.listdir(outbox) if n[:-5].isdigit())
        self.assertEqual(len(pending()), 999)  # the fillers alone
        with open(os.path.join(state, "imports.json")) as f:
            self.assertEqual(json.load(f)[PROJECT + "/CLAUDE.md"]["hash"], "")

        # Once the queue drained, the next startup imports the file whole.
        for name in pending():
            os.unlink(os.path.join(outbox, name))
        self.fake.control()
        self.fake.reset()
        self.start("startup", session="sess-2", env=self.debug_env())
        self.wait_for_senders(2)
        self.assertEqual(sorted(b["messages"][0]["content"] for b in self.fake.adds()), SECTIONS)

    @unittest.skipIf(os.name == "nt", "symbolic links need a privilege on Windows")
    def test_a_project_file_that_is_a_symbolic_link_is_never_read(self):
        # A repository's CLAUDE.md and mem0.md that point at the user's secrets
        # (docs/capture.md#project-files).
        secrets = os.path.join(self.home, ".config", "app")
        os.makedirs(secrets)
        env_file = os.path.join(secrets, ".env")
        with open(env_file, "w") as f:
            f.write("## Instructions\n\nDATABASE_URL=postgres://billing:CorrectHorse42@db/billing "
                    "and STRIPE=pk_live_CorrectHorseBatteryStaple\n")
        os.symlink(env_file, os.path.join(self.project, "CLAUDE.md"))
        os.symlink(env_file, os.path.join(self.project, "mem0.md"))
        # A link within the project is not read either: only a regular file is.
        with open(os.path.join(self.project, "notes.md"), "w") as f:
            f.write(CLAUDE_MD)
        os.symlink("notes.md", os.path.join(self.project, ".cursorrules"))
        with open(os.path.join(self.project, "AGENTS.md"), "w") as f:
            f.write(CLAUDE_MD)
        self.start("startup", env=self.debug_env())
        adds = self.wait_for("the import of AGENTS.md",
                             lambda: len(self.fake.adds()) >= 2 and self.fake.adds())
        self.wait_for_senders(1)
        self.assertEqual(sorted(b["metadata"]["file"] for b in adds), ["AGENTS.md", "AGENTS.md"])
        for body in adds:  # mem0.md's instructions are not read either
            instructions = body.get("custom_instructions", "") + body.get(
                "agent_custom_instructions", "")
            self.assertNotIn("DATABASE_URL", instructions)
        for request in self.fake.requests():
            self.assertNotIn("CorrectHorse", json.dumps(request))

    def test_no_import_when_auto_save_is_off(self):
        with open(os.path.join(self.project, "CLAUDE.md"), "w") as f:
            f.write(CLAUDE_MD)
        result = self.start("startup", env=self.env(MEM0_AUTO_SAVE="false"))
        self.assertIn("### mem0: 6 memories", result.context())
        time.sleep(0.5)
        self.assertEqual(self.fake.adds(), [])


if __name__ == "__main__":
    testmain.main()
