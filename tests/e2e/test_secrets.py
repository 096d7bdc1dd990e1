"""Hardening: secrets never leave the machine or land on disk; transport rules hold.

docs/failures.md#secrets-and-redaction (redaction of every listed secret form, `MEM0_REDACT=off`; the API key never in
output, logs or state files; private state), docs/failures.md#transport-security transport rules (http:// only for loopback, no
redirects followed, TLS verified).
"""

import hashlib
import json
import os
import shutil
import ssl
import stat
import subprocess
import tempfile
import unittest

from hardlib import HardTest, RawServer, answering, incomplete, problem_lines, run_timed
from hooklib import BIN_DIR, memory
import testmain  # noqa: E402
from fakelib import FakeMem0
from gitrepo import make_repo
from hookevents import prompt_event, read_event
from loopback import HttpStandIn, closed_port, json_handler

API_KEY = "m0-HardeningKey7Qx2Lp9Zr4Tn8Wv3Ys6"
HOOKS = ("on_user_prompt", "on_file_read")
LEDGER = "11111111-aaaa-4aaa-8aaa-000000000001"
SEED = [memory(LEDGER, "deploy config ledger notes", "convention")]

PEM_BODY = ["MIIEowIBAAKCAQEA7bq98DhsV3d2Rf1nE3pUq8wTz5mVq0Yc4v4mB2xW3nR8Jk1H",
            "Zq4G7a2pLq9mN3xT0vW8yB5cD2fE6gH1iJ4kL7mN0oP3qR6sT9uV2wX5yZ8aB1cD"]
# name → (text placed in the prompt, the part that must never reach the server)
SECRETS = {
    "mem0 key": ("m0-A1b2C3d4E5f6G7h8I9j0K1l2M3", "m0-A1b2C3d4E5f6G7h8I9j0K1l2M3"),
    "OpenAI key": ("sk-proj-abcdEFGH1234ijklMNOP5678qrstUVWX", "abcdEFGH1234ijklMNOP5678"),
    "Anthropic key": ("sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345-ABCDEF",
                      "abcdefghijklmnopqrstuvwxyz012345"),
    "GitHub token": ("ghp_1234567890abcdefghijklmnopqrstuvwxyzAB", "1234567890abcdefghij"),
    "GitHub OAuth token": ("gho_1234567890abcdefghijklmnopqrstuvwxyzAB", "1234567890abcdefghij"),
    "GitHub fine-grained token": (
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWX",
        "11ABCDEFG0123456789_abcdefghijklmnop"),
    "Slack bot token": ("xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx",
                        "1234567890-0987654321"),
    "Slack user token": ("xoxp-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx",
                         "1234567890-0987654321"),
    "AWS access key id": ("AKIAIOSFODNN7EXAMPLE", "IOSFODNN7EXAMPLE"),
    "AWS temporary key id": ("ASIAY34FZKBOKMUTVV7A", "Y34FZKBOKMUTVV7A"),
    "Google API key": ("AIzaSyD-1234567890abcdefghijklmnopqrstu", "SyD-1234567890abcdefghij"),
    "JWT": ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
            "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "dozjgNryP4J3jVmNHl0w5N"),
    "PEM private key": ("-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(PEM_BODY) +
                        "\n-----END RSA PRIVATE KEY-----", PEM_BODY[0][:30]),
    "OpenSSH private key": ("-----BEGIN OPENSSH PRIVATE KEY-----\n" + PEM_BODY[1] +
                            "\n-----END OPENSSH PRIVATE KEY-----", PEM_BODY[1][:30]),
    "password=": ("password=hunter2", "hunter2"),
    "secret=": ("secret=s3cr3tV4lue", "s3cr3tV4lue"),
    "token=": ("token=tok_9f8e7d6c5b4a", "tok_9f8e7d6c5b4a"),
    "api_key: quoted": ('api_key: "k-9f8e7d6c5b4a3210"', "k-9f8e7d6c5b4a3210"),
    "JSON password": ('{"password": "correct horse battery"}', "correct horse battery"),
    "env-style name": ("DB_PASSWORD=Tr0ub4dor3x", "Tr0ub4dor3x"),
    "URL query token": ("https://hooks.example.com/cb?token=abcd1234efgh&x=1", "abcd1234efgh"),
    "URL password": ("postgres://billing:CorrectHorse42@db.internal:5432/billing",
                     "CorrectHorse42"),
    "GitHub app token": ("ghs_1234567890abcdefghijklmnopqrstuvwxyzAB", "1234567890abcdefghij"),
    "GitHub user-to-server token": ("ghu_1234567890abcdefghijklmnopqrstuvwxyzAB",
                                    "1234567890abcdefghij"),
    "GitLab token": ("glpat-Ab12Cd34Ef56Gh78Ij90", "Ab12Cd34Ef56Gh78Ij90"),
    "Stripe secret key": ("sk_live_51H8abcdEFGH1234ijklMNOP5678", "51H8abcdEFGH1234ijklMNOP"),
    "Stripe restricted key": ("rk_live_51H8abcdEFGH1234ijklMNOP5678", "51H8abcdEFGH1234ijklMNOP"),
    "Bearer header": ("Authorization: Bearer 9f8e7d6c5b4a3210fedcba98", "9f8e7d6c5b4a3210fedcba98"),
}


def prompt_with(secret_text):
    return f"The deploy keeps failing with this config: {secret_text} -- why does it break?"


def files_under(root):
    for dirpath, dirnames, names in os.walk(root):
        for name in names:
            yield os.path.join(dirpath, name)


class SecretsTest(HardTest):
    seed = SEED

    @classmethod
    def setUpClass(cls):
        cls.fake = FakeMem0(seed=cls.seed, api_key=API_KEY).start()

    def prompt_payload(self, text="Which deploy config ledger notes apply here?",
                       session="sess-sec"):
        return prompt_event(text, session_id=session, cwd=self.project)

    def read_payload(self, session="sess-sec"):
        return read_event(self.big_file("deploy/ledger.py"), session_id=session,
                          cwd=self.project)

    def payload(self, hook, session="sess-sec"):
        return (self.prompt_payload(session=session) if hook == "on_user_prompt"
                else self.read_payload(session=session))


class Redaction(SecretsTest):
    def test_every_secret_form_is_redacted_in_the_query(self):
        for name, (text, must_not_leak) in SECRETS.items():
            with self.subTest(secret=name):
                self.fake.reset()
                self.run_hook("on_user_prompt", self.prompt_payload(prompt_with(text)))
                searches = self.fake.searches()
                self.assertEqual(len(searches), 1)
                query = searches[0]["query"]
                self.assertNotIn(must_not_leak, query)
                self.assertIn("[REDACTED]", query)
                self.assertIn("The deploy keeps failing with this config:", query)
                self.assertTrue(query.endswith("-- why does it break?"), query)

    def test_redaction_off_sends_the_prompt_unchanged(self):
        env = self.env(MEM0_REDACT="off")
        for name, (text, _) in SECRETS.items():
            with self.subTest(secret=name):
                self.fake.reset()
                self.run_hook("on_user_prompt", self.prompt_payload(prompt_with(text)), env=env)
                query = self.fake.searches()[0]["query"]
                self.assertEqual(query, " ".join(prompt_with(text).split()))
                self.assertNotIn("[REDACTED]", query)


class ApiKeyNeverWritten(SecretsTest):
    def scenarios(self):
        """(name, program, payload or CLI args, env overrides, fake knobs)."""
        refused = "http://10.1.2.3"
        for hook in HOOKS:
            yield f"{hook} recall", hook, None, {}, {}
            yield f"{hook} 401", hook, None, {}, {"status": 401}
            yield f"{hook} 429", hook, None, {}, {"status": 429, "retry_after": "5"}
            yield f"{hook} 500", hook, None, {}, {"status": 500}
            yield f"{hook} garbage", hook, None, {}, {"mode": "garbage"}
            yield f"{hook} timeout", hook, None, {"MEM0_TIMEOUT_MS": "300"}, {"mode": "silent"}
            yield (f"{hook} refused port", hook, None,
                   {"MEM0_BASE_URL": f"http://127.0.0.1:{closed_port()}"}, {})
            yield f"{hook} http refused", hook, None, {"MEM0_BASE_URL": refused}, {}
        yield ("prompt holding the key", "on_user_prompt",
               self.prompt_payload(f"Why is my key {API_KEY} rejected by the deploy config?",
                                   session="holding"), {}, {})
        yield "peek", "mem0-hooks", ["peek", "deploy config"], {}, {}
        yield "peek --json", "mem0-hooks", ["peek", "--json", "deploy config"], {}, {}
        yield "peek 401", "mem0-hooks", ["peek", "deploy config"], {}, {"status": 401}
        yield "context", "mem0-hooks", ["context", "deploy config ledger"], {}, {}
        yield "doctor", "mem0-hooks", ["doctor"], {}, {}
        yield "doctor 401", "mem0-hooks", ["doctor"], {}, {"status": 401}

    def test_api_key_is_in_no_output_log_or_state_file(self):
        for i, (name, program, arg, env_over, knobs) in enumerate(self.scenarios()):
            with self.subTest(scenario=name):
                self.fake.control(**knobs)
                # A state dir per scenario keeps a 429 or an outage from pausing the next one;
                # all of them live under the scanned HOME.
                env = self.env(MEM0_DEBUG="1", **{
                    "MEM0_STATE_DIR": os.path.join(self.home, ".mem0", f"state-{i}"),
                    **env_over})
                if program == "mem0-hooks":
                    result = run_timed([os.path.join(BIN_DIR, program), *arg], b"", env=env,
                                       cwd=self.project)
                else:
                    payload = arg or self.payload(program, session=f"scan-{i}")
                    result = self.run_timed_hook(program, payload, env=env)
                self.assertNotIn(API_KEY.encode(), result.stdout)
                self.assertNotIn(API_KEY.encode(), result.stderr)
        self.fake.control()
        log = os.path.join(self.home, ".mem0", "hooks.log")
        self.assertTrue(os.path.exists(log), "MEM0_DEBUG=1 wrote no hooks.log")
        scanned = 0
        for path in files_under(self.home):
            if path.startswith(self.project):
                continue
            with open(path, "rb") as f:
                self.assertNotIn(API_KEY.encode(), f.read(), path)
            scanned += 1
        self.assertGreater(scanned, 5)
        requests = self.fake.requests()
        self.assertTrue(requests)
        for request in requests:
            self.assertNotIn(API_KEY, json.dumps(request.get("body")))

    def test_api_key_echoed_in_an_error_body_is_not_logged(self):
        self.fake.control(status=401,
                          error_body=json.dumps({"detail": f"Invalid token {API_KEY}"}))
        for hook in HOOKS:
            with self.subTest(hook=hook):
                result = self.run_hook(hook, self.payload(hook), env=self.env(MEM0_DEBUG="1"))
                self.assertNotIn(API_KEY.encode(), result.stdout)
                self.assertNotIn(API_KEY.encode(), result.stderr)
                with open(os.path.join(self.home, ".mem0", "hooks.log"), "rb") as f:
                    self.assertNotIn(API_KEY.encode(), f.read())


class PrivateState(SecretsTest):
    def check_private(self, root):
        checked = 0
        for dirpath, dirnames, names in os.walk(root):
            mode = stat.S_IMODE(os.stat(dirpath).st_mode)
            self.assertEqual(mode, 0o700, f"{dirpath} is {oct(mode)}")
            for name in names:
                path = os.path.join(dirpath, name)
                mode = stat.S_IMODE(os.stat(path).st_mode)
                self.assertEqual(mode, 0o600, f"{path} is {oct(mode)}")
                checked += 1
        return checked

    def test_state_dir_and_files_are_private_even_with_umask_0(self):
        def umask0():
            os.umask(0)
        # A project map self-heal (rewrites project_map.json) and an outage (backoff.json).
        url = "git@github.com:acme/ledger.git"
        make_repo(self.project, origin=url)
        os.makedirs(os.path.join(self.home, ".mem0"), mode=0o700)
        with open(os.path.join(self.home, ".mem0", "project_map.json"), "w") as f:
            json.dump({"remote:" + hashlib.sha256(url.encode()).hexdigest()[:16]: "proj-e2e"}, f)
        os.chmod(os.path.join(self.home, ".mem0", "project_map.json"), 0o600)
        custom = os.path.join(self.home, "custom", "nested", "state")
        runs = [
            (self.env(MEM0_DEBUG="1", MEM0_PROJECT_ID=None), "s1"),
            (self.env(MEM0_DEBUG="1", MEM0_BASE_URL=f"http://127.0.0.1:{closed_port()}"), "s2"),
            (self.env(MEM0_DEBUG="1", MEM0_STATE_DIR=custom), "s3"),
        ]
        for env, session in runs:
            for hook in HOOKS:
                result = run_timed([os.path.join(BIN_DIR, hook)],
                                   json.dumps(self.payload(hook, session=session)).encode(),
                                   env=env, cwd=self.project, preexec_fn=umask0)
                self.assertEqual(result.returncode, 0, result.stderr)
        mem0 = os.path.join(self.home, ".mem0")
        for rel in ("hooks.log", "project_map.json", "state/usage.json", "state/backoff.json",
                    "state/sessions/s1.json"):
            self.assertTrue(os.path.exists(os.path.join(mem0, rel)), rel)
        self.assertGreater(self.check_private(mem0), 5)
        self.assertGreater(self.check_private(os.path.join(self.home, "custom")), 1)


class CredentialsInTheOrigin(SecretsTest):
    TOKEN = "tok_9f8e7d6c5b4a3210"

    def test_a_credential_in_the_origin_url_is_in_no_id_request_log_or_doctor_output(self):
        # The project id is the clean url's, as for https://git.example.com/acme-billing.git.
        make_repo(self.project,
                  origin=f"https://deploy:{self.TOKEN}@git.example.com/acme-billing.git")
        env = self.env(MEM0_DEBUG="1", MEM0_PROJECT_ID=None)
        for hook in HOOKS:
            self.run_hook(hook, self.payload(hook), env=env)
        doctor = self.run_bin("mem0-hooks", args=("doctor",), env=env, text=True)
        self.assertIn("git.example.com-acme-billing (git remote origin)", doctor.stdout)
        requests = json.dumps(self.fake.requests())
        self.assertIn('"git.example.com-acme-billing"', requests)
        with open(os.path.join(self.home, ".mem0", "hooks.log")) as f:
            log = f.read()
        for where, text in (("a request", requests), ("doctor", doctor.stdout + doctor.stderr),
                            ("the log", log)):
            with self.subTest(where=where):
                self.assertNotIn(self.TOKEN, text)
                self.assertNotIn("deploy:", text)
        for path in files_under(self.home):
            if os.path.join(".git", "") not in path:
                with open(path, "rb") as f:
                    self.assertNotIn(self.TOKEN.encode(), f.read(), path)


class StateDirectory(SecretsTest):
    """Appends and lock files never follow a symbolic link, and a state directory another user
    could change is refused (docs/state.md#state-directory)."""

    def planted(self, state, names):
        """A link to nothing outside the state dir at each of `names`: the outside paths."""
        outside = []
        for i, name in enumerate(names):
            path = os.path.join(state, name)
            os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
            target = os.path.join(self.home, "outside", f"{i}-{os.path.basename(name)}")
            os.symlink(target, path)
            outside.append(target)
        os.makedirs(os.path.join(self.home, "outside"))
        return outside

    def test_a_planted_link_is_never_followed_by_an_append_or_a_lock(self):
        mem0 = os.path.join(self.home, ".mem0")
        state = os.path.join(mem0, "state")
        os.makedirs(state, mode=0o700)
        outside = self.planted(mem0, [
            "hooks.log", "state/sessions/sess-sec.json.lock", "state/sessions/sess-sec.runs",
            "state/usage.json.lock", "state/backoff.json.lock", "state/sessions/.swept"])
        env = self.env(MEM0_DEBUG="1")
        for hook in HOOKS:
            self.run_hook(hook, self.payload(hook), env=env)
        self.run_hook("on_user_prompt", self.prompt_payload(session="sess-sec"), env=env)
        self.assertEqual([p for p in outside if os.path.lexists(p)], [])
        self.assertEqual(os.listdir(os.path.join(self.home, "outside")), [])

    def test_a_state_directory_writable_by_others_is_refused_with_one_line(self):
        shared = os.path.join(self.home, "shared-state")
        os.makedirs(shared)
        os.chmod(shared, 0o777)
        env = self.env(MEM0_STATE_DIR=shared)
        for hook in HOOKS:
            with self.subTest(hook=hook):
                self.fake.reset()
                result = self.run_hook(hook, self.payload(hook), env=env)
                self.assertEqual(result.stdout, b"")
                lines = result.stderr.decode().splitlines()
                self.assertEqual(len(lines), 1, lines)
                self.assertIn(f"state directory {shared} is writable by others", lines[0])
                self.assertEqual(self.fake.requests(), [])
        self.assertEqual(os.listdir(shared), [])
        cli = self.run_bin("mem0-hooks", args=("remember", "Invoices are integer cents"),
                           env=env, text=True)
        self.assertIn(f"state directory {shared} is writable by others", cli.stderr)
        self.assertEqual(os.listdir(shared), [])

    @unittest.skipUnless(hasattr(os, "geteuid") and os.geteuid() == 0,
                         "giving a directory to another user needs root")
    def test_a_state_directory_of_another_user_is_refused_with_one_line(self):
        theirs = os.path.join(self.home, "their-state")
        os.makedirs(theirs, mode=0o700)
        os.chown(theirs, 65534, 65534)
        result = self.run_hook("on_user_prompt", self.prompt_payload(),
                               env=self.env(MEM0_STATE_DIR=theirs))
        lines = result.stderr.decode().splitlines()
        self.assertEqual(len(lines), 1, lines)
        self.assertIn(f"state directory {theirs} is owned by another user", lines[0])
        self.assertEqual(os.listdir(theirs), [])
        self.assertEqual(self.fake.requests(), [])


class PlainHttpRefused(SecretsTest):
    """Requests are routed through the fake as an HTTP proxy: a request that should not be
    made at all would show up in its log (with the Authorization header)."""

    def proxied_env(self, base_url, **overrides):
        return self.env(MEM0_BASE_URL=base_url, http_proxy=self.fake.url,
                        HTTPS_PROXY=self.fake.url, **overrides)

    def check_refused(self, base_url):
        self.fake.reset()
        for hook in HOOKS:
            with self.subTest(hook=hook, url=base_url):
                # A session per URL: the user is told once per session.
                result = self.run_timed_hook(hook, self.payload(hook, session=f"{hook} {base_url}"),
                                             env=self.proxied_env(base_url))
                self.assertLess(result.elapsed, 0.5)
                self.assertIn(b"refusing http:// to non-loopback host", result.stderr)
                self.assertEqual(problem_lines(result.system_message()), [incomplete("transport")])
                self.assertEqual(problem_lines(result.context()), [])
        with self.subTest(program="mem0-hooks peek", url=base_url):
            result = run_timed([os.path.join(BIN_DIR, "mem0-hooks"), "peek", "deploy config"],
                               b"", env=self.proxied_env(base_url), cwd=self.project)
            self.assertEqual(result.returncode, 1)
            self.assertIn(b"refusing http:// to non-loopback host", result.stderr)
        with self.subTest(check="nothing sent", url=base_url):
            self.assertEqual(self.fake.requests(), [], "a request was sent")

    def test_non_loopback_http_is_refused_without_a_request(self):
        self.check_refused("http://10.1.2.3")

    def test_lookalike_hosts_are_refused(self):
        for url in ("http://127.0.0.1.evil.example", "http://localhost.evil.example",
                    "http://127.0.0.1@10.1.2.3", "http://localhost:1@10.1.2.3",
                    "http://10.1.2.3/@127.0.0.1", "http://[::ffff:10.1.2.3]",
                    "http://0x0a010203"):
            self.check_refused(url)

    def test_query_or_fragment_tricks_are_refused(self):
        # libcurl ends the authority at '?' or '#': the '@' after them is not userinfo.
        for url in ("http://10.1.2.3?@127.0.0.1", "http://10.1.2.3#@127.0.0.1"):
            self.check_refused(url)

    def test_loopback_http_is_allowed(self):
        for url in (self.fake.url, self.fake.url.replace("127.0.0.1", "localhost")):
            with self.subTest(url=url):
                self.fake.reset()
                ctx = self.run_hook("on_user_prompt", self.prompt_payload(session=url),
                                    env=self.env(MEM0_BASE_URL=url)).context()
                self.assertIn(f"[mem0:{LEDGER[:8]}]", ctx)


class RedirectsNotFollowed(SecretsTest):
    def test_redirects_to_another_server_are_not_followed(self):
        for status in (301, 302, 303, 307, 308):
            with self.subTest(status=status):
                self.fake.reset()
                redirector = RawServer(answering(
                    status, b"", {"Location": self.fake.url + "/v3/memories/search/"})).start()
                self.addCleanup(redirector.stop)
                env = self.env(MEM0_BASE_URL=redirector.url)
                for hook in HOOKS:
                    result = self.run_hook(hook, self.payload(hook, session=f"{hook}-{status}"),
                                           env=env)
                    self.assertEqual(problem_lines(result.system_message()),
                                     [incomplete("bad_response")], hook)
                    self.assertEqual(problem_lines(result.context()), [], hook)
                peek = run_timed([os.path.join(BIN_DIR, "mem0-hooks"), "peek", "deploy config"],
                                 b"", env=env, cwd=self.project)
                self.assertEqual(peek.returncode, 1)
                self.assertEqual(len(redirector.requests()), 4)  # 2 hooks + 2 peek searches
                self.assertEqual(self.fake.requests(), [], "a redirect was followed")


class TlsVerified(SecretsTest):
    """A loopback HTTPS stand-in with its own certificate: refused unless that certificate is
    trusted (MEM0_CA_BUNDLE) and names the host."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.tls_dir = tempfile.mkdtemp(prefix="mem0_tls_")
        cls.servers = []

    @classmethod
    def tearDownClass(cls):
        for server in cls.servers:
            server.stop()
        shutil.rmtree(cls.tls_dir, True)
        super().tearDownClass()

    def certificate(self, name, san):
        cert = os.path.join(self.tls_dir, name + ".pem")
        key = os.path.join(self.tls_dir, name + ".key")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                        "-subj", "/CN=mem0-test", "-addext", f"subjectAltName={san}",
                        "-keyout", key, "-out", cert], check=True, capture_output=True)
        return cert, key

    def https_server(self, cert, key):
        """A loopback HTTPS server answering every POST with one search result."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        server = HttpStandIn(json_handler({"POST": (200, {"results": [dict(SEED[0], score=0.9)]})}),
                             ssl_context=context).start()
        self.servers.append(server)
        return server

    @unittest.skipUnless(shutil.which("openssl"), "openssl is not installed")
    def test_untrusted_or_misnamed_certificates_are_refused(self):
        good_cert, good_key = self.certificate("loopback", "IP:127.0.0.1")
        other_cert, other_key = self.certificate("other", "DNS:api.example.com")
        good = self.https_server(good_cert, good_key)
        other = self.https_server(other_cert, other_key)
        cases = [
            ("self-signed, not trusted", good.url, {}, None),
            ("trusted, wrong name", other.url, {"MEM0_CA_BUNDLE": other_cert}, None),
            ("trusted and named (control)", good.url, {"MEM0_CA_BUNDLE": good_cert}, LEDGER),
        ]
        for name, url, extra, expected in cases:
            with self.subTest(case=name):
                env = self.env(MEM0_BASE_URL=url, **extra)
                result = self.run_hook("on_user_prompt", self.prompt_payload(session=name),
                                       env=env)
                if expected:
                    self.assertIn(f"[mem0:{expected[:8]}]", result.context())
                else:
                    self.assertEqual(problem_lines(result.system_message()),
                                     [incomplete("transport")])
                    self.assertEqual(problem_lines(result.context()), [])
        self.assertEqual(len(good.requests()), 1)  # only the control got past the handshake
        self.assertEqual(good.requests()[0]["method"], "POST")
        self.assertEqual(other.requests(), [])


if __name__ == "__main__":
    testmain.main()
