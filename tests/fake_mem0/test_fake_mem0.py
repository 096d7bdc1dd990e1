#!/usr/bin/env python3
"""Self-test of the fake Mem0 server: python3 tests/fake_mem0/test_fake_mem0.py"""

import http.client
import json
import os
import socket
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from fakelib import SAMPLE_SEED, FakeMem0  # noqa: E402
import testmain  # noqa: E402

U = "demo"
APP = "acme-billing"


def mem(n, text, user=U, app=APP, typ="convention", run=None, created="2026-10-01T00:00:00Z"):
    return {"id": f"00000000-0000-4000-8000-{n:012d}", "memory": text, "user_id": user,
            "app_id": app, "run_id": run, "metadata": {"type": typ} if typ else None,
            "categories": [], "created_at": created}


SEED = [
    mem(1, "alpha", created="2026-10-01T00:00:00Z"),
    mem(2, "alpha beta gamma delta", created="2026-10-02T00:00:00Z", typ="decision"),
    mem(3, "alpha beta", user="someone-else", created="2026-10-03T00:00:00Z"),
    mem(4, "alpha zeta", app="other-project", run="run-1", created="2026-10-04T00:00:00Z"),
    mem(5, "alpha omega", typ=None, created="2026-10-05T00:00:00Z"),
    mem(6, "epsilon", created="2026-10-06T00:00:00Z"),
]


class ServerTest(unittest.TestCase):
    """One fake server per class (seeded with SEED, logging to a file); every test starts with
    SEED stored, no knobs and an empty request log."""

    @classmethod
    def setUpClass(cls):
        cls.log_path = tempfile.mktemp(prefix="fake_mem0_log_", suffix=".jsonl")
        cls.srv = FakeMem0(seed=SEED, log_file=cls.log_path).start()

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        if os.path.exists(cls.log_path):
            os.unlink(cls.log_path)

    def setUp(self):
        self.srv.control()
        self.srv.seed(SEED)
        self.srv.reset()

    # -- utilities -----------------------------------------------------------
    def conn(self, timeout=5):
        return http.client.HTTPConnection("127.0.0.1", self.srv.port, timeout=timeout)

    def call(self, method, path, body=None, key="m0-test-key", timeout=5):
        headers = {"Authorization": f"Token {key}"} if key else {}
        return self.srv.call(method, path, body, headers, timeout)

    def search(self, query="alpha beta gamma", filters=None, threshold=0.2, **extra):
        body = {"query": query, "filters": filters or {"user_id": U}, "threshold": threshold,
                **extra}
        resp, data = self.call("POST", "/v3/memories/search/", body)
        return resp.status, json.loads(data)

    def ids(self, **kw):
        status, data = self.search(**kw)
        self.assertEqual(status, 200, data)
        return [int(r["id"][-3:]) for r in data["results"]]


class FakeMem0Test(ServerTest):
    # -- API -------------------------------------------------------------------
    def test_auth(self):
        for key in ("wrong", None):
            resp, data = self.call("POST", "/v3/memories/search/",
                                   {"query": "alpha", "filters": {"user_id": U}}, key=key)
            self.assertEqual(resp.status, 401)
            self.assertEqual(json.loads(data), {"detail": "Invalid API key"})
        resp, _ = self.call("GET", "/v1/ping/", key="wrong")
        self.assertEqual(resp.status, 401)

    def test_ping_and_not_found(self):
        resp, data = self.call("GET", "/v1/ping/")
        self.assertEqual((resp.status, json.loads(data)),
                         (200, {"status": "ok", "user_email": "dev@example.com"}))
        resp, data = self.call("GET", "/v2/nothing/")
        self.assertEqual((resp.status, json.loads(data)), (404, {"detail": "Not found"}))
        resp, _ = self.call("PUT", "/v1/ping/")
        self.assertEqual(resp.status, 404)
        self.assertEqual([(r["endpoint"], r["status"]) for r in self.srv.requests()],
                         [("ping", 200), (None, 404), (None, 404)])

    def test_filters(self):
        self.assertEqual(self.ids(query="alpha", filters={"user_id": U}), [1, 5, 4, 2])
        self.assertEqual(self.ids(query="alpha", filters={"AND": [{"user_id": U}, {"app_id": APP}]}),
                         [1, 5, 2])
        self.assertEqual(self.ids(query="alpha", filters={"OR": [{"user_id": "someone-else"},
                                                                 {"app_id": "other-project"}]}),
                         [4, 3])
        self.assertEqual(self.ids(query="alpha", filters={"AND": [{"user_id": U}, {"run_id": "*"}]}),
                         [4])
        self.assertEqual(self.ids(query="alpha", filters={"AND": [{"user_id": U}, {"run_id": "run-1"}]}),
                         [4])
        self.assertEqual(self.ids(query="alpha", filters={"AND": [
            {"user_id": U}, {"app_id": APP}, {"metadata": {"type": "decision"}}]}), [2])
        self.assertEqual(self.ids(query="alpha", filters={"AND": [
            {"user_id": U}, {"OR": [{"metadata": {"type": "decision"}},
                                    {"metadata": {"type": "convention"}}]}]}), [1, 4, 2])
        self.assertEqual(self.ids(query="alpha", filters={"AND": [{"user_id": U}, {"agent_id": "*"}]}),
                         [])

    def test_bad_requests(self):
        for filters in ({"OR": [{"user_id": "*"}]}, {"AND": [{"app_id": "*"}, {"metadata": {"type": "x"}}]},
                        {"color": "red"}, {"AND": []}, {"user_id": 5}):
            status, data = self.search(filters=filters)
            self.assertEqual(status, 400, filters)
            self.assertIn("detail", data)
        status, data = self.search(filters={"color": "red", "user_id": U})
        self.assertIn("unsupported filter", data["detail"])
        for body in ({"filters": {"user_id": U}}, {"query": "alpha"}, {"query": 3, "filters": {"user_id": U}},
                     {"query": "alpha", "filters": {"user_id": U}, "top_k": 0}, "not json"):
            resp, _ = self.call("POST", "/v3/memories/search/", body)
            self.assertEqual(resp.status, 400, body)

    def test_top_k_and_threshold(self):
        self.assertEqual(self.ids(query="alpha", top_k=2), [1, 5])
        status, data = self.search(query="alpha", filters={"AND": [{"user_id": U}, {"app_id": APP}]})
        self.assertEqual([r["score"] for r in data["results"]], [1.0, 0.5, 0.25])
        self.assertEqual(self.ids(query="alpha", threshold=0.3), [1, 5, 4])
        self.assertEqual(self.ids(query="alpha", threshold=0.6), [1])
        self.assertEqual(self.ids(query="alpha", threshold=0), [1, 5, 4, 2])   # never score 0
        r = self.search(query="alpha")[1]["results"][0]
        self.assertEqual(set(r), {"id", "memory", "user_id", "app_id", "run_id", "metadata",
                                  "categories", "created_at", "updated_at", "score"})

    def test_rerank_changes_order(self):
        flt = {"AND": [{"user_id": U}, {"app_id": APP}]}
        plain = self.search(query="alpha beta gamma", filters=flt)[1]["results"]
        rer = self.search(query="alpha beta gamma", filters=flt, rerank=True)[1]["results"]
        self.assertEqual([r["memory"] for r in plain], ["alpha", "alpha beta gamma delta", "alpha omega"])
        self.assertEqual([r["score"] for r in plain], [1.0, 0.75, 0.5])
        self.assertEqual([r["memory"] for r in rer], ["alpha beta gamma delta", "alpha", "alpha omega"])
        self.assertEqual([r["score"] for r in rer], [1.0, 1 / 3, 1 / 3])

    def test_get_memory(self):
        resp, data = self.call("GET", f"/v1/memories/{SEED[1]['id']}/")
        self.assertEqual(resp.status, 200)
        got = json.loads(data)
        self.assertEqual(got["memory"], "alpha beta gamma delta")
        self.assertNotIn("score", got)
        resp, data = self.call("GET", "/v1/memories/not-a-uuid/")
        self.assertEqual((resp.status, json.loads(data)), (400, {"detail": "Invalid memory id"}))
        resp, data = self.call("GET", "/v1/memories/11111111-2222-4333-8444-555555555555/")
        self.assertEqual((resp.status, json.loads(data)), (404, {"error": "Memory not found!"}))

    def test_seed_defaults(self):
        self.srv.seed([{"memory": "alpha", "user_id": U, "extra": 1}])
        r = self.search(query="alpha")[1]["results"][0]
        self.assertRegex(r["id"], r"^[0-9a-f-]{36}$")
        self.assertTrue(r["created_at"].endswith("Z"))
        self.assertEqual(r["extra"], 1)

    # -- knobs -------------------------------------------------------------------
    def test_status_retry_after_and_error_body(self):
        self.srv.control(status=429, retry_after=7)
        resp, data = self.call("POST", "/v3/memories/search/", {"query": "a", "filters": {"user_id": U}})
        self.assertEqual((resp.status, resp.getheader("Retry-After")), (429, "7"))
        self.assertEqual(json.loads(data), {"detail": "fault injected"})
        self.srv.control(status=502, error_body="<html><body>Bad gateway</body></html>")
        resp, data = self.call("GET", "/v1/ping/")
        self.assertEqual(resp.status, 502)
        self.assertTrue(resp.getheader("Content-Type").startswith("text/html"))
        self.assertIn(b"Bad gateway", data)
        self.assertIsNone(resp.getheader("Retry-After"))

    def test_body_modes(self):
        self.srv.control(mode="garbage")
        self.assertEqual(self.call("GET", "/v1/ping/")[1], b"this is not json <<<")
        self.srv.control(mode="truncated")
        resp, data = self.call("POST", "/v3/memories/search/", {"query": "alpha", "filters": {"user_id": U}})
        self.assertEqual(resp.status, 200)
        self.assertTrue(data.startswith(b'{"results": ['))
        self.assertRaises(ValueError, json.loads, data)
        self.srv.control(mode="empty")
        self.assertEqual(self.search(query="alpha"), (200, {"results": []}))
        self.srv.control(mode="array")
        status, data = self.search(query="alpha")
        self.assertIsInstance(data, list)
        self.assertEqual(data[0]["memory"], "alpha")
        self.srv.control(mode="memories_key")
        status, data = self.search(query="alpha")
        self.assertEqual(list(data), ["memories"])
        self.assertEqual(len(data["memories"]), 4)

    def test_huge(self):
        self.srv.control(mode="huge", huge_mb=1)
        resp, data = self.call("POST", "/v3/memories/search/", {"query": "a", "filters": {"user_id": U}})
        self.assertEqual(int(resp.getheader("Content-Length")), len(data))
        self.assertGreaterEqual(len(data), 1024 * 1024)
        self.assertLess(len(data), 1100 * 1024)
        self.assertIn("results", json.loads(data))

    def test_silent_is_logged_and_times_out(self):
        self.srv.control(mode="silent")
        start = time.monotonic()
        with self.assertRaises((socket.timeout, TimeoutError)):
            self.call("POST", "/v3/memories/search/", {"query": "silent", "filters": {"user_id": U}},
                      timeout=1)
        self.assertLess(time.monotonic() - start, 2)
        reqs = self.srv.requests()
        self.assertEqual(len(reqs), 1)
        self.assertEqual((reqs[0]["status"], reqs[0]["body"]["query"]), (0, "silent"))
        self.srv.control()
        self.assertEqual(self.call("GET", "/v1/ping/")[0].status, 200)

    def test_drip(self):
        self.srv.control(mode="drip")
        c = self.conn(timeout=1.5)
        c.request("GET", "/v1/ping/", headers={"Authorization": "Token m0-test-key"})
        resp = c.getresponse()
        self.assertEqual(resp.status, 200)
        self.assertEqual(resp.read(1), b"{")
        got, deadline = 1, time.monotonic() + 1.5
        while time.monotonic() < deadline:
            got += len(resp.read1(65536))
        self.assertLess(got, 5)                  # about one byte per second
        self.assertLess(got, int(resp.getheader("Content-Length")))
        c.close()

    def test_latency(self):
        self.srv.control(latency_ms=300)
        start = time.monotonic()
        self.assertEqual(self.call("GET", "/v1/ping/")[0].status, 200)
        self.assertGreaterEqual(time.monotonic() - start, 0.3)

    def test_only_type_and_count(self):
        typed = {"AND": [{"user_id": U}, {"metadata": {"type": "decision"}}]}
        self.srv.control(status=500, only_type="decision")
        self.assertEqual(self.search(query="alpha", filters=typed)[0], 500)
        self.assertEqual(self.search(query="alpha")[0], 200)
        self.assertEqual(self.call("GET", "/v1/ping/")[0].status, 200)
        self.srv.control(status=503, only_type="untyped")
        self.assertEqual(self.search(query="alpha", filters=typed)[0], 200)
        self.assertEqual(self.search(query="alpha")[0], 503)
        self.srv.control(status=500, count=2)
        self.assertEqual([self.call("GET", "/v1/ping/")[0].status for _ in range(4)],
                         [500, 500, 200, 200])
        self.srv.control(mode="empty", only_type="decision", count=1)
        self.assertEqual(self.search(query="alpha")[1]["results"][0]["memory"], "alpha")
        self.assertEqual(self.search(query="alpha", filters=typed)[1], {"results": []})
        self.assertEqual(len(self.search(query="alpha", filters=typed)[1]["results"]), 1)

    def test_bad_knobs_rejected(self):
        for knobs in ({"mode": "nope"}, {"stauts": 500}, {"count": -1}):
            resp, _ = self.call("POST", "/_control", knobs, key=None)
            self.assertEqual(resp.status, 400, knobs)

    def test_log(self):
        self.search(query="alpha")
        self.call("POST", "/v3/memories/search/", "{broken", key="wrong")
        reqs = self.srv.requests()
        self.assertEqual([r["status"] for r in reqs], [200, 401])
        self.assertEqual([r["endpoint"] for r in reqs], ["search", "search"])
        self.assertEqual(reqs[0]["headers"]["authorization"], "Token m0-test-key")
        self.assertEqual(reqs[0]["body"]["filters"], {"user_id": U})
        self.assertEqual(reqs[1]["raw_body"], "{broken")
        self.assertIsNone(reqs[1]["body"])
        self.assertEqual(self.srv.searches(), [reqs[0]["body"], None])
        with open(self.log_path, encoding="utf-8") as fh:
            lines = [json.loads(line) for line in fh]
        self.assertEqual(lines[-2:], reqs)
        self.srv.reset()
        self.assertEqual(self.srv.requests(), [])


class LifecycleTest(unittest.TestCase):
    def test_sample_seed_and_clean_stop(self):
        with FakeMem0(seed=SAMPLE_SEED, api_key="k2", latency_ms=50) as srv:
            c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5)
            body = {"query": "Why does the Stripe webhook handler crash with KeyError customer "
                             "when retrying invoices?",
                    "filters": {"AND": [{"user_id": "demo"}, {"app_id": "acme-billing"}]},
                    "top_k": 5, "threshold": 0.3}
            c.request("POST", "/v3/memories/search/", json.dumps(body),
                      {"Authorization": "Token k2"})
            results = json.loads(c.getresponse().read())["results"]
            self.assertGreaterEqual(len(results), 3)
            self.assertTrue(all(r["user_id"] == "demo" and r["app_id"] == "acme-billing"
                                for r in results))
            self.assertIn("KeyError", results[0]["memory"])
            c.close()
            srv.control(mode="silent")          # a hanging handler must not block shutdown
            s = socket.create_connection(("127.0.0.1", srv.port))
            s.sendall(b"GET /v1/ping/ HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
            time.sleep(0.2)
            start = time.monotonic()
        self.assertEqual(srv.returncode, 0)
        self.assertLess(time.monotonic() - start, 2)
        s.close()


if __name__ == "__main__":
    testmain.main()
