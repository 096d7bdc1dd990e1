"""End-to-end: the built on_user_prompt against the fake Mem0 server (docs/hooks.md#prompt-hook)."""

import json
import os
import subprocess
import unittest

from hooklib import (BIN_DIR, EXIT_SLACK_S, HookTest, and_terms, memory, PROJECT, project_filters,
                     shell_quote, shared_agent, USER)
import testmain  # noqa: E402
from gitrepo import make_repo
from hookevents import prompt_event
from loopback import closed_port

WEBHOOK = "11111111-aaaa-4aaa-8aaa-000000000001"
DECISION = "22222222-bbbb-4bbb-8bbb-000000000002"
ANTI = "33333333-cccc-4ccc-8ccc-000000000003"
OTHER_USER = "44444444-dddd-4ddd-8ddd-000000000004"
OTHER_PROJECT = "55555555-eeee-4eee-8eee-000000000005"
STATE = "66666666-ffff-4fff-8fff-000000000006"
CONVENTION = "77777777-aaaa-4aaa-8aaa-000000000007"

PROMPT = "Why does the stripe webhook handler retry invoices twice?"
RUBRIC = "Mem0 holds this project's past decisions"
NO_KEY = "mem0: no API key, recall and capture are off (run mem0-hooks doctor)"
CLI_PATH = os.path.join(os.path.realpath(BIN_DIR), "mem0-hooks")
CLI = shell_quote(CLI_PATH)  # as the hooks name it to the model


class OnUserPrompt(HookTest):
    seed = [
        memory(WEBHOOK, "Stripe webhook handler retries invoices with exponential backoff",
               "convention"),
        memory(DECISION, "Decided stripe webhook handler retry stops early", "decision"),
        memory(ANTI, "KeyError customer in stripe webhook handler when invoice lacks customer",
               "anti_pattern"),
        memory(OTHER_USER, "Stripe webhook handler secret notes of another user", "decision",
               user="someone-else"),
        memory(OTHER_PROJECT, "Stripe webhook handler retries in another project", "decision",
               app="other-project"),
        memory(STATE, "Session state current task: invoice PDF rendering, next step fonts",
               "session_state"),
        memory(CONVENTION, "src/billing/invoice.py keeps money as integer cents", "convention"),
    ]

    def prompt(self, text, session="sess-1", env=None):
        return self.run_hook("on_user_prompt",
                             prompt_event(text, session_id=session, cwd=self.project), env=env)

    def test_relevant_memory_is_injected_in_the_documented_format(self):
        ctx = self.prompt(PROMPT).context()
        lines = ctx.split("\n")
        self.assertEqual(lines[0], "### Relevant memories (auto-retrieved for this request)")
        self.assertEqual(lines[1], "")
        self.assertIn("- [convention] Stripe webhook handler retries invoices with exponential "
                      "backoff [mem0:11111111]", lines)
        self.assertIn("- [decision] Decided stripe webhook handler retry stops early "
                      "[mem0:22222222]", lines)
        self.assertNotIn("\\n", ctx)

    def test_lean_plan_sends_exactly_one_rerank_search_with_anchored_filters(self):
        self.prompt(PROMPT)
        searches = self.fake.searches()
        self.assertEqual(len(searches), 1)
        body = searches[0]
        self.assertEqual(body["query"], PROMPT)
        self.assertEqual(body["top_k"], 10)
        self.assertIs(body["rerank"], True)
        self.assertEqual(body["filters"],
                         project_filters(USER, PROJECT, shared_agent(PROJECT, root=self.project)))
        headers = self.fake.requests()[0]["headers"]
        self.assertEqual(headers["authorization"], "Token " + self.fake.api_key)

    def test_thorough_plan_sends_its_searches_in_parallel(self):
        prompt = ("Traceback in src/billing/invoice.py:\nKeyError: 'customer' "
                  "when the stripe webhook handler retries")
        self.prompt(prompt, env=self.env(MEM0_SEARCH_PLAN="thorough"))
        searches = self.fake.searches()
        kinds = sorted((and_terms(s["filters"])[-1].get("metadata", {}).get("type", "broad"),
                        s["top_k"]) for s in searches)
        self.assertEqual(kinds, [("anti_pattern", 3), ("broad", 10), ("convention", 3),
                                 ("decision", 5)])
        convention = [s for s in searches if s["top_k"] == 3 and
                      and_terms(s["filters"])[-1] == {"metadata": {"type": "convention"}}][0]
        self.assertEqual(convention["query"], "src/billing/invoice.py")
        # Parallel: all four requests were received before the first latency elapsed.
        self.fake.reset()
        self.fake.control(latency_ms=400)
        result = self.prompt(prompt, session="sess-parallel",
                             env=self.env(MEM0_SEARCH_PLAN="thorough"))
        self.assertEqual(len(self.fake.searches()), 4)
        self.assertLess(result.elapsed, 4 * 0.4)

    def test_project_id_comes_from_the_origin_of_a_linked_worktree(self):
        tree = os.path.join(self.home, "trees", "billing-feature")
        make_repo(self.project, origin="git@github.com:acme/billing.git", worktree=tree)
        self.run_hook("on_user_prompt", prompt_event(PROMPT, cwd=tree),
                      env=self.env(MEM0_PROJECT_ID=None))
        self.assertEqual(self.fake.searches()[0]["filters"], project_filters(
            USER, "acme-billing", shared_agent("acme-billing", "https://github.com/acme/billing")))

    def test_other_users_and_projects_never_appear(self):
        ctx = self.prompt(PROMPT).context()
        self.assertNotIn("mem0:44444444", ctx)
        self.assertNotIn("mem0:55555555", ctx)
        self.assertNotIn("another", ctx)

    def test_rerank_absent_when_off(self):
        self.prompt(PROMPT, env=self.env(MEM0_RERANK="off"))
        self.assertNotIn("rerank", self.fake.searches()[0])

    def test_gates_make_no_request(self):
        cases = {
            "short prompt": (self.env(), "fix the bug now"),
            "slash command": (self.env(), "/mem0:remember the stripe webhook retries"),
            "auto_search env": (self.env(MEM0_AUTO_SEARCH="false"), PROMPT),
        }
        for name, (env, text) in cases.items():
            with self.subTest(name):
                result = self.prompt(text, env=env, session="gate-" + name.replace(" ", "-"))
                self.assertEqual(self.fake.requests(), [])
                self.assertEqual(result.stdout, b"")  # no rubric either when recall is off

    def test_no_key_is_told_to_the_user_once_per_session(self):
        env = self.env(MEM0_API_KEY=None)
        first = self.prompt(PROMPT, env=env, session="nokey-1")
        self.assertEqual(self.fake.requests(), [])
        self.assertEqual(first.json(), {"systemMessage": NO_KEY})  # nothing for the model
        self.assertEqual(self.prompt(PROMPT, env=env, session="nokey-1").stdout, b"")
        self.assertEqual(self.prompt(PROMPT, env=env, session="nokey-2").system_message(), NO_KEY)
        self.assertEqual(self.fake.requests(), [])

    def test_auto_search_false_in_settings_makes_no_request(self):
        os.makedirs(os.path.join(self.home, ".mem0"))
        with open(os.path.join(self.home, ".mem0", "settings.json"), "w") as f:
            json.dump({"auto_search": False}, f)
        result = self.prompt(PROMPT)
        self.assertEqual(self.fake.requests(), [])
        self.assertNotIn("[mem0:", result.context() or "")

    def test_second_prompt_of_a_session_repeats_neither_memory_nor_rubric(self):
        first = self.prompt(PROMPT).context()
        self.assertIn("[mem0:11111111]", first)
        self.assertIn(RUBRIC, first)
        second = self.prompt(PROMPT).context() or ""
        self.assertNotIn("[mem0:11111111]", second)
        self.assertNotIn("[mem0:22222222]", second)
        self.assertNotIn(RUBRIC, second)
        other_session = self.prompt(PROMPT, session="sess-2").context()
        self.assertIn("[mem0:11111111]", other_session)

    def test_rate_limit_is_reported_and_logged(self):
        self.fake.control(status=429, retry_after="17")
        result = self.prompt(PROMPT, env=self.env(MEM0_DEBUG="1"))
        self.assertEqual(result.system_message(),
                         "mem0: recall skipped — rate limited (retry after 17 s)")
        self.assertNotIn("rate limited", result.context())  # the model cannot fix it
        self.assertIn(b"rate_limited", result.stderr)
        with open(os.path.join(self.home, ".mem0", "hooks.log")) as f:
            self.assertIn("rate_limited", f.read())

    def test_rate_limit_pauses_later_hooks(self):
        self.fake.control(status=429, retry_after="120")
        self.prompt(PROMPT)
        self.fake.control()
        self.fake.reset()
        result = self.prompt(PROMPT, session="sess-later")
        self.assertEqual(self.fake.requests(), [])
        self.assertRegex(result.system_message(),
                         r"^mem0: recall paused — rate limited by Mem0, retrying in 1[12]\d s$")
        self.assertNotIn("recall paused", result.context())
        # The same session is not told again on the next prompt.
        again = self.prompt("What did we decide about stripe webhook retries?",
                            session="sess-later")
        self.assertIsNone(again.system_message())

    def test_three_unreachable_runs_pause_later_hooks_for_that_server_only(self):
        down = self.env(MEM0_BASE_URL=f"http://127.0.0.1:{closed_port()}")
        for i in range(3):
            message = self.prompt(PROMPT, session=f"down-{i}", env=down).system_message()
            self.assertIn("searches failed (transport)", message)
        result = self.prompt(PROMPT, session="down-3", env=down)
        self.assertIn("mem0: recall paused — Mem0 unreachable after 3 failed attempts",
                      result.system_message())
        self.assertNotIn("recall paused", result.context())
        self.assertLess(result.elapsed, 0.5)
        # A corrected base URL is another server: it is asked at once (docs/failures.md#back-off).
        fixed = self.prompt(PROMPT, session="down-4")
        self.assertEqual(len(self.fake.searches()), 1)
        self.assertIn("[mem0:11111111]", fixed.context())
        self.assertIsNone(fixed.system_message())

    def test_rejected_key_is_reported(self):
        env = self.env(MEM0_API_KEY="m0-wrong-key-0000000000")
        result = self.prompt(PROMPT, env=env)
        self.assertEqual(result.system_message(), "mem0: recall skipped — API key rejected")
        self.assertNotIn("API key", result.context())
        # Once per session: the next prompt searches (and fails) again, silently.
        again = self.prompt("What did we decide about stripe webhook retries?", env=env)
        self.assertEqual(len(self.fake.searches()), 2)
        self.assertIsNone(again.system_message())
        self.assertEqual(self.prompt(PROMPT, env=env, session="sess-2").system_message(),
                         "mem0: recall skipped — API key rejected")

    def test_nothing_wrong_means_nothing_for_the_user(self):
        result = self.prompt(PROMPT)
        self.assertIn("[mem0:11111111]", result.context())
        self.assertIsNone(result.system_message())

    def test_show_recall_adds_a_visible_summary(self):
        result = self.prompt(PROMPT, env=self.env(MEM0_SHOW_RECALL="on"))
        shown = len([l for l in result.context().split("\n") if l.startswith("- [")])
        self.assertGreater(shown, 0)
        self.assertEqual(result.system_message(), f"mem0: {shown} memories recalled")
        os.makedirs(os.path.join(self.home, ".mem0"), exist_ok=True)
        with open(os.path.join(self.home, ".mem0", "settings.json"), "w") as f:
            json.dump({"show_recall": True}, f)
        other = self.prompt(PROMPT, session="sess-settings")
        self.assertEqual(other.system_message(), f"mem0: {shown} memories recalled")

    def test_rubric_names_mem0_hooks_by_absolute_path_and_no_mcp_tool(self):
        ctx = self.prompt(PROMPT).context()
        rubric = [l for l in ctx.split("\n") if l.startswith(RUBRIC)][0]
        self.assertTrue(os.path.isabs(CLI_PATH))
        # The query is free text: the model is told to quote it.
        self.assertIn(f"`{CLI} peek '<query>'` in the project directory, the query always quoted "
                      "as one shell word", rubric)
        self.assertIn(f"`{CLI} context '<task>'`", rubric)
        self.assertIn(f"`{CLI} peek <id8>`", rubric)
        self.assertTrue(os.access(CLI_PATH, os.X_OK))  # it names a command that exists
        for missing in ("search_memories", "parallel calls", "user_id", "app_id", "mcp__"):
            self.assertNotIn(missing, ctx)

    def test_silent_server_ends_within_budget(self):
        self.fake.control(mode="silent")
        result = self.prompt(PROMPT, env=self.env(MEM0_TIMEOUT_MS="1000"))
        self.assertLess(result.elapsed, 1.0 + EXIT_SLACK_S)
        self.assertEqual(result.system_message(),
                         "mem0: recall incomplete — 1 of 1 searches failed (timeout)")

    def test_resume_intent_runs_the_resume_plan(self):
        ctx = self.prompt("where did we leave off with the invoice work yesterday?").context()
        searches = self.fake.searches()
        self.assertEqual(sorted((s["query"], s["top_k"]) for s in searches),
                         [("recent decisions and learnings", 3), ("session state current task", 3)])
        self.assertTrue(ctx.startswith("### Session context recovered from mem0\n\n"))
        self.assertIn("[mem0:66666666]", ctx)
        self.assertIn("These memories provide context for resuming work.", ctx)

    def test_query_is_redacted(self):
        secret = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"
        self.prompt(f"the stripe webhook fails when I use key {secret} in prod")
        query = self.fake.searches()[0]["query"]
        self.assertNotIn(secret, query)
        self.assertIn("[REDACTED]", query)

    def test_detections_are_reported(self):
        ctx = self.prompt("Please remember this: src/billing/invoice.py must use integer cents"
                          ).context()
        self.assertIn("Remember intent detected.", ctx)
        self.assertNotIn("/mem0:remember", ctx)  # a skill of another plugin
        self.assertIn("File paths detected: src/billing/invoice.py", ctx)

    def test_daily_search_limit_stops_searches(self):
        env = self.env(MEM0_DAILY_SEARCH_LIMIT="1")
        self.prompt(PROMPT, env=env)
        self.assertEqual(len(self.fake.searches()), 1)
        limited = self.prompt("What did we decide about stripe webhook retries?", env=env)
        self.assertEqual(len(self.fake.searches()), 1)
        self.assertEqual(limited.system_message(),
                         "mem0: daily search limit (1) reached — recall paused until tomorrow (UTC)")
        self.assertNotIn("daily search limit", limited.context() or "")
        again = self.prompt("And the invoice rendering with stripe webhook?", env=env)
        self.assertIsNone(again.system_message())
        self.assertNotIn("daily search limit", again.context() or "")

    def test_a_reader_that_went_away_does_not_change_the_exit_status(self):
        payload = json.dumps(prompt_event(PROMPT, session_id="sess-pipe", cwd=self.project))
        proc = subprocess.Popen([os.path.join(BIN_DIR, "on_user_prompt")], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                env=self.env(), cwd=self.project)
        proc.stdout.close()  # Claude Code gave up on the hook: writing must not raise SIGPIPE
        proc.stdin.write(payload.encode())
        proc.stdin.close()
        self.assertEqual(proc.wait(timeout=15), 0)
        self.assertEqual(len(self.fake.searches()), 1)

    def test_bad_input_exits_zero_without_output(self):
        for raw in [b"", b"not json", b"[1,2]", b'{"prompt": 42}']:
            with self.subTest(raw=raw):
                result = self.run_hook("on_user_prompt", raw)
                self.assertEqual(result.stdout, b"")
        self.assertEqual(self.fake.requests(), [])


if __name__ == "__main__":
    testmain.main()
