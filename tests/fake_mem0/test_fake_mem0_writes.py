#!/usr/bin/env python3
"""Self-test of the fake Mem0 server's write side (docs/api.md#add, docs/api.md#list-with-count, docs/capture.md): add,
events, list, delete, the filters of shared project memory, and the fault knobs on them.

    python3 tests/fake_mem0/test_fake_mem0_writes.py
"""

import json
import os
import re
import sys
import time
import unittest
from datetime import datetime, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from test_fake_mem0 import APP, SEED, U, ServerTest, mem  # noqa: E402
import testmain  # noqa: E402
import seeds  # noqa: E402

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
PROJECT = {"AND": [{"user_id": U}, {"app_id": APP}]}
MESSAGES = [{"role": "user", "content": "kappa lambda"},
            {"role": "assistant", "content": "mu nu"}]


def add_body(**fields):
    return {"messages": MESSAGES, "user_id": U, "app_id": APP,
            "metadata": {"type": "decision", "source": "test"}, **fields}


class WriteTest(ServerTest):
    def json_call(self, method, path, body=None, **kw):
        resp, data = self.call(method, path, body, **kw)
        return resp.status, json.loads(data)

    def add(self, body, **kw):
        return self.json_call("POST", "/v3/memories/add/", body, **kw)

    def list(self, filters=PROJECT, query="", **fields):
        return self.json_call("POST", "/v3/memories/" + query, {"filters": filters, **fields})

    def stored_ids(self):
        return [m["id"] for m in self.srv.memories()]

    def assert_recent(self, stamp):
        created = datetime.fromisoformat(stamp)
        self.assertIsNotNone(created.tzinfo, stamp)
        age = (datetime.now(timezone.utc) - created).total_seconds()
        self.assertTrue(0 <= age < 60, stamp)


class Add(WriteTest):
    def test_infer_add_is_queued_stored_found_listed_and_its_event_succeeds(self):
        body = add_body()
        status, answer = self.add(body)
        self.assertEqual(status, 200, answer)
        self.assertEqual(set(answer), {"event_id", "status", "message"})
        self.assertEqual(answer["status"], "PENDING")
        self.assertRegex(answer["event_id"], UUID)

        added = [m for m in self.srv.memories() if m["id"] not in {s["id"] for s in SEED}]
        self.assertEqual(len(added), 1, added)
        new = added[0]
        self.assertRegex(new["id"], UUID)
        self.assertEqual(new["memory"], "kappa lambda\nmu nu")
        self.assertEqual((new["user_id"], new["app_id"], new["run_id"]), (U, APP, None))
        self.assertEqual(new["metadata"], {"type": "decision", "source": "test"})
        self.assertEqual(new["categories"], [])
        self.assertNotIn("agent_id", new)
        self.assert_recent(new["created_at"])

        status, found = self.search(query="kappa lambda mu", filters=PROJECT)
        self.assertEqual(status, 200)
        self.assertEqual(found["results"][0]["id"], new["id"])
        status, page = self.list()
        self.assertEqual((status, page["count"]), (200, 5), page)  # SEED 1, 2, 5, 6 + the add
        self.assertIn(new["id"], [r["id"] for r in page["results"]])

        status, event = self.json_call("GET", f"/v1/event/{answer['event_id']}/")
        self.assertEqual(status, 200)
        self.assertEqual(event, {"id": answer["event_id"], "status": "SUCCEEDED", "results": [
            {"id": new["id"], "memory": "kappa lambda\nmu nu", "event": "ADD"}]})
        self.assertEqual(self.srv.adds(), [body])
        self.assertEqual([r["endpoint"] for r in self.srv.requests()],
                         ["add", "search", "list", "event"])

    def test_unknown_event_is_not_found(self):
        status, answer = self.json_call("GET", "/v1/event/11111111-2222-4333-8444-555555555555/")
        self.assertEqual((status, answer), (404, {"detail": "Event not found"}))
        self.assertEqual(self.json_call("GET", "/v1/event/x/", key="wrong")[0], 401)

    def test_add_without_infer_stores_each_message_synchronously(self):
        body = add_body(infer=False, expiration_date="2027-02-28",
                        custom_instructions="Keep conventions only.",
                        metadata={"type": "project_profile", "file": "CLAUDE.md"})
        status, answer = self.add(body)
        self.assertEqual(status, 200, answer)
        results = answer["results"]
        self.assertEqual([(r["memory"], r["event"]) for r in results],
                         [("kappa lambda", "ADD"), ("mu nu", "ADD")])
        self.assertEqual(len({r["id"] for r in results}), 2)
        stored = {m["id"]: m for m in self.srv.memories()}
        for r in results:
            self.assertRegex(r["id"], UUID)
            self.assertEqual(stored[r["id"]]["memory"], r["memory"])
            self.assertEqual(stored[r["id"]]["expiration_date"], "2027-02-28")
            self.assertEqual(stored[r["id"]]["metadata"],
                             {"type": "project_profile", "file": "CLAUDE.md"})
        self.assertEqual(len(stored), len(SEED) + 2)
        self.assertEqual(self.list()[1]["count"], 6)

    def test_shared_and_session_ids_are_accepted_and_stored(self):
        for ids in ({"agent_id": "proj-0123456789"}, {"run_id": "sess-9"},
                    {"app_id": APP}, {"user_id": U, "run_id": "sess-9"}):
            with self.subTest(ids=ids):
                body = {"messages": [{"role": "user", "content": f"omicron {ids}"}],
                        "infer": False, **ids}
                status, answer = self.add(body)
                self.assertEqual(status, 200, answer)
                new = [m for m in self.srv.memories() if m["id"] == answer["results"][0]["id"]]
                self.assertEqual(len(new), 1)
                for key in ("user_id", "app_id", "run_id"):
                    self.assertEqual(new[0][key], ids.get(key))
                self.assertEqual(new[0].get("agent_id"), ids.get("agent_id"))
        self.assertEqual(self.srv.adds()[1]["run_id"], "sess-9")  # recorded as sent

    def test_invalid_adds_are_400_and_store_nothing(self):
        ok = add_body()
        cases = {
            "messages missing": {k: v for k, v in ok.items() if k != "messages"},
            "messages empty": dict(ok, messages=[]),
            "messages a string": dict(ok, messages="kappa"),
            "message not an object": dict(ok, messages=["kappa"]),
            "unknown role": dict(ok, messages=[{"role": "robot", "content": "kappa"}]),
            "no content": dict(ok, messages=[{"role": "user"}]),
            "content a number": dict(ok, messages=[{"role": "user", "content": 5}]),
            "no ids": {"messages": MESSAGES},
            "null ids": {"messages": MESSAGES, "user_id": None, "app_id": None},
            "empty user_id": dict(ok, user_id="", app_id=None),
            "wildcard user_id": dict(ok, user_id="*"),
            "user_id a number": dict(ok, user_id=5),
            "metadata a string": dict(ok, metadata="decision"),
            "infer a string": dict(ok, infer="yes"),
            "bad expiration month": dict(ok, expiration_date="2026-13-01"),
            "expiration not a date": dict(ok, expiration_date="tomorrow"),
            "custom_instructions a number": dict(ok, custom_instructions=5),
            "body an array": [ok],
            "body not JSON": "{not json",
        }
        for name, body in cases.items():
            with self.subTest(name):
                status, answer = self.add(body)
                self.assertEqual(status, 400, answer)
                self.assertIsInstance(answer["detail"], str)
        self.assertEqual(self.add(ok, key="wrong"), (401, {"detail": "Invalid API key"}))
        self.assertEqual(len(self.srv.adds()), len(cases) + 1)  # every request is recorded
        self.assertEqual(self.stored_ids(), [m["id"] for m in SEED])

    def test_blank_messages_store_nothing(self):
        blank = [{"role": "user", "content": "  "}]
        status, answer = self.add(add_body(messages=blank, infer=False))
        self.assertEqual((status, answer), (200, {"results": []}))
        status, answer = self.add(add_body(messages=blank))
        self.assertEqual(status, 200)
        self.assertEqual(self.json_call("GET", f"/v1/event/{answer['event_id']}/")[1]["results"],
                         [])
        self.assertEqual(len(self.srv.memories()), len(SEED))


class AddFaults(WriteTest):
    def test_status_only_on_adds_stores_nothing_and_searches_still_work(self):
        self.srv.control(status=422, only_endpoint="add")
        status, answer = self.add(add_body())
        self.assertEqual((status, answer), (422, {"detail": "fault injected"}))
        self.assertEqual(self.search(query="alpha")[0], 200)
        self.assertEqual(self.list()[0], 200)
        self.assertEqual(len(self.srv.memories()), len(SEED))
        self.assertEqual([(r["endpoint"], r["status"]) for r in self.srv.requests()],
                         [("add", 422), ("search", 200), ("list", 200)])
        self.assertEqual(self.srv.adds(), [add_body()])

    def test_rate_limit_once_then_the_retry_is_stored(self):
        self.srv.control(status=429, retry_after=9, only_endpoint="add", count=1)
        resp, _ = self.call("POST", "/v3/memories/add/", add_body())
        self.assertEqual((resp.status, resp.getheader("Retry-After")), (429, "9"))
        status, answer = self.add(add_body(infer=False))
        self.assertEqual(status, 200, answer)
        self.assertEqual(len(self.srv.memories()), len(SEED) + 2)

    def test_store_false_answers_as_usual_and_keeps_nothing(self):
        self.srv.control(store=False)
        status, answer = self.add(add_body())
        self.assertEqual((status, answer["status"]), (200, "PENDING"))
        status, event = self.json_call("GET", f"/v1/event/{answer['event_id']}/")
        self.assertEqual((status, event["status"], event["results"]), (200, "SUCCEEDED", []))
        self.assertEqual(self.add(add_body(infer=False)), (200, {"results": []}))
        self.assertEqual(len(self.srv.memories()), len(SEED))
        self.assertEqual(len(self.srv.adds()), 2)

    def test_garbage_and_silent_answers_store_nothing(self):
        self.srv.control(mode="garbage", only_endpoint="add")
        resp, data = self.call("POST", "/v3/memories/add/", add_body())
        self.assertEqual((resp.status, data), (200, b"this is not json <<<"))
        self.srv.control(mode="silent", only_endpoint="add")
        with self.assertRaises((TimeoutError, OSError)):
            self.call("POST", "/v3/memories/add/", add_body(), timeout=0.5)
        self.assertEqual(len(self.srv.memories()), len(SEED))
        self.assertEqual([r["status"] for r in self.srv.requests()], [200, 0])

    def test_latency_only_on_adds(self):
        self.srv.control(latency_ms=300, only_endpoint="add")
        start = time.monotonic()
        self.assertEqual(self.call("GET", "/v1/ping/")[0].status, 200)
        self.assertLess(time.monotonic() - start, 0.3)
        start = time.monotonic()
        self.assertEqual(self.add(add_body())[0], 200)
        self.assertGreaterEqual(time.monotonic() - start, 0.3)

    def test_bad_write_knobs_are_rejected(self):
        for knobs in ({"only_endpoint": "nope"}, {"store": "no"}, {"store": 0}):
            resp, _ = self.call("POST", "/_control", knobs, key=None)
            self.assertEqual(resp.status, 400, knobs)


class List(WriteTest):
    def ids(self, page):
        return [int(r["id"][-3:]) for r in page["results"]]

    def test_pages_newest_first_with_links(self):
        mine = {"user_id": U}                        # SEED 1, 2, 4, 5, 6
        status, page = self.list(mine, page_size=2)
        self.assertEqual(status, 200, page)
        self.assertEqual((page["count"], self.ids(page), page["previous"]), (5, [6, 5], None))
        self.assertEqual(page["next"],
                         f"http://127.0.0.1:{self.srv.port}/v3/memories/?page=2&page_size=2")
        status, page = self.list(mine, query="?page=2&page_size=2")
        self.assertEqual((status, page["count"], self.ids(page)), (200, 5, [4, 2]))
        self.assertTrue(page["previous"].endswith("/v3/memories/?page=1&page_size=2"))
        self.assertTrue(page["next"].endswith("/v3/memories/?page=3&page_size=2"))
        status, page = self.list(mine, page=3, page_size=2)
        self.assertEqual((status, self.ids(page), page["next"]), (200, [1], None))
        self.assertEqual(self.list(mine, page=4, page_size=2),
                         (404, {"detail": "Invalid page."}))

    def test_query_string_wins_over_the_body(self):
        status, page = self.list({"user_id": U}, query="?page=2&page_size=1", page=1,
                                 page_size=3)
        self.assertEqual((status, self.ids(page)), (200, [5]))

    def test_count_only_request_of_session_start(self):
        status, page = self.list(query="?page=1&page_size=1")
        self.assertEqual((status, page["count"], len(page["results"])), (200, 4, 1))
        self.assertEqual(set(page["results"][0]),
                         {"id", "memory", "user_id", "app_id", "run_id", "metadata",
                          "categories", "created_at", "updated_at"})
        self.assertEqual(self.list(query="?page_size=1")[1]["count"], 4)

    def test_filters_as_in_search(self):
        self.assertEqual(self.list({"OR": [{"user_id": "someone-else"},
                                           {"app_id": "other-project"}]})[1]["count"], 2)
        status, page = self.list({"AND": [{"user_id": U},
                                          {"metadata": {"type": "decision"}}]})
        self.assertEqual((status, self.ids(page)), (200, [2]))
        self.assertEqual(self.list({"user_id": "nobody"}),
                         (200, {"count": 0, "next": None, "previous": None, "results": []}))

    def test_bad_lists(self):
        for name, (query, body) in {
            "no filters": ("", {}),
            "wildcard only": ("", {"filters": {"user_id": "*"}}),
            "unknown filter key": ("", {"filters": {"color": "red", "user_id": U}}),
            "page 0": ("", {"filters": PROJECT, "page": 0}),
            "page a string": ("", {"filters": PROJECT, "page": "1"}),
            "page_size too big": ("", {"filters": PROJECT, "page_size": 1001}),
            "page_size not a number": ("?page_size=x", {"filters": PROJECT}),
            "negative page": ("?page=-1", {"filters": PROJECT}),
            "body not an object": ("", [PROJECT]),
        }.items():
            with self.subTest(name):
                status, answer = self.json_call("POST", "/v3/memories/" + query, body)
                self.assertEqual(status, 400, answer)
                self.assertIn("detail", answer)
        self.assertEqual(self.json_call("POST", "/v3/memories/", {"filters": PROJECT},
                                        key="wrong")[0], 401)

    def test_faults_apply_to_lists(self):
        self.srv.control(status=503, only_endpoint="list")
        self.assertEqual(self.list()[0], 503)
        self.assertEqual(self.search(query="alpha")[0], 200)


class Delete(WriteTest):
    def test_delete_removes_the_memory_everywhere(self):
        target = SEED[0]["id"]
        before = self.list()[1]["count"]
        status, answer = self.json_call("DELETE", f"/v1/memories/{target}/")
        self.assertEqual((status, answer), (200, {"message": "Memory deleted successfully!"}))
        self.assertNotIn(target, self.stored_ids())
        self.assertEqual(self.json_call("GET", f"/v1/memories/{target}/")[0], 404)
        self.assertNotIn(target, [r["id"] for r in self.search(query="alpha")[1]["results"]])
        self.assertEqual(self.list()[1]["count"], before - 1)
        self.assertEqual(self.json_call("DELETE", f"/v1/memories/{target}/"),
                         (404, {"error": "Memory not found!"}))
        self.assertEqual(self.srv.deletes(), [target, target])

    def test_delete_an_added_memory(self):
        ids = [r["id"] for r in self.add(add_body(infer=False))[1]["results"]]
        self.assertEqual(self.json_call("DELETE", f"/v1/memories/{ids[0]}/")[0], 200)
        self.assertNotIn(ids[0], self.stored_ids())
        self.assertIn(ids[1], self.stored_ids())

    def test_bad_deletes(self):
        self.assertEqual(self.json_call("DELETE", "/v1/memories/not-a-uuid/"),
                         (400, {"detail": "Invalid memory id"}))
        self.assertEqual(self.json_call("DELETE", f"/v1/memories/{SEED[1]['id']}/",
                                        key="wrong")[0], 401)
        self.srv.control(status=500, only_endpoint="delete")
        self.assertEqual(self.json_call("DELETE", f"/v1/memories/{SEED[1]['id']}/")[0], 500)
        self.assertEqual(len(self.srv.memories()), len(SEED))


class Update(WriteTest):
    def test_update_replaces_the_text(self):
        target = SEED[0]["id"]
        status, answer = self.json_call("PUT", f"/v1/memories/{target}/", {"text": "omega new"})
        self.assertEqual((status, answer["id"], answer["memory"]), (200, target, "omega new"))
        stored = {m["id"]: m for m in self.srv.memories()}[target]
        self.assertEqual(stored["memory"], "omega new")
        self.assertIn(target, [r["id"] for r in self.search(query="omega")[1]["results"]])

    def test_bad_updates(self):
        target = SEED[0]["id"]
        self.assertEqual(self.json_call("PUT", "/v1/memories/not-a-uuid/", {"text": "x"})[0], 400)
        self.assertEqual(self.json_call("PUT", f"/v1/memories/{target}/", {"text": ""})[0], 400)
        self.assertEqual(self.json_call("PUT", f"/v1/memories/{target}/", {"text": "x"},
                                        key="wrong")[0], 401)
        unknown = "11111111-2222-4333-8444-555555555555"
        self.assertEqual(self.json_call("PUT", f"/v1/memories/{unknown}/", {"text": "x"}),
                         (404, {"error": "Memory not found!"}))
        self.assertEqual({m["id"]: m for m in self.srv.memories()}[target]["memory"],
                         SEED[0]["memory"])


SHARED_AGENT = "acme-billing-0123456789"
SHARED = [
    mem(11, "sigma shared by the team", user=None, typ=None),
    mem(12, "sigma shared under the plain app id", user=None, typ=None),
    mem(13, "sigma personal note"),
    mem(14, "sigma of another project's team", user=None, app="other-project", typ=None),
]
SHARED[0]["agent_id"] = SHARED_AGENT
SHARED[1]["agent_id"] = APP
SHARED[3]["agent_id"] = "other-project-9876543210"
BOTH_LAYOUTS = {"OR": [{"AND": [{"user_id": U}, {"app_id": APP}]},
                       {"AND": [{"agent_id": SHARED_AGENT}, {"app_id": APP}]},
                       {"AND": [{"agent_id": APP}, {"app_id": APP}]}]}


class SharedMemoryFilters(WriteTest):
    """Mem0's newer plugin files shared project memory under an agent_id: memories under an agent_id with no user_id, found through OR filters."""

    def setUp(self):
        super().setUp()
        self.srv.seed(SHARED)

    def found(self, filters, query="sigma"):
        status, data = self.search(query=query, filters=filters, threshold=0)
        self.assertEqual(status, 200, data)
        return sorted(int(r["id"][-3:]) for r in data["results"])

    def test_or_of_both_layouts_finds_personal_and_shared(self):
        self.assertEqual(self.found(BOTH_LAYOUTS), [11, 12, 13])
        self.assertEqual(self.list(BOTH_LAYOUTS)[1]["count"], 3)

    def test_user_filter_alone_misses_the_shared_part(self):
        self.assertEqual(self.found(PROJECT), [13])
        self.assertEqual(self.found({"AND": [{"agent_id": SHARED_AGENT}, {"app_id": APP}]}),
                         [11])

    def test_nested_and_wildcard_leaves(self):
        self.assertEqual(self.found({"AND": [{"app_id": APP}, {"OR": [
            {"user_id": U}, {"agent_id": SHARED_AGENT}]}]}), [11, 13])
        self.assertEqual(self.found({"AND": [{"agent_id": "*"}, {"app_id": APP}]}), [11, 12])
        self.assertEqual(self.found({"AND": [{"agent_id": "*"}, {"user_id": "*"},
                                             {"app_id": APP}]}), [])

    def test_added_shared_memory_is_found_by_the_or_filter(self):
        status, answer = self.add({"messages": [{"role": "assistant", "content": "sigma added"}],
                                   "agent_id": SHARED_AGENT, "app_id": APP, "infer": False})
        self.assertEqual(status, 200, answer)
        self.assertEqual(self.list(BOTH_LAYOUTS)[1]["count"], 4)
        self.assertNotIn(answer["results"][0]["id"],
                         [r["id"] for r in self.search(query="sigma", filters=PROJECT)[1]
                          ["results"]])


class Plugin03Layout(WriteTest):
    """What Mem0's 0.3 plugins send: `latest_only`, categories and directories in filters, run
    ids, and the team add the Platform classifies (the stand-in's rule: memstore.py)."""

    def setUp(self):
        super().setUp()
        self.srv.seed([
            seeds.plugin03_memory("p03-001", "sigma api handler", app=APP, run_id="r-1",
                                  agent=SHARED_AGENT, dirs=["api"],
                                  categories=["decisions_and_constraints"]),
            seeds.plugin03_memory("p03-002", "sigma web page", app=APP, run_id="r-2",
                                  agent=SHARED_AGENT, dirs=["web", "web/ui"]),
            seeds.plugin03_memory("p03-003", "sigma superseded", app=APP, run_id="r-1",
                                  agent=SHARED_AGENT, latest=False),
            seeds.plugin03_memory("p03-004", "sigma mine", app=APP, run_id="r-3", user=U)])

    def found(self, filters, **extra):
        status, data = self.search(query="sigma", filters=filters, threshold=0, **extra)
        self.assertEqual(status, 200, data)
        return sorted(r["id"] for r in data["results"])

    def test_run_ids_do_not_hide_memories_from_filters_without_one(self):
        self.assertEqual(self.found(BOTH_LAYOUTS),
                         ["p03-001", "p03-002", "p03-003", "p03-004"])
        self.assertEqual(self.found({"AND": [BOTH_LAYOUTS, {"run_id": "r-1"}]}),
                         ["p03-001", "p03-003"])

    def test_latest_only_leaves_out_replaced_versions(self):
        self.assertNotIn("p03-003", self.found(BOTH_LAYOUTS, latest_only=True))
        self.assertEqual(self.search(query="sigma", filters=BOTH_LAYOUTS,
                                     latest_only="yes")[0], 400)

    def test_categories_and_dirs_contains(self):
        self.assertEqual(self.found({"AND": [BOTH_LAYOUTS, {"categories": {
            "contains": "decisions_and_constraints"}}]}), ["p03-001"])
        self.assertEqual(self.found({"AND": [BOTH_LAYOUTS, {"metadata": {
            "dirs": {"contains": "web/ui"}}}]}), ["p03-002"])
        self.assertEqual(self.found({"AND": [BOTH_LAYOUTS, {"metadata": {
            "dirs": {"contains": "web/u"}}}]}), [])
        for bad in ({"categories": "x"}, {"metadata": {"dirs": {"in": "x"}}}):
            self.assertEqual(self.search(filters={"AND": [PROJECT, bad]})[0], 400, bad)

    def test_the_team_add_is_classified_into_the_lanes(self):
        body = {"messages": [{"role": "user", "content": "I prefer tabs"}], "user_id": U,
                "agent_id": SHARED_AGENT, "app_id": APP, "run_id": "r-9",
                "agent_custom_instructions": "project", "custom_instructions": "personal",
                "custom_categories": [{n: "d"} for n in seeds.PLUGIN03_CATEGORIES]}
        self.assertEqual(self.add(body)[0], 200)
        self.assertEqual(self.add(dict(body, messages=[
            {"role": "assistant", "content": "The build must run in the worker"}]))[0], 200)
        by_text = {m["memory"]: m for m in self.srv.memories()}
        personal, shared = by_text["I prefer tabs"], by_text["The build must run in the worker"]
        self.assertEqual((personal["user_id"], personal.get("agent_id")), (U, None))
        self.assertEqual((shared["user_id"], shared["agent_id"], shared["run_id"]),
                         (None, SHARED_AGENT, "r-9"))
        self.assertEqual(shared["categories"], ["decisions_and_constraints"])
        self.assertEqual(self.add(dict(body, custom_categories=["x"]))[0], 400)


if __name__ == "__main__":
    testmain.main()
