"""End-to-end: every Mem0 (docs/api.md#self-hosted-server): a self-hosted server, the shared project memory
of Mem0's newer plugin, and a back-off kept per server and key (docs/failures.md#back-off)."""

import json
import os
import subprocess
import unittest

from hooklib import BIN_DIR, kill_senders, HookTest, PROJECT, USER, memory, shared_agent
import seeds
import testmain  # noqa: E402
from fakelib import FakeMem0
from gitrepo import make_repo
from mcpclient import McpClient
from hookevents import prompt_event, read_event, session_start_event, stop_event

PROMPT = "Why does the stripe webhook handler retry invoices twice?"
CLI = os.path.join(os.path.realpath(BIN_DIR), "mem0-hooks")
ORIGIN = "git@GitHub.com:Acme/Billing.git"
AGENT = shared_agent(PROJECT, "https://github.com/Acme/Billing")
SUMMARY = ("Moved the stripe webhook handler retries into a queue worker so that invoices are "
           "retried once with a idempotency key, and documented the decision in ADR 12.")

OWN = "11111111-aaaa-4aaa-8aaa-000000000001"
SHARED = "22222222-bbbb-4bbb-8bbb-000000000002"
LEGACY = "33333333-cccc-4ccc-8ccc-000000000003"
OTHER_USER = "44444444-dddd-4ddd-8ddd-000000000004"
OTHER_AGENT = "55555555-eeee-4eee-8eee-000000000005"


def selfhosted_memory(mem_id, text, mtype=None, user=USER, agent=PROJECT,
                      created="2026-11-20T10:00:00-08:00"):
    """A memory as the open-source server stores it: user_id and agent_id, flat metadata."""
    return seeds.memory(mem_id, text, mtype, user=user, project=agent, backend="selfhosted",
                        created=created)


def shared_memory(mem_id, text, agent, app=PROJECT):
    """A memory as Mem0's newer plugin files shared project memory: no user_id, no type."""
    return memory(mem_id, text, user=None, app=app, agent_id=agent, created="2026-11-21T10:00:00Z")


class BackendTest(HookTest):
    def setUp(self):
        super().setUp()
        self.addCleanup(kill_senders, self.home)

    def prompt(self, text=PROMPT, session="s-1", env=None):
        return self.run_hook("on_user_prompt",
                             prompt_event(text, session_id=session, cwd=self.project), env=env)

    def cli(self, *args, env=None):
        return self.run_bin(CLI, args=args, data=None, env=env, text=True)



class SelfHosted(BackendTest):
    """MEM0_BACKEND=selfhosted against the stand-in's strict self-hosted flavour."""

    backend = "selfhosted"
    seed = [
        selfhosted_memory(OWN, "Stripe webhook handler retries invoices with exponential backoff",
                          "convention", created="2026-11-19T10:00:00-08:00"),
        selfhosted_memory(SHARED, "Decided stripe webhook handler retry stops early", "decision",
                          created="2026-11-20T02:00:00+09:00"),
        selfhosted_memory(OTHER_USER, "Stripe webhook handler notes of another user", "decision",
                          user="someone-else"),
        selfhosted_memory(OTHER_AGENT, "Stripe webhook handler retries in another project",
                          "decision", agent="other-project"),
    ]

    def test_a_prompt_searches_with_the_servers_own_shapes(self):
        ctx = self.prompt().context()
        self.assertIn("- [convention] Stripe webhook handler retries invoices with exponential "
                      f"backoff [mem0:{OWN[:8]}]", ctx)
        self.assertIn(f"[mem0:{SHARED[:8]}]", ctx)
        self.assertNotIn(f"[mem0:{OTHER_USER[:8]}]", ctx)
        self.assertNotIn(f"[mem0:{OTHER_AGENT[:8]}]", ctx)
        [call] = self.fake.requests()
        self.assertEqual((call["method"], call["path"], call["status"]), ("POST", "/search", 200))
        self.assertEqual(call["body"], {"query": PROMPT, "top_k": 10, "threshold": 0.3,
                                        "filters": {"user_id": USER, "agent_id": PROJECT}})
        self.assertEqual(call["headers"]["x-api-key"], self.fake.api_key)
        self.assertNotIn("authorization", call["headers"])

    def test_thorough_typed_searches_are_flat(self):
        make_repo(self.project)
        path = os.path.join(self.project, "src", "billing", "webhook.py")
        os.makedirs(os.path.dirname(path))
        with open(path, "w") as f:
            f.write("def handle(event):\n    pass\n" * 200)
        self.run_hook("on_file_read", read_event(path, session_id="s-1", cwd=self.project),
                      env=self.env(MEM0_SEARCH_PLAN="thorough"))
        filters = sorted((s["filters"].get("type", "broad"), sorted(s["filters"]))
                         for s in self.fake.searches())
        self.assertEqual(filters, [("broad", ["agent_id", "user_id"]),
                                   ("convention", ["agent_id", "type", "user_id"]),
                                   ("decision", ["agent_id", "type", "user_id"])])
        self.assertTrue(all(c["status"] == 200 for c in self.fake.requests()))

    def test_session_start_lists_newest_first_without_a_count(self):
        result = self.run_hook("on_session_start", session_start_event(
            "startup", session_id="s-1", cwd=self.project), env=self.env(MEM0_AUTO_SAVE="false"))
        [call] = self.fake.requests()
        self.assertEqual(call["method"], "GET")
        self.assertEqual(call["path"],
                         f"/memories?user_id={USER}&agent_id={PROJECT}&top_k=1000")
        lines = result.context().split("\n")
        self.assertEqual(lines[0], f"### mem0: 2 memories for {PROJECT} (user {USER})")
        # 2026-11-20T02:00+09:00 is 2026-11-19T17:00Z; 2026-11-19T10:00-08:00 is 18:00Z: newer.
        shown = [line for line in lines if "[mem0:" in line]
        self.assertEqual([line[-9:-1] for line in shown], [OWN[:8], SHARED[:8]])

    def test_a_capture_reaches_the_server_and_is_recalled_next_session(self):
        self.run_hook("on_stop", stop_event(SUMMARY, session_id="s-1", cwd=self.project))
        added = self.wait_for("the add", lambda: self.fake.calls("add"))
        self.assertEqual((added[0]["method"], added[0]["path"], added[0]["status"]),
                         ("POST", "/memories", 200))
        body = added[0]["body"]
        self.assertEqual((body["user_id"], body["agent_id"]), (USER, PROJECT))
        self.assertNotIn("app_id", body)
        self.assertEqual(body["metadata"]["type"], "session_summary")
        self.wait_for("the memory", lambda: len(self.fake.memories()) == len(self.seed) + 1)
        ctx = self.prompt("queue worker idempotency key for webhook retries", session="s-2")
        self.assertIn("idempotency key", ctx.context())

    def test_peek_looks_up_ids_and_null_means_not_found(self):
        found = self.cli("peek", OWN)
        self.assertEqual(found.returncode, 0, found.stderr)
        self.assertIn("exponential backoff", found.stdout)
        self.assertEqual(self.fake.requests()[0]["path"], f"/memories/{OWN}")
        self.fake.reset()
        missing = self.cli("peek", "99999999-9999-4999-8999-999999999999")
        calls = self.fake.requests()
        self.assertEqual(calls[0]["path"], "/memories/99999999-9999-4999-8999-999999999999")
        self.assertEqual([c["endpoint"] for c in calls[1:]], ["search", "search"])  # then searched
        self.assertEqual(missing.returncode, 0, missing.stderr)

    def test_doctor_checks_with_one_search_and_no_ping(self):
        result = self.cli("doctor")
        self.assertIn("backend     self-hosted Mem0 server (env MEM0_BACKEND)", result.stdout)
        self.assertIn("ping        none on a self-hosted server", result.stdout)
        self.assertEqual([(c["method"], c["path"]) for c in self.fake.requests()],
                         [("POST", "/search")])
        fixes = [line for line in result.stdout.splitlines() if line.startswith("fix:")]
        self.assertEqual(len(fixes), 1)
        self.assertIn("mem0-hooks install", fixes[0])  # not wired here; the server check passed

    def test_a_server_without_authentication_is_reached_without_a_key(self):
        open_server = FakeMem0(seed=self.seed, backend="selfhosted", api_key="").start()
        self.addCleanup(open_server.stop)
        env = self.env(MEM0_API_KEY=None, MEM0_BASE_URL=open_server.url)
        ctx = self.prompt(env=env).context()
        self.assertIn(f"[mem0:{OWN[:8]}]", ctx)
        [call] = open_server.requests()
        self.assertEqual(call["status"], 200)
        self.assertNotIn("x-api-key", call["headers"])
        doctor = self.cli("doctor", env=env)
        self.assertIn("api key     none: requests go without X-API-Key", doctor.stdout)
        self.assertNotIn("MEM0_API_KEY", "\n".join(
            line for line in doctor.stdout.splitlines() if line.startswith("fix:")))
        # The platform without a key sends nothing and says so.
        open_server.reset()
        result = self.prompt(env=self.env(MEM0_API_KEY=None, MEM0_BACKEND="platform",
                                          MEM0_BASE_URL=open_server.url))
        self.assertEqual(open_server.requests(), [])
        self.assertIn("mem0: no API key", result.system_message())

    def test_the_platform_shapes_are_refused_by_this_server(self):
        """Sanity of the stand-in: without MEM0_BACKEND the hooks speak the platform's API."""
        result = self.cli("doctor", env=self.env(MEM0_BACKEND="platform"))
        self.assertEqual(result.returncode, 1)
        # The platform's paths reached this server, and it refused each of them.
        self.assertEqual(sorted((c["method"], c["path"], c["status"]) for c in self.fake.requests()),
                         [("GET", "/v1/ping/", 404), ("POST", "/v3/memories/search/", 404)])
        self.assertIn("ping        HTTP 404", result.stdout)
        self.assertIn("search      client: HTTP 404", result.stdout)


class SharedProjectMemory(BackendTest):
    """The platform with the layouts of Mem0's newer plugin in the store."""

    seed = [
        memory(OWN, "Stripe webhook handler retries invoices with exponential backoff",
               "convention"),
        shared_memory(SHARED, "Team agreed stripe webhook handler retries run in the worker",
                      AGENT),
        shared_memory(LEGACY, "Stripe webhook handler retries are logged to the audit table",
                      PROJECT),
        memory(OTHER_USER, "Stripe webhook handler notes of another user", "decision",
               user="someone-else"),
        shared_memory(OTHER_AGENT, "Stripe webhook handler retries of another repository",
                      shared_agent(PROJECT, "https://github.com/acme/other")),
    ]

    def setUp(self):
        super().setUp()
        make_repo(self.project, origin=ORIGIN)

    def test_a_prompt_recalls_own_shared_and_legacy_shared_memory(self):
        result = self.prompt()
        ctx = result.context()
        for mem_id in (OWN, SHARED, LEGACY):
            self.assertIn(f"[mem0:{mem_id[:8]}]", ctx)
        self.assertIn("- [unknown] Team agreed stripe webhook handler retries run in the worker "
                      f"[mem0:{SHARED[:8]}]", ctx)
        self.assertNotIn(f"[mem0:{OTHER_USER[:8]}]", ctx)
        self.assertNotIn(f"[mem0:{OTHER_AGENT[:8]}]", ctx)
        [search] = self.fake.searches()
        self.assertEqual(search["filters"], {"OR": [
            {"AND": [{"user_id": USER}, {"app_id": PROJECT}]},
            {"AND": [{"agent_id": AGENT}, {"app_id": PROJECT}]},
            {"AND": [{"agent_id": PROJECT}, {"app_id": PROJECT}]}]})

    def test_type_priorities_keep_untyped_memories(self):
        ctx = self.prompt("KeyError in the stripe webhook handler retries: Traceback").context()
        self.assertIn(f"[mem0:{SHARED[:8]}]", ctx)
        self.assertIn(f"[mem0:{LEGACY[:8]}]", ctx)

    def test_shared_memory_off_searches_the_users_own_only(self):
        ctx = self.prompt(env=self.env(MEM0_SHARED_MEMORY="off")).context()
        self.assertIn(f"[mem0:{OWN[:8]}]", ctx)
        self.assertNotIn(f"[mem0:{SHARED[:8]}]", ctx)
        self.assertEqual(self.fake.searches()[0]["filters"],
                         {"AND": [{"user_id": USER}, {"app_id": PROJECT}]})

    def test_without_a_remote_the_local_form_is_searched(self):
        local = os.path.join(self.home, "scratch")
        make_repo(local)
        self.fake.seed([shared_memory(SHARED, "Scratch stripe webhook handler retry notes",
                                      shared_agent(PROJECT, root=local))])
        sub = os.path.join(local, "src")
        os.makedirs(sub)
        ctx = self.run_hook("on_user_prompt", prompt_event(PROMPT, session_id="s-1", cwd=sub))
        self.assertIn(f"[mem0:{SHARED[:8]}]", ctx.context())

    def test_with_team_memory_off_writes_keep_the_users_layout(self):
        self.run_hook("on_stop", stop_event(SUMMARY, session_id="s-1", cwd=self.project),
                      env=self.env(MEM0_TEAM_MEMORY="off"))
        [body] = self.wait_for("the add", lambda: self.fake.adds())
        self.assertEqual((body["user_id"], body["app_id"]), (USER, PROJECT))
        self.assertNotIn("agent_id", body)


def plugin03_repo_filter(user, app=PROJECT, agent=AGENT):
    """0.3's own `repo` filter for `user`: the shared lanes (hashed and legacy), then theirs."""
    return {"OR": [{"OR": [{"AND": [{"agent_id": agent}, {"app_id": app}]},
                           {"AND": [{"agent_id": app}, {"app_id": app}]}]},
                   {"AND": [{"user_id": user}, {"app_id": app}]}]}


class TeamMemory(BackendTest):
    """What our hooks capture is found by 0.3's own repo filter, for the same user and, with
    team memory, for a teammate (docs/capture.md#team-memory)."""

    def setUp(self):
        super().setUp()
        make_repo(self.project, origin=ORIGIN)
        self.sub = os.path.join(self.project, "billing", "stripe")
        os.makedirs(self.sub)

    def found_by_plugin03(self, user):
        resp, data = self.fake.call("POST", "/v3/memories/search/", {
            "query": "stripe webhook handler retries queue worker", "app_id": PROJECT,
            "filters": plugin03_repo_filter(user), "top_k": 10, "rerank": False,
            "latest_only": True}, headers={"Authorization": "Token " + self.fake.api_key})
        self.assertEqual(resp.status, 200, data)
        return [m["memory"] for m in json.loads(data)["results"]]

    def capture(self, env=None):
        self.run_hook("on_stop", stop_event(SUMMARY, session_id="s-1", cwd=self.sub), env=env)
        [body] = self.wait_for("the add", lambda: self.fake.adds())
        self.wait_for("the memory", lambda: self.fake.memories())
        return body

    def test_team_memory_on_shares_the_capture_with_a_teammate(self):
        # A real commit, its branch then packed as `git gc` packs it: git_sha is HEAD's.
        git = ["git", "-C", self.project, "-c", "user.name=t", "-c", "user.email=t@example.com"]
        subprocess.run(git + ["commit", "-q", "--allow-empty", "-m", "first"], check=True)
        subprocess.run(git + ["pack-refs", "--all"], check=True)
        head = subprocess.run(git + ["rev-parse", "HEAD"], check=True, capture_output=True,
                              text=True).stdout.strip()
        body = self.capture()
        self.assertEqual((body["agent_id"], body["user_id"], body["app_id"], body["run_id"]),
                         (AGENT, USER, PROJECT, "s-1"))
        self.assertEqual(body["metadata"]["author"], USER)
        self.assertEqual(body["metadata"]["dirs"], ["billing", "billing/stripe"])
        self.assertEqual(body["metadata"]["git_sha"], head)
        self.assertFalse(os.path.exists(os.path.join(self.project, ".git/refs/heads/main")))
        self.assertEqual([next(iter(c)) for c in body["custom_categories"]],
                         list(seeds.PLUGIN03_CATEGORIES))
        self.assertIn("agent_custom_instructions", body)
        self.assertIs(body["infer"], True)
        self.assertEqual(self.found_by_plugin03(USER), [SUMMARY])
        self.assertEqual(self.found_by_plugin03("teammate"), [SUMMARY])

    def test_team_memory_off_keeps_it_from_the_teammate(self):
        body = self.capture(env=self.env(MEM0_TEAM_MEMORY="off"))
        self.assertNotIn("agent_id", body)
        self.assertEqual(self.found_by_plugin03(USER), [SUMMARY])
        self.assertEqual(self.found_by_plugin03("teammate"), [])

    def test_remember_team_and_personal_choose_for_one_memory(self):
        team = self.cli("remember", "--team", "Stripe webhook handler retries use a queue worker")
        self.assertEqual(team.returncode, 0, team.stderr)
        mine = self.cli("remember", "--personal", "Stripe webhook handler retries I watch daily")
        self.assertEqual(mine.returncode, 0, mine.stderr)
        self.wait_for("both", lambda: len(self.fake.memories()) == 2)
        teammate = self.found_by_plugin03("teammate")
        self.assertIn("Stripe webhook handler retries use a queue worker", teammate)
        self.assertNotIn("Stripe webhook handler retries I watch daily", teammate)
        both = self.cli("remember", "--team", "--personal", "x")
        self.assertEqual(both.returncode, 2, both.stderr)

    def test_a_team_memory_is_shown_and_forgotten_by_a_teammate(self):
        self.cli("remember", "--team", "Stripe webhook handler retries use a queue worker")
        [team] = self.wait_for("the memory", lambda: self.fake.memories())
        self.assertIsNone(team.get("user_id"))
        teammate = self.env(USER="teammate")
        shown = self.cli("peek", team["id"], env=teammate)
        self.assertEqual(shown.returncode, 0, shown.stderr)
        self.assertIn("queue worker", shown.stdout)
        gone = self.cli("forget", team["id"], env=teammate)
        self.assertEqual(gone.returncode, 0, gone.stderr)
        self.assertEqual(self.fake.memories(), [])

    def test_the_mcp_add_takes_a_scope(self):
        server = McpClient(BIN_DIR, self.env(), self.project)
        self.addCleanup(server.kill)
        server.initialize()
        result = server.call("add_memory", text="Stripe webhook handler retries go to a queue",
                             scope="team")
        self.assertNotIn("isError", result)
        [body] = self.wait_for("the add", lambda: self.fake.adds())
        self.assertEqual(body["agent_id"], AGENT)
        self.assertNotIn("user_id", body)
        self.assertEqual(server.call("add_memory", text="x", scope="everyone").get("isError"),
                         True)

    def test_doctor_says_whether_team_memory_is_on(self):
        self.assertIn("team memory", self.cli("doctor").stdout)
        self.assertRegex(self.cli("doctor").stdout, r"team memory\s+on \(default\)")
        off = self.cli("doctor", env=self.env(MEM0_TEAM_MEMORY="off")).stdout
        self.assertRegex(off, r"team memory\s+off \(env MEM0_TEAM_MEMORY\)")


P03_HASHED = "66666666-aaaa-4aaa-8aaa-000000000006"
P03_LEGACY = "77777777-bbbb-4bbb-8bbb-000000000007"
P03_MINE = "88888888-cccc-4ccc-8ccc-000000000008"
P03_OLD = "99999999-dddd-4ddd-8ddd-000000000009"
P03_WEB = "aaaaaaaa-eeee-4eee-8eee-00000000000a"


class Plugin03Memories(BackendTest):
    """Memories laid out exactly as Mem0's 0.3 plugins leave them on the Platform (hashed and
    legacy shared ids, run ids, categories, no metadata.type) are recalled by our hooks, peek
    and the MCP search (docs/api.md#two-layouts)."""

    seed = [
        seeds.plugin03_memory(P03_HASHED, "Stripe webhook handler retries must run in the worker",
                              app=PROJECT, agent=AGENT, run_id="claude-1", dirs=["billing"],
                              categories=["decisions_and_constraints"]),
        seeds.plugin03_memory(P03_LEGACY, "Stripe webhook handler fails without an idempotency key",
                              app=PROJECT, agent=PROJECT,
                              run_id="claude-2", categories=["problems_and_fixes"]),
        seeds.plugin03_memory(P03_MINE, "Run the stripe webhook handler tests with make stripe",
                              app=PROJECT, user=USER, run_id="codex-3",
                              categories=["workflows"]),
        seeds.plugin03_memory(P03_OLD, "Stripe webhook handler retries ran inline",
                              app=PROJECT, agent=AGENT, run_id="claude-0", latest=False),
        seeds.plugin03_memory(P03_WEB, "Stripe webhook handler page shows retries",
                              app=PROJECT, agent=AGENT, run_id="claude-4", dirs=["web"],
                              categories=["project_knowledge"]),
    ]

    def setUp(self):
        super().setUp()
        make_repo(self.project, origin=ORIGIN)

    def assert_recalled(self, text):
        for mem_id in (P03_HASHED, P03_LEGACY, P03_MINE):
            self.assertIn(f"[mem0:{mem_id[:8]}]", text)
        self.assertNotIn(f"[mem0:{P03_OLD[:8]}]", text, "a replaced version")

    def test_a_prompt_recalls_them_by_category_and_leaves_out_replaced_versions(self):
        ctx = self.prompt().context()
        self.assert_recalled(ctx)
        self.assertIn("- [decisions_and_constraints] Stripe webhook handler retries must run in "
                      f"the worker [mem0:{P03_HASHED[:8]}]", ctx)
        self.assertIn("- [problems_and_fixes] ", ctx)
        for search in self.fake.searches():
            self.assertIs(search["latest_only"], True)

    def test_an_error_prompt_puts_problems_and_fixes_first(self):
        ctx = self.prompt("KeyError in the stripe webhook handler retries: Traceback").context()
        lines = [line for line in ctx.split("\n") if "[mem0:" in line]
        self.assertIn(f"[mem0:{P03_LEGACY[:8]}]", lines[0])

    def test_a_file_read_recalls_them(self):
        path = os.path.join(self.project, "stripe", "webhook_handler.py")
        os.makedirs(os.path.dirname(path))
        with open(path, "w") as f:
            f.write("def handle(event):\n    pass\n" * 200)
        result = self.run_hook("on_file_read", read_event(path, session_id="s-1",
                                                          cwd=self.project))
        self.assert_recalled(result.context())

    def test_peek_finds_them_and_dir_narrows_the_shared_memory(self):
        result = self.cli("peek", "--plain", "stripe", "webhook", "handler", "retries")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assert_recalled(result.stdout)
        self.assertIn(f"[mem0:{P03_WEB[:8]}]", result.stdout)
        self.fake.reset()
        result = self.cli("peek", "--plain", "--dir", "./billing/", "stripe", "webhook",
                          "handler", "retries")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(f"[mem0:{P03_HASHED[:8]}]", result.stdout)
        self.assertIn(f"[mem0:{P03_MINE[:8]}]", result.stdout, "the user's own is not narrowed")
        self.assertNotIn(f"[mem0:{P03_WEB[:8]}]", result.stdout)
        self.assertNotIn(f"[mem0:{P03_LEGACY[:8]}]", result.stdout)
        broad = self.fake.searches()[0]
        self.assertEqual(broad["filters"], {"OR": [
            {"AND": [{"user_id": USER}, {"app_id": PROJECT}]},
            {"AND": [{"OR": [{"AND": [{"agent_id": AGENT}, {"app_id": PROJECT}]},
                             {"AND": [{"agent_id": PROJECT}, {"app_id": PROJECT}]}]},
                     {"metadata": {"dirs": {"contains": "billing"}}}]}]})

    def test_context_takes_a_dir(self):
        result = self.cli("context", "--dir", "web", "stripe", "webhook", "handler", "retries")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(f"[mem0:{P03_WEB[:8]}]", result.stdout)
        self.assertNotIn(f"[mem0:{P03_HASHED[:8]}]", result.stdout)

    def test_the_mcp_search_finds_them_and_takes_a_dir(self):
        server = McpClient(BIN_DIR, self.env(), self.project)
        self.addCleanup(server.kill)
        server.initialize()
        found = server.call("search_memories", query="stripe webhook handler retries")
        self.assert_recalled(found["content"][0]["text"])
        types = {m["id"]: m["type"] for m in found["structuredContent"]["memories"]}
        self.assertEqual(types[P03_MINE], "workflows")
        narrowed = server.call("search_memories", query="stripe webhook handler retries",
                               dir="web")
        ids = [m["id"] for m in narrowed["structuredContent"]["memories"]]
        self.assertIn(P03_WEB, ids)
        self.assertNotIn(P03_HASHED, ids)


class BackoffPerServer(BackendTest):
    """A pause holds the server and key that caused it, and nothing else."""

    seed = [memory(OWN, "Stripe webhook handler retries invoices with exponential backoff",
                   "convention")]

    def setUp(self):
        super().setUp()
        self.other = FakeMem0(seed=self.seed).start()
        self.addCleanup(self.other.stop)
        self.limited = self.env(MEM0_BASE_URL=self.other.url)
        self.other.control(status=429, retry_after=120)
        result = self.prompt(env=self.limited)
        self.assertEqual(result.system_message(), "mem0: recall skipped — rate limited (retry after 120 s)")
        self.other.control()
        self.other.reset()

    def test_a_pause_for_one_base_url_does_not_stop_another(self):
        paused = self.prompt(session="s-2", env=self.limited)
        self.assertEqual(self.other.requests(), [])
        self.assertIn("mem0: recall paused — rate limited by Mem0, retrying in",
                      paused.system_message())
        fine = self.prompt(session="s-3")
        self.assertIn(f"[mem0:{OWN[:8]}]", fine.context())
        self.assertIsNone(fine.system_message())
        self.assertEqual(len(self.fake.searches()), 1)

    def test_another_key_for_the_same_server_is_not_held_up(self):
        self.prompt(session="s-2", env=self.env(MEM0_BASE_URL=self.other.url,
                                                MEM0_API_KEY="m0-another-key-0000"))
        self.assertEqual(len(self.other.searches()), 1)  # sent (and refused: a wrong key)

    def test_doctor_shows_the_pause_and_reset_ends_it(self):
        self.other.control(status=429, retry_after=120)  # still limited when doctor checks
        doctor = self.cli("doctor", env=self.limited)
        self.assertEqual(doctor.returncode, 1)
        self.assertRegex(doctor.stdout, r"pause       rate limited by Mem0: recall and capture "
                                        r"paused until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC "
                                        r"\(1[0-2]\d s\)")
        self.assertIn("fix: wait until ", doctor.stdout)
        self.assertIn("or run `mem0-hooks doctor --reset` to try again now", doctor.stdout)
        self.assertNotIn("checks passed", doctor.stdout)
        self.other.control()
        reset = self.cli("doctor", "--reset", env=self.limited)
        self.assertIn("reset       1 pause ended", reset.stdout)
        self.assertNotIn("pause ", reset.stdout.replace("1 pause ended", ""))
        self.other.reset()
        again = self.prompt(session="s-4", env=self.limited)
        self.assertEqual(len(self.other.searches()), 1)
        self.assertIn(f"[mem0:{OWN[:8]}]", again.context())

    def test_an_answered_request_ends_the_pause_early(self):
        # peek is held by the pause like the memory tools: it answers at once, sending nothing.
        peek = self.cli("peek", "stripe webhook", env=self.limited)
        self.assertEqual(peek.returncode, 1, peek.stderr)
        self.assertIn("mem0-hooks peek: rate limited: Mem0 is paused for", peek.stderr)
        self.assertEqual(self.other.requests(), [])
        # doctor's check is sent during a pause, and its answer ends it.
        doctor = self.cli("doctor", env=self.limited)
        self.assertIn("pause       ended early: the server answered", doctor.stdout)
        again = self.cli("doctor", env=self.limited)
        self.assertNotIn("pause ", again.stdout)  # ended by the first doctor's answer
        self.other.reset()
        self.prompt(session="s-5", env=self.limited)
        self.assertEqual(len(self.other.searches()), 1)


if __name__ == "__main__":
    testmain.main()
