"""Hardening: both hooks and `mem0-hooks peek` against every kind of broken Mem0 (docs/failures.md#exit-status-and-output,
docs/failures.md#transport-security, docs/failures.md#recall-notices).

For each fault: exit 0 (the CLI: exit 1, never a crash), stdout empty or one JSON object, the
documented recall-problem line (for the user, as systemMessage; never in the model's
context), a classified line on stderr, the process ends within the time
budget + 100 ms, and peak memory stays bounded (GNU time).
"""

import os
import re
import shutil
import subprocess
import tempfile
import unittest

from hardlib import (DASH, KEY_REJECTED, RATE_LIMITED, HardTest, RawServer, answering,
                     closing_at_once, incomplete, print_measurements, problem_lines, record)
from hooklib import memory
import testmain  # noqa: E402
from loopback import closed_port

HOOKS = ("on_user_prompt", "on_file_read")
QUERY = "stripe webhook retries"
SLOW_MS = 1000  # MEM0_TIMEOUT_MS for every fault run

SEED = [
    memory("11111111-aaaa-4aaa-8aaa-000000000001",
           "Stripe webhook handler retries invoices with exponential backoff", "convention"),
    memory("22222222-bbbb-4bbb-8bbb-000000000002",
           "src billing invoice py stores money as integer cents", "convention"),
]

# getaddrinfo() that hangs for 3 s on any host containing "slow-dns" (a resolver that never
# answers), loaded with LD_PRELOAD into the executables under test.
SLOW_DNS_C = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netdb.h>
#include <string.h>
#include <unistd.h>
int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
                struct addrinfo **res) {
  if (node && strstr(node, "slow-dns")) { sleep(3); return EAI_AGAIN; }
  int (*real)(const char *, const char *, const struct addrinfo *, struct addrinfo **) =
      (int (*)(const char *, const char *, const struct addrinfo *, struct addrinfo **))
          dlsym(RTLD_NEXT, "getaddrinfo");
  return real(node, service, hints, res);
}
"""


def build_slow_dns_shim(directory):
    """Path of the compiled LD_PRELOAD shim, or None when no C compiler is available."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        return None
    src = os.path.join(directory, "slow_dns.c")
    lib = os.path.join(directory, "slow_dns.so")
    with open(src, "w") as f:
        f.write(SLOW_DNS_C)
    proc = subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", lib, src, "-ldl"],
                          capture_output=True)
    return lib if proc.returncode == 0 else None


def nested_results_body(depth):
    """A valid JSON search response whose results array nests `depth` arrays deep."""
    return b'{"results": [' + b"[" * depth + b"]" * depth + b"]}"


class FaultTest(HardTest):
    seed = SEED

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.tools = tempfile.mkdtemp(prefix="mem0_faults_")
        cls.slow_dns = build_slow_dns_shim(cls.tools)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tools, True)
        super().tearDownClass()

    def fault_env(self, program, budget_ms=SLOW_MS, **overrides):
        # A state dir per program: a 429 or an unreachable run must not pause the next program.
        return self.env(MEM0_TIMEOUT_MS=str(budget_ms),
                        MEM0_STATE_DIR=os.path.join(self.home, "state-" + program), **overrides)

    def check_hooks(self, case, line, kinds, budget_ms=SLOW_MS, max_elapsed=None,
                    stderr_has=None, **overrides):
        """Run both hooks against the current fault and check every guarantee."""
        for hook in HOOKS:
            with self.subTest(hook=hook):
                env = self.fault_env(hook, budget_ms, **overrides)
                result = self.run_timed_hook(hook, self.hook_payload(hook), env=env)
                record(case, hook, result, budget_ms)
                message = result.system_message()
                self.assertIsNotNone(message, "a failed recall must be reported, not silent")
                self.assert_problem_line(problem_lines(message), line)
                ctx = result.context() or ""
                self.assertEqual(problem_lines(ctx), [])  # the model cannot fix it
                self.assertNotIn("[mem0:", ctx)
                stderr = result.stderr.decode("utf-8", "replace")
                self.assertRegex(stderr, rf"mem0 {hook}: search 1/1 broad failed: "
                                         rf"({'|'.join(kinds)}): ")
                if stderr_has:
                    self.assertIn(stderr_has, stderr)
                self.assert_within_budget(result, budget_ms)
                if max_elapsed is not None:
                    self.assertLess(result.elapsed, max_elapsed)
                self.assert_bounded_memory(result)

    def check_peek(self, case, line, budget_ms=SLOW_MS, query=QUERY, **overrides):
        """`mem0-hooks peek` against the current fault: exit 1 with the problem line, no crash."""
        with self.subTest(program="mem0-hooks peek"):
            env = self.fault_env("cli", budget_ms, **overrides)
            result = self.run_timed_cli("peek", query, env=env)
            record(case, "mem0-hooks peek", result, budget_ms)
            self.assertEqual(result.returncode, 1, result.stderr[-500:])
            self.assertEqual(result.stdout, b"")
            stderr = result.stderr.decode("utf-8", "replace")
            recall = [l for l in problem_lines(stderr) if l.startswith("mem0: recall")]
            self.assert_problem_line(recall, line)
            self.assert_within_budget(result, budget_ms)
            self.assert_bounded_memory(result)

    def assert_problem_line(self, lines, expected):
        if isinstance(expected, re.Pattern):
            self.assertEqual(len(lines), 1, lines)
            self.assertRegex(lines[0], expected)
        else:
            self.assertEqual(lines, [expected])


class HttpStatusFaults(FaultTest):
    def test_401_is_a_rejected_key(self):
        self.fake.control(status=401)
        self.check_hooks("401", KEY_REJECTED, ["unauthorized"])
        self.check_peek("401", KEY_REJECTED)

    def test_403_is_a_rejected_key(self):
        self.fake.control(status=403)
        self.check_hooks("403", KEY_REJECTED, ["unauthorized"])
        self.check_peek("403", KEY_REJECTED)

    def test_404_is_a_client_error(self):
        self.fake.control(status=404, error_body='{"error": "Not found"}')
        self.check_hooks("404", incomplete("client"), ["client"])
        self.check_peek("404", incomplete("client", 2, 2))

    def test_429_with_retry_after_names_the_wait(self):
        self.fake.control(status=429, retry_after="30")
        line = RATE_LIMITED + " (retry after 30 s)"
        self.check_hooks("429 Retry-After: 30", line, ["rate_limited"])
        self.check_peek("429 Retry-After: 30", line)

    def test_429_without_retry_after_has_no_parenthesis(self):
        self.fake.control(status=429)
        self.check_hooks("429", RATE_LIMITED, ["rate_limited"])
        self.check_peek("429", RATE_LIMITED)

    def test_500_is_a_server_error(self):
        self.fake.control(status=500)
        self.check_hooks("500", incomplete("server"), ["server"])
        self.check_peek("500", incomplete("server", 2, 2))

    def test_502_with_an_html_body_is_a_server_error(self):
        html = "<html><body><h1>502 Bad Gateway</h1>" + "<p>nginx</p>" * 500 + "</body></html>"
        self.fake.control(status=502, error_body=html)
        self.check_hooks("502 HTML", incomplete("server"), ["server"])
        self.check_peek("502 HTML", incomplete("server", 2, 2))

    def test_peek_by_id_against_a_failing_server_exits_1(self):
        self.fake.control(status=500)
        self.check_peek("500 (peek by uuid)", incomplete("server", 2, 2),
                        query="11111111-aaaa-4aaa-8aaa-000000000001")


class BodyFaults(FaultTest):
    def test_invalid_json_is_a_bad_response(self):
        self.fake.control(mode="garbage")
        self.check_hooks("garbage body", incomplete("bad_response"), ["bad_response"])
        self.check_peek("garbage body", incomplete("bad_response", 2, 2))

    def test_truncated_body_is_a_bad_response(self):
        self.fake.control(mode="truncated")
        self.check_hooks("truncated body", incomplete("bad_response"), ["bad_response"])
        self.check_peek("truncated body", incomplete("bad_response", 2, 2))

    def test_50_mb_body_is_cut_at_4_mib_quickly_with_bounded_memory(self):
        self.fake.control(mode="huge", huge_mb=50)
        # A generous budget: the body must be refused for its size, long before the deadline.
        self.check_hooks("50 MB body", incomplete("bad_response"), ["bad_response"],
                         budget_ms=5000, max_elapsed=1.5, stderr_has="larger than 4 MiB")
        self.check_peek("50 MB body", incomplete("bad_response", 2, 2), budget_ms=5000)

    def test_dripping_body_ends_at_the_deadline(self):
        self.fake.control(mode="drip")
        self.check_hooks("drip 1 B/s", incomplete("timeout"), ["timeout"])
        self.check_peek("drip 1 B/s", incomplete("timeout", 2, 2))

    def test_silent_server_ends_at_the_deadline(self):
        self.fake.control(mode="silent")
        self.check_hooks("silent server", incomplete("timeout"), ["timeout"])
        self.check_peek("silent server", incomplete("timeout", 2, 2))

    def check_nested_response(self, depth):
        """Valid JSON of the wrong shape (the one result is an array nested `depth` deep): the
        item is skipped, or the whole body called a bad response; never a crash."""
        server = RawServer(answering(200, nested_results_body(depth),
                                     {"Content-Type": "application/json"})).start()
        self.addCleanup(server.stop)
        for hook in HOOKS:
            with self.subTest(hook=hook, depth=depth):
                env = self.fault_env(hook, MEM0_BASE_URL=server.url)
                result = self.run_timed_hook(hook, self.hook_payload(hook), env=env)
                record(f"{depth:,} nested arrays", hook, result, SLOW_MS)
                ctx = result.context() or ""
                self.assertNotIn("[mem0:", ctx)
                self.assertEqual(problem_lines(ctx), [])
                self.assertIn(problem_lines(result.system_message()),
                              ([], [incomplete("bad_response")]))
                self.assert_within_budget(result, SLOW_MS)
        with self.subTest(program="mem0-hooks peek", depth=depth):
            result = self.run_timed_cli("peek", QUERY,
                                        env=self.fault_env("cli", MEM0_BASE_URL=server.url))
            self.assertIn(result.returncode, (0, 1), result.stderr[-300:])

    def test_shallowly_nested_response_is_harmless(self):
        self.check_nested_response(1000)

    def test_deeply_nested_response_is_not_a_crash(self):
        self.check_nested_response(1_500_000)  # a 3 MB body, under the 4 MiB cap


class ConnectionFaults(FaultTest):
    def test_connection_refused_is_a_transport_error(self):
        url = f"http://127.0.0.1:{closed_port()}"
        self.check_hooks("connection refused", incomplete("transport"), ["transport"],
                         MEM0_BASE_URL=url)
        self.check_peek("connection refused", incomplete("transport", 2, 2), MEM0_BASE_URL=url)

    def test_unresolvable_host_is_a_transport_or_timeout_error(self):
        url = "https://nonexistent.invalid"
        line = re.compile(rf"^mem0: recall incomplete {DASH} 1 of 1 searches failed "
                          r"\((transport|timeout)\)$")
        self.check_hooks("unresolvable host", line, ["transport", "timeout"], MEM0_BASE_URL=url)
        peek_line = re.compile(rf"^mem0: recall incomplete {DASH} 2 of 2 searches failed "
                               r"\((transport|timeout)\)$")
        self.check_peek("unresolvable host", peek_line, MEM0_BASE_URL=url)

    def test_server_closing_without_a_reply_is_a_transport_error(self):
        server = RawServer(closing_at_once).start()
        self.addCleanup(server.stop)
        self.check_hooks("empty reply", incomplete("transport"), ["transport"],
                         MEM0_BASE_URL=server.url)
        self.check_peek("empty reply", incomplete("transport", 2, 2), MEM0_BASE_URL=server.url)

    def test_server_that_never_accepts_ends_at_the_deadline(self):
        server = RawServer(None).start()  # listening; connections wait in the backlog forever
        self.addCleanup(server.stop)
        self.check_hooks("never accepts", incomplete("timeout"), ["timeout"],
                         MEM0_BASE_URL=server.url)
        self.check_peek("never accepts", incomplete("timeout", 2, 2), MEM0_BASE_URL=server.url)

    def test_hanging_dns_lookup_ends_at_the_deadline(self):
        if not self.slow_dns:
            self.skipTest("no C compiler to build the LD_PRELOAD resolver shim")
        # Under AddressSanitizer the shim is preloaded ahead of the ASan runtime: allow it.
        env = dict(MEM0_BASE_URL="https://slow-dns.invalid", LD_PRELOAD=self.slow_dns,
                   ASAN_OPTIONS="verify_asan_link_order=0")
        self.check_hooks("DNS lookup hangs 3 s", incomplete("timeout"), ["timeout"], **env)
        self.check_peek("DNS lookup hangs 3 s", incomplete("timeout", 2, 2), **env)


def tearDownModule():
    print_measurements("Fault runs (wall time from spawn to exit; peak RSS from GNU time)")


if __name__ == "__main__":
    testmain.main()
