#!/usr/bin/env python3
"""Real-client test of one memory across agents (docs/agents.md): what a real Claude Code session
captured is recalled by a real Codex CLI and a real Gemini CLI, and what Gemini CLI captured is
recalled by Claude Code.

The three clients (pinned, cached from npm: claude_code.py, codex_cli.py, gemini_cli.py) run
headless, one after the other, in ONE throw-away git project whose origin gives every agent's
hooks the same project id (nothing tells them: no MEM0_PROJECT_ID), as one user (MEM0_USER_ID),
with one HOME, and against ONE FakeMem0 (tests/fake_mem0), empty at the start: an add there
becomes a searchable memory. Each client is wired by `mem0-hooks install --agent <name>` and
talks to its own loopback model stand-in (fake_anthropic.py, fake_openai.py, fake_gemini.py).

1. `claude -p`: the model answers with a decision of 182 characters. Claude Code's Stop hook
   (on_stop) queues it, the detached sender delivers it; the test polls FakeMem0 until it holds
   that memory, and checks metadata.agent "claude-code" and the user and project, and, team
   memory being on, that 0.3's own repo filter finds it for a teammate too (as in 4.).
2. `codex exec`, asked a question that shares terms with the decision: the memory's recall line
   (`- [session_summary] <text> [mem0:<id8>]`) reaches Codex's first model request, in the
   developer message of the prompt hook (under its heading).
3. `gemini -p`, the same kind of question: the line reaches Gemini's first turn, in the prompt
   hook's part.
4. The reverse: Gemini's answer, a second decision, is captured (AfterAgent runs on_stop;
   metadata.agent "gemini-cli") and its line reaches the first request of a second `claude -p`
   session, whose question shares no word with the first decision: that one is not recalled
   there. Every search the hooks made was for this user and this project.
5. GitHub Copilot CLI (copilot_cli.py, its own case): its answer, a third decision, is captured
   at agentStop (metadata.agent "copilot") and recalled in a `claude -p` session's first request.
6. The JS hosts (their own case): OpenCode's reply, a decision, is captured (metadata.agent
   "opencode") and its line reaches Pi's first model request (both wired by `mem0-hooks install
   --agent opencode|pi`, against fake_chat.py; skipped when either cannot be installed).
The recall lines cannot come from anywhere but recall: they hold each decision's reason, whose
words no prompt holds (checked); the project holds no file but git's; the model stand-ins say a
decision only as the answer that is captured; and the tag is the id FakeMem0 gave the memory
when it was added. Asking another question (no shared words) makes each check fail.

Exit status: 0 passed, 1 failed, 77 skipped (a client cannot be installed here).
Set MEM0_CLIENT_KEEP=1 to keep the temporary directory (requests, debug log, hooks.log).
"""

import json
import os
import subprocess
import sys
import time
import unittest

from clientlib import (claude_or_exit, client_env, client_or_exit, install, log, poll, read_text,
                       run_tests, scratch_dir, texts_with)
from seeds import tag
import codex_cli
import copilot_cli
from fake_anthropic import FakeAnthropic
from fake_gemini import FakeGemini
from fake_openai import API_KEY_ENV, FakeOpenAI, message_texts, provider_config, text
from fakelib import FakeMem0
from memstore import matches
import gemini_cli
from gitrepo import make_repo

CLAUDE = CODEX = GEMINI = COPILOT = None  # set in main() (COPILOT: None when not installable)
RUN_TIMEOUT_S = 120
CAPTURE_WAIT_S = 20
EXECUTABLES = ["mem0-hooks", "on_session_start", "on_user_prompt", "on_stop", "on_session_end"]

USER = "tester"
ORIGIN = "git@github.com:acme/ledger-service.git"
PROJECT_ID = "acme-ledger-service"  # the slug the hooks derive from ORIGIN
PROMPT_HEADING = "### Relevant memories (auto-retrieved for this request)"

# What Claude Code's model decides, and the questions the other agents ask. The fake Mem0 finds a
# memory when the query holds at least 30% of its words: Codex's and Gemini CLI's questions hold
# 10 and 9 of the 21 words of the decision (store, invoice, totals, ledger, v2, table, integer,
# cents, floats), none of its reason; Claude Code's second question holds 9 of the 23 words of
# Gemini CLI's decision and none of the first.
DECISION = ("We decided to store invoice totals as integer cents in the ledger_v2 table, never as "
            "floats, because binary floats lost a cent when the nightly reconciliation summed "
            "partial refunds.")
CLAUDE_PROMPT = "Settle how the ledger keeps invoice totals."
CODEX_PROMPT = "Do we store invoice totals in the ledger_v2 table as integer cents or as floats?"
GEMINI_PROMPT = "How should I store invoice totals in the ledger_v2 table: floats or integer cents?"
REASON = ["binary", "nightly", "reconciliation", "summed"]  # in DECISION, in no prompt
# The reverse direction: Gemini CLI's answer and Claude Code's second question.
GEMINI_DECISION = ("We decided that the webhook retry queue backs off exponentially from 2 "
                   "seconds to 15 minutes and gives up after 12 attempts, because the payment "
                   "provider throttles bursts of retries.")
CLAUDE_PROMPT_2 = ("How does the webhook retry queue back off, and after how many attempts "
                   "does it give up?")
GEMINI_REASON = ["exponentially", "payment", "provider", "throttles", "bursts"]
SHORT_ANSWER = "Understood."  # under 100 characters: no capture
# GitHub Copilot CLI's decision and Claude Code's question about it, which holds 6 of the
# decision's 17 words (export, archive, bucket, keep, retention, tier), none of its reason.
COPILOT_DECISION = ("We decided that the export archive bucket keeps a retention of ninety days "
                    "in the cold tier, because auditors of the card network ask for quarterly "
                    "evidence.")
COPILOT_QUESTION = "Which retention does the export archive bucket keep, and in which tier?"
COPILOT_REASON = ["auditors", "card", "network", "quarterly", "evidence"]


class OneMemoryTest(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        self.scratch = scratch_dir(self, "mem0_one_memory_")
        self.home = os.path.join(self.scratch, "home")
        self.codex_home = os.path.join(self.home, ".codex")
        self.project = os.path.join(self.scratch, "project")
        for d in (self.home, self.codex_home, self.project):
            os.makedirs(d)
        make_repo(self.project, origin=ORIGIN)
        self.mem0 = FakeMem0().start()
        self.addCleanup(self.mem0.stop)
        # What every agent's hooks share: the user, the Mem0 stand-in, the key, the debug log.
        self.mem0_env = {"USER": USER, "MEM0_USER_ID": USER, "MEM0_BASE_URL": self.mem0.url,
                         "MEM0_API_KEY": self.mem0.api_key, "MEM0_DEBUG": "1"}
        self.runs = []  # (label, what the client printed), for the failure messages
        self.claude_wired = False

    # -- wiring and running each client ---------------------------------------------------------
    def install(self, agent, env):
        install(self, agent, env, self.project)

    def finished(self, label, proc, elapsed, requests):
        if os.environ.get("MEM0_CLIENT_KEEP"):
            with open(os.path.join(self.scratch, f"requests-{label}.json"), "w") as fh:
                json.dump(requests, fh, indent=1)
        self.runs.append((label, f"exit {proc.returncode}\nstdout: {proc.stdout[-1500:]}\n"
                                 f"stderr: {proc.stderr[-2500:]}"))
        log(f"    {label}: exit {proc.returncode} after {elapsed:.1f} s")
        self.assertEqual(proc.returncode, 0, self.info())

    def claude(self, label, prompt, final_text):
        """A `claude -p` session; the body of its first model request that offers tools (the
        prompt's turn, not a side request)."""
        api = FakeAnthropic(read_path=None, final_text=final_text).start()
        self.addCleanup(api.stop)
        env = client_env(self.home, api.url, self.mem0.url, USER, **self.mem0_env)
        if not self.claude_wired:
            self.install("claude-code", env)
            self.claude_wired = True
        debug_log = os.path.join(self.scratch, f"debug-{label}.log")
        start = time.monotonic()
        proc = subprocess.run([CLAUDE, "-p", prompt, "--output-format", "json",
                               "--debug-file", debug_log], cwd=self.project, env=env,
                              capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
                              stdin=subprocess.DEVNULL)
        self.finished(label, proc, time.monotonic() - start, api.requests())
        self.assertEqual(json.loads(proc.stdout).get("result"), final_text, self.info())
        turns = [r["body"] for r in api.messages() if r["body"].get("tools")]
        self.assertTrue(turns, self.info())
        return turns[0]

    def codex(self, prompt, final_text):
        env = codex_cli.client_env(self.home, self.codex_home,
                                   **{API_KEY_ENV: "sk-test-0000"}, **self.mem0_env)
        self.install("codex", env)
        with FakeOpenAI(script=[text(final_text)]) as api:
            with open(os.path.join(self.codex_home, "config.toml"), "w") as fh:
                fh.write(provider_config(api.url))
            start = time.monotonic()
            proc = codex_cli.run(CODEX, prompt, self.project, env, timeout=RUN_TIMEOUT_S)
            self.finished("codex", proc, time.monotonic() - start, api.requests())
            requests = [r["body"] for r in api.responses()]
        self.assertTrue(requests, self.info())
        return requests[0]

    def gemini(self, prompt, final_text):
        with FakeGemini(final_text=final_text) as api:
            env = gemini_cli.client_env(self.home, api.url, **self.mem0_env)
            gemini_cli.write_settings(self.home)  # API-key auth, quiet; install adds the hooks
            self.install("gemini-cli", env)
            start = time.monotonic()
            proc = gemini_cli.run(GEMINI, prompt, self.project, env, timeout=RUN_TIMEOUT_S)
            self.finished("gemini", proc, time.monotonic() - start, api.requests())
            turns = [r["body"] for r in api.turns()]
        self.assertTrue(turns, self.info())
        return turns[0]

    def copilot(self, prompt, final_text):
        with FakeOpenAI(script=[text(final_text)]) as api:
            env = copilot_cli.client_env(self.home, api.url, **self.mem0_env)
            self.install("copilot", env)
            start = time.monotonic()
            proc = copilot_cli.run(COPILOT, prompt, self.project, env, timeout=RUN_TIMEOUT_S)
            self.finished("copilot", proc, time.monotonic() - start, api.requests())
        self.assertEqual(proc.stdout.strip(), final_text, self.info())

    # -- what happened ------------------------------------------------------------------------
    def info(self):
        out = [f"[{label}] {what}" for label, what in self.runs]
        out.append(f"mem0 searches: {[s.get('query') for s in self.mem0.searches()]}")
        out.append(f"mem0 adds: {json.dumps(self.mem0.adds())[:3000]}")
        hooks_log = read_text(os.path.join(self.home, ".mem0", "hooks.log")).splitlines()
        out.append("hooks.log:\n    " + "\n    ".join(hooks_log[-40:]))
        return "\n".join(out)

    def captured(self, decision, agent):
        """Wait until FakeMem0 holds `decision` as a memory; check the add that made it (the
        agent, user and project); the memory."""
        def holding(memories):
            return [m for m in memories if decision in m.get("memory", "")]

        memories, waited = poll(self.mem0.memories, holding, CAPTURE_WAIT_S)
        self.assertEqual(len(holding(memories)), 1, f"not captured in {waited:.1f} s\n"
                                                    f"{self.info()}")
        [memory] = holding(memories)
        [add] = [a for a in self.mem0.adds()
                 if decision in json.dumps(a.get("messages"), ensure_ascii=False)]
        self.assertEqual(add["metadata"].get("agent"), agent, json.dumps(add))
        self.assertEqual(add["metadata"].get("type"), "session_summary", json.dumps(add))
        self.assertEqual((add.get("user_id"), add.get("app_id")), (USER, PROJECT_ID),
                         json.dumps(add))
        # Team memory, on by default (docs/capture.md#team-memory): 0.3's add fields, and the
        # memory is found by the 0.3 plugins' own repo filter for a teammate as for this user.
        agent_id = add.get("agent_id", "")
        self.assertTrue(agent_id.startswith(PROJECT_ID + "-"), json.dumps(add))
        self.assertEqual(add.get("run_id"), add["metadata"].get("session_id"), json.dumps(add))
        self.assertIn("agent_custom_instructions", add)
        for user in (USER, "teammate"):
            repo_filter = {"OR": [{"OR": [{"AND": [{"agent_id": agent_id}, {"app_id": PROJECT_ID}]},
                                          {"AND": [{"agent_id": PROJECT_ID}, {"app_id": PROJECT_ID}]}]},
                                  {"AND": [{"user_id": user}, {"app_id": PROJECT_ID}]}]}
            self.assertTrue(matches(repo_filter, memory), f"{user}: {json.dumps(memory)}")
        log(f"    FakeMem0 holds {tag(memory['id'])} after {waited:.1f} s, from "
            f"{agent} ({add['metadata'].get('source')}, session "
            f"{add['metadata'].get('session_id')})")
        return memory

    def assert_recalled(self, label, body, memory):
        """The memory's recall line is in the request body, under the prompt hook's heading."""
        line = f"- [session_summary] {memory['memory']} {tag(memory['id'])}"
        found = texts_with(body, line)
        self.assertTrue(found, f"{line!r} not in {label}'s model request\n{self.info()}")
        self.assertTrue(any(PROMPT_HEADING in t for t in found),
                        f"not under the prompt hook's heading: {found}")
        log(f"    {tag(memory['id'])} recalled in {label}'s first model request")
        return found

    # -- the test ---------------------------------------------------------------------------
    def test_one_memory_across_agents(self):
        for prompt in (CLAUDE_PROMPT, CODEX_PROMPT, GEMINI_PROMPT, CLAUDE_PROMPT_2):
            for word in REASON + GEMINI_REASON:
                self.assertNotIn(word, prompt.lower())

        # 1. Claude Code decides; its Stop hook captures the decision.
        first = self.claude("claude-1", CLAUDE_PROMPT, DECISION)
        self.assertFalse(texts_with(first, "[mem0:"), "FakeMem0 was empty: nothing to recall")
        memory = self.captured(DECISION, "claude-code")

        # 2. Codex recalls it at the prompt, as the prompt hook's developer message.
        request = self.codex(CODEX_PROMPT, SHORT_ANSWER)
        found = self.assert_recalled("codex", request, memory)
        self.assertTrue(set(found) & set(message_texts(request, "developer")), found)

        # 3. Gemini CLI recalls it at the prompt, in the prompt hook's <hook_context> part.
        turn = self.gemini(GEMINI_PROMPT, GEMINI_DECISION)
        found = self.assert_recalled("gemini", turn, memory)
        self.assertTrue(any(t.startswith("<hook_context>") for t in found), found)

        # 4. The reverse: Gemini CLI's answer is captured, and recalled in Claude Code; the first
        #    decision, which shares no word with that question, is not.
        reverse = self.captured(GEMINI_DECISION, "gemini-cli")
        second = self.claude("claude-2", CLAUDE_PROMPT_2, SHORT_ANSWER)
        self.assert_recalled("claude-2", second, reverse)
        self.assertFalse(texts_with(second, tag(memory["id"])), self.info())

        # Every agent's hooks searched this user's memories of the one project.
        searches = self.mem0.searches()
        self.assertGreaterEqual(len(searches), 4, self.info())
        for search in searches:
            self.assertIn(f'"app_id": "{PROJECT_ID}"', json.dumps(search.get("filters")))
            self.assertIn(f'"user_id": "{USER}"', json.dumps(search.get("filters")))

    def test_copilot_to_claude_code(self):
        """A decision GitHub Copilot CLI's agentStop hook captured reaches Claude Code's prompt."""
        if not COPILOT:
            self.skipTest("GitHub Copilot CLI is not available here")
        for word in COPILOT_REASON:
            self.assertNotIn(word, COPILOT_QUESTION.lower())
        self.copilot("Settle how long the export archive is kept.", COPILOT_DECISION)
        memory = self.captured(COPILOT_DECISION, "copilot")
        self.assertTrue(memory.get("metadata", {}).get("session_id", "copilot-").startswith(
            "copilot-"), memory)
        request = self.claude("claude-copilot", COPILOT_QUESTION, SHORT_ANSWER)
        self.assert_recalled("claude-copilot", request, memory)

    # -- the JS hosts: a decision OpenCode captured is recalled in Pi ---------------------------
    def test_opencode_decision_recalled_in_pi(self):
        import opencode_cli
        import pi_agent
        from fake_chat import FakeChat, text as chat_text
        try:
            opencode, pi = opencode_cli.ensure_opencode(log=log), pi_agent.ensure_pi(log=log)
        except opencode_cli.Unavailable as exc:
            self.skipTest(f"OpenCode or Pi is not available here: {exc}")

        env = opencode_cli.client_env(self.home, **self.mem0_env)
        self.install("opencode", env)
        with FakeChat(script=[chat_text(DECISION)]) as api:
            opencode_cli.write_config(self.home, api.url)
            start = time.monotonic()
            proc = opencode_cli.run(opencode, CLAUDE_PROMPT, self.project, env,
                                    timeout=RUN_TIMEOUT_S)
            self.finished("opencode", proc, time.monotonic() - start, api.requests())
        memory = self.captured(DECISION, "opencode")

        env = pi_agent.client_env(self.home, **self.mem0_env)
        self.install("pi", env)
        with FakeChat(script=[chat_text(SHORT_ANSWER)]) as api:
            pi_agent.write_models(self.home, api.url)
            start = time.monotonic()
            proc = pi_agent.run(pi, CODEX_PROMPT, self.project, env, timeout=RUN_TIMEOUT_S)
            self.finished("pi", proc, time.monotonic() - start, api.requests())
            turns = [r["body"] for r in api.turns()]
        self.assertTrue(turns, self.info())
        self.assert_recalled("pi", turns[0], memory)


def main():
    global CLAUDE, CODEX, GEMINI, COPILOT
    CLAUDE = claude_or_exit(EXECUTABLES)
    try:
        COPILOT = copilot_cli.ensure_copilot(log=log)
    except copilot_cli.Unavailable as exc:
        log(f"GitHub Copilot CLI is not available here ({exc}): its case is skipped")
    CODEX = client_or_exit("Codex CLI", codex_cli.ensure_codex, EXECUTABLES)
    GEMINI = client_or_exit("Gemini CLI", gemini_cli.ensure_gemini_cli, EXECUTABLES)
    return run_tests()


if __name__ == "__main__":
    sys.exit(main())
