#!/usr/bin/env python3
"""Benchmark the built hooks against the fake Mem0 server; prints one table.

Every figure is a median of repeated runs measured in this same run, next to its baseline:
one `curl` POST of the same search to the same server. Usage: bench.py BIN_DIR [RUNS]
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "fake_mem0"))
from fakelib import FakeMem0, SAMPLE_SEED  # noqa: E402

BIN = sys.argv[1]
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 30
PROMPT = ("The Stripe webhook handler in src/billing/webhooks.py crashes:\n"
          "KeyError: 'customer'\nError: invoice retry failed. Why?")


def run(cmd, stdin=b"", env=None, cwd=None):
    """Run once; return the wall time in seconds."""
    start = time.perf_counter()
    subprocess.run(cmd, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=env, cwd=cwd)
    return time.perf_counter() - start


def peak_rss_kib(cmd, stdin, env, cwd):
    """Peak RSS of one run, measured by GNU time: a child forked straight from Python would
    report Python's own resident size as its peak."""
    out = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, input=stdin,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd)
    return int(out.stderr.split()[-1])


def measure(make_cmd, runs=RUNS):
    """make_cmd(i) -> (cmd, stdin, env, cwd). Returns (median ms, peak RSS KiB of one run)."""
    times = [run(*make_cmd(i)) * 1000 for i in range(runs)]
    return statistics.median(times), peak_rss_kib(*make_cmd(runs))


def main():
    work = tempfile.mkdtemp(prefix="mem0_bench_")
    project = os.path.join(work, "billing")
    os.makedirs(os.path.join(project, "src", "billing"))
    big = os.path.join(project, "src", "billing", "invoice.py")
    with open(big, "w") as f:
        f.write("def total(qty, cents):\n    return qty * cents\n" * 100)
    small = os.path.join(project, "setup.py")
    with open(small, "w") as f:
        f.write("x = 1\n")

    with FakeMem0(seed=SAMPLE_SEED, api_key="m0-bench-key") as fake:
        env = {"PATH": os.environ["PATH"], "HOME": work, "USER": "demo",
               "MEM0_API_KEY": fake.api_key, "MEM0_BASE_URL": fake.url,
               "MEM0_PROJECT_ID": "acme-billing"}
        thorough = dict(env, MEM0_SEARCH_PLAN="thorough")

        def prompt(e, text=PROMPT):
            return lambda i: ([os.path.join(BIN, "on_user_prompt")],
                              json.dumps({"session_id": f"bench-{time.monotonic_ns()}-{i}",
                                          "cwd": project, "prompt": text}).encode(), e, project)

        def read(e, path):
            return lambda i: ([os.path.join(BIN, "on_file_read")],
                              json.dumps({"session_id": f"bench-{time.monotonic_ns()}-{i}",
                                          "cwd": project, "tool_name": "Read",
                                          "tool_input": {"file_path": path}}).encode(), e, project)

        def searches_per_call(make):
            fake.reset()
            run(*make(0))
            return len(fake.searches())

        body = json.dumps({"query": PROMPT, "filters": {"AND": [{"user_id": "demo"},
                           {"app_id": "acme-billing"}]}, "top_k": 10, "threshold": 0.3,
                           "rerank": True})
        curl = lambda i: (["curl", "-s", "-o", "/dev/null", "-X", "POST",
                           fake.url + "/v3/memories/search/",
                           "-H", "Authorization: Token " + fake.api_key,
                           "-H", "Content-Type: application/json", "--data-binary", body],
                          b"", env, project)

        rows = []
        base, curl_rss = measure(curl)
        rows.append(("curl: one search (baseline)", base, None, curl_rss, "", 1))
        true_ms, true_rss = measure(lambda i: (["true"], b"", env, project))
        rows.append(("spawn /bin/true (process cost)", true_ms, None, true_rss, "", 0))

        cases = [
            ("on_user_prompt lean", prompt(env), "", None),
            ("on_user_prompt thorough", prompt(thorough), "<= 1.5x curl", 1.5),
            ("on_file_read lean", read(env, big), "", None),
            ("on_file_read thorough", read(thorough, big), "", None),
            ("on_user_prompt gated (short prompt)", prompt(env, "hi there"), "<= 2 ms", None),
            ("on_file_read gated (small file)", read(env, small), "<= 2 ms", None),
        ]
        peak = 0
        for name, make, target, _ in cases:
            ms, rss = measure(make)
            peak = max(peak, rss)
            rows.append((name, ms, ms / base, rss, target, searches_per_call(make)))

        fake.control(latency_ms=300)
        fan, fan_rss = measure(prompt(thorough), runs=max(5, RUNS // 3))
        fake.control()
        rows.append(("on_user_prompt thorough, 300 ms server", fan, None, fan_rss,
                     f"<= 1.2x latency: {fan / 300:.2f}x", searches_per_call(prompt(thorough))))

    print(f"{'case':44} {'median ms':>10} {'vs curl':>8} {'RSS MB':>7} {'searches':>8}  target")
    for name, ms, ratio, rss, target, n in rows:
        r = f"{ratio:.2f}x" if ratio is not None else ""
        print(f"{name:44} {ms:10.2f} {r:>8} {rss / 1024:7.1f} {n:>8}  {target}")
    print(f"peak RSS of any hook run: {peak / 1024:.1f} MB (target <= 12 MB)")
    print(f"({RUNS} runs per case; median wall time including process start)")


if __name__ == "__main__":
    main()
