#!/usr/bin/env python3
"""Real-client end-to-end test: a real GitHub Copilot CLI runs the built hooks.

Copilot CLI (pinned, installed from npm into a cache dir, see copilot_cli.py) runs
`copilot -p … --allow-all-tools -s` headless in a throw-away project (a git repository whose
origin gives the project id) against two loopback stand-ins:
- fake_openai.py for the model (Copilot's provider with the Responses wire API): the "model"
  answers the first call with a tool call (`view`, `bash` or a memory tool) and the second
  (carrying the tool's result) with plain text;
- tests/fake_mem0 for the Mem0 API, seeded with memories of this user and project.
The hooks and the memory tools are wired by `mem0-hooks install --agent copilot` into the scratch
`$COPILOT_HOME` (hooks/mem0.json, mcp-config.json).

It checks what reached the model:
- test_1: the prompt's memory line in the first request (inside the prompt's
  <system_reminder>); the file memory of `view src/billing/invoice.py` in the `view` result the
  second request carries; the agentStop capture of the reply at the Mem0 stand-in with
  metadata.agent "copilot", a `copilot-` session and our user and project.
- test_2: a failing command (`exit code 2` in the text Copilot shows the model) finds the
  anti-pattern memory, in the `bash` result of the second request.
- test_3: the memory tools are offered to the model, and a call of the search tool is answered
  with the seeded memory, whose id goes into the id map of the Copilot session.

Exit status: 0 passed, 1 failed, 77 skipped (npm missing or the registry unreachable).
Set MEM0_CLIENT_KEEP=1 to keep the temporary directories (requests, hooks.log, the output).
"""

import json
import os
import sys
import time

import billing
from billing import (FINAL_TEXT, M_ERROR, M_FILE, M_PROMPT, PROJECT_ID, PROMPT, REL, USER,
                     BillingTest, memory)
from clientlib import ClientRun, adds_from, client_or_exit, log, read_text, run_tests
import copilot_cli
from fake_openai import FakeOpenAI, call, text
from seeds import tag

COPILOT = None  # set in main()
CAPTURE_WAIT_S = 10.0  # the sender is detached: how long to poll the fake Mem0 for an add

FAIL_COMMAND = billing.FAIL_COMMAND + "; exit 2"
SEARCH_TOOL = "mem0-search_memories"

# The memories of the billing project, less its Claude Code capture, plus one for the memory
# tool's query only.
M_TOOL = "c0de0005-0000-4000-8000-000000000005"
SEED = [m for m in billing.SEED if m["id"] != billing.M_CLAUDE] + [
    memory(M_TOOL, "webhook retries back off exponentially up to one hour", "decision")]


def user_texts(body):
    """The text of each user message of a Responses-API request body, in order."""
    out = []
    for item in body.get("input") or []:
        if isinstance(item, dict) and item.get("role") == "user":
            content = item.get("content")
            out.append(content if isinstance(content, str) else "\n".join(
                c.get("text", "") for c in content or [] if isinstance(c, dict)))
    return out


def tool_outputs(body):
    """The output of each function call a request body carries, in order."""
    return [i.get("output") if isinstance(i.get("output"), str) else json.dumps(i.get("output"))
            for i in body.get("input") or []
            if isinstance(i, dict) and i.get("type") == "function_call_output"]


def tool_names(body):
    return [t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)]


class CopilotTest(BillingTest):
    scratch_prefix = "mem0 copilot "  # a space: the wiring quotes paths
    seed = SEED

    def setUp(self):
        super().setUp()
        self.install("copilot", self.env(""))

    def env(self, model_url):
        return copilot_cli.client_env(self.home, model_url, **self.mem0_env())

    def copilot(self, script, prompt=PROMPT):
        with FakeOpenAI(script=script) as api:
            start = time.monotonic()
            proc = copilot_cli.run(COPILOT, prompt, self.project, self.env(api.url))
            elapsed = time.monotonic() - start
            requests = [r for r in api.responses() if tool_names(r["body"])]
        run = ClientRun("copilot", proc, elapsed, requests,
                  read_text(os.path.join(self.home, ".mem0", "hooks.log")))
        log(f"    copilot -p: exit {run.returncode} in {elapsed:.2f} s, "
            f"{len(requests)} model requests")
        with open(os.path.join(self.scratch, f"run-{len(os.listdir(self.scratch))}.json"),
                  "w") as fh:
            json.dump({"stdout": run.stdout, "stderr": run.stderr, "requests": requests}, fh,
                      indent=1)
        self.assertEqual(run.returncode, 0, str(run))
        return run

    def test_1_prompt_read_and_capture(self):
        path = os.path.join(self.project, REL)
        run = self.copilot([call("view", {"path": path}), text(FINAL_TEXT)])
        self.assertEqual([r["reply"] for r in run.requests], ["call", "text"], str(run))
        first, second = (r["body"] for r in run.requests)

        # The prompt's recall is in the prompt's own user message.
        prompt_message = [t for t in user_texts(first) if PROMPT in t]
        self.assertEqual(len(prompt_message), 1, str(run))
        self.assertIn(tag(M_PROMPT), prompt_message[0], str(run))
        self.assertNotIn(tag(M_FILE), json.dumps(first), "the file memory is for the view")

        # The read's recall is in the view result the next request carries.
        outputs = tool_outputs(second)
        self.assertEqual(len(outputs), 1, str(run))
        self.assertIn("def line_0_cents", outputs[0])
        self.assertIn(tag(M_FILE), outputs[0], str(run))

        # The reply is captured at agentStop, as this agent's, for our user and project.
        stop = adds_from(self.mem0, "stop", CAPTURE_WAIT_S)
        self.assertEqual(len(stop), 1, f"{json.dumps(self.mem0.adds(), indent=1)}\n{run}")
        add = stop[0]
        self.assertEqual(add["metadata"].get("agent"), "copilot")
        self.assertTrue(add["metadata"].get("session_id", "").startswith("copilot-"), add)
        self.assertEqual((add.get("user_id"), add.get("app_id")), (USER, PROJECT_ID))
        self.assertIn(FINAL_TEXT, json.dumps(add["messages"]))

    def test_2_error_recall(self):
        run = self.copilot([call("bash", {"command": FAIL_COMMAND, "description": "upload"}),
                            text("The upload is too large for the gateway.")],
                           prompt="Upload the nightly export")
        outputs = tool_outputs(run.requests[1]["body"])
        self.assertEqual(len(outputs), 1, str(run))
        self.assertIn("exit code 2", outputs[0])
        self.assertIn(tag(M_ERROR), outputs[0], str(run))

    def test_3_memory_tools(self):
        run = self.copilot([call(SEARCH_TOOL, {"query": "webhook retries back off"}),
                            text("Retries back off up to an hour.")],
                           prompt="Look this up in the memory tools for me")
        first, second = (r["body"] for r in run.requests)
        offered = [n for n in tool_names(first) if n.startswith("mem0-")]
        log(f"    memory tools offered: {offered}")
        self.assertIn(SEARCH_TOOL, offered, str(run))
        outputs = tool_outputs(second)
        self.assertEqual(len(outputs), 1, str(run))
        self.assertIn("webhook retries back off exponentially", outputs[0], str(run))
        # The ids the tool showed are in the id map of this Copilot session (the server's
        # COPILOT_AGENT_SESSION_ID), where the hooks keep theirs: its state file (its run log,
        # <id>.runs, may name the id too, when the prompt hook recalled the same memory).
        sessions = os.path.join(self.home, ".mem0", "state", "sessions")
        holding = [n for n in os.listdir(sessions)
                   if n.endswith(".json") and M_TOOL in read_text(os.path.join(sessions, n))]
        self.assertEqual(len(holding), 1, os.listdir(sessions))
        self.assertTrue(holding[0].startswith("copilot-"), holding)


def main():
    global COPILOT
    COPILOT = client_or_exit("GitHub Copilot CLI", copilot_cli.ensure_copilot)
    return run_tests()


if __name__ == "__main__":
    sys.exit(main())
