"""The project the Codex, Copilot CLI, OpenCode and Pi tests run in: a billing service (a git
checkout whose origin gives the project id) with an invoice module to read, the prompt, and
the memories the fake Mem0 is seeded with; BillingTest sets one up for each test.

The fake scores a memory by the share of its tokens found in the query (hit at >= 0.3): each
text shares its tokens with one hook's query only.
"""

import os
import unittest

from clientlib import install, log, scratch_dir
from fakelib import FakeMem0
from gitrepo import make_repo
import seeds

USER = "tester"
ORIGIN = "git@github.com:acme/billing-service.git"
PROJECT_ID = "acme-billing-service"  # the slug the hooks derive from ORIGIN
REL = "src/billing/invoice.py"
PROMPT = "Explain how partial refund rounding works"
FINAL_TEXT = ("Partial refunds are rounded half up on the whole invoice line, never per unit, and "
              "every amount stays in integer cents from the line item to the rendered total.")
FAIL_COMMAND = "python3 -c \"raise ValueError('payload too large')\""

M_PROMPT = "c0de0001-0000-4000-8000-000000000001"  # PROMPT
M_CLAUDE = "c0de0002-0000-4000-8000-000000000002"  # PROMPT, captured in Claude Code
M_FILE = "c0de0003-0000-4000-8000-000000000003"    # "src/billing/invoice.py invoice.py"
M_ERROR = "c0de0004-0000-4000-8000-000000000004"   # the ValueError line


memory = seeds.builder(user=USER, project=PROJECT_ID, created="2026-10-01T09:00:00Z")


SEED = [
    memory(M_PROMPT, "partial refund rounding rule", "fact"),
    # What a Stop capture in Claude Code stores (runtime/remember.cpp), from another session.
    memory(M_CLAUDE, "how partial refund works: refund rounding explained in Claude Code",
           metadata={"type": "session_summary", "source": "stop", "agent": "claude-code",
            "session_id": "0f1e2d3c-claude-code-session", "branch": "main"}),
    memory(M_FILE, "src billing invoice py stores money as integer cents", "note"),
    memory(M_ERROR, "ValueError payload too large comes from MAX_BODY_BYTES in the gateway",
           "anti_pattern"),
]

# 2 KB: above the read hook's floor.
INVOICE_PY = ('"""Invoices: line items, totals and rounding. Money is integer cents."""\n\n' +
              "".join(f"def line_{i}_cents(quantity: int, unit_cents: int) -> int:\n"
                      f"    return quantity * unit_cents  # line {i}\n\n" for i in range(30)))


class BillingTest(unittest.TestCase):
    """A test in its scratch directory (`scratch_prefix`): `home`, `project` (the checkout,
    holding REL) and `mem0`, the Mem0 stand-in seeded with `seed`, stopped after the test."""

    maxDiff = None
    scratch_prefix = "mem0_client_"
    seed = SEED

    def setUp(self):
        self.scratch = scratch_dir(self, self.scratch_prefix)
        self.home = os.path.join(self.scratch, "home")
        self.project = os.path.join(self.scratch, "project")
        for d in (self.home, os.path.dirname(os.path.join(self.project, REL))):
            os.makedirs(d)
        make_repo(self.project, origin=ORIGIN)
        with open(os.path.join(self.project, REL), "w", encoding="utf-8") as fh:
            fh.write(INVOICE_PY)
        self.mem0 = FakeMem0(seed=self.seed).start()
        self.addCleanup(self.mem0.stop)

    def install(self, agent, env):
        """`mem0-hooks install --agent <agent>` in the project, which must succeed; logs what it
        printed."""
        proc = install(self, agent, env, self.project)
        log("    " + proc.stdout.strip().replace("\n", "\n    "))

    def mem0_env(self):
        """What the hooks need in a run's environment: the user, the Mem0 stand-in and its
        key, the debug log on."""
        return {"USER": USER, "MEM0_BASE_URL": self.mem0.url, "MEM0_API_KEY": self.mem0.api_key,
                "MEM0_USER_ID": USER, "MEM0_DEBUG": "1"}
