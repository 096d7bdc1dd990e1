"""Run the built hook executables the way Claude Code does: JSON on stdin, env, cwd."""

import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fake_mem0"))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))

from fakelib import FakeMem0  # noqa: E402
from runresult import RunResult, assert_one_json_object  # noqa: E402
import seeds  # noqa: E402
from waiting import wait_until  # noqa: E402

BIN_DIR = os.environ.get("MEM0_BIN_DIR", os.path.join(HERE, "..", "..", "build", "bin"))
# What runs the executables of another architecture (scripts/test.sh --arm64: qemu-aarch64-static).
EXEC_WRAPPER = shlex.split(os.environ.get("MEM0_EXEC_WRAPPER", ""))
SANITIZED = bool(os.environ.get("MEM0_TEST_SANITIZED"))  # set by CTest for sanitizer builds
# docs/failures.md#exit-status-and-output: a hook exits within its budget + 100 ms. A sanitized
# build also runs every destructor and the leak check at exit (finish in runtime/runner.cpp), which
# the release build skips: 300 ms there.
EXIT_SLACK_S = 0.300 if SANITIZED else 0.100
USER = "tester"
PROJECT = "proj-e2e"


def shell_quote(word):
    """`word` as the hooks and install quote it for a shell (util/strings.hpp shell_quote): as
    it is when it holds only A-Za-z0-9/._+:@%-, else in single quotes."""
    if word and re.fullmatch(r"[A-Za-z0-9/._+:@%-]+", word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"


def memory(mem_id, text, mtype=None, user=USER, app=PROJECT, **fields):
    """A seed memory of the test's user and project on the Platform (tests/lib/seeds.py)."""
    return seeds.memory(mem_id, text, mtype, user=user, project=app, **fields)


def and_terms(filters):
    """The AND list of a search's filters; of the project scope's OR of the three layouts, the
    first branch, the user's own memories (docs/api.md#filters)."""
    if "OR" in filters:
        filters = filters["OR"][0]
    return filters["AND"]


def shared_agent(app, origin=None, root=None):
    """The agent id of a project's shared memory as Mem0's newer plugin computes it: from the
    normalised origin url, else from the real path of the repository root."""
    if origin is not None:
        return f"{app}-{hashlib.sha256(origin.encode()).hexdigest()[:10]}"
    real = os.path.realpath(root).encode()
    return f"local-{app}-{hashlib.sha256(real).hexdigest()[:10]}"


def project_filters(user, app, agent):
    """The platform's project-scope filters with shared memory."""
    return {"OR": [{"AND": [{"user_id": user}, {"app_id": app}]},
                   {"AND": [{"agent_id": agent}, {"app_id": app}]},
                   {"AND": [{"agent_id": app}, {"app_id": app}]}]}


class HookTest(unittest.TestCase):
    """Starts one fake Mem0 per test class (of the class's backend flavour) and a fresh HOME per
    test."""

    seed = []
    backend = "platform"

    @classmethod
    def setUpClass(cls):
        cls.fake = FakeMem0(seed=cls.seed, backend=cls.backend).start()

    @classmethod
    def tearDownClass(cls):
        cls.fake.stop()

    def wait_for(self, what, check, timeout=10.0):
        """Poll `check` until it returns a true value, which is returned; fail naming `what`
        after `timeout` seconds."""
        value = wait_until(check, timeout)
        if not value:
            self.fail(f"timed out after {timeout} s waiting for {what}")
        return value

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
        if self.fake.backend != "platform":
            env["MEM0_BACKEND"] = self.fake.backend
        for key in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):  # sanitizer builds
            if key in os.environ:
                env[key] = os.environ[key]
        for key, value in overrides.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = value
        return env

    def run_bin(self, name, data=b"", args=(), env=None, cwd=None, timeout=20, text=False):
        """Run one of the built executables in the project dir: a RunResult. data None: no
        stdin at all (/dev/null); text=True decodes stdout and stderr."""
        start = time.monotonic()
        stdin = {"stdin": subprocess.DEVNULL} if data is None else {"input": data}
        proc = subprocess.run([*EXEC_WRAPPER, os.path.join(BIN_DIR, name), *args],
                              capture_output=True,
                              env=env if env is not None else self.env(),
                              cwd=cwd if cwd is not None else self.project, timeout=timeout,
                              **stdin)
        return RunResult.of(proc, time.monotonic() - start, text=text)

    def run_hook(self, name, payload, env=None, timeout=15):
        """Run a hook with payload (a dict, or raw str/bytes) on stdin; it must exit 0 and
        print nothing or one JSON object for the payload's event."""
        data = payload if isinstance(payload, (bytes, str)) else json.dumps(payload)
        result = self.run_bin(name, data.encode() if isinstance(data, str) else data,
                              env=env, timeout=timeout)
        self.assertEqual(result.returncode, 0, result.stderr)
        if result.stdout:
            self.assert_one_json_object(result.stdout, payload_event(payload))
        return result

    def assert_one_json_object(self, stdout, event=None):
        """One JSON object of the documented shape (runresult.assert_one_json_object)."""
        return assert_one_json_object(stdout, event)


class SenderTest(HookTest):
    """A HookTest with a fake Mem0 of its own per test, so that a sender still running from one
    test never writes into another's record; the test's detached senders are killed at its end."""

    @classmethod
    def setUpClass(cls):
        cls.fake = None

    @classmethod
    def tearDownClass(cls):
        pass

    def setUp(self):
        self.fake = FakeMem0().start()
        self.addCleanup(self.fake.stop)
        super().setUp()
        self.state = os.path.join(self.home, ".mem0", "state")
        self.outbox = os.path.join(self.state, "outbox")
        self.addCleanup(self.stop_senders)

    def senders(self):
        return senders_of(self.home)

    def stop_senders(self):
        return kill_senders(self.home)


def senders_of(home):
    """Pids of a test's detached senders: processes whose environment names its `home`."""
    marker = f"HOME={home}".encode()
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if marker in f.read().split(b"\0") and int(pid) != os.getpid():
                    pids.append(int(pid))
        except OSError:
            pass
    return pids


def kill_senders(home):
    """SIGKILL a test's detached senders (senders_of); how many there were."""
    pids = senders_of(home)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return len(pids)


def payload_event(payload):
    """The hook_event_name of a payload dict when it is a string, else None."""
    name = payload.get("hook_event_name") if isinstance(payload, dict) else None
    return name if isinstance(name, str) else None
