#!/usr/bin/env python3
"""Self-test of the fake Mem0 server's self-hosted flavour (fake_mem0.py --backend selfhosted):
the open-source REST server's X-API-Key auth, paths without trailing slashes, flat filters,
synchronous adds, oldest-first lists, null for an unknown memory, and the knobs on them.

    python3 tests/fake_mem0/test_fake_mem0_selfhosted.py
"""

import hashlib
import http.client
import json
import os
import re
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from fakelib import FakeMem0  # noqa: E402
import testmain  # noqa: E402

U = "demo"
P = "acme-billing-0123456789"       # the agent_id the project's memories are filed under
APP = "acme-billing"
KEY = "m0-test-key"
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
NO_ID = ("filters must contain at least one of: user_id, agent_id, run_id. "
         "Example: filters={'user_id': 'u1'}")
NO_ADD_ID = "At least one identifier (user_id, agent_id, run_id) is required."
MESSAGES = [{"role": "user", "content": "kappa lambda"},
            {"role": "assistant", "content": "mu nu"}]


def mem(n, text, user=U, agent=P, typ="convention", run=None, created="2026-10-01T00:00:00Z"):
    """A seed memory; app_id is set at the top level as a platform memory would have it."""
    m = {"id": f"00000000-0000-4000-8000-{n:012d}", "memory": text, "user_id": user,
         "agent_id": agent, "app_id": APP, "metadata": {"type": typ} if typ else None,
         "created_at": created}
    if run:
        m["run_id"] = run
    return m


SEED = [
    mem(1, "alpha", created="2026-10-01T00:00:00Z"),
    mem(2, "alpha beta gamma delta", created="2026-10-02T00:00:00Z", typ="decision"),
    mem(3, "alpha beta", user="someone-else", created="2026-10-03T00:00:00Z"),
    mem(4, "alpha zeta", agent="other-agent", run="run-1", created="2026-10-04T00:00:00Z"),
    mem(5, "alpha omega", typ=None, created="2026-10-05T00:00:00Z"),
    mem(6, "epsilon", created="2026-10-06T00:00:00Z"),
]
MINE = {"user_id": U}
PROJECT = {"user_id": U, "agent_id": P}


def num(item):
    return int(item["id"][-3:])


class SelfHostedTest(unittest.TestCase):
    """One self-hosted fake per class; every test starts with SEED, no knobs, an empty log."""

    @classmethod
    def setUpClass(cls):
        cls.srv = FakeMem0(seed=SEED, backend="selfhosted").start()

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def setUp(self):
        self.srv.control()
        self.srv.seed(SEED)
        self.srv.reset()

    def call(self, method, path, body=None, headers=None, timeout=5):
        """(response, raw body); the X-API-Key header unless headers are given."""
        headers = {"X-API-Key": KEY} if headers is None else headers
        return self.srv.call(method, path, body, headers, timeout)

    def json_call(self, method, path, body=None, **kw):
        resp, data = self.call(method, path, body, **kw)
        return resp.status, json.loads(data)

    def search(self, query="alpha", filters=None, **extra):
        body = {"query": query, "filters": MINE if filters is None else filters, **extra}
        return self.json_call("POST", "/search", body)

    def ids(self, **kw):
        status, data = self.search(**kw)
        self.assertEqual(status, 200, data)
        return [num(r) for r in data["results"]]

    def add(self, body, **kw):
        return self.json_call("POST", "/memories", body, **kw)

    def list(self, query):
        return self.json_call("GET", "/memories?" + query)

    def stored(self):
        return {m["id"]: m for m in self.srv.memories()}

    def logged(self):
        return [(r["endpoint"], r["status"]) for r in self.srv.requests()]


class Auth(SelfHostedTest):
    def test_token_header_is_401_and_x_api_key_is_the_key(self):
        self.assertEqual(self.search(), self.json_call(
            "POST", "/search", {"query": "alpha", "filters": MINE}))  # the helper's own key
        status, answer = self.json_call("POST", "/search", {"query": "alpha", "filters": MINE},
                                        headers={"Authorization": f"Token {KEY}"})
        self.assertEqual((status, answer), (401, {"detail": "Authentication required. Provide "
                                                            "a Bearer token or X-API-Key header."}))
        status, answer = self.add({"messages": MESSAGES, "user_id": U},
                                  headers={"Authorization": f"Token {KEY}"})
        self.assertEqual(status, 401)
        status, answer = self.add({"messages": MESSAGES, "user_id": U},
                                  headers={"X-API-Key": "wrong"})
        self.assertEqual((status, answer), (401, {"detail": "Invalid API key"}))
        self.assertEqual(len(self.srv.memories()), len(SEED))
        one = f"/memories/{SEED[0]['id']}"
        for method, path in (("GET", "/memories?user_id=demo"), ("GET", one), ("DELETE", one)):
            self.assertEqual(self.call(method, path, headers={})[0].status, 401, path)
        self.assertEqual(len(self.srv.memories()), len(SEED))
        self.assertEqual([s for _, s in self.logged()], [200, 200, 401, 401, 401, 401, 401, 401])


class Paths(SelfHostedTest):
    def test_trailing_slash_is_307_to_the_path_without_it(self):
        target = SEED[0]["id"]
        for method, path, body in (("POST", "/search/", {"query": "alpha", "filters": MINE}),
                                   ("POST", "/memories/", {"messages": MESSAGES, "user_id": U}),
                                   ("GET", "/memories/?user_id=demo", None),
                                   ("GET", f"/memories/{target}/", None),
                                   ("DELETE", f"/memories/{target}/", None)):
            with self.subTest(path):
                resp, data = self.call(method, path, body)
                self.assertEqual((resp.status, data), (307, b""))
                want = f"http://127.0.0.1:{self.srv.port}{path.replace('/?', '?').rstrip('/')}"
                self.assertEqual(resp.getheader("Location"), want)
                self.assertIsNone(resp.getheader("Content-Type"))
        self.assertEqual(self.logged(), [(None, 307)] * 5)   # no call of any endpoint
        self.assertEqual(self.srv.adds(), [])
        self.assertEqual(list(self.stored()), [m["id"] for m in SEED])

    def test_platform_paths_are_not_found_and_other_methods_not_allowed(self):
        for method, path in (("POST", "/v3/memories/search/"), ("POST", "/v3/memories/add/"),
                             ("POST", "/v3/memories/"), ("GET", f"/v1/memories/{SEED[0]['id']}/"),
                             ("GET", "/v1/ping/"), ("GET", "/v1/event/x/"), ("GET", "/")):
            with self.subTest(path):
                status, answer = self.json_call(method, path, {"query": "alpha", "filters": MINE})
                self.assertEqual((status, answer), (404, {"detail": "Not Found"}))
        self.assertEqual(self.json_call("PUT", "/search"),
                         (405, {"detail": "Method Not Allowed"}))
        self.assertEqual(self.json_call("GET", "/search")[0], 405)
        self.assertEqual({e for e, _ in self.logged()}, {None})

    def test_the_platform_flavour_does_not_serve_these_paths(self):
        with FakeMem0() as platform:
            c = http.client.HTTPConnection("127.0.0.1", platform.port, timeout=5)
            c.request("POST", "/search", json.dumps({"query": "alpha", "filters": MINE}),
                      {"X-API-Key": platform.api_key})
            resp = c.getresponse()
            self.assertEqual((resp.status, json.loads(resp.read())),
                             (404, {"detail": "Not found"}))
            c.close()


class Search(SelfHostedTest):
    def test_flat_filters_ids_and_metadata(self):
        self.assertEqual(self.ids(filters=MINE), [1, 5, 4, 2])
        self.assertEqual(self.ids(filters=PROJECT), [1, 5, 2])
        self.assertEqual(self.ids(filters={"agent_id": P}), [1, 5, 3, 2])
        self.assertEqual(self.ids(filters={"run_id": "run-1"}), [4])
        self.assertEqual(self.ids(filters={**PROJECT, "type": "decision"}), [2])
        self.assertEqual(self.ids(filters={**PROJECT, "type": "convention"}), [1])
        self.assertEqual(self.ids(filters={**PROJECT, "type": "nothing"}), [])
        # app_id is no entity here: a metadata key, which these memories do not have
        self.assertEqual(self.ids(filters={**MINE, "app_id": APP}), [])
        self.assertEqual(self.ids(filters={**MINE, "metadata": {"type": "decision"}}), [])

    def test_filters_without_a_top_level_id_are_400(self):
        for filters in ({"AND": [{"user_id": U}, {"app_id": APP}]},
                        {"OR": [{"user_id": U}, {"agent_id": P}]},
                        {"app_id": APP}, {"type": "decision"}, {"user_id": ""},
                        {"user_id": 5}, {}, None):
            with self.subTest(filters=filters):
                self.assertEqual(self.search(filters=filters) if filters is not None else
                                 self.json_call("POST", "/search", {"query": "alpha"}),
                                 (400, {"detail": NO_ID}))
        self.assertEqual([e for e, _ in self.logged()], ["search"] * 8)

    def test_deprecated_top_level_ids_join_the_filters(self):
        status, data = self.json_call("POST", "/search", {"query": "alpha", "user_id": U})
        self.assertEqual((status, [num(r) for r in data["results"]]), (200, [1, 5, 4, 2]))
        self.assertEqual(self.ids(filters={"agent_id": P}, user_id=U), [1, 5, 2])
        self.assertEqual(self.ids(filters={"user_id": "someone-else"}, user_id=U), [1, 5, 4, 2])

    def test_ranking_threshold_and_item_shape(self):
        status, data = self.search(filters=PROJECT)
        self.assertEqual([r["score"] for r in data["results"]], [1.0, 0.5, 0.25])
        self.assertEqual(self.ids(threshold=0.3), [1, 5, 4])
        self.assertEqual(self.ids(threshold=0.6), [1])
        self.assertEqual(self.ids(top_k=2), [1, 5])
        first = data["results"][0]
        self.assertEqual(first, {"id": SEED[0]["id"], "memory": "alpha",
                                 "hash": hashlib.md5(b"alpha").hexdigest(),
                                 "metadata": {"type": "convention"}, "score": 1.0,
                                 "created_at": SEED[0]["created_at"],
                                 "updated_at": SEED[0]["created_at"],
                                 "user_id": U, "agent_id": P})
        run = self.search(filters={"run_id": "run-1"})[1]["results"][0]
        self.assertEqual(run["run_id"], "run-1")
        none = self.search(filters=PROJECT)[1]["results"][1]
        self.assertIsNone(none["metadata"])

    def test_rerank_and_unknown_fields_are_ignored(self):
        query = "alpha beta gamma"
        plain = self.search(query=query, filters=PROJECT)[1]["results"]
        self.assertEqual([(num(r), r["score"]) for r in plain], [(1, 1.0), (2, 0.75), (5, 0.5)])
        status, rer = self.search(query=query, filters=PROJECT, rerank=True, color="red",
                                  app_id=APP)
        self.assertEqual((status, rer["results"]), (200, plain))

    def test_default_top_k_is_20_and_threshold_0_1(self):
        many = [mem(100 + i, f"theta t{i}", created=f"2026-10-01T00:00:{i:02d}Z")
                for i in range(25)]
        nine = "theta " + " ".join(f"w{i}" for i in range(8))     # score 1/9 > 0.1
        eleven = "theta " + " ".join(f"w{i}" for i in range(10))  # score 1/11 < 0.1
        self.srv.seed(many + [mem(200, nine), mem(201, eleven)])
        self.assertEqual(len(self.search(query="theta")[1]["results"]), 20)
        found = self.ids(query="theta", top_k=100)
        self.assertEqual(len(found), 26)
        self.assertIn(200, found)
        self.assertNotIn(201, found)

    def test_malformed_fields_are_422(self):
        for body in ({"filters": MINE}, {"query": "", "filters": MINE},
                     {"query": 3, "filters": MINE}, {"query": "alpha", "filters": [MINE]},
                     {"query": "alpha", "filters": MINE, "top_k": "5"},
                     {"query": "alpha", "filters": MINE, "top_k": 0},
                     {"query": "alpha", "filters": MINE, "threshold": "high"},
                     {"query": "alpha", "filters": {}, "user_id": 5},
                     [{"query": "alpha", "filters": MINE}], "{not json"):
            with self.subTest(body=body):
                status, answer = self.json_call("POST", "/search", body)
                self.assertEqual(status, 422, answer)
                self.assertIsInstance(answer["detail"], list)


class Add(SelfHostedTest):
    def test_add_stores_the_ids_and_metadata_and_ignores_unknown_fields(self):
        body = {"messages": MESSAGES, "user_id": U, "agent_id": P, "app_id": APP,
                "custom_instructions": "Keep decisions only.", "infer": False,
                "metadata": {"type": "decision", "file": "x.py"},
                "expiration_date": "2027-02-28"}
        status, answer = self.add(body)
        self.assertEqual(status, 200, answer)
        self.assertEqual(list(answer), ["results"])
        self.assertEqual([(r["memory"], r["event"]) for r in answer["results"]],
                         [("kappa lambda", "ADD"), ("mu nu", "ADD")])
        stored = self.stored()
        for r in answer["results"]:
            self.assertRegex(r["id"], UUID)
            new = stored[r["id"]]
            self.assertEqual((new["user_id"], new["agent_id"], new["run_id"]), (U, P, None))
            self.assertEqual(new["metadata"], {"type": "decision", "file": "x.py"})
            self.assertEqual(new["expiration_date"], "2027-02-28")
            self.assertNotIn("app_id", new)
            self.assertNotIn("custom_instructions", new)
        self.assertEqual(self.srv.adds(), [body])                 # logged as sent

        ids = [r["id"] for r in answer["results"]]
        self.assertEqual([r["id"] for r in self.search(query="kappa lambda", filters={
            "agent_id": P, "type": "decision"})[1]["results"]], ids[:1])
        status, got = self.json_call("GET", f"/memories/{ids[1]}")
        self.assertEqual((status, got["memory"], got["agent_id"]), (200, "mu nu", P))
        self.assertNotIn("app_id", got)
        self.assertEqual(self.logged(), [("add", 200), ("search", 200), ("get", 200)])

    def test_infer_add_is_synchronous_and_joins_the_messages(self):
        status, answer = self.add({"messages": MESSAGES, "run_id": "sess-9"})
        self.assertEqual(status, 200, answer)
        self.assertEqual(len(answer["results"]), 1)
        result = answer["results"][0]
        self.assertEqual(set(result), {"id", "memory", "event"})
        self.assertEqual((result["memory"], result["event"]), ("kappa lambda\nmu nu", "ADD"))
        self.assertNotIn("event_id", answer)
        new = self.stored()[result["id"]]
        self.assertEqual((new["user_id"], new["agent_id"], new["run_id"]), (None, None, "sess-9"))
        self.assertEqual(new["hash"], hashlib.md5(b"kappa lambda\nmu nu").hexdigest())
        self.assertEqual(self.json_call("GET", "/v1/event/x/")[0], 404)

    def test_an_add_without_an_id_is_400_and_app_id_is_no_id(self):
        for ids in ({}, {"app_id": APP}, {"user_id": None, "agent_id": ""}):
            with self.subTest(ids=ids):
                self.assertEqual(self.add({"messages": MESSAGES, **ids}),
                                 (400, {"detail": NO_ADD_ID}))
        self.assertEqual(len(self.srv.memories()), len(SEED))

    def test_malformed_adds_are_422_and_store_nothing(self):
        ok = {"messages": MESSAGES, "user_id": U}
        for name, body in {
            "messages missing": {"user_id": U},
            "messages a string": dict(ok, messages="kappa"),
            "content a number": dict(ok, messages=[{"role": "user", "content": 5}]),
            "no role": dict(ok, messages=[{"content": "kappa"}]),
            "user_id a number": dict(ok, user_id=5),
            "metadata a string": dict(ok, metadata="decision"),
            "infer a string": dict(ok, infer="yes"),
            "bad expiration": dict(ok, expiration_date="2026-13-01"),
            "body an array": [ok],
            "body not JSON": "{not json",
        }.items():
            with self.subTest(name):
                status, answer = self.add(body)
                self.assertEqual(status, 422, answer)
        self.assertEqual(len(self.srv.memories()), len(SEED))


class ListGetDelete(SelfHostedTest):
    def test_list_is_oldest_first_without_count_or_score(self):
        seed = list(reversed(SEED))              # stored newest first: storage order wins
        self.srv.seed(seed)
        status, page = self.list("user_id=demo")
        self.assertEqual(status, 200, page)
        self.assertEqual(list(page), ["results"])
        self.assertEqual([num(r) for r in page["results"]], [6, 5, 4, 2, 1])
        self.assertNotIn("score", page["results"][0])
        self.assertNotIn("categories", page["results"][0])
        self.srv.seed(SEED)
        self.assertEqual([num(r) for r in self.list("user_id=demo")[1]["results"]],
                         [1, 2, 4, 5, 6])
        self.assertEqual([num(r) for r in self.list(f"user_id=demo&agent_id={P}")[1]
                          ["results"]], [1, 2, 5, 6])
        self.assertEqual([num(r) for r in self.list("user_id=demo&top_k=2")[1]["results"]],
                         [1, 2])
        added = self.add({"messages": MESSAGES, "user_id": U, "infer": False})[1]["results"]
        self.assertEqual([r["id"] for r in self.list("user_id=demo")[1]["results"][-2:]],
                         [r["id"] for r in added])

    def test_bad_lists(self):
        self.assertEqual(self.list(""), (403, {"detail": "Admin role required to list all "
                                                         "memories."}))
        self.assertEqual(self.list("app_id=" + APP)[0], 403)
        for query in ("user_id=demo&top_k=1001", "user_id=demo&top_k=-1",
                      "user_id=demo&top_k=x"):
            self.assertEqual(self.list(query)[0], 422, query)

    def test_get_is_the_memory_or_null(self):
        status, got = self.json_call("GET", f"/memories/{SEED[1]['id']}")
        self.assertEqual((status, got["memory"], got["metadata"]),
                         (200, "alpha beta gamma delta", {"type": "decision"}))
        self.assertNotIn("score", got)
        for unknown in ("11111111-2222-4333-8444-555555555555", "not-a-uuid"):
            resp, data = self.call("GET", f"/memories/{unknown}")
            self.assertEqual((resp.status, data), (200, b"null"))
        self.assertEqual(self.logged(), [("get", 200)] * 3)

    def test_delete(self):
        target = SEED[0]["id"]
        self.assertEqual(self.json_call("DELETE", f"/memories/{target}"),
                         (200, {"message": "Memory deleted successfully"}))
        self.assertNotIn(target, self.stored())
        self.assertEqual(self.call("GET", f"/memories/{target}")[1], b"null")
        self.assertNotIn(1, self.ids())
        self.assertEqual(self.json_call("DELETE", f"/memories/{target}"),
                         (404, {"detail": "Memory not found"}))
        self.assertEqual(self.srv.deletes(), [target, target])

    def test_update(self):
        target = SEED[0]["id"]
        self.assertEqual(self.json_call("PUT", f"/memories/{target}", {"text": "omega new"}),
                         (200, {"message": "Memory updated successfully!"}))
        self.assertEqual(self.stored()[target]["memory"], "omega new")
        unknown = "11111111-2222-4333-8444-555555555555"
        status, answer = self.json_call("PUT", f"/memories/{unknown}", {"text": "x"})
        self.assertEqual(status, 404, answer)
        self.assertEqual(self.json_call("PUT", f"/memories/{target}", {})[0], 400)
        self.assertEqual(self.json_call("PUT", f"/memories/{target}", {"text": 5})[0], 422)
        self.assertEqual(self.stored()[target]["memory"], "omega new")


class Knobs(SelfHostedTest):
    def test_status_only_on_one_endpoint_with_retry_after_and_count(self):
        self.srv.control(status=429, retry_after=7, only_endpoint="add", count=1)
        resp, data = self.call("POST", "/memories", {"messages": MESSAGES, "user_id": U})
        self.assertEqual((resp.status, resp.getheader("Retry-After")), (429, "7"))
        self.assertEqual(json.loads(data), {"detail": "fault injected"})
        self.assertEqual(len(self.srv.memories()), len(SEED))
        self.assertEqual(self.search()[0], 200)
        self.assertEqual(self.add({"messages": MESSAGES, "user_id": U})[0], 200)
        self.assertEqual(self.logged(), [("add", 429), ("search", 200), ("add", 200)])

    def test_only_type_on_flat_filters(self):
        typed = {**PROJECT, "type": "decision"}
        self.srv.control(status=500, only_type="decision")
        self.assertEqual(self.search(filters=typed)[0], 500)
        self.assertEqual(self.search(filters=PROJECT)[0], 200)
        self.srv.control(status=503, only_type="untyped")
        self.assertEqual(self.search(filters=typed)[0], 200)
        self.assertEqual(self.search(filters=PROJECT)[0], 503)

    def test_modes_and_latency(self):
        self.srv.control(mode="empty", only_endpoint="search")
        self.assertEqual(self.search(), (200, {"results": []}))
        self.assertEqual(len(self.list("user_id=demo")[1]["results"]), 5)
        self.srv.control(mode="garbage", only_endpoint="list")
        self.assertEqual(self.call("GET", "/memories?user_id=demo")[1], b"this is not json <<<")
        self.srv.control(latency_ms=300, only_endpoint="delete")
        start = time.monotonic()
        self.assertEqual(self.call("GET", f"/memories/{SEED[0]['id']}")[0].status, 200)
        self.assertLess(time.monotonic() - start, 0.3)
        start = time.monotonic()
        self.assertEqual(self.call("DELETE", f"/memories/{SEED[0]['id']}")[0].status, 200)
        self.assertGreaterEqual(time.monotonic() - start, 0.3)


class AuthDisabled(unittest.TestCase):
    def test_an_empty_key_is_a_server_without_authentication_that_checks_a_sent_key(self):
        with FakeMem0(seed=SEED[:1], backend="selfhosted", api_key="") as srv:
            path = f"/memories/{SEED[0]['id']}"
            self.assertEqual(srv.call("GET", path)[0].status, 200)
            self.assertEqual(srv.call("GET", path, headers={"X-API-Key": "m0-made-up"})[0].status,
                             401)


class InProcess(unittest.TestCase):
    def test_the_server_class_takes_the_backend(self):
        import fake_mem0
        state = fake_mem0.State("k", 0, fake_mem0.normalize_seed(SEED[:1]), backend="selfhosted")
        with fake_mem0.FakeMem0Server(state, "127.0.0.1", 0) as srv:
            c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5)
            c.request("GET", f"/memories?agent_id={P}", headers={"X-API-Key": "k"})
            resp = c.getresponse()
            self.assertEqual([num(r) for r in json.loads(resp.read())["results"]], [1])
            c.close()


if __name__ == "__main__":
    testmain.main()
