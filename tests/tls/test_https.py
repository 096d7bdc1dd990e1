"""The built hooks over real HTTPS: nginx on loopback in front of the fake Mem0 (tlsbed.py).

docs/api.md (TLS verification always on; the CA from MEM0_CA_BUNDLE, SSL_CERT_FILE or SSL_CERT_DIR)
and docs/hooks.md#search-core (a plan's parallel searches multiplex over one HTTP/2 connection). The server's access
log tells which connection and protocol served each request. Exit 77 (skipped) when nginx or
openssl is not installed.
"""

import os
import re
import shutil
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))

from tlsbed import SKIP, TlsBed, missing_tools  # noqa: E402
from hooklib import BIN_DIR, HookTest, memory  # noqa: E402
import testmain  # noqa: E402
from gitrepo import make_repo  # noqa: E402
from hookevents import prompt_event, read_event  # noqa: E402

USER = "tester"
PROJECT = "proj-tls"
SEARCH = "/v3/memories/search/"
SYSTEM_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"

WEBHOOK = "11111111-aaaa-4aaa-8aaa-000000000001"
DECISION = "22222222-bbbb-4bbb-8bbb-000000000002"
ANTI = "33333333-cccc-4ccc-8ccc-000000000003"
CONVENTION = "77777777-aaaa-4aaa-8aaa-000000000007"
FILE_CONV = "aaaaaaaa-1111-4111-8111-000000000001"
FILE_DEC = "bbbbbbbb-2222-4222-8222-000000000002"

SEED = [
    memory(WEBHOOK, "Stripe webhook handler retries invoices with exponential backoff",
           "convention", user=USER, app=PROJECT),
    memory(DECISION, "Decided stripe webhook handler retry stops early", "decision",
           user=USER, app=PROJECT),
    memory(ANTI, "KeyError customer in stripe webhook handler when invoice lacks customer",
           "anti_pattern", user=USER, app=PROJECT),
    memory(CONVENTION, "src/billing/invoice.py keeps money as integer cents", "convention",
           user=USER, app=PROJECT),
    memory(FILE_CONV, "src billing invoice py stores money as integer cents", "convention",
           user=USER, app=PROJECT),
    memory(FILE_DEC, "Decided invoice py renders PDF with WeasyPrint", "decision",
           user=USER, app=PROJECT),
]

# Error detected (Traceback) and a file path detected → the thorough plan's four searches.
PROMPT = ("Traceback in src/billing/invoice.py:\nKeyError: 'customer' "
          "when the stripe webhook handler retries")
LEAN_PROMPT = "Why does the stripe webhook handler retry invoices twice?"
REL = "src/billing/invoice.py"

# A memory line of either hook (docs/hooks.md#line-formats): `- [type] text [mem0:id8]`, file lines with an age.
MEMORY_LINE = re.compile(r"^- \[[^\]]+\] .*\[mem0:[0-9a-f]{8}\]$", re.M)


def memory_lines(context):
    return MEMORY_LINE.findall(context or "")


class TlsTest(HookTest):
    """One TLS bed (nginx + fake Mem0) per class; a fresh HOME and project per test."""

    seed = SEED

    @classmethod
    def setUpClass(cls):
        cls.bed = TlsBed(seed=SEED).start()
        cls.fake = cls.bed.fake

    @classmethod
    def tearDownClass(cls):
        cls.bed.stop()

    def setUp(self):
        super().setUp()
        make_repo(self.project)
        self.file = os.path.join(self.project, REL)
        os.makedirs(os.path.dirname(self.file))
        with open(self.file, "w") as f:
            f.write("def total(qty, cents):\n    return qty * cents\n" * 100)
        self.bed.clear_access_log()

    def env(self, base_url=None, **overrides):
        """The hook environment over TLS: no CA variable from the caller's environment leaks in."""
        return super().env(**{"MEM0_BASE_URL": base_url or self.bed.h2_url,
                              "MEM0_PROJECT_ID": PROJECT, "MEM0_CA_BUNDLE": self.bed.ca_file,
                              "MEM0_TIMEOUT_MS": "5000", **overrides})

    def prompt(self, env, text=PROMPT, session="sess-1"):
        return self.run_hook("on_user_prompt",
                             prompt_event(text, session_id=session, cwd=self.project), env=env)

    def read(self, env, session="sess-1"):
        return self.run_hook("on_file_read",
                             read_event(self.file, session_id=session, cwd=self.project),
                             env=env)

    def searches_in_log(self, server, n):
        entries = [e for e in self.bed.access_log(server, wait_for=n) if e["uri"] == SEARCH]
        self.assertEqual(len(entries), n, entries)
        return entries

    def assert_recalled(self, result):
        context = result.context()
        self.assertTrue(memory_lines(context), f"no memory lines in {context!r}\n"
                                               f"stderr: {result.stderr!r}")
        self.assertNotIn(b"failed", result.stderr)
        return context


class Bed(TlsTest):
    """The bed itself, seen by the curl command-line tool."""

    def curl(self, url, *extra):
        return subprocess.run(["curl", "-sS", "-o", "/dev/null", "-w", "%{http_version}",
                               *extra, url + "/v1/ping/"], capture_output=True, text=True,
                              timeout=20)

    @unittest.skipUnless(shutil.which("curl"), "curl not installed")
    def test_alpn_offers_h2_on_one_port_and_only_http11_on_the_other(self):
        self.assertEqual(self.curl(self.bed.h2_url, "--cacert", self.bed.ca_file).stdout, "2")
        self.assertEqual(self.curl(self.bed.h1_url, "--cacert", self.bed.ca_file).stdout, "1.1")
        log = self.bed.access_log(wait_for=2)
        self.assertEqual([(e["protocol"], e["alpn"]) for e in log],
                         [("HTTP/2.0", "h2"), ("HTTP/1.1", "http/1.1")])

    @unittest.skipUnless(shutil.which("curl"), "curl not installed")
    def test_bad_certificates_fail_verification_for_curl_too(self):
        for url, why in ((self.bed.expired_url, "expired"),
                         (self.bed.wrong_host_url, "no alternative certificate subject name"),
                         (self.bed.unknown_ca_url, "unable to get local issuer certificate"),
                         (self.bed.h2_url, "unable to get local issuer certificate")):
            extra = () if url == self.bed.h2_url else ("--cacert", self.bed.ca_file)
            with self.subTest(url=url):
                result = self.curl(url, *extra)
                self.assertNotEqual(result.returncode, 0)
                self.assertIn(why, result.stderr)
        self.assertEqual(self.bed.access_log(), [])


class Http2(TlsTest):
    """Parallel searches share one connection, so one TLS handshake, over HTTP/2."""

    def test_prompt_thorough_four_searches_share_one_connection(self):
        result = self.prompt(self.env(MEM0_SEARCH_PLAN="thorough"))
        self.assert_recalled(result)
        self.assertEqual(len(self.fake.searches()), 4)
        entries = self.searches_in_log("h2", 4)
        self.assertEqual({e["protocol"] for e in entries}, {"HTTP/2.0"})
        self.assertEqual({e["alpn"] for e in entries}, {"h2"})
        self.assertEqual(len({e["conn"] for e in entries}), 1, entries)
        self.assertEqual(len(self.bed.access_log()), 4)  # nothing else was sent

    def test_file_read_thorough_three_searches_share_one_connection(self):
        result = self.read(self.env(MEM0_SEARCH_PLAN="thorough"))
        context = self.assert_recalled(result)
        self.assertTrue(context.startswith(f"Prior work on `{REL}`"), context)
        self.assertEqual(len(self.fake.searches()), 3)
        entries = self.searches_in_log("h2", 3)
        self.assertEqual({e["protocol"] for e in entries}, {"HTTP/2.0"})
        self.assertEqual(len({e["conn"] for e in entries}), 1, entries)

    def test_lean_prompt_sends_one_search(self):
        result = self.prompt(self.env(), text=LEAN_PROMPT)
        self.assert_recalled(result)
        entries = self.searches_in_log("h2", 1)
        self.assertEqual(entries[0]["protocol"], "HTTP/2.0")
        self.assertEqual(entries[0]["status"], 200)

    def test_cli_peek_two_searches_share_one_connection(self):
        result = self.run_bin("mem0-hooks", b"", ("peek", "stripe webhook handler retries invoices"),
                              env=self.env())
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(b"[mem0:11111111]", result.stdout)
        entries = self.searches_in_log("h2", 2)
        self.assertEqual({e["protocol"] for e in entries}, {"HTTP/2.0"})
        self.assertEqual(len({e["conn"] for e in entries}), 1, entries)

    def test_host_name_localhost_matches_the_dns_name_in_the_certificate(self):
        result = self.prompt(self.env(self.bed.url("h2", host="localhost"),
                                      MEM0_SEARCH_PLAN="thorough"))
        self.assert_recalled(result)
        entries = self.searches_in_log("h2", 4)
        self.assertEqual(len({e["conn"] for e in entries}), 1, entries)


class Http11(TlsTest):
    """A server without HTTP/2: the same searches still succeed, over HTTP/1.1."""

    def test_prompt_thorough_over_http11(self):
        result = self.prompt(self.env(self.bed.h1_url, MEM0_SEARCH_PLAN="thorough"))
        self.assert_recalled(result)
        self.assertEqual(len(self.fake.searches()), 4)
        entries = self.searches_in_log("h1", 4)
        self.assertEqual({e["protocol"] for e in entries}, {"HTTP/1.1"})
        self.assertEqual({e["alpn"] for e in entries}, {"http/1.1"})
        self.assertLessEqual(len({e["conn"] for e in entries}), 4)

    def test_file_read_thorough_over_http11(self):
        result = self.read(self.env(self.bed.h1_url, MEM0_SEARCH_PLAN="thorough"))
        self.assert_recalled(result)
        entries = self.searches_in_log("h1", 3)
        self.assertEqual({e["protocol"] for e in entries}, {"HTTP/1.1"})

    def test_lean_prompt_over_http11(self):
        result = self.prompt(self.env(self.bed.h1_url), text=LEAN_PROMPT)
        self.assert_recalled(result)
        self.assertEqual(self.searches_in_log("h1", 1)[0]["protocol"], "HTTP/1.1")


class Refused(TlsTest):
    """Certificates that must not be trusted: nothing reaches the server, nothing is recalled,
    and the failure is logged as a transport failure (docs/api.md). The context keeps only the
    recall-problem line of docs/failures.md#recall-notices (and the prompt's other notes), never a memory line."""

    def assert_refused(self, result, hook, searches=1, label="broad", reason=None):
        stderr = result.stderr.decode()
        if reason:  # libcurl's detailed reason, not just "peer certificate was not OK"
            self.assertIn(reason, stderr)
        self.assertRegex(stderr, rf"(?m)^mem0 {hook}: search 1/{searches} {label} failed: "
                                 r"transport: \S.*$")
        self.assertEqual(stderr.count("failed: transport: "), searches, stderr)
        context = result.context()
        self.assertEqual(memory_lines(context), [], context)
        # The problem is the user's to fix: it goes to them, not into the model's context.
        problem = (f"mem0: recall incomplete \u2014 {searches} of {searches} searches failed "
                   "(transport)")
        self.assertIn(problem, result.system_message() or "")
        self.assertNotIn(problem, context or "")
        self.assertEqual(self.fake.searches(), [])
        self.assertEqual(self.bed.access_log(), [])  # no request got through a handshake

    def test_expired_certificate(self):
        self.assert_refused(self.prompt(self.env(self.bed.expired_url)), "on_user_prompt",
                            reason="certificate has expired")

    def test_certificate_for_another_host(self):
        self.assert_refused(self.prompt(self.env(self.bed.wrong_host_url)), "on_user_prompt",
                            reason="no alternative certificate subject name matches")

    def test_certificate_from_an_unknown_ca(self):
        self.assert_refused(self.prompt(self.env(self.bed.unknown_ca_url)), "on_user_prompt",
                            reason="unable to get local issuer certificate")

    def test_file_read_refuses_each_bad_certificate(self):
        for server in ("expired", "wrong_host", "unknown_ca"):
            with self.subTest(server=server):
                self.fake.reset()
                self.bed.clear_access_log()
                result = self.read(self.env(self.bed.url(server)), session="sess-" + server)
                self.assert_refused(result, "on_file_read")

    def test_thorough_plan_counts_every_refused_search(self):
        result = self.prompt(self.env(self.bed.expired_url, MEM0_SEARCH_PLAN="thorough"))
        self.assert_refused(result, "on_user_prompt", searches=4)

    def test_system_store_alone_does_not_trust_the_test_ca(self):
        # Proves verification is on: without a CA setting libcurl's default store is used.
        env = self.env(MEM0_CA_BUNDLE=None, SSL_CERT_FILE=None, SSL_CERT_DIR=None)
        self.assert_refused(self.prompt(env), "on_user_prompt")

    def test_a_bundle_without_the_issuer_refuses(self):
        env = self.env(MEM0_CA_BUNDLE=self.bed.other_ca_file)
        self.assert_refused(self.prompt(env), "on_user_prompt")


class CaSources(TlsTest):
    """Where the trusted CA comes from: MEM0_CA_BUNDLE (file or hashed directory), else
    SSL_CERT_FILE, else SSL_CERT_DIR."""

    def assert_works(self, env):
        result = self.prompt(env, text=LEAN_PROMPT)
        self.assert_recalled(result)
        self.assertEqual(len(self.searches_in_log("h2", 1)), 1)

    def test_mem0_ca_bundle_as_a_hashed_directory(self):
        self.assert_works(self.env(MEM0_CA_BUNDLE=self.bed.hashed_ca_dir("hashed")))

    def test_hashed_directory_without_the_issuer_refuses(self):
        other = self.bed.pki.hashed_dir("other-hashed", [self.bed.other_ca_file])
        result = self.prompt(self.env(MEM0_CA_BUNDLE=other), text=LEAN_PROMPT)
        self.assertIn(b"failed: transport: ", result.stderr)
        self.assertEqual(memory_lines(result.context()), [])
        self.assertEqual(self.fake.searches(), [])

    @unittest.skipUnless(os.path.isfile(SYSTEM_BUNDLE), "no system CA bundle")
    def test_system_bundle_plus_the_test_ca(self):
        bundle = os.path.join(self.home, "bundle.pem")
        with open(bundle, "wb") as out:
            for path in (SYSTEM_BUNDLE, self.bed.ca_file):
                with open(path, "rb") as f:
                    out.write(f.read())
        self.assert_works(self.env(MEM0_CA_BUNDLE=bundle))

    def test_ssl_cert_file_when_mem0_ca_bundle_is_unset(self):
        self.assert_works(self.env(MEM0_CA_BUNDLE=None, SSL_CERT_FILE=self.bed.ca_file))

    def test_ssl_cert_dir_when_no_file_is_set(self):
        self.assert_works(self.env(MEM0_CA_BUNDLE=None,
                                   SSL_CERT_DIR=self.bed.hashed_ca_dir("certdir")))

    def test_mem0_ca_bundle_wins_over_ssl_cert_file(self):
        env = self.env(MEM0_CA_BUNDLE=self.bed.other_ca_file, SSL_CERT_FILE=self.bed.ca_file)
        result = self.prompt(env, text=LEAN_PROMPT)
        self.assertIn(b"failed: transport: ", result.stderr)
        self.assertEqual(memory_lines(result.context()), [])
        self.assertEqual(self.fake.searches(), [])

    def test_empty_mem0_ca_bundle_falls_through_to_ssl_cert_file(self):
        self.assert_works(self.env(MEM0_CA_BUNDLE="  ", SSL_CERT_FILE=self.bed.ca_file))


if __name__ == "__main__":
    missing = missing_tools()
    if missing:
        print(f"SKIPPED: the TLS test bed needs {', '.join(missing)} "
              f"(scripts/setup.sh installs them)")
        sys.exit(SKIP)
    for name in ("on_user_prompt", "on_file_read", "mem0-hooks"):
        if not os.access(os.path.join(BIN_DIR, name), os.X_OK):
            print(f"missing executable {os.path.join(BIN_DIR, name)} (set MEM0_BIN_DIR)")
            sys.exit(1)
    testmain.main()
