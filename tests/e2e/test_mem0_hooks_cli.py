"""End-to-end: the built mem0-hooks CLI against the fake Mem0 server (docs/cli.md)."""

import json
import os
import shlex
import shutil
import subprocess
import time
import unittest
from urllib.parse import urlsplit

from hooklib import BIN_DIR, HookTest, and_terms, memory, PROJECT, shell_quote, USER
import testmain  # noqa: E402
from fakelib import FakeMem0
from gitrepo import make_repo
from loopback import HttpStandIn, closed_port, json_handler

# Longer than 12 characters, so doctor masks it as `m0-…` plus the last four.
API_KEY = "m0-e2eSecretKey0123wxyz"
MASKED_KEY = "m0-\u2026wxyz"

BROAD = "11111111-aaaa-4aaa-8aaa-000000000001"
DECISION = "abcd1234-bbbb-4bbb-8bbb-000000000002"
LONG = "33333333-cccc-4ccc-8ccc-000000000003"
OPS = "44444444-dddd-4ddd-8ddd-000000000004"
OTHER_PROJECT = "55555555-eeee-4eee-8eee-000000000005"
OTHER_USER = "66666666-ffff-4fff-8fff-000000000006"
IN_RUN = "77777777-aaaa-4aaa-8aaa-000000000007"
CONV_FILE = "88888888-bbbb-4bbb-8bbb-000000000008"
ANTI = "99999999-cccc-4ccc-8ccc-000000000009"
MISSING = "deadbeef-0000-4000-8000-00000000000f"

LONG_TEXT = "Stripe webhook retries log every attempt with the payload: " + "\u00e9" * 40
QUERY = "stripe webhook retries"
TASK = "Fix the KeyError in src/billing/invoice.py when stripe webhook retries"

PEEK_LINES = [
    # 80 code points of the 99-code-point text, then the ellipsis.
    "1. [convention] " + LONG_TEXT[:80] + "\u2026 (2026-09-15) [mem0:33333333]",
    "2. [decision] Decided stripe webhook retries stop after three attempts (2026-10-01) "
    "[mem0:abcd1234]",
    "3. [convention] Stripe webhook retries use exponential backoff (2026-11-20) [mem0:11111111]",
    "4. [ops] Stripe webhook retries dashboard lives in Grafana (2026-12-01) [mem0:44444444]",
]


HOOKS_JSON = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "hooks.json")


def load_hook_set(path=HOOKS_JSON):
    """The hook set as the repository's hooks.json wires it (a unit test keeps it identical to
    runtime/table.hpp): one (event, matcher, executable, timeout, status message) per hook
    entry, in file order; matcher None when the group has none (install omits an empty one),
    status message None when the hook has none."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    rows = []
    for event, groups in doc["hooks"].items():
        for group in groups:
            for hook in group["hooks"]:
                # "${CLAUDE_PLUGIN_ROOT}"/build/bin/<executable> [arguments]
                program = shlex.split(hook["command"])[0]
                rows.append((event, group.get("matcher") or None, program.rsplit("/", 1)[-1],
                             hook["timeout"], hook.get("statusMessage")))
    return rows


HOOK_SET = load_hook_set()
# Each executable once (on_bash_output serves two events), in hooks.json order.
EXECUTABLES = list(dict.fromkeys(row[2] for row in HOOK_SET))
assert len(HOOK_SET) >= 2 and len(EXECUTABLES) >= 2, HOOK_SET


def command_executable(hook):
    """The file name of the program a settings hook entry runs (its first shell word)."""
    words = shlex.split(hook["command"])
    return os.path.basename(words[0]) if words else ""


MARKETPLACE_ID = "mem0-native-hooks@mem0-local"


def scope_settings(home, project, scope):
    """The Claude Code settings file of a scope: user, project or local."""
    return {"user": os.path.join(home, ".claude", "settings.json"),
            "project": os.path.join(project, ".claude", "settings.json"),
            "local": os.path.join(project, ".claude", "settings.local.json")}[scope]


def enable_plugin(path, enabled=True, plugin=MARKETPLACE_ID):
    """Set enabledPlugins[plugin] in the settings file `path`, keeping the rest."""
    doc = {}
    if os.path.exists(path):
        with open(path) as f:
            doc = json.load(f)
    doc.setdefault("enabledPlugins", {})[plugin] = enabled
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)


def install_from_marketplace(home, project, scope="user", enabled=True, project_path=None):
    """What `claude plugin install mem0-native-hooks@mem0-local --scope <scope>` leaves behind
    (Claude Code 2.1, checked with the cached client): the plugin copied to
    ~/.claude/plugins/cache/<marketplace>/<plugin>/<version>/, an entry in
    ~/.claude/plugins/installed_plugins.json (with projectPath for the project and local
    scopes), and enabledPlugins in the scope's settings file. Returns the install dir."""
    plugins = os.path.join(home, ".claude", "plugins")
    install_dir = os.path.join(plugins, "cache", "mem0-local", "mem0-native-hooks", "0.1.0")
    os.makedirs(os.path.join(install_dir, ".claude-plugin"), exist_ok=True)
    shutil.copy(HOOKS_JSON, install_dir)
    with open(os.path.join(install_dir, ".claude-plugin", "plugin.json"), "w") as f:
        json.dump({"name": "mem0-native-hooks", "version": "0.1.0", "hooks": "./hooks.json"}, f)
    registry = os.path.join(plugins, "installed_plugins.json")
    doc = {"version": 2, "plugins": {}}
    if os.path.exists(registry):
        with open(registry) as f:
            doc = json.load(f)
    entry = {"scope": scope, "installPath": install_dir, "version": "0.1.0",
             "installedAt": "2026-12-01T03:43:33.103Z", "lastUpdated": "2026-12-01T03:43:33.103Z"}
    if scope != "user":
        entry["projectPath"] = project_path or project
    doc["plugins"].setdefault(MARKETPLACE_ID, []).append(entry)
    with open(registry, "w") as f:
        json.dump(doc, f, indent=2)
    # A marketplace added from a directory, whose plugin is the directory itself (source "./").
    source = marketplace_dir(home)
    os.makedirs(os.path.join(source, ".claude-plugin"), exist_ok=True)
    with open(os.path.join(source, ".claude-plugin", "marketplace.json"), "w") as f:
        json.dump({"name": "mem0-local", "owner": {"name": "t"},
                   "plugins": [{"name": "mem0-native-hooks", "source": "./"}]}, f)
    with open(os.path.join(plugins, "known_marketplaces.json"), "w") as f:
        json.dump({"mem0-local": {"source": {"source": "directory", "path": source},
                                  "installLocation": source}}, f)
    if project_path is None:
        enable_plugin(scope_settings(home, project, scope), enabled)
    return install_dir


def marketplace_dir(home):
    """The directory the marketplace of install_from_marketplace was added from."""
    return os.path.join(home, "src", "mkt")


# A capture waiting in the outbox, as the hooks queue one.
OUTBOX_ITEM = '{"kind":"add","body":{"messages":[{"role":"user","content":"x"}]}}'


def run_memory(mem_id, text, mtype, run_id):
    return memory(mem_id, text, mtype, created="2026-08-01T00:00:00Z", run_id=run_id)


def ping_fails():
    """A loopback stand-in whose /v1/ping/ answers 503 while search works."""
    return HttpStandIn(json_handler({"GET": (503, {"detail": "ping is down"}),
                                     "POST": (200, {"results": []})}))


class CliTest(HookTest):
    """One fake Mem0 (with a long API key) per class, a fresh HOME per test."""

    api_key = API_KEY

    @classmethod
    def setUpClass(cls):
        cls.fake = FakeMem0(seed=cls.seed, api_key=cls.api_key).start()

    def run_cli(self, *args, env=None, cwd=None, timeout=20):
        """mem0-hooks with args and no stdin; stdout and stderr decoded."""
        return self.run_bin("mem0-hooks", None, args, env=env, cwd=cwd, timeout=timeout,
                            text=True)

    def state_dir(self):
        return os.path.join(self.home, ".mem0", "state")

    def write_session(self, session, injected):
        sessions = os.path.join(self.state_dir(), "sessions")
        os.makedirs(sessions, exist_ok=True)
        path = os.path.join(sessions, session + ".json")
        with open(path, "w") as f:
            json.dump({"injected": injected, "files": {}, "rubric_shown": False,
                       "limit_notice_shown": False, "prompts": 0}, f)
        return path

    def gets(self):
        return [urlsplit(r["path"]).path for r in self.fake.requests() if r["method"] == "GET"]

    def files_under(self, root):
        out = {}
        for dirpath, _, names in os.walk(root):
            for name in names:
                path = os.path.join(dirpath, name)
                with open(path, "rb") as f:
                    out[path] = f.read()
        return out


def search_terms(body):
    return and_terms(body["filters"])


def search_type(body):
    for term in search_terms(body):
        if "metadata" in term:
            return term["metadata"]["type"]
    return None


SEED = [
    memory(BROAD, "Stripe webhook retries use exponential backoff", "convention",
           created="2026-11-20T10:00:00Z"),
    memory(DECISION, "Decided stripe webhook retries stop after three attempts", "decision",
           created="2026-10-01T08:00:00Z"),
    memory(LONG, LONG_TEXT, "convention", created="2026-09-15T12:30:00.123456+02:00"),
    memory(OPS, "Stripe webhook retries dashboard lives in Grafana", None,
           categories=["ops"], created="2026-12-01T09:00:00Z"),
    memory(OTHER_PROJECT, "Stripe webhook retries in another project", "decision",
           app="other-project", created="2026-11-01T00:00:00Z"),
    memory(OTHER_USER, "Stripe webhook retries of someone else", "decision",
           user="someone-else", created="2026-11-01T00:00:00Z"),
    memory(CONV_FILE, "src/billing/invoice.py keeps money as integer cents", "convention",
           created="2026-07-01T00:00:00Z"),
    memory(ANTI, "KeyError on missing customer", "anti_pattern",
           created="2026-07-02T00:00:00Z"),
]


class Usage(CliTest):
    seed = SEED

    def test_help_lists_the_commands(self):
        result = self.run_cli("--help")
        self.assertEqual(result.returncode, 0)
        for command in ("peek", "context", "doctor", "install", "uninstall"):
            self.assertIn(command, result.stdout)
        self.assertTrue(result.stdout.startswith("usage: mem0-hooks"))

    def test_command_help_exits_zero(self):
        result = self.run_cli("peek", "--help")
        self.assertEqual(result.returncode, 0)
        self.assertIn("peek [options] <query", result.stdout)
        self.assertEqual(self.fake.requests(), [])

    # Each command has its own help: its usage line, a one-line description and its options,
    # never the global usage; `--help`, `-h` and `help <command>` print it.
    def test_each_command_has_its_own_help(self):
        options = {"peek": ["--scope", "--top-k", "--session", "--plain", "--json"],
                   "context": ["--session", "--plain", "--json"],
                   "doctor": [],
                   "install": ["--project", "--settings", "--dry-run", "--force"],
                   "uninstall": ["--project", "--settings", "--dry-run"]}
        for command, names in options.items():
            for argv in ([command, "--help"], [command, "-h"], ["help", command],
                         [command, "some", "words", "--help"]):
                with self.subTest(argv=argv):
                    result = self.run_cli(*argv)
                    self.assertEqual(result.returncode, 0, result.stderr)
                    self.assertEqual(result.stderr, "")
                    lines = result.lines()
                    self.assertTrue(lines[0].startswith(f"usage: mem0-hooks {command}"),
                                    result.stdout)
                    self.assertNotEqual(lines[1].strip(), "")  # the one-line description
                    for other in options:
                        if other != command:
                            self.assertNotIn(f"mem0-hooks {other}", result.stdout)
                    for name in names:
                        self.assertIn(name, result.stdout)
                    if command != "install":
                        self.assertNotIn("--force", result.stdout)
        self.assertEqual(self.fake.requests(), [])

    def test_help_of_an_unknown_command_is_a_usage_error(self):
        result = self.run_cli("help", "frobnicate")
        self.assertEqual(result.returncode, 2)
        self.assertIn("unknown command 'frobnicate'", result.stderr)

    def test_version(self):
        result = self.run_cli("--version")
        self.assertEqual(result.returncode, 0)
        self.assertEqual(result.stdout, "mem0-hooks 0.1.0\n")

    def test_no_arguments_is_a_usage_error(self):
        result = self.run_cli()
        self.assertEqual(result.returncode, 2)
        self.assertEqual(result.stdout, "")
        self.assertIn("usage: mem0-hooks", result.stderr)

    def test_unknown_command_is_a_usage_error(self):
        result = self.run_cli("frobnicate")
        self.assertEqual(result.returncode, 2)
        self.assertEqual(result.stdout, "")
        self.assertIn("unknown command 'frobnicate'", result.stderr)

    def test_bad_options_are_usage_errors_without_requests(self):
        cases = {
            "unknown option": ["peek", "--bogus", QUERY],
            "flag with a value": ["peek", "--plain=yes", QUERY],
            "option of another command": ["context", "--scope", "global", TASK],
            "top-k without value": ["peek", QUERY, "--top-k"],
            "top-k not a number": ["peek", "--top-k", "many", QUERY],
            "top-k zero": ["peek", "--top-k", "0", QUERY],
            "bogus scope": ["peek", "--scope", "bogus", QUERY],
            "session scope without session": ["peek", "--scope", "session", QUERY],
            "doctor with an argument": ["doctor", "extra"],
            "install with an argument": ["install", "extra"],
            "context without a task": ["context"],
        }
        for name, argv in cases.items():
            with self.subTest(name):
                result = self.run_cli(*argv)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertEqual(result.stdout, "")
                self.assertNotEqual(result.stderr.strip(), "")
        self.assertEqual(self.fake.requests(), [])

    def test_missing_option_value_names_the_option(self):
        result = self.run_cli("peek", QUERY, "--top-k")
        self.assertIn("--top-k needs a value", result.stderr)
        result = self.run_cli("peek", "--scope", "bogus", QUERY)
        self.assertIn("--scope must be project, session or global", result.stderr)


class Peek(CliTest):
    seed = SEED

    def test_no_query_asks_what_to_search_for(self):
        for argv in (["peek"], ["peek", "   "]):
            with self.subTest(argv=argv):
                result = self.run_cli(*argv)
                self.assertEqual(result.returncode, 2)
                self.assertEqual(result.stderr, "What should I search for?\n")
                self.assertEqual(result.stdout, "")
        self.assertEqual(self.fake.requests(), [])

    def test_search_sends_broad_and_decision_searches_with_anchored_filters(self):
        result = self.run_cli("peek", QUERY)
        self.assertEqual(result.returncode, 0, result.stderr)
        searches = self.fake.searches()
        self.assertEqual(len(searches), 2)
        by_type = {search_type(s): s for s in searches}
        self.assertEqual(set(by_type), {None, "decision"})
        broad, decision = by_type[None], by_type["decision"]
        self.assertEqual(broad["top_k"], 10)
        self.assertEqual(decision["top_k"], 5)
        for body in (broad, decision):
            self.assertEqual(body["query"], QUERY)
            self.assertIs(body["rerank"], True)
        self.assertEqual(search_terms(broad), [{"user_id": USER}, {"app_id": PROJECT}])
        self.assertEqual(search_terms(decision), [{"user_id": USER}, {"app_id": PROJECT},
                                               {"metadata": {"type": "decision"}}])
        headers = self.fake.requests()[0]["headers"]
        self.assertEqual(headers["authorization"], "Token " + API_KEY)

    def test_output_format_merges_by_id(self):
        result = self.run_cli("peek", QUERY)
        self.assertEqual(result.returncode, 0, result.stderr)
        # DECISION comes back from both searches but is listed once.
        self.assertEqual(result.lines(),
                         ['## mem0 peek: "stripe webhook retries" (4 results)', ""] + PEEK_LINES)
        self.assertEqual(result.stdout.count("[mem0:abcd1234]"), 1)
        self.assertNotIn("55555555", result.stdout)
        self.assertNotIn("66666666", result.stdout)
        self.assertEqual(result.stderr, "")

    def test_no_session_dedupe(self):
        self.write_session("sess-seen", [DECISION, BROAD])
        for argv, env in ((["--session", "sess-seen"], self.env()),
                          ([], self.env(CLAUDE_CODE_SESSION_ID="sess-seen"))):
            with self.subTest(argv=argv):
                result = self.run_cli("peek", *argv, QUERY, env=env)
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertEqual(result.lines()[2:], PEEK_LINES)

    def test_plain_drops_markdown(self):
        result = self.run_cli("peek", "--plain", QUERY)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.lines(),
                         ['mem0 peek: "stripe webhook retries" (4 results)', ""] + PEEK_LINES)

    def test_json_output(self):
        result = self.run_cli("peek", "--json", QUERY)
        self.assertEqual(result.returncode, 0, result.stderr)
        items = json.loads(result.stdout)
        self.assertIsInstance(items, list)
        self.assertEqual([i["id"] for i in items], [LONG, DECISION, BROAD, OPS])
        self.assertEqual([i["type"] for i in items],
                         ["convention", "decision", "convention", "ops"])
        self.assertEqual(items[0]["memory"], LONG_TEXT)  # not truncated in machine output
        self.assertEqual(items[1]["memory"],
                         "Decided stripe webhook retries stop after three attempts")

    def test_json_output_when_nothing_matches_is_an_empty_array(self):
        result = self.run_cli("peek", "--json", "kubernetes helm charts")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(json.loads(result.stdout), [])

    def test_top_k_sets_the_broad_search(self):
        for argv in (["--top-k", "3"], ["--top-k=3"]):
            with self.subTest(argv=argv):
                self.fake.reset()
                result = self.run_cli("peek", *argv, QUERY)
                self.assertEqual(result.returncode, 0, result.stderr)
                by_type = {search_type(s): s["top_k"] for s in self.fake.searches()}
                self.assertEqual(by_type, {None: 3, "decision": 5})

    def test_global_scope_keeps_the_user_anchor(self):
        result = self.run_cli("peek", "--scope", "global", QUERY)
        self.assertEqual(result.returncode, 0, result.stderr)
        searches = self.fake.searches()
        self.assertTrue(searches)
        for body in searches:
            self.assertEqual(search_terms(body)[:2], [{"user_id": USER}, {"app_id": "*"}])
        self.assertIn("[mem0:55555555]", result.stdout)  # another project of the same user
        self.assertNotIn("[mem0:66666666]", result.stdout)  # never another user

    def test_session_scope_adds_the_run_id(self):
        self.fake.seed(SEED + [run_memory(IN_RUN, "Stripe webhook retries scratch note",
                                          "convention", "sess-run")])
        result = self.run_cli("peek", "--scope", "session", "--session", "sess-run", QUERY)
        self.assertEqual(result.returncode, 0, result.stderr)
        searches = self.fake.searches()
        self.assertEqual(len(searches), 2)
        for body in searches:
            terms = search_terms(body)
            self.assertEqual(terms[:2], [{"user_id": USER}, {"app_id": PROJECT}])
            self.assertIn({"run_id": "sess-run"}, terms)
        self.assertEqual(result.lines()[0], '## mem0 peek: "stripe webhook retries" (1 result)')
        self.assertIn("[mem0:77777777]", result.stdout)

    def test_session_scope_takes_the_session_from_the_environment(self):
        result = self.run_cli("peek", "--scope", "session", QUERY,
                              env=self.env(CLAUDE_CODE_SESSION_ID="sess-env"))
        self.assertEqual(result.returncode, 0, result.stderr)
        searches = self.fake.searches()
        self.assertEqual(len(searches), 2)  # the broad search and the session-state one
        for body in searches:
            self.assertIn({"run_id": "sess-env"}, search_terms(body))

    def test_nothing_found(self):
        result = self.run_cli("peek", "kubernetes helm charts")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout,
                         'No memories matching "kubernetes helm charts" for project proj-e2e.\n')

    # The empty-result line names the scope that was searched.
    def test_nothing_found_names_the_scope(self):
        cases = {
            "global": (["--scope", "global"],
                       'No memories matching "kubernetes helm charts" across all projects.\n'),
            "session": (["--scope", "session", "--session", "sess-1"],
                        'No memories matching "kubernetes helm charts" in session sess-1 of '
                        'project proj-e2e.\n'),
            "project": (["--scope", "project"],
                        'No memories matching "kubernetes helm charts" for project proj-e2e.\n'),
        }
        for name, (argv, expected) in cases.items():
            with self.subTest(name):
                result = self.run_cli("peek", *argv, "kubernetes helm charts")
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertEqual(result.stdout, expected)

    # --top-k N caps the merged result (the decision search adds its own results).
    def test_top_k_caps_the_merged_result(self):
        result = self.run_cli("peek", "--top-k", "1", QUERY)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.lines(),
                         ['## mem0 peek: "stripe webhook retries" (1 result)', "", PEEK_LINES[0]])
        for k in (2, 3):
            with self.subTest(k=k):
                result = self.run_cli("peek", "--top-k", str(k), QUERY)
                self.assertEqual(result.lines()[2:], PEEK_LINES[:k])
                result = self.run_cli("peek", "--json", "--top-k", str(k), QUERY)
                self.assertEqual(len(json.loads(result.stdout)), k)

    def test_no_api_key_fails_without_requests(self):
        result = self.run_cli("peek", QUERY, env=self.env(MEM0_API_KEY=None))
        self.assertEqual(result.returncode, 1)
        self.assertEqual(result.stdout, "")
        self.assertIn("MEM0_API_KEY", result.stderr)
        self.assertEqual(self.fake.requests(), [])

    def test_server_error_fails_with_a_recall_line(self):
        self.fake.control(status=500)
        result = self.run_cli("peek", QUERY)
        self.assertEqual(result.returncode, 1)
        self.assertEqual(result.stdout, "")
        self.assertIn("mem0: recall incomplete \u2014 2 of 2 searches failed (server)",
                      result.stderr)

    def test_one_failed_search_still_shows_the_other(self):
        self.fake.control(status=500, only_type="decision")
        result = self.run_cli("peek", QUERY)
        self.assertEqual(result.returncode, 0)
        self.assertIn("1 of 2 searches failed (server)", result.stderr)
        self.assertEqual(result.lines()[0], '## mem0 peek: "stripe webhook retries" (4 results)')

    def test_rejected_key_fails(self):
        result = self.run_cli("peek", QUERY, env=self.env(MEM0_API_KEY="m0-wrong-key-0000000000"))
        self.assertEqual(result.returncode, 1)
        self.assertIn("API key rejected", result.stderr)
        self.assertNotIn("m0-wrong-key-0000000000", result.stderr + result.stdout)

    def test_the_two_searches_run_in_parallel(self):
        self.fake.control(latency_ms=600)
        result = self.run_cli("peek", QUERY)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(len(self.fake.searches()), 2)
        self.assertLess(result.elapsed, 2 * 0.6)


class PeekById(CliTest):
    seed = SEED

    DECISION_OUTPUT = [
        '## mem0 peek: "{q}" (1 result)', "",
        "1. [decision] Decided stripe webhook retries stop after three attempts (2026-10-01) "
        "[mem0:abcd1234]",
    ]

    def expect_shown(self, result, query):
        self.assertEqual(result.returncode, 0, result.stderr)
        expected = [line.replace("{q}", query) for line in self.DECISION_OUTPUT]
        self.assertEqual(result.lines(), expected)

    def test_full_uuid_is_fetched_without_search(self):
        result = self.run_cli("peek", DECISION)
        self.expect_shown(result, DECISION)
        self.assertEqual(self.gets(), [f"/v1/memories/{DECISION}/"])
        self.assertEqual(self.fake.searches(), [])

    # One memory looked up by id is shown whole (cleaned, on one line), not cut at 80.
    def test_id_lookup_shows_the_full_text(self):
        self.write_session("sess-a", [LONG])
        full = "1. [convention] " + LONG_TEXT + " (2026-09-15) [mem0:33333333]"
        for query in (LONG, "33333333", "[mem0:33333333]"):
            with self.subTest(query=query):
                result = self.run_cli("peek", query)
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertEqual(result.lines(), [f'## mem0 peek: "{query}" (1 result)', "", full])
        self.assertEqual(self.fake.searches(), [])

    def test_id_lookup_cleans_the_text_onto_one_line(self):
        multi = "77777777-1111-4111-8111-000000000007"
        self.fake.seed(SEED + [memory(multi, "First line\n\n  second\tline " + "x" * 100,
                                      "decision", created="2026-05-05T00:00:00Z")])
        result = self.run_cli("peek", "--plain", multi)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.lines()[2], "1. [decision] First line second line " + "x" * 100
                         + " (2026-05-05) [mem0:77777777]")

    # Another user's memory is not shown by its id: the lookup finds it is not this user's, and
    # the id is searched for instead among this user's memories (docs/cli.md#peek).
    def test_another_users_memory_is_not_shown_by_id(self):
        result = self.run_cli("peek", OTHER_USER)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.gets(), [f"/v1/memories/{OTHER_USER}/"])
        self.assertNotIn("[mem0:66666666]", result.stdout)
        self.assertEqual(result.stdout,
                         f'No memories matching "{OTHER_USER}" for project proj-e2e.\n')

    def test_unknown_uuid_falls_back_to_search(self):
        result = self.run_cli("peek", MISSING)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.gets(), [f"/v1/memories/{MISSING}/"])
        searches = self.fake.searches()
        self.assertEqual(len(searches), 2)
        self.assertEqual({s["query"] for s in searches}, {MISSING})
        self.assertEqual(result.stdout,
                         f'No memories matching "{MISSING}" for project proj-e2e.\n')

    def test_short_id_resolves_through_session_files(self):
        self.write_session("sess-a", [BROAD])
        self.write_session("sess-b", [LONG, DECISION])
        result = self.run_cli("peek", "abcd1234")
        self.expect_shown(result, "abcd1234")
        self.assertEqual(self.gets(), [f"/v1/memories/{DECISION}/"])
        self.assertEqual(self.fake.searches(), [])

    def test_short_id_honours_the_state_dir_setting(self):
        state = os.path.join(self.home, "elsewhere")
        sessions = os.path.join(state, "sessions")
        os.makedirs(sessions)
        with open(os.path.join(sessions, "s.json"), "w") as f:
            json.dump({"injected": [DECISION], "files": {}, "rubric_shown": False,
                       "limit_notice_shown": False, "prompts": 1}, f)
        result = self.run_cli("peek", "abcd1234", env=self.env(MEM0_STATE_DIR=state))
        self.expect_shown(result, "abcd1234")
        self.assertEqual(self.fake.searches(), [])

    def test_unknown_short_id_falls_back_to_search(self):
        self.write_session("sess-a", [BROAD])
        result = self.run_cli("peek", "abcdef12")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.gets(), [])
        self.assertEqual({s["query"] for s in self.fake.searches()}, {"abcdef12"})
        self.assertEqual(len(self.fake.searches()), 2)

    def test_ambiguous_short_id_falls_back_to_search(self):
        twin = "abcd1234-0000-4000-8000-0000000000ff"
        self.write_session("sess-a", [DECISION])
        self.write_session("sess-b", [twin])
        result = self.run_cli("peek", "abcd1234")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.gets(), [])
        self.assertEqual(len(self.fake.searches()), 2)

    def test_citation_in_text_resolves_like_a_short_id(self):
        self.write_session("sess-a", [DECISION])
        for query in ("what about [mem0:abcd1234]?", "what about [mem0:ABCD1234]?"):
            with self.subTest(query=query):
                self.fake.reset()
                result = self.run_cli("peek", query)
                self.expect_shown(result, query)
                self.assertEqual(self.gets(), [f"/v1/memories/{DECISION}/"])
                self.assertEqual(self.fake.searches(), [])

    def test_citation_split_over_words_is_joined(self):
        self.write_session("sess-a", [DECISION])
        result = self.run_cli("peek", "what", "about", "[mem0:abcd1234]")
        self.expect_shown(result, "what about [mem0:abcd1234]")


class Context(CliTest):
    seed = SEED

    EXPECTED = [
        f'context-loader: loaded 6 memories for "{TASK}"',
        "- [decision] Decided stripe webhook retries stop after three attempts [mem0:abcd1234]",
        "- [convention] src/billing/invoice.py keeps money as integer cents [mem0:88888888]",
        "- [anti_pattern] KeyError on missing customer [mem0:99999999]",
        f"- [convention] {LONG_TEXT} [mem0:33333333]",
        "- [convention] Stripe webhook retries use exponential backoff [mem0:11111111]",
        "- [ops] Stripe webhook retries dashboard lives in Grafana [mem0:44444444]",
    ]

    def test_four_angle_plan(self):
        result = self.run_cli("context", TASK)
        self.assertEqual(result.returncode, 0, result.stderr)
        searches = self.fake.searches()
        self.assertEqual(len(searches), 4)
        by_type = {search_type(s): s for s in searches}
        self.assertEqual(set(by_type), {"decision", "convention", "anti_pattern", None})
        self.assertEqual(by_type["decision"]["query"], TASK)
        self.assertEqual(by_type["convention"]["query"], "src/billing/invoice.py")
        self.assertEqual(by_type["anti_pattern"]["query"], "KeyError")
        self.assertEqual(by_type[None]["query"], TASK)
        for body in searches:
            self.assertEqual(search_terms(body)[:2], [{"user_id": USER}, {"app_id": PROJECT}])

    def test_plan_without_paths_or_errors_has_two_searches(self):
        result = self.run_cli("context", "stripe webhook retries")
        self.assertEqual(result.returncode, 0, result.stderr)
        types = sorted(str(search_type(s)) for s in self.fake.searches())
        self.assertEqual(types, ["None", "decision"])

    def test_output_in_plan_order(self):
        result = self.run_cli("context", TASK)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.lines(), self.EXPECTED)

    def test_session_skips_injected_memories(self):
        self.write_session("ctx-sess", [DECISION, BROAD])
        for how, argv, env in (("option", ["--session", "ctx-sess"], self.env()),
                               ("environment", [], self.env(CLAUDE_CODE_SESSION_ID="ctx-sess"))):
            with self.subTest(how):
                result = self.run_cli("context", *argv, TASK, env=env)
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertEqual(result.lines(),
                                 [f'context-loader: loaded 4 memories for "{TASK}"']
                                 + [line for line in self.EXPECTED[1:]
                                    if "abcd1234" not in line and "11111111" not in line])

    def test_one_memory_is_singular(self):
        self.write_session("ctx-sess", [DECISION, BROAD, CONV_FILE, ANTI, LONG])
        result = self.run_cli("context", "--session", "ctx-sess", TASK)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.lines(), [f'context-loader: loaded 1 memory for "{TASK}"',
                                          self.EXPECTED[-1]])

    def test_at_most_ten(self):
        words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]
        seed = []
        for i, w in enumerate(words[:4]):
            seed.append(memory(f"d{i}000000-0000-4000-8000-000000000000",
                               f"Decided stripe webhook retries rule {w}", "decision"))
            seed.append(memory(f"c{i}000000-0000-4000-8000-000000000000",
                               f"src/billing/invoice.py convention {w}", "convention"))
            seed.append(memory(f"a{i}000000-0000-4000-8000-000000000000",
                               f"KeyError pitfall {w}", "anti_pattern"))
        for i, w in enumerate(words):
            seed.append(memory(f"e{i}000000-0000-4000-8000-000000000000",
                               f"Fix KeyError src billing invoice py stripe webhook retries {w}",
                               "note"))
        self.fake.seed(seed)
        result = self.run_cli("context", TASK)
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.lines()
        self.assertEqual(lines[0], f'context-loader: loaded 10 memories for "{TASK}"')
        self.assertEqual(len(lines), 11)
        types = [line.split("]")[0][3:] for line in lines[1:]]
        self.assertEqual(types, ["decision"] * 3 + ["convention"] * 3 + ["anti_pattern"] * 3
                         + ["note"])

    def test_nothing_found_says_so(self):
        result = self.run_cli("context", "kubernetes helm upgrade")
        self.assertEqual(result.returncode, 0)
        self.assertEqual(result.stdout, 'No memories found for "kubernetes helm upgrade".\n')
        self.assertEqual(result.stderr, "")
        self.assertGreaterEqual(len(self.fake.searches()), 2)

    def test_read_only(self):
        session_file = self.write_session("ctx-sess", [DECISION])
        before = self.files_under(self.home)
        for argv in (["--session", "ctx-sess"], ["--session", "new-sess"], []):
            result = self.run_cli("context", *argv, TASK,
                                  env=self.env(CLAUDE_CODE_SESSION_ID="env-sess"))
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertIn("context-loader: loaded", result.stdout)
        self.assertEqual(self.files_under(self.home), before)
        self.assertIn(session_file, before)

    def test_server_error_fails(self):
        self.fake.control(status=503)
        result = self.run_cli("context", TASK)
        self.assertEqual(result.returncode, 1)
        self.assertEqual(result.stdout, "")
        self.assertIn("4 of 4 searches failed (server)", result.stderr)

    def test_no_api_key_fails(self):
        result = self.run_cli("context", TASK, env=self.env(MEM0_API_KEY=None))
        self.assertEqual(result.returncode, 1)
        self.assertIn("MEM0_API_KEY", result.stderr)
        self.assertEqual(self.fake.requests(), [])


class Doctor(CliTest):
    seed = SEED

    def install_hooks(self, env=None):
        settings = os.path.join(self.home, ".claude", "settings.json")
        result = self.run_cli("install", "--settings", settings, env=env)
        self.assertEqual(result.returncode, 0, result.stderr)
        return settings

    def row(self, result, name):
        for line in result.lines():
            if line.startswith(name + " "):
                return line[len(name):].strip()
        self.fail(f"no {name!r} row in:\n{result.stdout}")

    def fixes(self, result):
        return [line for line in result.lines() if line.startswith("fix: ")]

    def test_all_checks_pass(self):
        self.install_hooks()
        self.fake.reset()
        result = self.run_cli("doctor")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(self.row(result, "api key"), MASKED_KEY + " (env MEM0_API_KEY)")
        self.assertEqual(self.row(result, "user id"), f"{USER} (env USER)")
        self.assertEqual(self.row(result, "project id"), f"{PROJECT} (env MEM0_PROJECT_ID)")
        self.assertIn(self.fake.url, self.row(result, "base url"))
        self.assertIn(os.path.join(self.home, ".claude", "settings.json"),
                      self.row(result, "hooks"))
        self.assertTrue(self.row(result, "ping").startswith("HTTP 200"))
        self.assertTrue(self.row(result, "search").startswith("HTTP 200"))
        self.assertEqual(self.row(result, "outbox"),
                         "0 pending (0 KB), 0 rejected, last delivery never, 0 adds today")
        self.assertEqual(self.fixes(result), [])
        self.assertEqual(result.lines()[-1], "all checks passed")
        self.assertIn("/v1/ping/", self.gets())
        self.assertEqual(len(self.fake.searches()), 1)

    def setting(self, result, name):
        """The value and origin on the row of setting `name`, indented under `settings`."""
        for line in result.lines():
            if line.startswith("  " + name + " "):
                return line[len(name) + 2:].strip()
        self.fail(f"no {name!r} setting row in:\n{result.stdout}")

    # Every setting is a row under `settings`: its value and where it came from.
    def test_each_setting_shows_its_value_and_origin(self):
        self.install_hooks()
        settings = os.path.join(self.home, ".mem0", "settings.json")
        os.makedirs(os.path.dirname(settings), exist_ok=True)
        with open(settings, "w") as f:
            json.dump({"search_plan": "thorough", "show_recall": True}, f)
        result = self.run_cli("doctor", env=self.env(MEM0_DAILY_SEARCH_LIMIT="9"))
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(self.setting(result, "daily_search_limit"),
                         "9 (env MEM0_DAILY_SEARCH_LIMIT)")
        self.assertEqual(self.setting(result, "base_url"), f"{self.fake.url} (env MEM0_BASE_URL)")
        self.assertEqual(self.setting(result, "user_id"), f"{USER} (env USER)")
        self.assertEqual(self.setting(result, "search_plan"), "thorough (settings.json)")
        self.assertEqual(self.setting(result, "show_recall"), "on (settings.json)")
        self.assertEqual(self.setting(result, "auto_save"), "on (default)")
        self.assertEqual(self.setting(result, "retention_session_days"), "90 (default)")
        self.assertEqual(self.setting(result, "api_key"), MASKED_KEY + " (env MEM0_API_KEY)")
        self.assertNotIn(self.fake.api_key, result.stdout + result.stderr)
        # The rows already there keep their place and texts.
        self.assertEqual(self.row(result, "api key"), MASKED_KEY + " (env MEM0_API_KEY)")
        self.assertTrue(self.row(result, "plan").startswith("thorough plan"), result.stdout)
        self.assertEqual(result.lines()[-1], "all checks passed")

    def test_project_and_branch_of_a_checkout_and_of_its_linked_worktree(self):
        main = os.path.join(self.home, "repos", "billing")
        tree = os.path.join(self.home, "trees", "billing-feature")
        make_repo(main, origin="git@github.com:acme/billing.git", worktree=tree)
        for cwd, branch in ((main, "main"), (tree, "feature")):
            with self.subTest(cwd=cwd):
                result = self.run_cli("doctor", env=self.env(MEM0_PROJECT_ID=None), cwd=cwd)
                self.assertEqual(self.row(result, "project id"),
                                 "acme-billing (git remote origin)")
                self.assertEqual(self.row(result, "branch"), branch)

    def test_user_id_source_from_mem0_user_id(self):
        self.install_hooks()
        result = self.run_cli("doctor", env=self.env(MEM0_USER_ID="alice"))
        self.assertEqual(self.row(result, "user id"), "alice (env MEM0_USER_ID)")

    def test_never_prints_the_full_key(self):
        self.install_hooks()
        for env in (self.env(), self.env(MEM0_API_KEY="m0-wrong-key-0000000000")):
            result = self.run_cli("doctor", env=env)
            self.assertNotIn(env["MEM0_API_KEY"], result.stdout + result.stderr)
            self.assertNotIn(env["MEM0_API_KEY"][3:-4], result.stdout + result.stderr)

    def test_missing_key(self):
        self.install_hooks()
        result = self.run_cli("doctor", env=self.env(MEM0_API_KEY=None))
        self.assertEqual(result.returncode, 1)
        self.assertEqual(self.row(result, "api key"), "missing")
        fixes = self.fixes(result)
        self.assertEqual(len(fixes), 1, result.stdout)
        self.assertIn("MEM0_API_KEY", fixes[0])
        self.assertNotIn("all checks passed", result.stdout)
        self.assertEqual(self.fake.requests(), [])

    def test_rejected_key(self):
        self.install_hooks()
        result = self.run_cli("doctor", env=self.env(MEM0_API_KEY="m0-wrong-key-0000000000"))
        self.assertEqual(result.returncode, 1)
        fixes = self.fixes(result)
        self.assertEqual(len(fixes), 1, result.stdout)
        self.assertIn("rejected", fixes[0])
        self.assertIn("MEM0_API_KEY", fixes[0])
        self.assertNotIn("all checks passed", result.stdout)

    def test_unreachable_server(self):
        self.install_hooks()
        url = f"http://127.0.0.1:{closed_port()}"
        result = self.run_cli("doctor", env=self.env(MEM0_BASE_URL=url, MEM0_TIMEOUT_MS="2000"))
        self.assertEqual(result.returncode, 1)
        fixes = self.fixes(result)
        self.assertEqual(len(fixes), 1, result.stdout)
        self.assertIn("cannot reach " + url, fixes[0])
        self.assertNotIn("all checks passed", result.stdout)

    # A failing ping is a failed check even when the search works.
    def test_failing_ping_fails(self):
        self.install_hooks()
        with ping_fails() as server:
            result = self.run_cli("doctor", env=self.env(MEM0_BASE_URL=server.url))
        self.assertEqual(sorted(r["method"] + " " + r["path"] for r in server.requests()),
                         ["GET /v1/ping/", "POST /v3/memories/search/"])
        self.assertTrue(self.row(result, "ping").startswith("HTTP 503"), result.stdout)
        self.assertTrue(self.row(result, "search").startswith("HTTP 200"), result.stdout)
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertNotIn("all checks passed", result.stdout)
        self.assertEqual(len(self.fixes(result)), 1, result.stdout)

    def test_hooks_not_wired(self):
        result = self.run_cli("doctor")
        self.assertEqual(result.returncode, 1)
        self.assertEqual(self.row(result, "hooks"), "not wired")
        fixes = self.fixes(result)
        self.assertEqual(len(fixes), 1, result.stdout)
        self.assertIn("mem0-hooks install", fixes[0])

    def test_project_settings_count_as_wired(self):
        result = self.run_cli("install", "--project")
        self.assertEqual(result.returncode, 0, result.stderr)
        result = self.run_cli("doctor")
        self.assertEqual(result.returncode, 0, result.stdout)
        self.assertIn(os.path.join(self.project, ".claude", "settings.json"),
                      self.row(result, "hooks"))

    # Hooks count as wired only when a settings file names every executable of hooks.json.
    def test_settings_missing_one_hook_are_not_wired(self):
        settings = self.install_hooks()
        with open(settings) as f:
            full = json.load(f)
        for missing in EXECUTABLES:
            with self.subTest(missing=missing):
                hooks = {}
                for event, groups in full["hooks"].items():
                    rest = [g for g in groups if command_executable(g["hooks"][0]) != missing]
                    if rest:
                        hooks[event] = rest
                text = json.dumps({"hooks": hooks}, indent=2)
                self.assertNotIn(missing, text)
                for other in EXECUTABLES:
                    if other != missing:
                        self.assertIn(other, text)
                with open(settings, "w") as f:
                    f.write(text)
                result = self.run_cli("doctor")
                self.assertEqual(result.returncode, 1, result.stdout)
                self.assertEqual(self.row(result, "hooks"), "not wired")
                fixes = self.fixes(result)
                self.assertEqual(len(fixes), 1, result.stdout)
                self.assertIn("mem0-hooks install", fixes[0])
        with open(settings, "w") as f:
            json.dump(full, f)
        result = self.run_cli("doctor")
        self.assertEqual(result.returncode, 0, result.stdout)
        self.assertEqual(self.row(result, "hooks"), "wired in " + settings)

    def hook_rows(self, result):
        return [line[len("hooks"):].strip() for line in result.lines()
                if line.startswith("hooks ")]

    def warnings(self, result):
        return [line for line in result.lines() if line.startswith("warning: ")]

    def test_wording_of_counts_and_fixes(self):
        self.install_hooks()
        self.fake.seed(SEED + [memory("12121212-0000-4000-8000-000000000012",
                                      "mem0 doctor check memory", "decision")])
        result = self.run_cli("doctor")
        self.assertTrue(self.row(result, "search").endswith(
            ': key and filters accepted; the test query "mem0 doctor check" matched 1 memory'),
            result.stdout)
        # No match is no news: the row says what was searched and why zero is fine.
        self.fake.seed(SEED)
        self.assertTrue(self.row(self.run_cli("doctor"), "search").endswith(
            ': key and filters accepted; the test query "mem0 doctor check" matched nothing, '
            "which is fine: it checks access, not your memories"), result.stdout)
        settings = os.path.join(self.home, ".mem0", "settings.json")
        os.makedirs(os.path.dirname(settings), exist_ok=True)
        with open(settings, "w") as f:
            f.write("{not json")
        result = self.run_cli("doctor")
        self.assertEqual(result.returncode, 1)
        fixes = self.fixes(result)
        self.assertEqual(len(fixes), 1, result.stdout)
        self.assertIn(settings, fixes[0])
        for line in self.fixes(result):
            self.assertFalse(line.lower().startswith("fix: fix"), line)

    # A plugin installed from a marketplace wires the hooks: it is listed, not "not wired".
    def test_marketplace_install_counts_as_wired(self):
        install_from_marketplace(self.home, self.project)
        result = self.run_cli("doctor")
        self.assertEqual(result.returncode, 0, result.stdout)
        rows = self.hook_rows(result)
        self.assertEqual(len(rows), 1, result.stdout)
        self.assertTrue(rows[0].startswith("wired in plugin " + MARKETPLACE_ID), rows)
        self.assertIn("user scope", rows[0])
        self.assertIn(marketplace_dir(self.home), rows[0])  # where its hooks run
        self.assertEqual(self.warnings(result), [])
        self.assertEqual(result.lines()[-1], "all checks passed")

    def test_project_and_local_scope_installs_count_in_their_project_only(self):
        for scope in ("project", "local"):
            with self.subTest(scope=scope):
                shutil.rmtree(os.path.join(self.home, ".claude"), ignore_errors=True)
                shutil.rmtree(os.path.join(self.project, ".claude"), ignore_errors=True)
                install_from_marketplace(self.home, self.project, scope=scope)
                result = self.run_cli("doctor")
                self.assertEqual(result.returncode, 0, result.stdout)
                self.assertIn(f"{scope} scope", self.hook_rows(result)[0])
                elsewhere = os.path.join(self.home, "elsewhere")
                os.makedirs(elsewhere, exist_ok=True)
                result = self.run_cli("doctor", cwd=elsewhere)
                self.assertEqual(self.hook_rows(result), ["not wired"])

    def test_disabled_marketplace_install_is_listed_but_not_wired(self):
        install_from_marketplace(self.home, self.project, enabled=False)
        result = self.run_cli("doctor")
        self.assertEqual(result.returncode, 1, result.stdout)
        rows = self.hook_rows(result)
        self.assertEqual(len(rows), 1, result.stdout)
        self.assertIn(MARKETPLACE_ID, rows[0])
        self.assertIn("disabled", rows[0])
        fixes = self.fixes(result)
        self.assertEqual(len(fixes), 1, result.stdout)
        self.assertIn("claude plugin enable " + MARKETPLACE_ID, fixes[0])

    # Settings and a marketplace plugin both wiring the hooks: every path is listed and a
    # warning says each hook would run (and bill) twice, with how to remove each.
    def test_settings_and_marketplace_plugin_warn_twice(self):
        settings = self.install_hooks()
        install_from_marketplace(self.home, self.project)
        result = self.run_cli("doctor")
        rows = self.hook_rows(result)
        self.assertEqual(len(rows), 2, result.stdout)
        self.assertIn("wired in " + settings, rows)
        self.assertTrue(any(MARKETPLACE_ID in row for row in rows), rows)
        warnings = self.warnings(result)
        self.assertEqual(len(warnings), 1, result.stdout)
        self.assertIn("run, and bill, twice", warnings[0])
        self.assertIn("mem0-hooks uninstall --settings " + settings, warnings[0])
        self.assertIn(f"claude plugin uninstall {MARKETPLACE_ID} --scope user", warnings[0])
        self.assertEqual(result.returncode, 0, result.stdout)
        self.assertNotIn("all checks passed", result.stdout)

    def test_plugin_root_and_settings_warn_twice(self):
        settings = self.install_hooks()
        root = os.path.join(self.home, "checkout")
        result = self.run_cli("doctor", env=self.env(CLAUDE_PLUGIN_ROOT=root))
        rows = self.hook_rows(result)
        self.assertEqual(len(rows), 2, result.stdout)
        self.assertIn("wired in " + settings, rows)
        self.assertTrue(any(root in row and "plugin" in row for row in rows), rows)
        self.assertEqual(len(self.warnings(result)), 1, result.stdout)
        self.assertIn("twice", self.warnings(result)[0])

    # Claude Code 2.1.332 runs the hooks of a plugin from a directory marketplace with
    # CLAUDE_PLUGIN_ROOT set to the marketplace's source directory, not to the cache copy that
    # installed_plugins.json names (tests/client/test_plugin_install.py): that is one install,
    # not two, and the hooks run from the source directory.
    def test_plugin_root_of_the_marketplace_install_is_one_path(self):
        cache_copy = install_from_marketplace(self.home, self.project)
        source = marketplace_dir(self.home)
        result = self.run_cli("doctor", env=self.env(CLAUDE_PLUGIN_ROOT=source))
        rows = self.hook_rows(result)
        self.assertEqual(len(rows), 1, result.stdout)
        self.assertIn(MARKETPLACE_ID, rows[0])
        self.assertTrue(rows[0].endswith(": " + source), rows)
        self.assertNotIn(cache_copy, result.stdout)
        self.assertEqual(self.warnings(result), [])
        # Outside a session too, doctor names where the hooks run.
        result = self.run_cli("doctor")
        self.assertTrue(self.hook_rows(result)[0].endswith(": " + source), result.stdout)

    # Claude Code runs identical hook commands once: the same executables wired in the user
    # and the project settings are listed, without a warning.
    def test_identical_commands_in_two_settings_files_are_not_twice(self):
        self.install_hooks()
        self.assertEqual(self.run_cli("install", "--project").returncode, 0)
        result = self.run_cli("doctor")
        self.assertEqual(len(self.hook_rows(result)), 2, result.stdout)
        self.assertEqual(self.warnings(result), [])
        self.assertEqual(result.returncode, 0, result.stdout)

    def test_outbox_row_counts_pending_and_rejected_captures(self):
        self.install_hooks()
        elsewhere = os.path.join(self.home, "elsewhere")
        for state, env in ((self.state_dir(), self.env()),
                           (elsewhere, self.env(MEM0_STATE_DIR=elsewhere))):
            with self.subTest(state=state):
                outbox = os.path.join(state, "outbox")
                rejected = os.path.join(outbox, "rejected")
                for folder, name in ((outbox, "000000000001.json"),
                                     (outbox, "000000000002.json"),
                                     (rejected, "000000000003.json")):
                    os.makedirs(folder, exist_ok=True)
                    with open(os.path.join(folder, name), "w") as f:
                        f.write(OUTBOX_ITEM)
                before = self.files_under(outbox)
                result = self.run_cli("doctor", env=env)
                self.assertEqual(result.returncode, 1, result.stdout)
                kilobytes = (2 * len(OUTBOX_ITEM) + 1023) // 1024
                self.assertEqual(self.row(result, "outbox"),
                                 f"2 pending ({kilobytes} KB), 1 rejected, last delivery never, "
                                 "0 adds today")
                fixes = self.fixes(result)
                self.assertEqual(len(fixes), 1, result.stdout)
                self.assertIn(rejected, fixes[0])
                self.assertNotIn("all checks passed", result.stdout)
                self.assertEqual(self.files_under(outbox), before)  # counted, not delivered
                self.assertEqual(self.fake.adds(), [])
                # The next case must not see these items.
                shutil.rmtree(outbox)


OTHER_SETTINGS = {
    "model": "opus",
    "permissions": {"allow": ["Bash(ls:*)"]},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash",
                        "hooks": [{"type": "command", "command": "/usr/bin/guard"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "/usr/bin/notify --done",
                             "timeout": 3}]}],
        # An event the hook set does not use (today): it must stay exactly as it is.
        "Notification": [{"hooks": [{"type": "command", "command": "/usr/bin/notify --ask"}]}],
    },
}


class Install(CliTest):
    seed = []

    def setUp(self):
        super().setUp()
        self.bin_dir = os.path.realpath(BIN_DIR)
        self.settings = os.path.join(self.home, "conf", "settings.json")

    def read(self, path=None):
        with open(path or self.settings, "rb") as f:
            return f.read()

    def write(self, data, path=None):
        path = path or self.settings
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())

    def ours(self, bin_dir=None):
        """The matcher groups install writes, by event: one per hooks.json entry, running the
        executable next to mem0-hooks with the entry's timeout and status message."""
        bin_dir = bin_dir or self.bin_dir
        groups = {}
        for event, matcher, executable, timeout, status in HOOK_SET:
            group = {"matcher": matcher} if matcher else {}
            hook = {"type": "command", "timeout": timeout,
                    "command": os.path.join(bin_dir, executable)}
            if status:
                hook["statusMessage"] = status
            group["hooks"] = [hook]
            groups.setdefault(event, []).append(group)
        return groups

    def assert_group(self, group, expected):
        """A hook group equals `expected`, reading the command as a shell word."""
        self.assertEqual(set(group), set(expected))
        self.assertEqual(group.get("matcher"), expected.get("matcher"))
        self.assertEqual(len(group["hooks"]), 1)
        hook, want = group["hooks"][0], expected["hooks"][0]
        self.assertEqual(set(hook), set(want))
        self.assertEqual(hook["type"], "command")
        self.assertEqual(hook["timeout"], want["timeout"])
        self.assertEqual(hook.get("statusMessage"), want.get("statusMessage"))
        self.assertEqual(shlex.split(hook["command"]), [want["command"]])

    def assert_ours(self, groups, event, bin_dir=None):
        """`groups` are exactly our groups for `event`, each once. Their order among themselves
        is the C++ table's, which hooks.json need not follow: they are matched by matcher and
        executable."""
        expected = self.ours(bin_dir).get(event, [])
        self.assertEqual(len(groups), len(expected), f"{event}: {groups}")
        got = sorted(groups, key=lambda g: (g.get("matcher") or "",
                                            command_executable(g["hooks"][0])))
        want = sorted(expected, key=lambda g: (g.get("matcher") or "",
                                               os.path.basename(g["hooks"][0]["command"])))
        for group, expected_group in zip(got, want):
            self.assert_group(group, expected_group)

    def assert_installed(self, hooks, bin_dir=None, theirs=None):
        """`hooks` (a settings file's "hooks") wires the whole hook set of hooks.json: for every
        event, the user's groups `theirs` ({event: [group, ...]}) unchanged and first, then our
        groups; the user's events keep their place, ours follow."""
        theirs = theirs or {}
        self.assertEqual(set(hooks), set(self.ours(bin_dir)) | set(theirs))
        self.assertEqual(list(hooks)[:len(theirs)], list(theirs))
        for event, groups in hooks.items():
            mine = theirs.get(event, [])
            self.assertEqual(groups[:len(mine)], mine, event)
            self.assert_ours(groups[len(mine):], event, bin_dir)

    def test_into_a_missing_file(self):
        result = self.run_cli("install", "--settings", self.settings)
        self.assertEqual(result.returncode, 0, result.stderr)
        doc = json.loads(self.read())
        self.assertEqual(set(doc), {"hooks"})
        self.assert_installed(doc["hooks"])
        self.assertEqual(sum(len(groups) for groups in doc["hooks"].values()), len(HOOK_SET))
        for groups in doc["hooks"].values():
            for group in groups:
                self.assertTrue(os.path.isabs(shlex.split(group["hooks"][0]["command"])[0]))
        self.assertFalse(os.path.exists(self.settings + ".bak"))

    def test_default_target_is_the_user_settings(self):
        result = self.run_cli("install")
        self.assertEqual(result.returncode, 0, result.stderr)
        doc = json.loads(self.read(os.path.join(self.home, ".claude", "settings.json")))
        self.assert_installed(doc["hooks"])
        self.assertFalse(os.path.exists(os.path.join(self.project, ".claude")))

    def test_twice_changes_nothing(self):
        self.assertEqual(self.run_cli("install", "--settings", self.settings).returncode, 0)
        first = self.read()
        mtime = os.stat(self.settings).st_mtime_ns
        time.sleep(0.02)
        result = self.run_cli("install", "--settings", self.settings)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("up to date", result.stdout)
        self.assertEqual(self.read(), first)
        self.assertEqual(os.stat(self.settings).st_mtime_ns, mtime)
        self.assertFalse(os.path.exists(self.settings + ".bak"))

    def test_keeps_other_settings_and_hooks_and_backs_up(self):
        original = json.dumps(OTHER_SETTINGS, indent=4)
        self.write(original)
        result = self.run_cli("install", "--settings", self.settings)
        self.assertEqual(result.returncode, 0, result.stderr)
        doc = json.loads(self.read())
        self.assertEqual(doc["model"], "opus")
        self.assertEqual(doc["permissions"], OTHER_SETTINGS["permissions"])
        # The user's groups first and unchanged (in events we share and in the others).
        self.assert_installed(doc["hooks"], theirs=OTHER_SETTINGS["hooks"])
        self.assertEqual(list(doc), list(OTHER_SETTINGS))  # key order kept
        self.assertEqual(self.read(self.settings + ".bak"), original.encode())
        self.assertIn(self.settings + ".bak", result.stdout)

    def test_replaces_an_older_installation_in_place(self):
        old = {"hooks": {}}
        for event, matcher, executable, _, _ in HOOK_SET:
            group = {"matcher": matcher} if matcher else {}
            group["hooks"] = [{"type": "command", "command": "/old/place/" + executable,
                               "timeout": 30}]
            old["hooks"].setdefault(event, []).append(group)
        self.write(json.dumps(old))
        result = self.run_cli("install", "--settings", self.settings)
        self.assertEqual(result.returncode, 0, result.stderr)
        doc = json.loads(self.read())
        self.assert_installed(doc["hooks"])  # each group once, at the new place
        self.assertNotIn("/old/place", self.read().decode())

    def test_refuses_invalid_json(self):
        for content in (b'{"model": "opus",', b"[1, 2]", b'{"hooks": []}'):
            with self.subTest(content=content):
                self.write(content)
                for command in ("install", "uninstall"):
                    result = self.run_cli(command, "--settings", self.settings)
                    self.assertEqual(result.returncode, 1)
                    self.assertIn("left untouched", result.stderr)
                    self.assertEqual(self.read(), content)
                    self.assertFalse(os.path.exists(self.settings + ".bak"))

    def test_dry_run_prints_without_writing(self):
        original = json.dumps(OTHER_SETTINGS)
        self.write(original)
        mtime = os.stat(self.settings).st_mtime_ns
        result = self.run_cli("install", "--dry-run", "--settings", self.settings)
        self.assertEqual(result.returncode, 0, result.stderr)
        printed = json.loads(result.stdout)
        self.assertEqual(printed["model"], "opus")
        self.assert_installed(printed["hooks"], theirs=OTHER_SETTINGS["hooks"])
        self.assertEqual(self.read(), original.encode())
        self.assertEqual(os.stat(self.settings).st_mtime_ns, mtime)
        self.assertFalse(os.path.exists(self.settings + ".bak"))
        # The printed result is what a real install writes.
        self.assertEqual(self.run_cli("install", "--settings", self.settings).returncode, 0)
        self.assertEqual(self.read().decode(), result.stdout)

    def test_dry_run_on_a_missing_file_creates_nothing(self):
        result = self.run_cli("install", "--dry-run", "--settings", self.settings)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assert_installed(json.loads(result.stdout)["hooks"])
        self.assertFalse(os.path.exists(os.path.dirname(self.settings)))

    def test_uninstall_removes_only_ours(self):
        original = json.dumps(OTHER_SETTINGS, indent=2)
        self.write(original)
        self.assertEqual(self.run_cli("install", "--settings", self.settings).returncode, 0)
        installed = self.read()
        result = self.run_cli("uninstall", "--settings", self.settings)
        self.assertEqual(result.returncode, 0, result.stderr)
        doc = json.loads(self.read())
        self.assertEqual(doc, OTHER_SETTINGS)  # our events dropped, the user's groups kept
        self.assertEqual(list(doc["hooks"]), list(OTHER_SETTINGS["hooks"]))
        self.assertEqual(self.read(self.settings + ".bak"), installed)
        for executable in EXECUTABLES:
            self.assertIn(executable, installed.decode())
            self.assertNotIn(executable, self.read().decode())

    def test_uninstall_keeps_other_hooks_sharing_our_group(self):
        shared, kept = {}, {}
        for event, matcher, executable, _, _ in HOOK_SET:
            head = {"matcher": matcher} if matcher else {}
            audit = {"type": "command", "command": "/usr/bin/audit-" + executable}
            ours = {"type": "command",
                    "command": shell_quote(os.path.join(self.bin_dir, executable)), "timeout": 6}
            shared.setdefault(event, []).append(dict(head, hooks=[audit, ours]))
            kept.setdefault(event, []).append(dict(head, hooks=[audit]))
        self.write(json.dumps({"hooks": shared}))
        result = self.run_cli("uninstall", "--settings", self.settings)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(json.loads(self.read()), {"hooks": kept})

    def test_uninstall_of_only_our_hooks_drops_the_hooks_key(self):
        self.write(json.dumps({"model": "opus"}))
        self.assertEqual(self.run_cli("install", "--settings", self.settings).returncode, 0)
        self.assertEqual(self.run_cli("uninstall", "--settings", self.settings).returncode, 0)
        self.assertEqual(json.loads(self.read()), {"model": "opus"})

    def test_uninstall_of_a_missing_file_creates_nothing(self):
        result = self.run_cli("uninstall", "--settings", self.settings)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, f"mem0-hooks uninstall: no mem0 hooks in {self.settings};"
                                        " nothing to remove\n")
        self.assertFalse(os.path.exists(self.settings))

    def test_project_option_uses_the_working_directory(self):
        result = self.run_cli("install", "--project")
        self.assertEqual(result.returncode, 0, result.stderr)
        target = os.path.join(self.project, ".claude", "settings.json")
        doc = json.loads(self.read(target))
        self.assert_installed(doc["hooks"])
        self.assertFalse(os.path.exists(os.path.join(self.home, ".claude", "settings.json")))
        result = self.run_cli("uninstall", "--project")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(json.loads(self.read(target)), {})

    def test_path_with_spaces_is_quoted_and_recognised(self):
        bin_dir = os.path.join(self.home, "my tools", "bin")
        cli = self.copy_binaries(bin_dir)

        def run(*args):
            proc = subprocess.run([cli, *args], capture_output=True, env=self.env(),
                                  cwd=self.project, timeout=20)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            return proc.stdout.decode()

        run("install", "--settings", self.settings)
        doc = json.loads(self.read())
        unquoted = {os.path.join(bin_dir, executable) for executable in EXECUTABLES}
        for groups in doc["hooks"].values():
            for group in groups:
                self.assertNotIn(group["hooks"][0]["command"], unquoted)  # quoted
        self.assert_installed(doc["hooks"], bin_dir)
        first = self.read()
        self.assertIn("up to date", run("install", "--settings", self.settings))
        self.assertEqual(self.read(), first)
        run("uninstall", "--settings", self.settings)
        self.assertEqual(json.loads(self.read()), {})

    def copy_binaries(self, bin_dir):
        """mem0-hooks and every executable of hooks.json in `bin_dir`. A hook this build tree
        has not built (the CLI target alone) becomes a stub: install only needs it to exist."""
        os.makedirs(bin_dir)
        shutil.copy2(os.path.join(self.bin_dir, "mem0-hooks"), bin_dir)
        for name in EXECUTABLES:
            built = os.path.join(self.bin_dir, name)
            if os.path.exists(built):
                shutil.copy2(built, bin_dir)
            else:
                stub = os.path.join(bin_dir, name)
                with open(stub, "w") as f:
                    f.write("#!/bin/sh\nexit 0\n")
                os.chmod(stub, 0o755)
        return os.path.join(bin_dir, "mem0-hooks")

    # The single-quote escape written by install is parsed back: installing twice wires the
    # hooks once, and uninstall removes them.
    def test_path_with_a_single_quote_is_recognised(self):
        bin_dir = os.path.join(self.home, "it's", "bin")
        cli = self.copy_binaries(bin_dir)
        for _ in range(2):
            proc = subprocess.run([cli, "install", "--settings", self.settings],
                                  capture_output=True, env=self.env(), cwd=self.project,
                                  timeout=20)
            self.assertEqual(proc.returncode, 0, proc.stderr)
        doc = json.loads(self.read())
        self.assert_installed(doc["hooks"], bin_dir)  # each group once: not wired twice
        proc = subprocess.run([cli, "uninstall", "--settings", self.settings],
                              capture_output=True, env=self.env(), cwd=self.project, timeout=20)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(json.loads(self.read()), {})

    # A file without our entries is not rewritten (re-indented), backed up or reported changed.
    def test_uninstall_without_our_entries_leaves_the_file_alone(self):
        original = json.dumps(OTHER_SETTINGS, indent=4)
        self.write(original)
        result = self.run_cli("uninstall", "--settings", self.settings)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.read(), original.encode())
        self.assertFalse(os.path.exists(self.settings + ".bak"))
        self.assertNotIn("removed", result.stdout)
        self.assertIn("nothing to remove", result.stdout)

    # The settings file and its backup keep the file's mode; a new file is private.
    def test_keeps_the_mode_of_the_file(self):
        for mode in (0o644, 0o640, 0o600):
            with self.subTest(mode=oct(mode)):
                self.write(json.dumps({"model": "opus"}))
                os.chmod(self.settings, mode)
                for command in ("install", "uninstall"):
                    result = self.run_cli(command, "--settings", self.settings)
                    self.assertEqual(result.returncode, 0, result.stderr)
                    self.assertEqual(os.stat(self.settings).st_mode & 0o777, mode, command)
                    self.assertEqual(os.stat(self.settings + ".bak").st_mode & 0o777, mode,
                                     command)
                os.remove(self.settings + ".bak")
        os.remove(self.settings)
        self.assertEqual(self.run_cli("install", "--settings", self.settings).returncode, 0)
        self.assertEqual(os.stat(self.settings).st_mode & 0o777, 0o600)

    def test_install_names_the_next_step(self):
        result = self.run_cli("install", "--settings", self.settings)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(result.lines()[-1].startswith("next: "), result.stdout)
        self.assertIn("new Claude Code session", result.lines()[-1])
        self.assertIn("mem0-hooks doctor", result.lines()[-1])

    def assert_refused(self, result, before, *expected):
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertEqual(result.stdout, "")
        for text in expected:
            self.assertIn(text, result.stderr)
        self.assertIn("--force", result.stderr)
        user = os.path.join(self.home, ".claude", "settings.json")
        self.assertEqual(self.read(user), before)
        self.assertFalse(os.path.exists(user + ".bak"))

    # The plugin installed from a marketplace already wires the hooks: wiring them into the
    # settings as well would run (and bill) each hook twice, so install refuses unless --force.
    def test_refuses_when_the_plugin_is_installed_from_a_marketplace(self):
        install_from_marketplace(self.home, self.project)
        user = os.path.join(self.home, ".claude", "settings.json")
        before = self.read(user)
        for argv in ([], ["--dry-run"], ["--project"]):
            with self.subTest(argv=argv):
                result = self.run_cli("install", *argv)
                self.assert_refused(result, before, MARKETPLACE_ID,
                                    f"claude plugin uninstall {MARKETPLACE_ID} --scope user")
        self.assertFalse(os.path.exists(os.path.join(self.project, ".claude")))
        result = self.run_cli("install", "--force")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("twice", result.stderr)
        self.assert_installed(json.loads(self.read(user))["hooks"])
        self.assertEqual(json.loads(self.read(user))["enabledPlugins"], {MARKETPLACE_ID: True})

    def test_uninstall_names_the_plugin_that_still_runs_the_hooks(self):
        install_from_marketplace(self.home, self.project)
        result = self.run_cli("uninstall")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("nothing to remove", result.stdout)
        self.assertIn(f"the hooks still run here: wired in plugin {MARKETPLACE_ID}", result.stdout)
        self.assertIn(f"claude plugin uninstall {MARKETPLACE_ID} --scope user", result.stdout)

    def test_refuses_when_the_plugin_is_installed_but_disabled(self):
        install_from_marketplace(self.home, self.project, enabled=False)
        before = self.read(os.path.join(self.home, ".claude", "settings.json"))
        result = self.run_cli("install")
        self.assert_refused(result, before, MARKETPLACE_ID, "disabled",
                            f"claude plugin uninstall {MARKETPLACE_ID} --scope user")

    def test_refuses_when_the_plugin_is_enabled_in_project_settings(self):
        enable_plugin(os.path.join(self.project, ".claude", "settings.json"))
        user = os.path.join(self.home, ".claude", "settings.json")
        self.write("{}", user)
        result = self.run_cli("install")
        self.assert_refused(result, b"{}", MARKETPLACE_ID,
                            f"claude plugin disable {MARKETPLACE_ID} --scope project")

    # A project-scope install of another project does not overlap a project's own settings,
    # but does overlap the user settings (which every project reads).
    def test_project_install_elsewhere_blocks_only_the_user_settings(self):
        other = os.path.join(self.home, "other-project")
        install_from_marketplace(self.home, self.project, scope="project", project_path=other)
        result = self.run_cli("install", "--project")
        self.assertEqual(result.returncode, 0, result.stderr)
        result = self.run_cli("install")
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn(f"cd {other} && claude plugin uninstall {MARKETPLACE_ID} --scope project",
                      result.stderr)

    # on_bash_output serves two events: a missing one is warned about once.
    def test_missing_executables_are_warned_about_once_each(self):
        bin_dir = os.path.join(self.home, "bin")
        os.makedirs(bin_dir)
        shutil.copy2(os.path.join(self.bin_dir, "mem0-hooks"), bin_dir)
        proc = subprocess.run([os.path.join(bin_dir, "mem0-hooks"), "install", "--settings",
                               self.settings], capture_output=True, text=True, env=self.env(),
                              cwd=self.project, timeout=20)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        warnings = [line for line in proc.stderr.splitlines() if "does not exist" in line]
        self.assertEqual(len(warnings), len(EXECUTABLES), proc.stderr)

    def test_warns_when_run_from_a_loaded_plugin(self):
        root = os.path.join(self.home, "checkout")
        result = self.run_cli("install", "--settings", self.settings,
                              env=self.env(CLAUDE_PLUGIN_ROOT=root))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(root, result.stderr)
        self.assertIn("twice", result.stderr)


class InstallAgents(CliTest):
    """install, uninstall and doctor --agent (docs/cli.md#install-and-uninstall): Cursor's hooks.json, and
    --agent all over a PATH of stand-in agent programs."""

    seed = []

    def setUp(self):
        super().setUp()
        self.bin_dir = os.path.realpath(BIN_DIR)
        self.cursor_user = os.path.join(self.home, ".cursor", "hooks.json")
        self.path_dir = os.path.join(self.home, "path")
        os.makedirs(self.path_dir)

    def agents_env(self):
        """Only the stand-ins of path_dir (and the system's tools) on PATH."""
        return self.env(PATH=self.path_dir + ":/usr/bin:/bin")

    def stand_in(self, program, version):
        path = os.path.join(self.path_dir, program)
        with open(path, "w") as f:
            f.write(f"#!/bin/sh\necho '{version}'\n")
        os.chmod(path, 0o755)

    def load(self, path):
        with open(path) as f:
            return json.load(f)

    def ours(self, doc):
        """Our entries of a Cursor hooks file, by event: (matcher, argv, timeout)."""
        out = {}
        for event, entries in doc["hooks"].items():
            for entry in entries:
                argv = shlex.split(entry["command"])
                if argv and os.path.dirname(argv[0]) == self.bin_dir:
                    out.setdefault(event, []).append((entry.get("matcher"), argv,
                                                      entry["timeout"]))
        return out

    def expected_cursor(self):
        def argv(executable):
            return [os.path.join(self.bin_dir, executable), "--agent", "cursor"]
        return {"sessionStart": [(None, argv("on_session_start"), 8)],
                "postToolUse": [("Read", argv("on_file_read"), 8),
                                ("Shell", argv("on_bash_output"), 8)],
                "afterAgentResponse": [(None, argv("on_stop"), 5)],
                "sessionEnd": [(None, argv("on_session_end"), 2)]}

    def test_cursor_user_file_once_and_others_kept(self):
        os.makedirs(os.path.dirname(self.cursor_user))
        with open(self.cursor_user, "w") as f:
            json.dump({"version": 1, "hooks": {"afterFileEdit": [{"command": "./format.sh"}]}}, f)
        os.chmod(self.cursor_user, 0o640)
        result = self.run_cli("install", "--agent", "cursor")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("wired the mem0 hooks into " + self.cursor_user, result.stdout)
        self.assertIn("Cursor reloads hooks.json by itself", result.stdout)
        doc = self.load(self.cursor_user)
        self.assertEqual(doc["version"], 1)
        self.assertEqual(doc["hooks"]["afterFileEdit"], [{"command": "./format.sh"}])
        self.assertEqual(self.ours(doc), self.expected_cursor())
        self.assertEqual(os.stat(self.cursor_user).st_mode & 0o777, 0o640)
        self.assertTrue(os.path.exists(self.cursor_user + ".bak"))
        self.assertFalse(os.path.exists(os.path.join(self.home, ".claude", "settings.json")))

        with open(self.cursor_user, "rb") as f:
            before = f.read()
        again = self.run_cli("install", "--agent", "cursor")
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertIn("already up to date", again.stdout)
        with open(self.cursor_user, "rb") as f:
            self.assertEqual(f.read(), before)

        removed = self.run_cli("uninstall", "--agent", "cursor")
        self.assertEqual(removed.returncode, 0, removed.stderr)
        self.assertEqual(self.load(self.cursor_user),
                         {"version": 1, "hooks": {"afterFileEdit": [{"command": "./format.sh"}]}})

    def test_cursor_project_file(self):
        result = self.run_cli("install", "--agent", "cursor", "--project")
        self.assertEqual(result.returncode, 0, result.stderr)
        project_file = os.path.join(self.project, ".cursor", "hooks.json")
        self.assertEqual(self.ours(self.load(project_file)), self.expected_cursor())
        self.assertFalse(os.path.exists(self.cursor_user))

    def test_an_unparsable_file_is_refused_and_left_alone(self):
        os.makedirs(os.path.dirname(self.cursor_user))
        with open(self.cursor_user, "w") as f:
            f.write('{"version": 1, "hooks": {')
        for verb in ("install", "uninstall"):
            result = self.run_cli(verb, "--agent", "cursor")
            self.assertEqual(result.returncode, 1, result.stdout)
            self.assertIn("not valid JSON; left untouched", result.stderr)
            with open(self.cursor_user) as f:
                self.assertEqual(f.read(), '{"version": 1, "hooks": {')
            self.assertFalse(os.path.exists(self.cursor_user + ".bak"))

    def test_an_unknown_agent_is_a_usage_error(self):
        result = self.run_cli("install", "--agent", "vim")
        self.assertEqual(result.returncode, 2)
        self.assertIn("unknown agent 'vim'", result.stderr)

    def test_all_wires_every_agent_found(self):
        env = self.agents_env()
        none = self.run_cli("install", "--agent", "all", env=env)
        self.assertEqual(none.returncode, 1, none.stdout)
        self.assertIn("no agent found", none.stderr)

        self.stand_in("cursor-agent", "2026.01.09-abc1234")
        result = self.run_cli("install", "--agent", "all", env=env)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.ours(self.load(self.cursor_user)), self.expected_cursor())
        claude = os.path.join(self.home, ".claude", "settings.json")
        self.assertFalse(os.path.exists(claude))

        os.makedirs(os.path.dirname(claude))  # Claude Code found by its directory
        result = self.run_cli("install", "--agent", "all", env=env)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("Claude Code:", result.stdout)
        self.assertIn("Cursor:", result.stdout)
        self.assertEqual(len(self.load(claude)["hooks"]["PreToolUse"]), 2)

        removed = self.run_cli("uninstall", "--agent", "all", env=env)
        self.assertEqual(removed.returncode, 0, removed.stderr)
        self.assertNotIn("hooks", self.load(claude))
        self.assertEqual(self.load(self.cursor_user), {"version": 1})

    def test_doctor_rows_per_agent(self):
        env = self.agents_env()
        self.stand_in("cursor-agent", "2026.01.09-abc1234")
        self.assertEqual(self.run_cli("install", "--agent", "cursor", env=env).returncode, 0)
        result = self.run_cli("doctor", env=env)  # fails on Claude Code's unwired hooks, as before
        lines = result.lines()
        cursor_agent = os.path.join(self.path_dir, "cursor-agent")
        self.assertIn(f"agent       Cursor: 2026.01.09-abc1234 ({cursor_agent})", lines)
        self.assertIn("  hooks         wired in " + self.cursor_user, lines)
        # install registered Cursor's memory tools as well (docs/cli.md#memory-tools); uninstall
        # takes them away again.
        mcp = os.path.join(self.home, ".cursor", "mcp.json")
        self.assertIn(f"  memory tools  registered in {mcp}", lines)
        self.assertEqual(self.load(mcp), {"mcpServers": {"mem0": {
            "command": os.path.join(self.bin_dir, "mem0-hooks"), "args": ["mcp"]}}})
        self.assertFalse(any(line.startswith("agent       Claude Code") for line in lines))
        self.assertNotIn("warning:", result.stdout)
        self.assertEqual(self.run_cli("uninstall", "--agent", "cursor", env=env).returncode, 0)
        lines = self.run_cli("doctor", env=env).lines()
        self.assertIn(f"  memory tools  not registered (no mem0 server in {mcp})", lines)
        self.assertEqual(self.run_cli("install", "--agent", "cursor", env=env).returncode, 0)

        # Cursor also runs Claude Code's hooks: both wired is a warning, not a failure.
        self.assertEqual(self.run_cli("install", env=env).returncode, 0)
        with open(mcp, "w") as f:
            json.dump({"mcpServers": {"mem0": {"command": "mem0-hooks", "args": ["mcp"]}}}, f)
        result = self.run_cli("doctor", env=env)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("agent       Claude Code: claude not on PATH", result.lines())
        self.assertIn(f"  memory tools  registered in {mcp}", result.lines())
        self.assertIn("warning: Cursor also runs Claude Code's hooks (third-party hooks)",
                      result.stdout)

        # Wired in the user file and the project file: each hook would run twice.
        self.assertEqual(self.run_cli("install", "--agent", "cursor", "--project",
                                      env=env).returncode, 0)
        result = self.run_cli("doctor", env=env)
        self.assertIn("warning: Cursor runs the mem0 hooks twice", result.stdout)

    def test_doctor_runs_an_agents_version_without_the_api_key(self):
        seen = os.path.join(self.home, "version-env")
        path = os.path.join(self.path_dir, "cursor-agent")
        with open(path, "w") as f:
            f.write(f"#!/bin/sh\nenv > '{seen}'\necho 2026.01.09-abc1234\n")
        os.chmod(path, 0o755)
        env = self.agents_env()
        env["CLAUDE_PLUGIN_OPTION_API_KEY"] = "m0-plugin-option-key"
        env["MEM0_MARKER"] = "kept"
        self.assertEqual(self.run_cli("install", "--agent", "cursor", env=env).returncode, 0)
        self.run_cli("doctor", env=env)
        with open(seen) as f:
            child = dict(line.split("=", 1) for line in f.read().splitlines() if "=" in line)
        self.assertEqual(child.get("MEM0_MARKER"), "kept")
        self.assertEqual(child.get("HOME"), self.home)
        self.assertNotIn("MEM0_API_KEY", child)
        self.assertNotIn("CLAUDE_PLUGIN_OPTION_API_KEY", child)


    def test_doctor_names_wiring_whose_executables_are_gone(self):
        """Hooks wired from an install that an update or a cleaned cache removed: a fix line
        naming the file, a missing executable and the command that wires them again."""
        env = self.agents_env()
        self.stand_in("cursor-agent", "2026.01.09-abc1234")
        old = os.path.join(self.home, "old install")
        shutil.copytree(self.bin_dir, old, ignore=lambda d, names: [
            n for n in names if not (n.startswith("on_") or n == "mem0-hooks")])
        proc = subprocess.run([os.path.join(old, "mem0-hooks"), "install", "--agent", "cursor"],
                              env=env, cwd=self.home, capture_output=True, text=True, timeout=20)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(self.run_cli("install", env=env).returncode, 0)
        self.assertNotIn("no longer exists", self.run_cli("doctor", env=env).stdout)
        shutil.rmtree(old)
        result = self.run_cli("doctor", env=env)
        self.assertEqual(result.returncode, 1, result.stdout)
        fixes = [line for line in result.lines() if "no longer exists" in line]
        self.assertEqual(len(fixes), 1, result.stdout)
        self.assertTrue(fixes[0].startswith(f"fix: {self.cursor_user} runs {old}/on_"), fixes)
        self.assertIn("run `mem0-hooks install --agent cursor` again", fixes[0])
        self.assertEqual(self.run_cli("install", "--agent", "cursor", env=env).returncode, 0)
        self.assertNotIn("no longer exists", self.run_cli("doctor", env=env).stdout)

if __name__ == "__main__":
    testmain.main()
