"""End-to-end: `mem0-hooks mcp` (the stdio MCP server) and `remember` / `forget` against the
fake Mem0 server, in both dialects (docs/cli.md#mcp)."""

import json
import os
import time

from hooklib import BIN_DIR, HookTest, PROJECT, USER
import seeds
from backends import per_backend
import testmain  # noqa: E402
from mcpclient import McpClient

OWN = "11111111-aaaa-4aaa-8aaa-000000000001"
DECISION = "abcd1234-bbbb-4bbb-8bbb-000000000002"
NEWEST = "33333333-cccc-4ccc-8ccc-000000000003"
OTHER_USER = "44444444-dddd-4ddd-8ddd-000000000004"
MISSING = "deadbeef-0000-4000-8000-00000000000f"
AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
TOOLS = {"search_memories", "get_memory", "get_memories", "add_memory", "update_memory",
         "delete_memory"}


def seed_for(backend):
    """The seed in the backend's layout: the project as app_id (platform) or agent_id."""
    def mem(mem_id, text, mtype, user=USER, created="2026-11-20T10:00:00Z"):
        return seeds.memory(mem_id, text, mtype, user=user, project=PROJECT, backend=backend,
                            created=created)

    return [
        mem(OWN, "Stripe webhook retries use exponential backoff", "convention",
            created="2026-11-01T10:00:00Z"),
        mem(DECISION, "Decided stripe webhook retries stop after three attempts", "decision",
            created="2026-11-10T10:00:00Z"),
        mem(NEWEST, "Invoices are rendered with weasyprint", "convention",
            created="2026-11-25T10:00:00Z"),
        mem(OTHER_USER, "Stripe webhook retries notes of another user", "decision",
            user="someone-else", created="2026-11-26T10:00:00Z"),
    ]


def text_of(result):
    return result["content"][0]["text"]


class McpCases:
    """The cases, run in each dialect by the classes below."""

    def setUp(self):
        super().setUp()
        self.fake.seed(seed_for(self.backend))

    def start(self, env=None, initialize=True, client="mem0-tests"):
        server = McpClient(BIN_DIR, env or self.env(), self.project)
        self.addCleanup(server.kill)
        if initialize:
            server.initialize(client=client)
            server.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        return server

    def assert_identity(self, request):
        """The request names our user and project, in the dialect's way."""
        if self.backend == "platform":
            body = json.dumps(request["body"])
            self.assertIn('{"user_id": "%s"}' % USER, body)
            self.assertIn('"app_id": "%s"' % PROJECT, body)
        elif request["method"] == "GET":
            self.assertIn("user_id=" + USER, request["path"])
        else:
            filters = request["body"].get("filters", request["body"])
            self.assertEqual(filters["user_id"], USER)
            self.assertEqual(filters["agent_id"], PROJECT)

    # -- protocol -------------------------------------------------------------------------
    def test_handshake_answers_each_supported_version_and_the_newest_otherwise(self):
        for version in VERSIONS + ("1999-01-01",):
            server = self.start(initialize=False)
            start = time.monotonic()
            answer = server.request("initialize", {"protocolVersion": version,
                                                   "capabilities": {}})
            self.assertLess(time.monotonic() - start, 5)
            result = answer["result"]
            self.assertEqual(result["protocolVersion"],
                             version if version in VERSIONS else VERSIONS[-1])
            self.assertEqual(result["serverInfo"]["name"], "mem0-hooks")
            self.assertTrue(result["serverInfo"]["version"])
            self.assertIn("tools", result["capabilities"])
            self.assertTrue(result["instructions"])
            self.assertEqual(server.close(), 0)
        self.assertEqual(self.fake.requests(), [], "no network before the first tool call")

    def test_notifications_get_no_answer_and_ping_is_empty(self):
        server = self.start()
        server.write('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}\n')
        self.assertEqual(server.request("ping")["result"], {})

    def test_tools_list(self):
        tools = {t["name"]: t for t in self.start().request("tools/list")["result"]["tools"]}
        self.assertEqual(set(tools), TOOLS)
        for name in ("search_memories", "get_memory", "get_memories"):
            self.assertTrue(tools[name]["annotations"]["readOnlyHint"], name)
            self.assertIn("outputSchema", tools[name])
        for name in ("update_memory", "delete_memory"):
            self.assertTrue(tools[name]["annotations"]["destructiveHint"], name)
        self.assertEqual(tools["search_memories"]["inputSchema"]["required"], ["query"])
        self.assertFalse(tools["add_memory"]["inputSchema"]["additionalProperties"])
        self.assertNotIn("user_id", json.dumps(tools))

    def test_unknown_method_is_32601_and_unknown_tool_32602(self):
        server = self.start()
        self.assertEqual(server.request("server/discover")["error"]["code"], -32601)
        self.assertEqual(server.request("resources/list")["error"]["code"], -32601)
        answer = server.request("tools/call", {"name": "drop_database", "arguments": {}})
        self.assertEqual(answer["error"]["code"], -32602)

    def test_non_json_is_32700_and_the_server_goes_on(self):
        server = self.start()
        server.write("this is not json\n")
        answer = server.read()
        self.assertEqual((answer["id"], answer["error"]["code"]), (None, -32700))
        server.write('{"jsonrpc":"2.0","id":"x","method":"ping","params":5}\n')
        self.assertEqual(server.read()["error"]["code"], -32600)
        self.assertEqual(server.request("ping")["result"], {})
        self.assertEqual(server.close(), 0)

    def test_a_10_mb_line_is_an_error_answer_and_the_server_goes_on(self):
        server = self.start()
        server.write(b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"' +
                     b"a" * (10 * 1024 * 1024) + b'"}}\n')
        answer = server.read()
        self.assertEqual((answer["id"], answer["error"]["code"]), (None, -32600))
        self.assertEqual(server.request("ping")["result"], {})
        self.assertEqual(server.close(), 0)

    def test_eof_mid_line(self):
        server = self.start()
        server.write('{"jsonrpc":"2.0","id":7,"method":"ping"}')  # no newline
        server.proc.stdin.close()
        self.assertEqual(server.read()["id"], 7)
        self.assertEqual(server.proc.wait(10), 0)
        server = self.start()
        server.write('{"jsonrpc":"2.0","id":8,"meth')
        self.assertEqual(server.close(), 0)

    # -- tools ----------------------------------------------------------------------------
    def test_search_memories_then_get_memory_by_its_short_id(self):
        server = self.start()
        result = server.call("search_memories", query="stripe webhook retries")
        self.assertNotIn("isError", result)
        lines = text_of(result).split("\n")
        self.assertIn("- [decision] Decided stripe webhook retries stop after three attempts "
                      "[mem0:abcd1234]", lines)
        ids = [m["id"] for m in result["structuredContent"]["memories"]]
        self.assertIn(DECISION, ids)
        self.assertNotIn(OTHER_USER, ids)
        searches = self.fake.calls("search")
        self.assertTrue(searches)
        for request in searches:
            self.assert_identity(request)
        got = server.call("get_memory", memory_id="[mem0:abcd1234]")
        self.assertNotIn("isError", got)
        self.assertIn("Decided stripe webhook retries stop after three attempts", text_of(got))
        self.assertIn(DECISION, text_of(got))
        self.assertEqual(len(self.fake.calls("get")), 1)
        # The short id is in the id map of the session key "mcp": peek resolves it too.
        peek = self.run_bin("mem0-hooks", args=["peek", "abcd1234"], text=True)
        self.assertIn("[mem0:abcd1234]", peek.stdout)

    def test_search_memories_with_a_type_and_limit(self):
        result = self.start().call("search_memories", query="stripe webhook retries",
                                   type="convention", limit=1)
        self.assertEqual([m["id"] for m in result["structuredContent"]["memories"]], [OWN])
        self.assertEqual(len(self.fake.calls("search")), 1)

    def test_get_memory_by_full_id_and_not_found(self):
        server = self.start()
        self.assertIn("weasyprint", text_of(server.call("get_memory", memory_id=NEWEST)))
        missing = server.call("get_memory", memory_id=MISSING)
        self.assertTrue(missing["isError"])
        self.assertIn("no memory", text_of(missing))
        unknown = server.call("get_memory", memory_id="feedbeef")
        self.assertTrue(unknown["isError"])

    def test_get_memories_newest_first_in_pages(self):
        server = self.start()
        first = server.call("get_memories", page_size=2)
        self.assertEqual([m["id"] for m in first["structuredContent"]["memories"]],
                         [NEWEST, DECISION])
        self.assertEqual(first["structuredContent"]["count"], 3)
        second = server.call("get_memories", page_size=2, page=2)
        self.assertEqual([m["id"] for m in second["structuredContent"]["memories"]], [OWN])
        typed = server.call("get_memories", type="decision")
        self.assertEqual([m["id"] for m in typed["structuredContent"]["memories"]], [DECISION])
        for request in self.fake.calls("list"):
            self.assert_identity(request)

    def test_add_memory_is_redacted_stored_verbatim_and_answers_its_id(self):
        server = self.start()
        result = server.call("add_memory", text="Deploy key is %s; use the vault" % AWS_KEY,
                             type="convention")
        self.assertNotIn("isError", result)
        self.assertIn("stored as ", text_of(result))
        adds = self.fake.calls("add")
        self.assertEqual(len(adds), 1)
        raw = json.dumps(adds[0]["body"])
        self.assertNotIn(AWS_KEY, raw)
        body = adds[0]["body"]
        self.assertEqual(body["user_id"], USER)
        self.assertEqual(body["app_id" if self.backend == "platform" else "agent_id"], PROJECT)
        self.assertIs(body["infer"], False)
        self.assertEqual(body["metadata"]["type"], "convention")
        stored = [m for m in self.fake.memories() if "vault" in m["memory"]]
        self.assertEqual(len(stored), 1)
        self.assertIn(stored[0]["id"], text_of(result))
        self.assertNotIn(AWS_KEY, stored[0]["memory"])

    def test_add_memory_names_the_agent_of_the_client(self):
        """metadata.agent is the agent the client's initialize names (clientInfo.name as Codex
        0.171 and Gemini CLI 0.61 send it), Claude Code for a client it does not know."""
        for client, agent in (("codex-mcp-client", "codex"),
                              ("gemini-cli-mcp-client", "gemini-cli"),
                              ("mem0-tests", "claude-code")):
            self.fake.reset()
            result = self.start(client=client).call("add_memory",
                                                    text=f"Release notes are written by {client}")
            self.assertNotIn("isError", result)
            adds = self.fake.calls("add")
            self.assertEqual(len(adds), 1, client)
            self.assertEqual(adds[0]["body"]["metadata"]["agent"], agent, client)

    def test_add_memory_is_queued_when_the_server_fails(self):
        self.fake.control(status=503, only_endpoint="add")
        result = self.start().call("add_memory", text="Queued memory about invoices")
        self.assertNotIn("isError", result)
        self.assertIn("queued", text_of(result))
        self.assertEqual(len(self.fake.calls("add")), 1, "sent at once")
        outbox = os.path.join(self.home, ".mem0", "state", "outbox")
        queued = [n for n in os.listdir(outbox) if n[0].isdigit()]
        self.assertEqual(len(queued), 1, os.listdir(outbox))
        with open(os.path.join(outbox, queued[0])) as item:
            self.assertIn("Queued memory about invoices", item.read())

    def test_update_memory_of_ours_and_refuses_another_users(self):
        server = self.start()
        result = server.call("update_memory", memory_id=OWN,
                             text="Retries back off exponentially; token %s" % AWS_KEY)
        self.assertNotIn("isError", result)
        puts = [r for r in self.fake.requests() if r["method"] == "PUT"]
        self.assertEqual(len(puts), 1)
        self.assertNotIn(AWS_KEY, json.dumps(puts[0]["body"]))
        mine = {m["id"]: m for m in self.fake.memories()}[OWN]
        self.assertTrue(mine["memory"].startswith("Retries back off exponentially"))
        refused = server.call("update_memory", memory_id=OTHER_USER, text="hijacked")
        self.assertTrue(refused["isError"])
        self.assertEqual(len([r for r in self.fake.requests() if r["method"] == "PUT"]), 1)

    def test_delete_memory_of_ours_and_refuses_another_users(self):
        server = self.start()
        refused = server.call("delete_memory", memory_id=OTHER_USER)
        self.assertTrue(refused["isError"])
        self.assertIn("not a memory of user " + USER, text_of(refused))
        self.assertEqual(self.fake.deletes(), [])
        result = server.call("delete_memory", memory_id=OWN)
        self.assertNotIn("isError", result)
        self.assertEqual(self.fake.deletes(), [OWN])
        ids = {m["id"] for m in self.fake.memories()}
        self.assertNotIn(OWN, ids)
        self.assertIn(OTHER_USER, ids)

    def test_bad_arguments_are_tool_errors_and_send_nothing(self):
        server = self.start()
        for tool, arguments, words in (
                ("search_memories", {"query": "x", "user_id": "someone-else"}, "unknown argument"),
                ("search_memories", {}, "missing required argument 'query'"),
                ("search_memories", {"query": "x", "limit": "many"}, "'limit'"),
                ("search_memories", {"query": "x", "limit": 51}, "'limit'"),
                ("search_memories", {"query": "x", "scope": "universe"}, "'scope'"),
                ("delete_memory", {"memory_id": OWN, "app_id": "other"}, "unknown argument")):
            result = server.call(tool, **arguments)
            self.assertTrue(result["isError"], arguments)
            self.assertIn(words, text_of(result))
            self.assertNotIn("\n", text_of(result))
        self.assertEqual(self.fake.requests(), [])

    def test_no_key_is_a_tool_error(self):
        server = self.start(self.env(MEM0_API_KEY=None))
        result = server.call("search_memories", query="stripe")
        self.assertTrue(result["isError"])
        self.assertIn("no API key", text_of(result))
        self.assertEqual(server.request("ping")["result"], {})
        self.assertEqual(self.fake.requests(), [])

    def test_rejected_key_and_rate_limit_are_tool_errors_without_the_key(self):
        server = self.start()
        self.fake.control(status=429, retry_after=60, only_endpoint="search")
        result = server.call("search_memories", query="stripe")
        self.assertTrue(result["isError"])
        self.assertIn("rate limited", text_of(result))
        sent = len(self.fake.requests())
        again = server.call("search_memories", query="stripe")
        self.assertTrue(again["isError"])
        self.assertIn("rate limited", text_of(again))
        self.assertEqual(len(self.fake.requests()), sent, "a pause sends nothing")
        rejected = self.start(self.env(MEM0_API_KEY="m0-wrong-key-abcdef"))
        self.fake.control()
        result = rejected.call("get_memory", memory_id=OWN)
        self.assertTrue(result["isError"])
        self.assertIn("rejected", text_of(result))
        self.assertNotIn("m0-wrong-key-abcdef", text_of(result))

    # -- remember / forget ----------------------------------------------------------------
    def test_remember_stores_and_forget_deletes_by_short_id(self):
        result = self.run_bin("mem0-hooks", args=["remember", "--type", "convention",
                                                  "Use", "ruff", "for", "lint", AWS_KEY],
                              text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("stored as ", result.stdout)
        self.assertNotIn(AWS_KEY, json.dumps(self.fake.adds()))
        stored = [m for m in self.fake.memories() if "ruff" in m["memory"]][0]
        self.assertIn(stored["id"], result.stdout)
        forget = self.run_bin("mem0-hooks", args=["forget", stored["id"][:8]], text=True)
        self.assertEqual(forget.returncode, 0, forget.stderr)
        self.assertEqual(self.fake.deletes(), [stored["id"]])

    def test_forget_query_is_a_dry_run_without_yes(self):
        dry = self.run_bin("mem0-hooks", args=["forget", "--query", "weasyprint invoices"],
                           text=True)
        self.assertEqual(dry.returncode, 0, dry.stderr)
        self.assertIn("[mem0:33333333]", dry.stdout)
        self.assertIn("dry run: nothing deleted", dry.stdout)
        self.assertEqual(self.fake.deletes(), [])
        self.assertIn(NEWEST, {m["id"] for m in self.fake.memories()})
        done = self.run_bin("mem0-hooks", args=["forget", "--query", "weasyprint invoices",
                                                "--yes"], text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn(NEWEST, self.fake.deletes())
        self.assertNotIn(NEWEST, {m["id"] for m in self.fake.memories()})

    def test_forget_refuses_another_users_memory_and_bad_usage(self):
        result = self.run_bin("mem0-hooks", args=["forget", OTHER_USER], text=True)
        self.assertEqual(result.returncode, 1)
        self.assertIn("not a memory of user", result.stderr)
        self.assertEqual(self.fake.deletes(), [])
        self.assertEqual(self.run_bin("mem0-hooks", args=["forget"]).returncode, 2)
        self.assertEqual(self.run_bin("mem0-hooks", args=["remember"]).returncode, 2)


# A self-hosted server may run without a key: no test of the missing key there.
PlatformMcp, SelfHostedMcp = per_backend("Mcp", McpCases, HookTest,
                                         selfhosted={"test_no_key_is_a_tool_error": None})


if __name__ == "__main__":
    testmain.main()
