"""The memory console in a real browser (docs/console.md): `mem0-hooks ui` against the Mem0
stand-in of each flavour, after real hook runs, driven in headless Chromium by playwright-core
(pinned, cached like the agent clients: tests/client/npmcache.py). Skipped (exit 77) where
chromium, node or npm is missing.

MEM0_CONSOLE_SHOTS=<dir>: the screenshots of each view go there (docs/console/ keeps them).
"""

import http.client
import json
import re
import os
import shutil
import subprocess
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
sys.path.insert(0, os.path.join(HERE, "..", "client"))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))

import hooklib  # noqa: E402
from hooklib import HookTest, PROJECT  # noqa: E402
import seeds as seedlib  # noqa: E402
from backends import per_backend  # noqa: E402
from hookevents import prompt_event  # noqa: E402
import npmcache  # noqa: E402
import testmain  # noqa: E402

PLAYWRIGHT_VERSION = "1.57.0"
CHROMIUM = os.environ.get("MEM0_CHROMIUM", "/usr/bin/chromium")
SESSION = "console-session-1"


def playwright_modules():
    """The node_modules directory of the pinned playwright-core (installed once, cached)."""
    def find(prefix, _want):
        mods = os.path.join(prefix, "node_modules")
        return mods if os.path.isdir(os.path.join(mods, "playwright-core")) else None
    return npmcache.ensure("playwright-core", "playwright-core", PLAYWRIGHT_VERSION,
                           npmcache.cache_root("MEM0_PLAYWRIGHT_DIR", "playwright-core"), find,
                           log=lambda line: print(line, file=sys.stderr))


def seeds(backend):
    """Five memories of the test's user and project, of four agents."""
    def m(n, text, mtype, agent):
        return seedlib.memory(f"{'3f7a1c2e9b4d5e6f'[n:n + 8]}-0000-4000-8000-00000000000{n}", text, mtype,
                              user=hooklib.USER, project=PROJECT, backend=backend,
                              metadata={"type": mtype, "agent": agent})
    return [
        m(1, "Use PostgreSQL 16 for the billing service", "decision", "claude-code"),
        m(2, "Invoices are retried five times with backoff", "decision", "codex"),
        m(3, "Tabs, not spaces, in the Makefile", "convention", "claude-code"),
        m(4, "The billing tests need a running PostgreSQL", "task_learning", "gemini-cli"),
        m(5, "Never log card numbers", "anti_pattern", "cursor"),
    ]


class ConsoleCase:
    """The cases, for each flavour of the stand-in."""

    def setUp(self):
        super().setUp()
        if not os.path.exists(CHROMIUM):
            self.skipTest(f"no chromium at {CHROMIUM}")
        if not shutil.which("node"):
            self.skipTest("node is not installed")
        try:
            self.modules = playwright_modules()
        except npmcache.Unavailable as e:
            self.skipTest(str(e))

    def start_ui(self, env):
        proc = subprocess.Popen([os.path.join(hooklib.BIN_DIR, "mem0-hooks"), "ui", "--no-open"],
                                cwd=self.project, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        self.addCleanup(proc.wait, 10)
        self.addCleanup(proc.terminate)
        first = proc.stdout.readline().strip()
        self.assertRegex(first, r"^mem0 console: http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{64}$")
        return proc, first.split(" ", 2)[2]

    def get(self, port, path, headers=None):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", path, headers=headers or {})
        res = conn.getresponse()
        body = res.read().decode()
        conn.close()
        return res, body

    def test_console(self):
        env = self.env()
        # Real hook runs: a prompt that recalls the billing memories in one session.
        ran = self.run_hook("on_user_prompt", prompt_event(
            "How do we retry invoices in the billing service with PostgreSQL?",
            session_id=SESSION, cwd=self.project), env=env)
        injected = re.findall(r"\[mem0:([0-9a-f]{8})\]", ran.stdout.decode())
        self.assertTrue(injected, ran.stderr)

        proc, url = self.start_ui(env)
        port = urllib.parse.urlparse(url).port
        token = urllib.parse.parse_qs(urllib.parse.urlparse(url).query)["token"][0]

        # A second ui for the same state directory points at this one.
        second = self.run_bin("mem0-hooks", args=["ui", "--no-open"], env=env, text=True,
                              timeout=10)
        self.assertEqual(second.returncode, 0, second.stderr)
        self.assertEqual(second.stdout.splitlines()[0], "mem0 console: " + url)

        # Who gets in: 401 without the token, 403 for a foreign Host, no CORS, no-store.
        res, _ = self.get(port, "/api/memories")
        self.assertEqual(res.status, 401)
        self.assertEqual(res.getheader("Cache-Control"), "no-store")
        self.assertIsNone(res.getheader("Access-Control-Allow-Origin"))
        res, _ = self.get(port, "/api/memories", {"Host": f"rebound.example:{port}",
                                                  "Authorization": "Bearer " + token})
        self.assertEqual(res.status, 403)
        res, body = self.get(port, "/api/health", {"Authorization": "Bearer " + token})
        self.assertEqual(res.status, 200)
        self.assertIn("'self'", res.getheader("Content-Security-Policy"))
        self.assertNotIn(self.fake.api_key, body)

        mine = self.seed
        probe = {
            "url": url, "chromium": CHROMIUM, "key": self.fake.api_key,
            "filter": "postgresql", "query": "PostgreSQL for the billing service", "edit": mine[1]["id"],
            "editText": "Invoices are retried three times with backoff",
            "forget": mine[2]["id"], "pin": mine[0]["id"], "session": SESSION,
            "shots": os.environ.get("MEM0_CONSOLE_SHOTS") if self.backend == "platform" else None,
        }
        out = subprocess.run(["node", os.path.join(HERE, "browser.js"), json.dumps(probe)],
                             capture_output=True, text=True, timeout=180,
                             env={**os.environ, "NODE_PATH": self.modules})
        self.assertEqual(out.returncode, 0, out.stderr)
        seen = json.loads(out.stdout.strip().splitlines()[-1])
        self.assertNotIn("error", seen, seen.get("error"))

        # The token left the address bar for an HttpOnly, SameSite=Strict cookie.
        self.assertEqual(seen["address"], f"http://127.0.0.1:{port}/")
        self.assertEqual(seen["cookie"], [{"name": "mem0_console", "httpOnly": True,
                                           "sameSite": "Strict"}])
        # Every request stayed on this console; the key was in no answer.
        for request in seen["requests"]:
            self.assertTrue(request.startswith(f"http://127.0.0.1:{port}/"), request)
        self.assertEqual(seen["keyIn"], [])
        self.assertEqual(seen["problems"], [])

        # Memories: all five, filtered at once, searched on Enter through the stand-in.
        self.assertEqual(seen["views"]["memories"], 5)
        self.assertEqual(seen["filtered"], 2)
        self.assertTrue(seen["searched"])
        self.assertTrue(self.fake.searches())
        # Edit and forget reached the stand-in.
        texts = {m["id"]: m["memory"] for m in self.fake.memories()}
        self.assertEqual(texts[mine[1]["id"]], probe["editText"])
        self.assertNotIn(mine[2]["id"], texts)
        # Pin: through the pin command when this build has it, else a line saying why.
        if seen["pin"]["error"]:
            self.assertIn("not pinned: pinning is not available", seen["pin"]["error"])
            self.assertEqual(seen["pin"]["button"], "Pin")
        else:
            self.assertEqual(seen["pin"]["mark"], "pinned")
            stored = {m["id"]: m for m in self.fake.memories()}[mine[0]["id"]]
            self.assertIs(stored["metadata"].get("pinned"), True)

        # Sessions: the run of the prompt hook, with the ids it injected.
        self.assertIn("on_user_prompt", seen["hooks"])
        self.assertTrue(seen["injectedLinks"])
        for link in seen["injectedLinks"]:
            self.assertIn(link, texts.keys() | {mine[2]["id"]})
        for short in injected:
            self.assertTrue(any(link.startswith(short[:8]) for link in seen["injectedLinks"]),
                            (short, seen["injectedLinks"]))

        # Stats: drawn charts, or no figures at all and the line saying why.
        charts = seen["stats"]["charts"]
        if "not available" in seen["stats"]["status"]:
            self.assertEqual(set(charts.values()), {-1})
        else:
            for name, bars in charts.items():
                self.assertGreater(bars, 0, name)
        # Health: doctor's rows, the key masked; Pause and Resume worked.
        self.assertGreater(seen["health"]["rows"], 5)
        self.assertNotIn(self.fake.api_key, seen["health"]["key"])
        self.assertIn("paused by you", seen["health"]["paused"])
        self.assertTrue(seen["hygiene"])

        # Ctrl-C's signal stops it, and the next ui starts anew.
        proc.terminate()
        self.assertEqual(proc.wait(10), 0)


class ConsoleServer(HookTest):
    """The server without a browser: --background, one console per state directory, SIGTERM."""

    def test_background_console_is_found_and_stops_on_sigterm(self):
        env = self.env()
        started = self.run_bin("mem0-hooks", args=["ui", "--no-open", "--background"], env=env,
                               text=True, timeout=10)
        self.assertEqual(started.returncode, 0, started.stderr)
        first = started.stdout.splitlines()[0]
        self.assertRegex(first, r"^mem0 console: http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{64}$")
        state = os.path.join(self.home, ".mem0", "state", "console.json")
        with open(state) as f:
            instance = json.load(f)
        self.addCleanup(lambda: os.path.exists(state) and os.kill(instance["pid"], 15))
        port, token = instance["port"], instance["token"]
        self.assertIn(f":{port}/?token={token}", first)
        again = self.run_bin("mem0-hooks", args=["ui", "--no-open"], env=env, text=True,
                             timeout=10)
        self.assertEqual(again.stdout.splitlines()[0], first)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/api/sessions", headers={"Authorization": "Bearer " + token})
        self.assertEqual(conn.getresponse().status, 200)
        conn.close()
        os.kill(instance["pid"], 15)
        self.wait_for("the console to stop", lambda: not os.path.exists(state))
        fresh = subprocess.Popen([os.path.join(hooklib.BIN_DIR, "mem0-hooks"), "ui", "--no-open"],
                                 cwd=self.project, env=env, stdout=subprocess.PIPE, text=True)
        line = fresh.stdout.readline().strip()
        fresh.terminate()
        self.assertEqual(fresh.wait(10), 0)
        fresh.stdout.close()
        self.assertNotEqual(line, first)  # a new console, with a new token


PlatformConsole, SelfHostedConsole = per_backend("Console", ConsoleCase, HookTest, seed=seeds)


if __name__ == "__main__":
    testmain.main()
