"""Run the built hook executables the way Claude Code does: JSON on stdin, env, cwd."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fake_mem0"))

from fakelib import FakeMem0  # noqa: E402

BIN_DIR = os.environ.get("MEM0_BIN_DIR", os.path.join(HERE, "..", "..", "build", "bin"))
USER = "tester"
PROJECT = "proj-e2e"


def memory(mem_id, text, mtype=None, user=USER, app=PROJECT, created="2026-11-20T10:00:00Z",
           categories=None):
    """A seed memory for the fake server."""
    return {"id": mem_id, "memory": text, "user_id": user, "app_id": app,
            "metadata": {"type": mtype} if mtype else None,
            "categories": categories or [], "created_at": created}


class HookResult:
    def __init__(self, proc, elapsed):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.elapsed = elapsed

    def context(self):
        """The additionalContext text, or None when the hook printed nothing."""
        if not self.stdout:
            return None
        obj = json.loads(self.stdout)
        return obj["hookSpecificOutput"]["additionalContext"]


class HookTest(unittest.TestCase):
    """Starts one fake Mem0 per test class and a fresh HOME per test."""

    seed = []

    @classmethod
    def setUpClass(cls):
        cls.fake = FakeMem0(seed=cls.seed).start()

    @classmethod
    def tearDownClass(cls):
        cls.fake.stop()

    def setUp(self):
        self.home = tempfile.mkdtemp(prefix="mem0_e2e_home_")
        self.addCleanup(shutil.rmtree, self.home, True)
        self.project = os.path.join(self.home, "project")
        os.makedirs(self.project)
        self.fake.reset()
        self.fake.control()
        self.fake.seed(self.seed)

    def env(self, **overrides):
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": self.home,
            "USER": USER,
            "MEM0_API_KEY": self.fake.api_key,
            "MEM0_BASE_URL": self.fake.url,
            "MEM0_PROJECT_ID": PROJECT,
        }
        for key in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):  # sanitizer builds
            if key in os.environ:
                env[key] = os.environ[key]
        for key, value in overrides.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = value
        return env

    def run_hook(self, name, payload, env=None, timeout=15):
        data = payload if isinstance(payload, (bytes, str)) else json.dumps(payload)
        if isinstance(data, str):
            data = data.encode()
        start = time.monotonic()
        proc = subprocess.run([os.path.join(BIN_DIR, name)], input=data, capture_output=True,
                              env=env if env is not None else self.env(), cwd=self.project,
                              timeout=timeout)
        result = HookResult(proc, time.monotonic() - start)
        self.assertEqual(result.returncode, 0, result.stderr)
        if result.stdout:
            self.assert_one_json_object(result.stdout)
        return result

    def assert_one_json_object(self, stdout):
        self.assertTrue(stdout.startswith(b"{"), stdout[:80])
        text = stdout.decode("utf-8")  # raises on invalid UTF-8
        obj, end = json.JSONDecoder().raw_decode(text)
        self.assertEqual(text[end:].strip(), "", "trailing output after the JSON object")
        self.assertEqual(set(obj), {"hookSpecificOutput"})
        self.assertNotIn("permissionDecision", text)
        return obj
