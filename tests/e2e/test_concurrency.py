"""Hardening: many hook processes of one session at once, and processes killed mid-write.

docs/configuration.md#project-id (project_map.json self-heal keeps every entry), docs/state.md#session-files (session state written atomically
under a lock: concurrent hook processes of one session lose nothing), docs/state.md#daily-counts (daily count).
"""

import collections
import fcntl
import hashlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import unittest
from datetime import datetime, timezone

from hardlib import assert_valid_json_file
from hooklib import BIN_DIR, HookTest, and_terms, memory
import testmain  # noqa: E402
from gitrepo import make_repo
from hookevents import prompt_event, read_event
from loopback import closed_port
from runresult import RunResult

SESSION = "sess-crowd"
CITATION = re.compile(r"\[mem0:([0-9a-f]{8})\]")
REMOTE_URL = "git@github.com:acme/widgets.git"
REMOTE_KEY = "remote:" + hashlib.sha256(REMOTE_URL.encode()).hexdigest()[:16]
REMOTE_PROJECT = "proj-widgets"
TEMP_FILE = re.compile(r"^\..+\.[A-Za-z0-9]{6}$")  # write_file_atomic's mkstemp names


def mem_id(i):
    return f"{i:08x}-cccc-4ccc-8ccc-{i:012x}"


# Memory i mentions module i, so each file's lookup ranks "its" memory first and the others
# after it: the 20 lookups compete for overlapping sets of ids.
SEED = [memory(mem_id(i), f"src py mod{i} note", "convention",
               created=f"2026-11-{1 + i:02d}T10:00:00Z") for i in range(20)]


def today():
    return datetime.now(timezone.utc).strftime("%Y-%m-%d")


def run_all(jobs):
    """Start every (argv, stdin bytes, env, cwd) job before feeding any, then collect them all.
    Returns their RunResults in job order (elapsed: from the start of all to each exit)."""
    start = time.monotonic()
    procs = [subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=env, cwd=cwd)
             for argv, _, env, cwd in jobs]
    results = [None] * len(procs)

    def feed(i):
        out, err = procs[i].communicate(jobs[i][1], timeout=60)
        results[i] = RunResult(procs[i].returncode, out, err, time.monotonic() - start)

    threads = [threading.Thread(target=feed, args=(i,)) for i in range(len(procs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


class CrowdTest(HookTest):
    seed = SEED

    def mem0_dir(self, *parts):
        return os.path.join(self.home, ".mem0", *parts)

    def searches_today(self):
        """Today's automatic searches as `mem0-hooks doctor` reports them (doctor's own search
        is not one of them, but reaches the server: count the server's first)."""
        doctor = subprocess.run([os.path.join(BIN_DIR, "mem0-hooks"), "doctor"],
                                capture_output=True, text=True, env=self.env(), cwd=self.project,
                                timeout=60)
        found = re.search(r"(\d+) automatic searche?s? today", doctor.stdout)
        self.assertIsNotNone(found, doctor.stdout)
        return int(found.group(1))

    def session_file(self, session=SESSION):
        return self.mem0_dir("state", "sessions", session + ".json")

    def job(self, hook, payload, env=None):
        """(argv, stdin, env, cwd) of one hook run, in the payload's cwd."""
        return ([os.path.join(BIN_DIR, hook)], json.dumps(payload).encode(), env or self.env(),
                payload["cwd"])

    def prompt_job(self, text, env=None, cwd=None, session=SESSION):
        return self.job("on_user_prompt",
                        prompt_event(text, session_id=session, cwd=cwd or self.project), env)

    def read_job(self, path, env=None, cwd=None, session=SESSION):
        return self.job("on_file_read",
                        read_event(path, session_id=session, cwd=cwd or self.project), env)

    def make_file(self, rel, size=4000, root=None):
        path = os.path.join(root or self.project, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("x" * size)
        return path

    def assert_all_ok(self, results):
        for result in results:
            self.assertEqual(result.returncode, 0, result.stderr[-300:])
            if result.stdout:
                self.assert_one_json_object(result.stdout)


class OneSessionCrowd(CrowdTest):
    def test_twenty_parallel_hooks_inject_each_memory_once_and_lose_no_update(self):
        self.fake.control(latency_ms=150)  # every search in flight at once, answers together
        files = [self.make_file(f"src/mod{i}/file.py") for i in range(15)]
        jobs = [self.read_job(path) for path in files]
        jobs += [self.prompt_job(f"Which src py note applies to mod{j} and mod{j + 5} today?")
                 for j in range(5)]
        random.Random(7).shuffle(jobs)
        results = run_all(jobs)
        self.assert_all_ok(results)

        printed = collections.Counter()
        for result in results:
            if result.stdout:
                printed.update(CITATION.findall(result.context()))
        self.assertTrue(printed, "no memory was injected at all")
        self.assertEqual([i for i, n in printed.items() if n > 1], [],
                         "a memory was injected twice in one session")

        state = assert_valid_json_file(self, self.session_file())
        injected = state["injected"]
        self.assertEqual(len(injected), len(set(injected)), "duplicate ids in the session file")
        self.assertEqual({i[:8] for i in injected}, set(printed))
        self.assertEqual(state["prompts"], 5, "a prompt count update was lost")
        self.assertEqual(len(state["files"]), 15, "a file lookup record was lost")
        assert_valid_json_file(self, self.mem0_dir("state", "usage.json"))
        self.assertEqual(len(self.fake.searches()), 20)
        self.assertEqual(self.searches_today(), 20, "a daily search count update was lost")

    def test_a_hundred_runs_at_once_count_every_search_sent(self):
        # Each run in its own session, so that every one searches; the count is what doctor
        # shows, against what the server received.
        jobs = [self.prompt_job(f"Which src py note applies to module number {i} today?",
                                session=f"crowd-{i}") for i in range(100)]
        results = run_all(jobs)
        self.assert_all_ok(results)
        received = len(self.fake.searches())
        # A search counts once sent; one cut by the deadline before the server had it (a crowd on
        # a slow build) is counted and not received, and says so in its run's log. On a sanitizer
        # build with two cores every search may be cut (and the cuts start a back-off pause).
        cut = sum(r.stderr.count(b"failed: timeout") for r in results)
        self.assertGreater(received + cut, 0, "no run searched")
        counted = self.searches_today()
        self.assertGreaterEqual(counted, received, "a daily search count was lost")
        self.assertLessEqual(counted, received + cut, "a search was counted twice")


class ProjectMapCrowd(CrowdTest):
    ORIGINAL = {**{f"/srv/checkouts/app{i}": f"proj-app{i}" for i in range(10)},
                REMOTE_KEY: REMOTE_PROJECT,
                "remote:0123456789abcdef": "proj-other"}

    def test_twenty_parallel_self_heals_keep_every_entry(self):
        os.makedirs(self.mem0_dir())
        with open(self.mem0_dir("project_map.json"), "w") as f:
            json.dump(self.ORIGINAL, f, indent=2)
        env = self.env(MEM0_PROJECT_ID=None)
        cwds, jobs = [], []
        for i in range(20):
            repo = make_repo(os.path.join(self.home, "repos", f"widgets-{i}"), origin=REMOTE_URL)
            cwd = os.path.join(repo, "pkg")
            os.makedirs(cwd)
            cwds.append(cwd)
            if i % 2:
                path = self.make_file(f"src/mod{i}/file.py", root=repo)
                jobs.append(self.read_job(path, env=env, cwd=cwd, session=f"map-{i}"))
            else:
                jobs.append(self.prompt_job("Which src py note applies to the widgets repo?",
                                            env=env, cwd=cwd, session=f"map-{i}"))
        results = run_all(jobs)
        self.assert_all_ok(results)

        # A heal waits for the map's lock a second at most (a crowd on a slow sanitizer build may
        # wait longer): a run that gave up says so, and a later run heals.
        mapping = assert_valid_json_file(self, self.mem0_dir("project_map.json"))
        skipped = [i for i, r in enumerate(results) if b"project_map.json not updated" in r.stderr]
        for i, cwd in enumerate(cwds):
            if i not in skipped:
                self.assertEqual(mapping.get(cwd), REMOTE_PROJECT, f"cwd key {cwd} lost silently")
        self.assertLess(len(skipped), len(cwds), "no heal got the lock")
        for i in skipped:
            self.assert_all_ok(run_all([jobs[i]]))

        mapping = assert_valid_json_file(self, self.mem0_dir("project_map.json"))
        for key, value in self.ORIGINAL.items():
            self.assertEqual(mapping.get(key), value, f"entry {key} lost or changed")
        for cwd in cwds:
            self.assertEqual(mapping.get(cwd), REMOTE_PROJECT, f"cwd key {cwd} lost")
        self.assertEqual(len(mapping), len(self.ORIGINAL) + len(cwds))
        apps = {and_terms(s["filters"])[1]["app_id"] for s in self.fake.searches()}
        self.assertEqual(apps, {REMOTE_PROJECT})


    def test_a_heal_that_cannot_get_the_lock_says_so_and_a_later_run_heals(self):
        os.makedirs(self.mem0_dir())
        with open(self.mem0_dir("project_map.json"), "w") as f:
            json.dump(self.ORIGINAL, f, indent=2)
        repo = make_repo(os.path.join(self.home, "repos", "widgets"), origin=REMOTE_URL)
        job = self.prompt_job("Which src py note applies to the widgets repo?",
                              env=self.env(MEM0_PROJECT_ID=None), cwd=repo, session="held")
        with open(self.mem0_dir("project_map.json.lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            held, = run_all([job])
        self.assert_all_ok([held])
        self.assertIn(b"project_map.json not updated: lock busy", held.stderr)
        self.assertEqual(assert_valid_json_file(self, self.mem0_dir("project_map.json")),
                         self.ORIGINAL)
        self.assert_all_ok(run_all([job]))
        mapping = assert_valid_json_file(self, self.mem0_dir("project_map.json"))
        self.assertEqual(mapping, {**self.ORIGINAL, repo: REMOTE_PROJECT})


class KilledMidWrite(CrowdTest):
    ITERATIONS = 200

    def state_files(self):
        return {"session": self.session_file(),
                "usage": self.mem0_dir("state", "usage.json"),
                "backoff": self.mem0_dir("state", "backoff.json"),
                "project_map": self.mem0_dir("project_map.json")}

    def watch(self, stop, torn, versions):
        """Re-read every state file until stopped; any unparsable read is a torn file."""
        while not stop.is_set():
            for name, path in self.state_files().items():
                try:
                    with open(path, "rb") as f:
                        inode = os.fstat(f.fileno()).st_ino
                        raw = f.read()
                except FileNotFoundError:
                    continue
                versions[name].add(inode)
                try:
                    if not isinstance(json.loads(raw), dict):
                        torn.append((name, raw[:120]))
                except ValueError:
                    torn.append((name, raw[:120]))
            time.sleep(0.0005)

    def test_sigkill_at_random_moments_never_leaves_a_torn_state_file(self):
        os.makedirs(self.mem0_dir())
        with open(self.mem0_dir("project_map.json"), "w") as f:
            json.dump({REMOTE_KEY: REMOTE_PROJECT, "/srv/keep": "proj-keep"}, f)
        repo = make_repo(os.path.join(self.home, "repos", "widgets"), origin=REMOTE_URL)
        files = [self.make_file(f"src/mod{i}/file.py", root=repo) for i in range(20)]
        down = self.env(MEM0_PROJECT_ID=None, MEM0_BASE_URL=f"http://127.0.0.1:{closed_port()}")
        up = self.env(MEM0_PROJECT_ID=None)

        stop, torn = threading.Event(), []
        versions = collections.defaultdict(set)
        watcher = threading.Thread(target=self.watch, args=(stop, torn, versions))
        watcher.start()
        rng = random.Random(20261129)
        outcomes = collections.Counter()
        try:
            # Kill at a uniformly random moment of a whole run (0 to 1.2 × a measured run), so
            # that every phase, each of the four writes included, is hit many times.
            durations = []
            for _ in range(3):
                started = time.monotonic()
                run_all([self.prompt_job("Which src py note applies to mod1 now?", env=up,
                                         cwd=repo, session="sess-calibrate")])
                durations.append(time.monotonic() - started)
            max_delay = 1.2 * sorted(durations)[1]
            for i in range(self.ITERATIONS):
                cwd = os.path.join(repo, f"dir{i}")  # a new cwd key for the project map
                os.makedirs(cwd)
                env = down if i % 4 == 3 else up  # failures rewrite backoff.json too
                if i % 2:
                    job = self.read_job(files[i % len(files)], env=env, cwd=cwd)
                else:
                    job = self.prompt_job(f"Which src py note applies to mod{i % 20} now?",
                                          env=env, cwd=cwd)
                argv, data, env, cwd = job
                proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, env=env, cwd=cwd)
                try:
                    proc.stdin.write(data)
                    proc.stdin.close()
                except BrokenPipeError:
                    pass
                time.sleep(rng.uniform(0, max_delay))
                proc.send_signal(signal.SIGKILL)  # this process only, by its own handle
                code = proc.wait(timeout=30)
                outcomes["killed" if code == -signal.SIGKILL else "finished"] += 1
        finally:
            stop.set()
            watcher.join()

        self.assertEqual(torn, [], "a reader saw a torn state file")
        for name, path in self.state_files().items():
            with self.subTest(file=name):
                self.assertTrue(os.path.exists(path), f"{name} was never written")
                assert_valid_json_file(self, path)
        injected = assert_valid_json_file(self, self.session_file())["injected"]
        self.assertEqual(len(injected), len(set(injected)))
        mapping = assert_valid_json_file(self, self.mem0_dir("project_map.json"))
        self.assertEqual(mapping.get("/srv/keep"), "proj-keep")
        self.assertEqual(mapping.get(REMOTE_KEY), REMOTE_PROJECT)

        leftovers = [os.path.join(d, n) for d, _, names in os.walk(self.mem0_dir())
                     for n in names if TEMP_FILE.match(n)]
        print(f"\n{self.ITERATIONS} runs, killed after 0-{max_delay * 1000:.0f} ms: "
              f"{outcomes['killed']} killed, "
              f"{outcomes['finished']} finished; file versions seen: "
              f"{ {k: len(v) for k, v in sorted(versions.items())} }; "
              f"temporary files left behind: {len(leftovers)}", file=sys.stderr)
        self.assertGreater(outcomes["killed"], self.ITERATIONS // 10, "too few runs were killed")

        # Whatever was interrupted, the next run works normally: no stale lock, no bad state.
        argv, data, _, _ = self.prompt_job("Which src py note applies to mod3 today?",
                                           session="sess-after")
        final = subprocess.run(argv, input=data, capture_output=True, env=up, cwd=repo,
                               timeout=30)
        self.assertEqual(final.returncode, 0)
        self.assertNotIn(b"not saved", final.stderr)
        self.assertNotIn(b"not updated", final.stderr)


if __name__ == "__main__":
    testmain.main()
