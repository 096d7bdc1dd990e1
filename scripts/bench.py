#!/usr/bin/env python3
"""Benchmark the built hooks against the fake Mem0 server; prints one table.

Every figure is a median of repeated runs measured in this same run, next to its baseline:
one `curl` POST of the same search to the same server, runs interleaved. Usage: bench.py BIN_DIR
[RUNS] [--mcp-only | --baseline OTHER_BIN_DIR]; `--baseline` prints only the write rows (Stop
against a 2 s server, the sender's throughput) of both builds, side by side.

HTTPS rows: the same fake behind nginx terminating TLS (tests/tls/tlsbed.py), HTTP/2 and
HTTP/1.1-only, each next to one `curl --cacert` search against the same endpoint and to curl
sending the thorough plan's searches at once (what the server takes for them, without a hook),
runs interleaved. MCP rows: `mem0-hooks mcp` from spawn to its `initialize` answer, a
`search_memories` call in a running server (request written to answer read) next to one curl
search, the server's peak RSS after searches and its CPU time while idle; `--mcp-only` prints
only those, `--shims-only` the JS hosts' shim rows (the prompt hook through each shim, timed inside
node, next to the same executable run directly). `--wine=DIR` (the bin/ of the Windows build)
prints only the hooks built for Windows run under wine next to the Linux build's, and the
executables' sizes. `--hygiene-only` prints only the hygiene rows (dream, stats, Stop's use signal). `--npm-bin=DIR` (the bin/ of an installed
mem0-native-hooks-<os>-<cpu>) adds the prompt hook run from there next to the same hook from BIN_DIR,
and run as the npm plugin's hooks.json runs it (`sh -c`, finding libexec/<uname -sm> by reading
/proc, and by `uname -sm` as on a kernel before 6.1) next to the plain `exec` of a package's
plugin. Instruction counts: `valgrind --tool=callgrind`, whole process (start-up,
dynamic linking and libcurl included), stable where wall time is noisy. Rows whose tools (nginx,
openssl, valgrind) are missing are printed as skipped.
"""

import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from npm_package import FIND_PLATFORM  # noqa: E402  the npm plugin's hook commands

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "fake_mem0"))
sys.path.insert(0, os.path.join(ROOT, "tests", "tls"))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
from fakelib import FakeMem0, SAMPLE_SEED  # noqa: E402
from mcpclient import McpClient  # noqa: E402
from tlsbed import TlsBed, missing_tools  # noqa: E402

MCP_ONLY = "--mcp-only" in sys.argv
SHIMS_ONLY = "--shims-only" in sys.argv
CONSOLE_ONLY = "--console-only" in sys.argv
HYGIENE_ONLY = "--hygiene-only" in sys.argv
NPM_BIN = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--npm-bin=")), None)
WINE_BIN = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--wine=")), None)
ARGS = [a for a in sys.argv if a not in ("--mcp-only", "--shims-only", "--console-only",
                                         "--hygiene-only")
        and not a.startswith(("--npm-bin=", "--wine="))]
# --baseline OTHER_BIN_DIR: only the write rows (Stop and the sender), for BIN and OTHER side by
# side in this one run: what a change to the write path costs.
BASELINE = ARGS[ARGS.index("--baseline") + 1] if "--baseline" in ARGS else None
if BASELINE:
    del ARGS[ARGS.index("--baseline"):ARGS.index("--baseline") + 2]
BIN = ARGS[1]
RUNS = int(ARGS[2]) if len(ARGS) > 2 else 30
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


def measure_interleaved(makers, runs=RUNS, rss=True):
    """Like measure() for several cases at once, their runs alternating (a, b, a, b, ...) so
    that a noisy machine weighs on each case alike. Returns [(median ms, peak RSS KiB or None
    without `rss`)]."""
    times = [[] for _ in makers]
    for i in range(runs):
        for k, make in enumerate(makers):
            times[k].append(run(*make(i)) * 1000)
    return [(statistics.median(t), peak_rss_kib(*make(runs)) if rss else None)
            for t, make in zip(times, makers)]


def callgrind_instructions(cmd, stdin, env, cwd, runs=3):
    """Instructions executed by the whole process (valgrind --tool=callgrind, all threads):
    median of `runs` runs, and the spread (max - min) / median."""
    counts = []
    with tempfile.TemporaryDirectory(prefix="mem0_callgrind_") as tmp:
        for i in range(runs):
            out = os.path.join(tmp, f"callgrind.{i}.out")
            subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out] + cmd,
                           input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           env=env, cwd=cwd, timeout=300)
            with open(out) as f:
                m = re.search(r"^(?:summary|totals): (\d+)", f.read(), re.M)
            counts.append(int(m.group(1)))
    median = statistics.median(counts)
    return median, (max(counts) - min(counts)) / median


# Times the prompt hook through a JS host's shim, inside one node process (the host's own cost
# of loading the shim is not counted): argv = shim (.mjs), host (opencode|pi), runs, project.
SHIM_DRIVER = r"""
const [shim, host, runs, project] = process.argv.slice(1);
const mod = await import(shim);
let call;
if (host === "opencode") {
  const hooks = await mod.Mem0({ directory: project, worktree: project });
  call = (text) => hooks["chat.message"]({ sessionID: "bench-shim" },
      { message: { id: "msg_bench" }, parts: [{ type: "text", text }] });
} else {
  const handlers = {};
  await mod.default({ on: (name, fn) => { (handlers[name] ||= []).push(fn); },
                     registerTool: () => {}, registerCommand: () => {} });
  const ctx = { cwd: project, sessionManager: { getSessionId: () => "bench-shim" } };
  call = (text) => handlers.before_agent_start[0]({ type: "before_agent_start", prompt: text }, ctx);
}
const prompt = process.env.BENCH_PROMPT;
await call(prompt);  // the session's first: runs the session-start rows too
const times = [];
for (let i = 0; i < Number(runs); i++) {
  const start = process.hrtime.bigint();
  await call(prompt);
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
}
console.log(JSON.stringify(times));
"""


def shim_rows(env, work, project, base):
    """The prompt hook through each JS host's shim (timed inside node) next to the same
    executable run directly with the payload that shim sends: rows for the table."""
    if not shutil.which("node"):
        return [("shim rows: skipped (no node)", None, None, None, "", 0)]
    rows = []
    for host, payload in (("opencode", {"hook_event_name": "chat.message",
                                        "sessionID": "bench-shim", "directory": project,
                                        "parts": [{"type": "text", "text": PROMPT}]}),
                          ("pi", {"hook_event_name": "before_agent_start",
                                  "sessionId": "bench-shim", "cwd": project, "prompt": PROMPT})):
        subprocess.run([os.path.join(BIN, "mem0-hooks"), "install", "--agent", host], env=env,
                       cwd=project, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        installed = {"opencode": os.path.join(work, ".config", "opencode", "plugins", "mem0.js"),
                     "pi": os.path.join(work, ".pi", "agent", "extensions", "mem0.js")}[host]
        shim = os.path.join(work, f"bench-{host}.mjs")  # node reads .js as CommonJS
        shutil.copy(installed, shim)
        direct = lambda i, p=json.dumps(payload).encode(), h=host: (
            [os.path.join(BIN, "on_user_prompt"), "--agent", h], p, env, project)
        ms, rss = measure(direct)
        out = subprocess.run(["node", "--input-type=module", "-e", SHIM_DRIVER, shim, host,
                              str(RUNS), project], env=dict(env, BENCH_PROMPT=PROMPT), cwd=project,
                             capture_output=True, text=True)
        try:
            via = statistics.median(json.loads(out.stdout.strip().splitlines()[-1]))
        except (ValueError, IndexError):
            rows.append((f"{host} shim: failed ({out.stderr.strip()[:80]})", None, None, None, "",
                         0))
            continue
        rows.append((f"on_user_prompt --agent {host}, direct", ms, ms / base, rss, "", 0))
        over = via - ms
        rows.append((f"on_user_prompt through the {host} shim (node)", via, via / base, rss,
                     f"<= 5 ms over direct: {over:+.2f} ms" + (" ok" if over <= 5 else " MISSED"),
                     0))
    return rows


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

        def prompt(e, text=PROMPT, agent=None, command=None):
            """The prompt hook as Claude Code runs it (or `command`), or as `agent` does (its
            event name)."""
            flag = ["--agent", agent] if agent else []
            event = {"gemini-cli": "BeforeAgent"}.get(agent, "UserPromptSubmit")
            command = command or [os.path.join(BIN, "on_user_prompt")]
            return lambda i: (command + flag,
                              json.dumps({"session_id": f"bench-{time.monotonic_ns()}-{i}",
                                          "hook_event_name": event, "cwd": project,
                                          "prompt": text}).encode(), e, project)

        def copilot_prompt(e, through_hooks_file=False):
            """The prompt hook with GitHub Copilot CLI's payload: the executable run directly,
            or as Copilot CLI runs its hooks file's `bash` command (bash -c, the path quoted)."""
            exe = [os.path.join(BIN, "on_user_prompt"), "--agent", "copilot"]
            cmd = (["bash", "-c", " ".join(shlex.quote(a) for a in exe)]
                   if through_hooks_file else exe)
            return lambda i: (cmd, json.dumps({"sessionId": f"bench-{time.monotonic_ns()}-{i}",
                                               "timestamp": 1, "cwd": project,
                                               "prompt": PROMPT}).encode(), e, project)

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

        def search_args(url, data, ca=None):
            """curl's arguments for one search POST of `data` to `url` (verified by `ca`)."""
            return (["-o", "/dev/null"] + (["--cacert", ca] if ca else [])
                    + ["-X", "POST", url + "/v3/memories/search/",
                       "-H", "Authorization: Token " + fake.api_key,
                       "-H", "Content-Type: application/json", "--data-binary", data])

        curl = lambda i: (["curl", "-s"] + search_args(fake.url, body), b"", env, project)

        if MCP_ONLY:
            print_mcp(mcp_rows(env, project, curl))
            return
        if CONSOLE_ONLY:
            print_mcp(console_rows(work), title="console (1,000 memories)", note=CONSOLE_NOTE)
            return
        if HYGIENE_ONLY:
            for name, ms, _, rss, target in hygiene_rows(env, work, project):
                print(f"{name:55} {ms:10.2f} ms {rss / 1024:7.1f} MB  {target}")
            return
        if WINE_BIN:
            wine_rows(env, work, project, big, small)
            return
        if SHIMS_ONLY:
            base, curl_rss = measure(curl)
            print(f"curl: one search (baseline) {base:.2f} ms")
            for name, ms, ratio, rss, target, _ in shim_rows(env, work, project, base):
                print(name if ms is None else
                      f"{name:50} {ms:10.2f} {ratio:7.2f}x {rss / 1024:7.1f}  {target}")
            return
        if BASELINE:
            print_mcp(baseline_rows(fake, env, work, project), f"write rows, vs {BASELINE}",
                      f"({RUNS} Stop runs per build, interleaved; sender: 200 items per round, "
                      f"3 rounds per build, alternating; medians)")
            return
        rows = []
        cases = [
            ("on_user_prompt lean", prompt(env), "", None),
            ("on_user_prompt lean, --agent codex", prompt(env, agent="codex"), "<= 1.2x curl",
             1.2),
            ("on_user_prompt lean, --agent gemini-cli", prompt(env, agent="gemini-cli"),
             "<= 1.2x curl", 1.2),
            ("on_user_prompt lean, --agent copilot", copilot_prompt(env), "<= 1.2x curl", 1.2),
            ("on_user_prompt, Copilot CLI's hooks-file command", copilot_prompt(env, True),
             "<= 5 ms over direct", None),
            ("on_user_prompt thorough", prompt(thorough), "<= 1.5x curl", 1.5),
            ("on_file_read lean", read(env, big), "", None),
            ("on_file_read thorough", read(thorough, big), "", None),
            ("on_user_prompt gated (short prompt)", prompt(env, "hi there"), "<= 2 ms", None),
            ("on_file_read gated (small file)", read(env, small), "<= 2 ms", None),
        ]
        if NPM_BIN:
            # The npm plugin's layout: libexec/<uname -sm>/ holding the platform's executables.
            plugin = os.path.join(work, "npm plugin")
            os.makedirs(os.path.join(plugin, "libexec"))
            machine = f"{os.uname().sysname} {os.uname().machine}"  # what `uname -sm` prints
            os.symlink(NPM_BIN, os.path.join(plugin, "libexec", machine))
            sh = lambda find, folder: ["sh", "-c",
                                       f'{find}exec "{plugin}"/libexec/{folder}/on_user_prompt']
            cases += [
                ("on_user_prompt lean, from the npm install",
                 prompt(env, command=[os.path.join(NPM_BIN, "on_user_prompt")]), "", None),
                ("on_user_prompt lean, sh -c exec (package plugin)",
                 prompt(env, command=sh("", f'"{machine}"')), "", None),
                ("on_user_prompt lean, sh -c /proc's arch (npm plugin)",
                 prompt(env, command=sh(FIND_PLATFORM, '"$platform"')), "", None),
                ("on_user_prompt lean, sh -c uname -sm (npm plugin, kernel < 6.1)",
                 prompt(env, command=sh("", '"$(uname -sm)"')), "", None),
            ]
        # Interleaved with the curl baseline and the process cost: a drifting machine weighs on
        # every ratio alike.
        results = measure_interleaved([curl, lambda i: (["true"], b"", env, project)]
                                      + [make for _, make, _, _ in cases])
        (base, curl_rss), (true_ms, true_rss) = results[:2]
        rows.append(("curl: one search (baseline)", base, None, curl_rss, "", 1))
        rows.append(("spawn /bin/true (process cost)", true_ms, None, true_rss, "", 0))
        peak = 0
        by_name = {}
        for (name, make, target, limit), (ms, rss) in zip(cases, results[2:]):
            peak = max(peak, rss)
            by_name[name] = ms
            met = "" if not limit else (" ok" if ms / base <= limit else " MISSED")
            if target.endswith("over direct"):  # the hooks-file form against the row before it
                over = ms - by_name[rows[-1][0]]
                met = f": {over:+.2f} ms" + (" ok" if over <= 5 else " MISSED")
            rows.append((name, ms, ms / base, rss, target + met, searches_per_call(make)))

        rows += shim_rows(env, work, project, base)
        capture = capture_rows(fake, env, work, project, base, curl)
        capture += hygiene_rows(env, work, project)
        mcp = mcp_rows(env, project, curl)

        fake.control(latency_ms=300)
        fan, fan_rss = measure(prompt(thorough), runs=max(5, RUNS // 3))
        fake.control()
        rows.append(("on_user_prompt thorough, 300 ms server", fan, None, fan_rss,
                     f"<= 1.2x latency: {fan / 300:.2f}x", searches_per_call(prompt(thorough))))

        # HTTPS: nginx terminates TLS in front of the same fake; the CA reaches the hooks
        # through MEM0_CA_BUNDLE and curl through --cacert (verification on for both). Each
        # series starts from an empty session store: every new session sweeps the stored ones
        # (one stat each), which would otherwise make later rows pay for earlier runs.
        sessions = os.path.join(work, ".mem0", "state", "sessions")
        bed, calls, peak_tls = None, [], 0
        missing = missing_tools()
        if missing:
            rows.append((f"https rows: skipped (no {', '.join(missing)})", None, None, None,
                         "", 0))
        else:
            try:
                bed = TlsBed(fake=fake).start()
            except RuntimeError as e:
                rows.append((f"https rows: skipped (TLS bed failed: {e})", None, None, None,
                             "", 0))
        try:
            if bed:
                def curl_tls(url, ca):
                    return lambda i: (["curl", "-s"] + search_args(url, body, ca), b"", env,
                                      project)

                def curl_tls_all(url, ca, bodies):
                    """curl sending `bodies` at once (--parallel, multiplexed on one HTTP/2
                    connection): what the server takes for a plan's searches, without a hook."""
                    cmd = ["curl", "-s", "--parallel"]
                    for k, b in enumerate(bodies):
                        cmd += (["--next"] if k else []) + search_args(url, b, ca)
                    return lambda i: (cmd, b"", env, project)

                groups = [("https h2", bed.h2_url, bed.ca_file, "<= 1.2x curl"),
                          ("https h1", bed.h1_url, bed.ca_file, "")]
                system = "/etc/ssl/certs/ca-certificates.crt"
                if os.path.isfile(system):
                    # What a user without a CA setting gets: libcurl's default bundle, parsed
                    # whole by every process (here plus the test CA, so that it verifies).
                    bundle = os.path.join(work, "system-plus-test-ca.pem")
                    with open(bundle, "wb") as out:
                        for path in (system, bed.ca_file):
                            with open(path, "rb") as f:
                                out.write(f.read())
                    groups.append(("https h2 sys-CAs", bed.h2_url, bundle, ""))
                for label, url, ca, target in groups:
                    tls = dict(env, MEM0_BASE_URL=url, MEM0_CA_BUNDLE=ca)
                    tls_thorough = dict(tls, MEM0_SEARCH_PLAN="thorough")
                    cases = [("on_user_prompt thorough", prompt(tls_thorough), target)]
                    if label == "https h2":
                        cases += [("on_file_read thorough", read(tls_thorough, big), ""),
                                  ("on_user_prompt lean", prompt(tls), "")]
                    # The target's own searches sent by curl at once tell the server's share
                    # of the target row from the hook's.
                    fake.reset()
                    run(*cases[0][1](0))
                    plan = [json.dumps(b) for b in fake.searches()]
                    shutil.rmtree(sessions, ignore_errors=True)
                    results = measure_interleaved([curl_tls(url, ca)] + [m for _, m, _ in cases]
                                                  + [curl_tls_all(url, ca, plan)])
                    base_tls, base_tls_rss = results[0]
                    rows.append((f"{label}: curl one search (baseline)", base_tls, None,
                                 base_tls_rss, "", 1))
                    all_ms, all_rss = results[-1]
                    rows.append((f"{label}: curl, its {len(plan)} searches at once", all_ms,
                                 all_ms / base_tls, all_rss, "", len(plan)))
                    for (name, make, target), (ms, rss) in zip(cases, results[1:-1]):
                        peak_tls = max(peak_tls, rss)
                        met = "" if not target else (" ok" if ms / base_tls <= 1.2 else " MISSED")
                        if target:
                            met += f"; {ms / all_ms:.2f}x curl of its searches"
                        rows.append((f"{label}: {name}", ms, ms / base_tls, rss,
                                     target + (" (vs its curl)" + met if target else ""),
                                     searches_per_call(make)))

            # Instruction counts: whole process under callgrind (a generous budget, since
            # valgrind runs the code some 50x slower).
            if not shutil.which("valgrind"):
                calls.append(("instruction counts: skipped (no valgrind)", None, None, ""))
            else:
                slow = dict(env, MEM0_TIMEOUT_MS="30000")
                cg = [("on_user_prompt gated (short prompt)", prompt(slow, "hi there"), "< 1 M"),
                      ("on_file_read gated (small file)", read(slow, small), "< 1 M"),
                      ("on_user_prompt lean, http", prompt(slow), ""),
                      ("curl: one search, http", curl, "")]
                if bed:
                    cg_tls = dict(slow, MEM0_BASE_URL=bed.h2_url, MEM0_CA_BUNDLE=bed.ca_file,
                                  MEM0_SEARCH_PLAN="thorough")
                    cg += [("on_user_prompt thorough, https h2", prompt(cg_tls), ""),
                           ("curl: one search, https h2", curl_tls(bed.h2_url, bed.ca_file), "")]
                for name, make, target in cg:
                    shutil.rmtree(sessions, ignore_errors=True)
                    count, spread = callgrind_instructions(*make(0))
                    if target:
                        target += " ok" if count < 1_000_000 else " MISSED"
                    calls.append((name, count, spread, target))
        finally:
            if bed:
                bed.stop()

    print(f"{'case':50} {'median ms':>10} {'vs curl':>8} {'RSS MB':>7} {'searches':>8}  target")
    for name, ms, ratio, rss, target, n in rows:
        if ms is None:
            print(name)
            continue
        r = f"{ratio:.2f}x" if ratio is not None else ""
        print(f"{name:50} {ms:10.2f} {r:>8} {rss / 1024:7.1f} {n:>8}  {target}")
    print(f"peak RSS of any hook run: {peak / 1024:.1f} MB (target <= 12 MB)")
    if peak_tls:
        print(f"peak RSS of any https hook run: {peak_tls / 1024:.1f} MB")
    print(f"({RUNS} runs per case; median wall time including process start; "
          f"each group interleaved with its curl baseline)")
    print()
    print(f"{'instructions (callgrind, whole process)':44} {'Ir':>12} {'spread':>7}  target")
    for name, count, spread, target in calls:
        if count is None:
            print(name)
            continue
        print(f"{name:44} {count:12,d} {spread:7.1%}  {target}")
    print("(median of 3 runs; spread = (max - min) / median)")
    print()
    print(f"{'capture and the other hooks':44} {'median ms':>10} {'vs curl':>8} {'RSS MB':>7}  target")
    for name, ms, ratio, rss, target in capture:
        r = f"{ratio:.2f}x" if ratio is not None else ""
        print(f"{name:44} {ms:10.2f} {r:>8} {rss / 1024:7.1f}  {target}")
    print()
    print_mcp(mcp)
    print()
    print_mcp(console_rows(work), title="console (1,000 memories)", note=CONSOLE_NOTE)


CONSOLE_NOTE = ("(the page's files summed; the listing timed from request to answer through the "
                "console, next to the same listing sent to the stand-in directly; the paint: the "
                "page's mark after its first page of 100 rows is drawn, from the start of a "
                "second navigation, in headless chromium)")


def console_rows(work):
    """The memory console's rows (docs/console.md): the page's weight, a listing of 1,000
    memories through it and straight from the stand-in, its RSS, and the Memories view's paint in
    headless chromium (where chromium and the test's playwright-core are there)."""
    import http.client
    import urllib.parse
    seed = [{"id": f"{n:08x}-0000-4000-8000-{n:012x}", "memory": f"Decision {n}: keep invoices "
             f"in integer cents, rule {n}", "user_id": "demo", "app_id": "acme-billing",
             "metadata": {"type": ["decision", "convention", "bug_fix"][n % 3],
                          "agent": "claude-code"},
             "categories": [], "created_at": f"2026-11-{1 + n % 28:02d}T10:00:00Z"}
            for n in range(1, 1001)]
    home = os.path.join(work, "console-home")
    project = os.path.join(home, "billing")
    os.makedirs(project, exist_ok=True)
    with FakeMem0(seed=seed, api_key="m0-bench-key") as fake:
        env = {"PATH": os.environ["PATH"], "HOME": home, "USER": "demo",
               "MEM0_API_KEY": fake.api_key, "MEM0_BASE_URL": fake.url,
               "MEM0_PROJECT_ID": "acme-billing"}
        proc = subprocess.Popen([os.path.join(BIN, "mem0-hooks"), "ui", "--no-open"], cwd=project,
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True)
        try:
            url = proc.stdout.readline().split(" ", 2)[2].strip()
            port = urllib.parse.urlparse(url).port
            token = urllib.parse.parse_qs(urllib.parse.urlparse(url).query)["token"][0]

            def get(path):
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                start = time.perf_counter()
                conn.request("GET", path, headers={"Authorization": "Bearer " + token})
                body = conn.getresponse().read()
                conn.close()
                return (time.perf_counter() - start) * 1000, body

            weight = sum(len(get(p)[1]) for p in ("/", "/console.css", "/console.js",
                                                   "/icon.svg"))
            fake.reset()
            listed = get("/api/memories?size=1000")[1]
            assert len(json.loads(listed)["memories"]) == 1000, listed[:200]
            sent = fake.calls("list")[-1]
            through, direct = [], []
            for _ in range(RUNS):
                through.append(get("/api/memories?size=1000")[0])
                start = time.perf_counter()
                fake.call(sent["method"], sent["path"], sent.get("body"),
                          headers={"Authorization": "Token " + fake.api_key})
                direct.append((time.perf_counter() - start) * 1000)
            with open(f"/proc/{proc.pid}/status") as f:
                rss = int(re.search(r"VmHWM:\s+(\d+)", f.read()).group(1))
            paint = console_paint(url)
        finally:
            proc.terminate()
            proc.wait(10)
    through, direct = statistics.median(through), statistics.median(direct)
    met = lambda ok: " ok" if ok else " MISSED"
    return [
        (f"page: {weight / 1024:.1f} KB loaded", None, None, None,
         "<= 150 KB" + met(weight <= 150 * 1024)),
        ("listing 1,000 memories through the console", through, None, None,
         f"<= 50 ms + backend ({direct:.1f} ms direct)" + met(through - direct <= 50)),
        ("console: peak RSS", None, None, rss, "<= 16 MB" + met(rss <= 16 * 1024)),
        ("Memories view painted after navigation" if paint is not None
         else "Memories view painted: no chromium or playwright-core here", paint, None, None,
         "" if paint is None else "<= 300 ms" + met(paint <= 300)),
    ]


def console_paint(url):
    """Milliseconds from navigation to the first memory row, or None without the browser."""
    sys.path.insert(0, os.path.join(ROOT, "tests", "client"))
    sys.path.insert(0, os.path.join(ROOT, "tests", "console"))
    try:
        from test_console import CHROMIUM, playwright_modules
        if not os.path.exists(CHROMIUM):
            return None
        modules = playwright_modules()
    except Exception:  # no npm, no registry: the row says so
        return None
    out = subprocess.run(["node", os.path.join(ROOT, "tests", "console", "browser.js"),
                          json.dumps({"url": url, "chromium": CHROMIUM, "bench": True})],
                         capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, NODE_PATH=modules))
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    return seen.get("paintMs")


def mcp_rows(env, project, curl):
    """The MCP server's rows (docs/cli.md#mcp): (name, ms, ratio, RSS KiB or None, target)."""
    def server():
        return McpClient(BIN, env, project, stderr=subprocess.DEVNULL)

    start_ms = []
    for _ in range(RUNS):
        spawned = time.perf_counter()
        started = server()
        started.initialize()
        start_ms.append((time.perf_counter() - spawned) * 1000)
        started.close()
    running = server()
    running.initialize()
    call = {"name": "search_memories", "arguments": {"query": PROMPT}}
    answer = running.request("tools/call", call)  # the first call loads libcurl
    assert "isError" not in answer["result"], answer
    call_ms, curl_ms = [], []
    for i in range(RUNS):
        curl_ms.append(run(*curl(i)) * 1000)
        call_ms.append(running.timed_request("tools/call", call)[1] * 1000)
    rss = running.peak_rss_kib()
    running.close()
    idle = server()
    idle.initialize()
    before = idle.cpu_seconds()
    time.sleep(1.5)
    idle_cpu_ms = (idle.cpu_seconds() - before) * 1000
    idle.close()
    start, base, search = (statistics.median(x) for x in (start_ms, curl_ms, call_ms))
    met = lambda ok: " ok" if ok else " MISSED"
    return [
        ("mcp: spawn to initialize answer", start, None, None, "<= 20 ms" + met(start <= 20)),
        ("curl: one search (baseline)", base, 1.0, None, ""),
        ("mcp: search_memories call (running server)", search, search / base, None,
         "<= 1.2x curl" + met(search / base <= 1.2)),
        ("mcp: peak RSS after the searches", None, None, rss, "<= 12 MB" + met(rss <= 12 * 1024)),
        ("mcp: CPU while idle 1.5 s", idle_cpu_ms, None, None, "~0" + met(idle_cpu_ms <= 10)),
    ]


def wine_rows(env, work, project, big, small):
    """The hooks built for Windows (WINE_BIN), each run under wine, next to the same hooks built
    for Linux (BIN), runs interleaved; then the executables' sizes. A start under wine costs
    wine's own (scripts/wine-run.sh keeps a wineserver running): these are not Windows figures
    (docs/windows.md)."""
    wine_run = os.path.join(ROOT, "scripts", "wine-run.sh")
    subprocess.run([wine_run, "--warm"], check=True)
    windows = lambda path: "Z:" + path.replace("/", "\\")  # wine's drive for the Unix root
    envs = {False: dict(env, MEM0_STATE_DIR=os.path.join(work, "state-linux")),
            True: dict(env, MEM0_STATE_DIR=windows(os.path.join(work, "state-wine")))}

    def hook(exe, event, under_wine):
        spell = windows if under_wine else (lambda path: path)
        cmd = ([wine_run, os.path.join(WINE_BIN, exe + ".exe")] if under_wine
               else [os.path.join(BIN, exe)])
        return lambda i: (cmd, json.dumps(dict(event(spell), cwd=spell(project),
                                               session_id=f"bench-{time.monotonic_ns()}-{i}"))
                          .encode(), envs[under_wine], project)

    prompt = lambda text: lambda spell: {"hook_event_name": "UserPromptSubmit", "prompt": text}
    read = lambda path: lambda spell: {"hook_event_name": "PreToolUse", "tool_name": "Read",
                                       "tool_input": {"file_path": spell(path)}}
    cases = [("on_user_prompt lean", "on_user_prompt", prompt(PROMPT)),
             ("on_user_prompt gated (short prompt)", "on_user_prompt", prompt("hi there")),
             ("on_file_read lean", "on_file_read", read(big)),
             ("on_file_read gated (small file)", "on_file_read", read(small))]
    makers = [lambda i: (["true"], b"", env, project),
              lambda i: ([wine_run, "cmd", "/c", "exit"], b"", env, project)]
    for _, exe, event in cases:
        makers += [hook(exe, event, False), hook(exe, event, True)]
    results = [ms for ms, _ in measure_interleaved(makers, rss=False)]
    print(f"{'hook':44} {'linux ms':>9} {'wine ms':>9}  (medians of {RUNS} interleaved runs)")
    print(f"{'process start: true / wine cmd /c exit':44} {results[0]:9.2f} {results[1]:9.2f}")
    for k, (name, _, _) in enumerate(cases):
        print(f"{name:44} {results[2 + 2 * k]:9.2f} {results[3 + 2 * k]:9.2f}")

    strip = shutil.which("x86_64-w64-mingw32-strip")
    print(f"\n{'executable':20} {'linux KB':>9} {'windows KB':>11} {'stripped KB':>12}")
    for name in sorted(n[:-4] for n in os.listdir(WINE_BIN) if n.endswith(".exe")):
        exe = os.path.join(WINE_BIN, name + ".exe")
        stripped = None
        if strip:
            out = os.path.join(work, name + ".stripped.exe")
            subprocess.run([strip, "-o", out, exe], check=True)
            stripped = os.path.getsize(out) / 1024
        linux = os.path.join(BIN, name)
        linux_kb = f"{os.path.getsize(linux) / 1024:.0f}" if os.path.exists(linux) else "-"
        print(f"{name:20} {linux_kb:>9} "
              f"{os.path.getsize(exe) / 1024:11.0f} "
              f"{'' if stripped is None else f'{stripped:12.0f}':>12}")
    prefix = os.environ.get("WINEPREFIX") or os.path.expanduser(
        "~/.cache/mem0-native-hooks/wine-prefix")
    subprocess.run(["wineserver", "-k"], env=dict(os.environ, WINEPREFIX=prefix),
                   stderr=subprocess.DEVNULL)  # the one wine-run.sh left running


def print_mcp(rows, title="mcp server", note=None):
    print(f"{title:44} {'median ms':>10} {'vs curl':>8} {'RSS MB':>7}  target")
    for name, ms, ratio, rss, target in rows:
        print(f"{name:44} {'' if ms is None else f'{ms:10.2f}':>10} "
              f"{'' if ratio is None else f'{ratio:.2f}x':>8} "
              f"{'' if rss is None else f'{rss / 1024:7.1f}':>7}  {target}")
    print(note or f"({RUNS} runs per case; the call is timed from writing the request to reading "
                  f"the answer, curl includes its process start)")


def transcript(path, size):
    """A Claude Code transcript of about `size` bytes: prompts, answers and Edit calls."""
    with open(path, "w") as f:
        i, written = 0, 0
        while written < size:
            lines = [
                {"type": "user", "uuid": f"u{i}", "message": {"role": "user", "content":
                    f"Please change step {i} of the billing retry logic and explain why."}},
                {"type": "assistant", "uuid": f"a{i}", "message": {"role": "assistant", "content": [
                    {"type": "text", "text": "Changed it: the retry now waits with jitter. " * 4},
                    {"type": "tool_use", "id": f"t{i}", "name": "Edit",
                     "input": {"file_path": f"/srv/acme/src/billing/step_{i % 40}.py",
                               "old_string": "x" * 200, "new_string": "y" * 200}}]}}]
            for line in lines:
                text = json.dumps(line) + "\n"
                f.write(text)
                written += len(text)
            i += 1
    return path


def sender_round(fake, env, project, bin_dir, state, count=200):
    """`count` captures queued by bin_dir's on_compact while the server refuses them, then one
    sender round: the round's wall time in seconds, and how many items it delivered."""
    tenv = dict(env, MEM0_STATE_DIR=state)
    summary = "We moved the retry logic of the billing worker into one helper with jitter. " * 3
    fake.control(status=503, only_endpoint="add")
    for i in range(count):
        subprocess.run([os.path.join(bin_dir, "on_compact")], input=json.dumps({
            "hook_event_name": "PostCompact", "session_id": "tp", "cwd": project,
            "compact_summary": f"item {i} {state} " + summary}).encode(), env=tenv, cwd=project,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    outbox = os.path.join(state, "outbox")
    pending = lambda: [n for n in os.listdir(outbox) if n.endswith(".json") and n[:-5].isdigit()]
    time.sleep(1)
    fake.control()
    queued = len(pending())
    started = time.perf_counter()
    subprocess.run([os.path.join(bin_dir, "on_session_end")],
                   input=b'{"hook_event_name":"SessionEnd"}', env=tenv, cwd=project,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while pending() and time.perf_counter() - started < 120:
        time.sleep(0.01)
    return time.perf_counter() - started, queued


def baseline_rows(fake, env, work, project):
    """Stop against a 2 s server and the sender's throughput, for BIN and BASELINE: the Stop runs
    interleaved, the sender rounds alternating, three each (medians)."""
    summary = "We moved the retry logic of the billing worker into one helper with jitter. " * 3
    t_small = transcript(os.path.join(work, "transcript-500k.jsonl"), 500_000)

    def stop(bin_dir):
        return lambda i: ([os.path.join(bin_dir, "on_stop")], json.dumps({
            "hook_event_name": "Stop", "session_id": "bench", "cwd": project,
            "transcript_path": t_small,
            "last_assistant_message": f"{i} {time.monotonic_ns()} " + summary}).encode(), env,
            project)

    fake.control(latency_ms=2000, only_endpoint="add")
    (new_ms, new_rss), (old_ms, old_rss) = measure_interleaved([stop(BIN), stop(BASELINE)])
    fake.control()
    rows = [(f"on_stop, 2 s server ({label})", ms, None, rss,
             "< 20 ms" + (" ok" if ms < 20 else " MISSED"))
            for label, ms, rss in [("baseline", old_ms, old_rss), ("this build", new_ms, new_rss)]]
    rates = {BIN: [], BASELINE: []}
    for k in range(3):
        for bin_dir in (BASELINE, BIN):
            state = os.path.join(work, f"sender-{k}-{'new' if bin_dir == BIN else 'old'}")
            took, queued = sender_round(fake, env, project, bin_dir, state)
            rates[bin_dir].append(queued / took)
    for label, bin_dir in [("baseline", BASELINE), ("this build", BIN)]:
        rows.append((f"sender items/s ({label})", statistics.median(rates[bin_dir]), None, None,
                     "rounds: " + ", ".join(f"{r:.0f}" for r in rates[bin_dir])))
    return rows


def capture_rows(fake, env, work, project, base, curl):
    """The capture hooks against a server that takes 2 s per add (they must not wait for it),
    SessionStart next to one curl search, the other new hooks, and the sender's throughput."""
    rows = []
    bin_ = lambda name: os.path.join(BIN, name)
    t_small = transcript(os.path.join(work, "transcript-500k.jsonl"), 500_000)
    t_big = transcript(os.path.join(work, "transcript-2m.jsonl"), 2_000_000)
    summary = "We moved the retry logic of the billing worker into one helper with jitter. " * 3

    def hook(name, payload, agent=None):
        flag = ["--agent", agent] if agent else []
        return lambda i: ([bin_(name)] + flag, json.dumps(payload(i)).encode(), env, project)

    def stop(path):
        return hook("on_stop", lambda i: {
            "hook_event_name": "Stop", "session_id": "bench", "cwd": project,
            "transcript_path": path, "last_assistant_message": f"{i} {time.monotonic_ns()} " + summary})

    fake.control(latency_ms=2000, only_endpoint="add")
    for name, make in [
            ("on_stop, 2 s server, 500 KB transcript", stop(t_small)),
            ("on_stop, 2 s server, 2 MB transcript", stop(t_big)),
            ("on_stop --agent codex, 2 s server", hook("on_stop", lambda i: {
                "hook_event_name": "Stop", "session_id": "bench-codex", "cwd": project,
                "last_assistant_message": f"{i} {time.monotonic_ns()} " + summary},
                agent="codex")),
            ("on_stop --agent gemini-cli (AfterAgent), 2 s server", hook("on_stop", lambda i: {
                "hook_event_name": "AfterAgent", "session_id": "bench-gemini", "cwd": project,
                "prompt": "Move the retry logic into one helper",
                "prompt_response": f"{i} {time.monotonic_ns()} " + summary},
                agent="gemini-cli")),
            ("on_compact, 2 s server", hook("on_compact", lambda i: {
                "hook_event_name": "PostCompact", "session_id": "bench", "cwd": project,
                "compact_summary": f"{i} {time.monotonic_ns()} " + summary})),
            ("on_session_end, 2 s server, items pending", hook("on_session_end", lambda i: {
                "hook_event_name": "SessionEnd", "session_id": "bench", "cwd": project,
                "reason": "other"}))]:
        ms, rss = measure(make)
        rows.append((name, ms, None, rss, "< 20 ms" + (" ok" if ms < 20 else " MISSED")))
    # A 400 KB reply whose every `<` opens a <private> tag that never closes: cut to 20,000
    # characters, then stripped in one pass (docs/capture.md#before-anything-touches-the-disk).
    huge = summary + "<private " * (400 * 1024 // 9)
    ms, rss = measure(hook("on_stop", lambda i: {
        "hook_event_name": "Stop", "session_id": "bench", "cwd": project,
        "last_assistant_message": f"{i} {time.monotonic_ns()} " + huge}))
    rows.append(("on_stop, 400 KB reply of <private> tags, 2 s server", ms, None, rss,
                 "<= 50 ms" + (" ok" if ms <= 50 else " MISSED")))
    fake.control()

    if os.path.exists(bin_("on_session_start")):
        # Its own state dir: the rows above leave captures waiting, and a hook run that finds
        # some starts the sender (a fork) whatever its event.
        senv = dict(env, MEM0_STATE_DIR=os.path.join(work, "start-state"))
        start = lambda i: ([bin_("on_session_start")], json.dumps({
            "hook_event_name": "SessionStart", "session_id": f"bench-start-{time.monotonic_ns()}",
            "cwd": project, "source": "startup"}).encode(), senv, project)
        (c_ms, _), (s_ms, s_rss) = measure_interleaved([curl, start])
        rows.append(("curl: one search (baseline, interleaved)", c_ms, None, 0, ""))
        rows.append(("on_session_start startup", s_ms, s_ms / c_ms, s_rss,
                     "<= 1.2x curl" + (" ok" if s_ms / c_ms <= 1.2 else " MISSED")))
    if os.path.exists(bin_("on_tool_guard")):
        for name, path in [("on_tool_guard, MEMORY.md write (blocked)",
                            os.path.join(work, ".claude", "projects", "p", "memory", "MEMORY.md")),
                           ("on_tool_guard, ordinary write", os.path.join(project, "a.py"))]:
            ms, rss = measure(hook("on_tool_guard", lambda i, path=path: {
                "hook_event_name": "PreToolUse", "session_id": "bench", "cwd": project,
                "tool_name": "Write", "tool_input": {"file_path": path, "content": "x"}}))
            rows.append((name, ms, None, rss, ""))
    if os.path.exists(bin_("on_bash_output")):
        ms, rss = measure(hook("on_bash_output", lambda i: {
            "hook_event_name": "PostToolUseFailure", "session_id": f"bench-bash-{i}",
            "cwd": project, "tool_name": "Bash", "tool_input": {"command": "pytest"},
            "error": "Exit code 1\nTraceback (most recent call last):\n  File \"a.py\"\n"
                     "KeyError: 'customer'"}))
        rows.append(("on_bash_output, failing command", ms, ms / base, rss, ""))

    # Throughput: 200 captures queued while the server refuses them, then one sender round.
    took, queued = sender_round(fake, env, project, BIN, os.path.join(work, "throughput"))
    rows.append((f"sender: {queued} items delivered, items/s", queued / took, None, 0,
                 f"{took * 1000:.0f} ms for the round"))
    return rows


def hygiene_rows(env, work, project):
    """Memory hygiene (docs/hygiene.md): dream over 10,000 memories (the analysis alone, from
    the debug log, and the whole command with its 100 listing pages), stats over 90 days of
    run logs, and Stop with the use signal (40 memories awaiting the reply) next to Stop
    without."""
    rows = []
    cli = os.path.join(BIN, "mem0-hooks")
    if not os.path.exists(cli):
        return rows
    words = ("billing invoice retry webhook stripe customer refund payout ledger tax currency "
             "worker queue cache schema migration index report export import upload token "
             "session deploy docker build release branch review lint format test fixture").split()
    seed, n = [], 10_000
    state = 7
    for i in range(n):
        picked = []
        for _ in range(8 + i % 6):
            state = (state * 1103515245 + 12345) % (1 << 31)
            picked.append(words[state % len(words)])
        text = f"Note {i % 2000}: " + " ".join(picked)
        seed.append({"id": f"{i:08x}-0000-4000-8000-{i:012x}", "memory": text,
                     "user_id": "demo", "app_id": "acme-billing", "categories": [],
                     "metadata": {"type": ["decision", "convention", "task_learning",
                                           "session_state"][i % 4]},
                     "created_at": f"2026-{1 + i % 11:02d}-{1 + i % 27:02d}T10:00:00Z"})
    home = os.path.join(work, "hygiene-home")
    os.makedirs(home, exist_ok=True)
    with FakeMem0(seed=seed, api_key="m0-bench-key") as big:
        denv = dict(env, HOME=home, MEM0_BASE_URL=big.url, MEM0_USER_ID="demo",
                    MEM0_DEBUG="1", MEM0_TIMEOUT_MS="30000")
        log = os.path.join(home, ".mem0", "hooks.log")
        analysed = []
        for _ in range(3):
            run([cli, "dream", "--json"], env=denv, cwd=project)
            with open(log) as f:
                found = re.findall(r"dream: analysed (\d+) memories in (\d+) us", f.read())
            analysed.append(int(found[-1][1]) / 1000)
        ms = statistics.median(analysed)
        rows.append((f"dream: analysis of {found[-1][0]} memories (one core)", ms, None, 0,
                     "< 1000 ms" + (" ok" if ms < 1000 else " MISSED")))
        ms, rss = measure(lambda i: ([cli, "dream", "--json"], b"", dict(denv, MEM0_DEBUG="0"),
                                     project), runs=3)
        rows.append(("dream --json, 10,000 memories, 100 listing pages", ms, None, rss, ""))

    # 90 days of run logs: 13 sessions a week, 50 runs each, and the daily counts.
    senv = dict(env, HOME=os.path.join(work, "stats-home"))
    sessions = os.path.join(senv["HOME"], ".mem0", "state", "sessions")
    os.makedirs(sessions)
    now = int(time.time())
    for s in range(120):
        with open(os.path.join(sessions, f"bench-stats-{s}.runs"), "w") as f:
            for r in range(50):
                t = now - (s * 90 * 86400) // 120 - r * 60
                f.write(json.dumps({"t": t, "hook": "on_user_prompt",
                                    "ids": [f"{r:08x}-0000", f"{s:08x}-0001"],
                                    "types": ["decision", "convention"], "chars": 240,
                                    "skipped": [], "ms": 20 + r % 7,
                                    "used": [f"{r:08x}-0000"] if r % 3 == 0 else []}) + "\n")
    ms, rss = measure(lambda i: ([cli, "stats", "--json", "--days", "90"], b"", senv, project))
    rows.append(("stats --json --days 90 (6,000 logged runs)", ms, None, rss,
                 "<= 50 ms" + (" ok" if ms <= 50 else " MISSED")))

    # Stop with 40 memories awaiting the reply, next to Stop with none.
    uenv = dict(env, HOME=os.path.join(work, "use-home"))
    usessions = os.path.join(uenv["HOME"], ".mem0", "state", "sessions")
    os.makedirs(usessions)
    awaiting = [[f"{k:08x}-1111-4000-8000-{k:012x}",
                 "The billing worker retries failed invoice uploads with backoff " * 4]
                for k in range(40)]
    reply = ("We moved the retry logic of the billing worker into one helper with jitter, "
             "as [mem0:00000003] says. ") * 3

    def stop(session, with_awaiting):
        def make(i):
            with open(os.path.join(usessions, session + ".json"), "w") as f:
                json.dump({"injected": [a[0] for a in awaiting],
                           **({"awaiting": awaiting} if with_awaiting else {})}, f)
            return ([os.path.join(BIN, "on_stop")], json.dumps({
                "hook_event_name": "Stop", "session_id": session, "cwd": project,
                "last_assistant_message": f"{i} {time.monotonic_ns()} " + reply}).encode(),
                uenv, project)
        return make
    (without, _), (with_, rss) = measure_interleaved([stop("bench-plain", False),
                                                      stop("bench-use", True)])
    rows.append(("on_stop without the use signal (nothing awaiting)", without, None, 0, ""))
    rows.append(("on_stop with the use signal (40 memories awaiting)", with_, None, rss,
                 "<= 1 ms over" + (" ok" if with_ - without <= 1 else " MISSED")))
    return rows


if __name__ == "__main__":
    main()
