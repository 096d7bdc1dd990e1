#!/usr/bin/env python3
"""Real-client end-to-end test: a real Pi coding agent runs the built hooks through the shim.

Pi (pinned, installed from npm into a cache dir, see pi_agent.py) runs `pi -p` headless in a
throw-away project (billing.py) against fake_chat.py (a provider of api `openai-completions` in
~/.pi/agent/models.json) and tests/fake_mem0, seeded with billing.py's memories.
`mem0-hooks install --agent pi` writes the shim (~/.pi/agent/extensions/mem0.js).

It checks what reached the model:
- test_1: the session-start context, once; the prompt's memory line and the Claude Code capture in the first request (the
  shim's message from before_agent_start); the file memory of `read` (a path relative to the
  project) in the tool result the next request carries; the reply captured at agent_end with
  metadata.agent "pi", our user and project.
- test_2: a failing bash command's error line finds the anti-pattern memory, in its result.
- test_3: the memory tools the shim registers (from `mem0-hooks mcp`'s list) are offered to the
  model, and its call of mem0_search_memories is answered with the seeded memory.
- test_4: the command /mem0-search sends the model what `mem0-hooks peek` printed.
- test_5: in `pi --mode rpc`, a prompt and then the command `compact`: the compaction's summary
  (the stand-in's answer to Pi's summary request) is captured at session_compact, at the Mem0
  stand-in as a compact summary with metadata.agent "pi".

Exit status: 0 passed, 1 failed, 77 skipped (npm missing or the registry unreachable).
"""

import json
import os
import sys
import time

from billing import (FAIL_COMMAND, FINAL_TEXT, M_CLAUDE, M_ERROR, M_FILE, M_PROMPT, PROJECT_ID,
                     PROMPT, REL, USER, BillingTest)
from clientlib import client_or_exit, log, read_text, run_tests
import pi_agent
from fake_chat import FakeChat, message_texts, text, tool, tool_names
from seeds import tag
from waiting import wait_until
from test_opencode import START_HEADING, SUMMARY

PI = None  # set in main()
CAPTURE_WAIT_S = 10.0


class PiTest(BillingTest):
    scratch_prefix = "mem0_pi_"

    def setUp(self):
        super().setUp()
        self.install("pi", self.env())

    def env(self):
        return pi_agent.client_env(self.home, **self.mem0_env())

    def pi(self, script, prompt=PROMPT):
        with FakeChat(script=script) as api:
            pi_agent.write_models(self.home, api.url)
            start = time.monotonic()
            proc = pi_agent.run(PI, prompt, self.project, self.env())
            elapsed = time.monotonic() - start
            turns = api.turns()
        hooks_log = read_text(os.path.join(self.home, ".mem0", "hooks.log"))
        context = (f"pi exit {proc.returncode} in {elapsed:.2f} s\nstdout: {proc.stdout[-1500:]}"
                   f"\nstderr: {proc.stderr[-2500:]}\nturns: {[r['reply'] for r in turns]}"
                   f"\nhooks.log:\n{hooks_log[-4000:]}")
        log(f"    pi -p: exit {proc.returncode} in {elapsed:.2f} s, {len(turns)} turns")
        self.assertEqual(proc.returncode, 0, context)
        self.assertNotIn("mem0:", proc.stderr.replace("[mem0:", ""), "the shim logged a failure")
        return turns, context

    def test_1_prompt_read_and_capture(self):
        turns, context = self.pi([tool("read", {"path": REL}), text(FINAL_TEXT)])
        self.assertEqual([r["reply"] for r in turns], ["tool", "text"], context)
        first, second = (r["body"] for r in turns)
        users = "\n".join(message_texts(first, "user"))
        self.assertIn(tag(M_PROMPT), users, context)
        self.assertIn(tag(M_CLAUDE), users, context)
        self.assertNotIn(tag(M_FILE), json.dumps(first), "the file memory is for the read")
        # The session-start context comes with the session's first prompt, once.
        self.assertEqual(users.count(START_HEADING), 1, context)
        self.assertEqual(json.dumps(second).count(START_HEADING), 1, context)
        result = message_texts(second, "tool")[-1]
        self.assertIn("integer cents", result)  # the file itself
        self.assertIn(tag(M_FILE), result, context)

        stop = wait_until(lambda: [a for a in self.mem0.adds()
                                   if (a.get("metadata") or {}).get("source") == "stop"
                                   and FINAL_TEXT in json.dumps(a["messages"])],
                          CAPTURE_WAIT_S, 0.2)
        self.assertEqual(len(stop), 1, f"{json.dumps(self.mem0.adds(), indent=1)}\n{context}")
        self.assertEqual(stop[0]["metadata"].get("agent"), "pi")
        self.assertTrue(stop[0]["metadata"].get("session_id", "").startswith("pi-"), stop[0])
        self.assertEqual((stop[0].get("user_id"), stop[0].get("app_id")), (USER, PROJECT_ID))

    def test_2_error_recall(self):
        turns, context = self.pi([tool("bash", {"command": FAIL_COMMAND}),
                                  text("The upload is too large for the gateway.")],
                                 prompt="Upload the nightly export")
        result = message_texts(turns[1]["body"], "tool")[-1]
        self.assertIn("Command exited with code 1", result)
        self.assertIn(tag(M_ERROR), result, context)

    def test_3_memory_tools(self):
        turns, context = self.pi([tool("mem0_search_memories", {"query": "partial refund rounding"}),
                                  text("Found it.")], prompt="What do my notes say?")
        self.assertIn("mem0_search_memories", tool_names(turns[0]["body"]), context)
        self.assertIn("partial refund rounding rule", message_texts(turns[1]["body"], "tool")[-1],
                      context)

    def test_4_search_command(self):
        turns, context = self.pi([text("Here is what mem0 holds.")],
                                 prompt="/mem0-search partial refund rounding")
        self.assertTrue(turns, context)
        sent = "\n".join(message_texts(turns[0]["body"], "user"))
        self.assertIn("Above is the output of `mem0-hooks peek`", sent, context)
        self.assertIn("partial refund rounding rule", sent, context)

    def test_5_compaction_summary(self):
        with FakeChat(script=[text(FINAL_TEXT)], summary=SUMMARY) as api:
            pi_agent.write_models(self.home, api.url)
            out = pi_agent.rpc(PI, [{"type": "prompt", "message": PROMPT}, {"type": "compact"}],
                               self.project, self.env())
            requests = [r["reply"] for r in api.completions()]
        context = (f"pi exit {out.returncode}\nstdout: {out.types()}"
                   f"\nstderr: {out.stderr[-2500:]}\nrequests: {requests}\nhooks.log:\n"
                   f"{read_text(os.path.join(self.home, '.mem0', 'hooks.log'))[-4000:]}")
        self.assertEqual(out.returncode, 0, context)
        self.assertNotIn("mem0:", out.stderr.replace("[mem0:", ""), "the shim logged a failure")
        compacted = out.response("c2")
        self.assertTrue(compacted and compacted.get("success"), f"{compacted}\n{context}")
        self.assertEqual((compacted.get("data") or {}).get("summary"), SUMMARY, context)

        adds = wait_until(lambda: [a for a in self.mem0.adds()
                                   if (a.get("metadata") or {}).get("source") == "compact"],
                          CAPTURE_WAIT_S, 0.2)
        self.assertEqual(len(adds), 1, f"{json.dumps(self.mem0.adds(), indent=1)}\n{context}")
        self.assertIn(SUMMARY, json.dumps(adds[0]["messages"]))
        self.assertEqual(adds[0]["metadata"].get("type"), "compact_summary")
        self.assertEqual(adds[0]["metadata"].get("agent"), "pi")
        self.assertTrue(adds[0]["metadata"].get("session_id", "").startswith("pi-"), adds[0])
        self.assertEqual((adds[0].get("user_id"), adds[0].get("app_id")), (USER, PROJECT_ID))


def main():
    global PI
    PI = client_or_exit("Pi", pi_agent.ensure_pi)
    return run_tests()


if __name__ == "__main__":
    sys.exit(main())
