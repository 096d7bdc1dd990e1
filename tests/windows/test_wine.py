"""End-to-end under wine: the Windows executables (build-windows/bin/*.exe) against the fake Mem0
server on loopback (docs/windows.md#testing-under-wine). Run by `scripts/test.sh --windows`.

Under wine, HOME does not reach a Windows program and USERPROFILE points into the prefix, so the
hooks' state is the prefix's %USERPROFILE%\\.mem0: each test empties it, and the tests run one at
a time. Paths are handed to the hooks in Windows form (Z:\\... is wine's drive for /)."""

import http.client
import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
WINE_RUN = os.path.join(ROOT, "scripts", "wine-run.sh")
os.environ.setdefault("MEM0_BIN_DIR", os.path.join(ROOT, "build-windows", "bin"))
os.environ["MEM0_EXEC_WRAPPER"] = WINE_RUN
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))

from hooklib import HookTest, USER, memory  # noqa: E402
from outbox import outbox_items  # noqa: E402
import testmain  # noqa: E402
from hookevents import prompt_event, read_event, session_end_event, stop_event  # noqa: E402

PREFIX = os.environ.get("WINEPREFIX",
                        os.path.expanduser("~/.cache/mem0-native-hooks/wine-prefix"))
LONG = " ".join(["We moved the retry logic of the sync worker into one helper."] * 3)
PROMPT = "Why does the stripe webhook handler retry invoices twice?"


def windows_path(path):
    """`path` as wine's Windows programs name it: Z: is the Unix root."""
    return "Z:" + os.path.abspath(path).replace("/", "\\")


def wine_home(env):
    """The Unix directory of the %USERPROFILE% wine gives a program run with `env`: asked of wine,
    which names it after the USER its server met first, so that the prefix may hold several."""
    shown = subprocess.run([WINE_RUN, "cmd", "/c", "echo %USERPROFILE%"], env=env, check=True,
                           capture_output=True, text=True, timeout=120).stdout.strip()
    if not shown.upper().startswith("C:\\"):
        raise AssertionError(f"wine's %USERPROFILE% is not on its drive C: {shown!r}")
    return os.path.join(PREFIX, "drive_c", *shown[3:].split("\\"))


class WineCase(HookTest):
    """What the cases under wine share: the build, the warmed prefix, an empty profile state."""

    seed = [memory("11111111-aaaa-4aaa-8aaa-000000000001",
                   "Stripe webhook handler retries invoices with exponential backoff",
                   "convention"),
            memory("77777777-aaaa-4aaa-8aaa-000000000007",
                   "src/billing/invoice.py keeps money as integer cents", "convention")]

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(os.path.join(os.environ["MEM0_BIN_DIR"], "on_user_prompt.exe")):
            raise unittest.SkipTest("no Windows build (scripts/build.sh --windows)")
        # The first program of a prefix starts wine's services, which inherit its stdio: warm it
        # before any output is captured.
        env = {**os.environ, "USER": USER, "WINEPREFIX": PREFIX}
        subprocess.run([WINE_RUN, "--warm"], env=env, check=True, timeout=300)
        cls.profile = wine_home(env)  # made now, if new: the first hook is not kept waiting
        super().setUpClass()

    def setUp(self):
        super().setUp()
        self.mem0 = os.path.join(self.profile, ".mem0")
        subprocess.run(["rm", "-rf", self.mem0], check=True)
        self.addCleanup(subprocess.run, ["rm", "-rf", self.mem0])
        self.outbox = os.path.join(self.mem0, "state", "outbox")
        self.win_project = windows_path(self.project)

    def env(self, **overrides):
        # wine's prefix is not under the test's HOME (wine-run.sh would make a new one there).
        return super().env(WINEPREFIX=PREFIX, **overrides)

    def pending(self):
        return outbox_items(self.outbox)

    def wait_for(self, what, check, timeout=20.0):
        super().wait_for(what, check, timeout)  # a program under wine starts slower

    def wine(self, *args, stdin=None, timeout=120):
        """A Windows program (`args[0]`, a Unix path) run under wine in the project, as the tests'
        user, with `stdin` (text) or none; decoded."""
        feed = {"stdin": subprocess.DEVNULL} if stdin is None else {"input": stdin}
        return subprocess.run([WINE_RUN, *args], capture_output=True, text=True, errors="replace",
                              env=self.env(), cwd=self.project, timeout=timeout, **feed)

    def context(self, result):
        import json
        out = json.loads(result.stdout)
        return out.get("hookSpecificOutput", {}).get("additionalContext", "")


class Wine(WineCase):
    """The hooks and mem0-hooks.exe run as an agent runs them."""

    def test_bad_stdin_exits_0_and_prints_nothing(self):
        for data in (b"{not json", b"", b"\xff\xfe\x00", b"[1,2]"):
            result = self.run_bin("on_user_prompt.exe", data)
            self.assertEqual(result.returncode, 0)
            self.assertEqual(result.stdout, b"", data)

    def test_prompt_recall(self):
        result = self.run_hook("on_user_prompt.exe",
                               prompt_event(PROMPT, session_id="s-1", cwd=self.win_project))
        ctx = self.context(result)
        self.assertIn("Stripe webhook handler retries invoices with exponential backoff "
                      "[mem0:11111111]", ctx)
        self.assertEqual(self.fake.searches()[0]["query"], PROMPT)
        # The state is the Windows profile's, as Mem0's plugin keeps it.
        self.assertTrue(os.path.isdir(os.path.join(self.mem0, "state")), self.mem0)

    def test_file_recall_with_a_windows_path_once_per_version_in_every_spelling(self):
        src = os.path.join(self.project, "src", "billing")
        os.makedirs(src)
        path = os.path.join(src, "invoice.py")
        with open(path, "w") as f:
            f.write("# invoices\n" + "x = 1\n" * 400)
        win = windows_path(path)
        first = self.run_hook("on_file_read.exe", read_event(win, session_id="s-2",
                                                             cwd=self.win_project))
        self.assertIn("src/billing/invoice.py keeps money as integer cents", self.context(first))
        searches = len(self.fake.searches())
        self.assertGreater(searches, 0)
        # Git Bash's /z/..., Cursor's /z:/... and Z:/...: the same file, already looked up.
        unix = os.path.abspath(path)
        for spelling in ("/z" + unix, "/z:" + unix, "Z:" + unix, win.lower()):
            again = self.run_hook("on_file_read.exe", read_event(spelling, session_id="s-2",
                                                                 cwd=self.win_project))
            self.assertEqual(again.stdout, b"", spelling)
        self.assertEqual(len(self.fake.searches()), searches)

    def test_a_stop_capture_is_delivered_by_the_detached_sender(self):
        result = self.run_hook("on_stop.exe", stop_event(LONG, session_id="s-3",
                                                         cwd=self.win_project))
        self.assertEqual(result.stdout, b"")
        self.wait_for("the add", lambda: len(self.fake.adds()) == 1)
        body = self.fake.adds()[0]
        self.assertEqual(body["metadata"]["type"], "session_summary")
        self.assertIn("retry logic", body["messages"][0]["content"])
        self.wait_for("an empty outbox", lambda: not self.pending())

    def test_a_full_outbox_is_flushed_by_session_end(self):
        self.fake.control(status=503, only_endpoint="add")
        for i in range(5):
            self.run_hook("on_stop.exe", stop_event(f"capture number {i}: " + LONG,
                                                    session_id="s-4", cwd=self.win_project))
        self.wait_for("five queued", lambda: len(self.pending()) == 5)
        time.sleep(1.0)  # the last sender gives up on the 503
        self.fake.control()
        self.fake.reset()
        self.run_hook("on_session_end.exe", session_end_event("other", session_id="s-4",
                                                              cwd=self.win_project))
        self.wait_for("five adds", lambda: len(self.fake.adds()) == 5, timeout=60)
        self.wait_for("an empty outbox", lambda: not self.pending())

    def test_peek_and_doctor(self):
        self.run_hook("on_user_prompt.exe",
                      prompt_event(PROMPT, session_id="s-5", cwd=self.win_project))
        peek = self.run_bin("mem0-hooks.exe", None, args=("peek", PROMPT), text=True)
        self.assertEqual(peek.returncode, 0, peek.stderr)
        self.assertIn("exponential backoff", peek.stdout)
        doctor = self.run_bin("mem0-hooks.exe", None, args=("doctor",), text=True, timeout=60)
        self.assertIn(".mem0", doctor.stdout)


# The hooks file of each agent that has one, under %USERPROFILE%, and the shell it runs our
# commands in on Windows (docs/windows.md#how-each-agent-runs-a-hook).
AGENT_FILES = {
    "claude-code": (".claude/settings.json", "git_bash"),
    "codex": (".codex/hooks.json", "cmd"),
    "gemini-cli": (".gemini/settings.json", "powershell"),
    "cursor": (".cursor/hooks.json", "powershell"),
    "copilot": (".copilot/hooks/mem0.json", "powershell"),
}


def our_commands(path, key="command"):
    """{executable: command} of the entries in the hooks file at `path` that run one of ours
    (.exe); `key` names Copilot CLI's field ("powershell" or "bash")."""
    import json
    import re
    with open(path) as f:
        doc = json.load(f)
    out = {}
    for entries in doc.get("hooks", {}).values():
        for entry in entries:
            for hook in entry.get("hooks", [entry]):
                command = hook.get("command", hook.get(key, ""))
                found = re.search(r"([a-z_]+)\.exe", command)
                if found:
                    out[found.group(1)] = command
    return out


def expected_command(agent, shell, win_dir, exe):
    """The command install writes for `agent`'s `exe` in the Windows directory `win_dir`."""
    program = win_dir + "\\" + exe + ".exe"
    args = "" if agent == "claude-code" else " --agent " + agent
    if shell == "powershell":
        return "& '" + program.replace("'", "''") + "'" + args
    if shell == "git_bash":
        slashed = program.replace("\\", "/")
        plain = all(c.isalnum() or c in "/._+:@%-" for c in slashed)
        return (slashed if plain else "'" + slashed.replace("'", "'\\''") + "'") + args
    return program + args  # cmd: a path with nothing to quote is written bare


class WineInstall(WineCase):
    """mem0-hooks.exe install, doctor and uninstall write and check each agent's Windows form in
    its file under the wine profile."""

    def setUp(self):
        super().setUp()
        for name in (".claude", ".codex", ".gemini", ".cursor", ".copilot"):
            path = os.path.join(self.profile, name)
            subprocess.run(["rm", "-rf", path], check=True)
            self.addCleanup(subprocess.run, ["rm", "-rf", path])

    def cli(self, *args, exe=None):
        """mem0-hooks.exe with `args` (from the build, or the copy at `exe`), decoded."""
        if exe is None:
            return self.run_bin("mem0-hooks.exe", None, args=args, text=True, timeout=60)
        return self.wine(exe, *args, timeout=60)

    def hooks_file(self, agent):
        return os.path.join(self.profile, AGENT_FILES[agent][0])

    def test_install_writes_each_agents_windows_form_once_and_uninstall_removes_it(self):
        win_bin = windows_path(os.environ["MEM0_BIN_DIR"])
        for agent, (_, shell) in AGENT_FILES.items():
            with self.subTest(agent=agent):
                install = self.cli("install", "--agent", agent)
                self.assertEqual(install.returncode, 0, install.stdout + install.stderr)
                path = self.hooks_file(agent)
                key = "powershell" if agent == "copilot" else "command"
                commands = our_commands(path, key)
                self.assertIn("on_stop", commands)
                for exe, command in commands.items():
                    self.assertEqual(command, expected_command(agent, shell, win_bin, exe))
                if agent == "copilot":  # the bash field is kept, in Git Bash's form
                    for exe, command in our_commands(path, "bash").items():
                        self.assertEqual(command,
                                         expected_command(agent, "git_bash", win_bin, exe))
                with open(path, "rb") as f:
                    written = f.read()
                again = self.cli("install", "--agent", agent)
                self.assertEqual(again.returncode, 0, again.stderr)
                self.assertIn("already up to date", again.stdout)
                with open(path, "rb") as f:
                    self.assertEqual(f.read(), written)

        doctor = self.cli("doctor")
        for agent in AGENT_FILES:
            name = os.path.basename(AGENT_FILES[agent][0])
            self.assertRegex(doctor.stdout, r"hooks +wired in C:\\users\\[^\n]*" +
                             name.replace(".", r"\."), agent)
        self.assertNotIn("written for", doctor.stdout)
        self.assertNotIn("no longer exists", doctor.stdout)

        for agent in AGENT_FILES:
            with self.subTest(agent=agent):
                removed = self.cli("uninstall", "--agent", agent)
                self.assertEqual(removed.returncode, 0, removed.stderr)
                self.assertEqual(our_commands(self.hooks_file(agent)), {})
                self.assertEqual(our_commands(self.hooks_file(agent), "bash"), {})

    def test_the_hooks_name_mem0_hooks_exe_in_the_form_of_the_agents_shell(self):
        win_cli = windows_path(os.path.join(os.environ["MEM0_BIN_DIR"], "mem0-hooks.exe"))
        for agent, session, want in (
                (None, "s-7", win_cli.replace("\\", "/") + " peek"),  # Claude Code: Git Bash
                ("codex", "s-8", win_cli + " peek"),  # cmd: nothing to quote here
                ("gemini-cli", "s-9", "& '" + win_cli + "' peek")):
            with self.subTest(agent=agent):
                args = ("--agent", agent) if agent else ()
                result = self.run_bin("on_user_prompt.exe",
                                      json.dumps(prompt_event(PROMPT, session_id=session,
                                                              cwd=self.win_project)).encode(),
                                      args=args)
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertIn("`" + want + " '<query>'`", self.context(result), agent)

    def test_a_path_with_a_space_and_a_quote_in_every_form_and_a_posix_entry_rewritten(self):
        # The executables in a directory whose name needs quoting in every shell.
        unix_dir = os.path.join(self.home, "mem0 hooks", "o'neil")
        os.makedirs(unix_dir)
        for name in os.listdir(os.environ["MEM0_BIN_DIR"]):
            if name.endswith(".exe"):
                subprocess.run(["cp", os.path.join(os.environ["MEM0_BIN_DIR"], name), unix_dir],
                               check=True)
        exe = os.path.join(unix_dir, "mem0-hooks.exe")
        win_dir = windows_path(unix_dir)
        for agent in ("gemini-cli", "claude-code"):
            result = self.cli("install", "--agent", agent, exe=exe)
            self.assertEqual(result.returncode, 0, result.stderr)
            shell = AGENT_FILES[agent][1]
            self.assertEqual(our_commands(self.hooks_file(agent))["on_stop"],
                             expected_command(agent, shell, win_dir, "on_stop"))

        # Codex's cmd gets the short form, unquoted, which wine's cmd /C runs (the command line
        # quoted as a whole, as Codex's spawn does).
        self.assertEqual(self.cli("install", "--agent", "codex", exe=exe).returncode, 0)
        command = our_commands(self.hooks_file("codex"))["on_user_prompt"]
        self.assertNotIn('"', command)
        self.assertTrue(command.endswith("\\on_user_prompt.exe --agent codex"), command)
        ran = subprocess.run([WINE_RUN, "cmd", "/c", command], capture_output=True,
                             env=self.env(), cwd=self.project, timeout=60,
                             input=json.dumps(prompt_event(PROMPT, session_id="s-6",
                                                           cwd=self.win_project)).encode())
        self.assertEqual(ran.returncode, 0, ran.stderr)
        self.assertIn("exponential backoff", self.context(ran))

        # A POSIX-quoted entry (a Linux install's, or an older version's) is one doctor names, and
        # install rewrites it.
        path = self.hooks_file("gemini-cli")
        with open(path) as f:
            text = f.read()
        ours = our_commands(path)["on_stop"]
        posix = "'/opt/mem0 hooks/on_stop' --agent gemini-cli"
        with open(path, "w") as f:
            f.write(text.replace(json.dumps(ours)[1:-1], json.dumps(posix)[1:-1]))
        doctor = self.cli("doctor", exe=exe)
        self.assertIn("1 mem0 hook is written for sh, but Gemini CLI runs them with PowerShell "
                      "here", doctor.stdout)
        self.assertIn("mem0-hooks install --agent gemini-cli", doctor.stdout)
        self.assertEqual(self.cli("install", "--agent", "gemini-cli", exe=exe).returncode, 0)
        self.assertEqual(our_commands(path)["on_stop"], ours)
        self.assertNotIn("written for", self.cli("doctor", exe=exe).stdout)

        # Once that copy is gone, doctor (from the build) names the executables that no longer
        # exist, as Windows paths.
        subprocess.run(["rm", "-rf", os.path.join(self.home, "mem0 hooks")], check=True)
        doctor = self.cli("doctor")
        self.assertIn("runs " + win_dir + "\\", doctor.stdout)
        self.assertIn("which no longer exists", doctor.stdout)


def free_port():
    """A loopback port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WineConsole(WineCase):
    """mem0-hooks.exe ui: the console's server under wine answers requests over loopback from
    the Linux side, and stops (docs/console.md#windows)."""

    def get(self, port, path, headers=None):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        try:
            conn.request("GET", path, headers=headers or {})
            res = conn.getresponse()
            return res, res.read().decode()
        finally:
            conn.close()

    def start_ui(self, port):
        """mem0-hooks.exe ui --no-open --port `port` under wine: the process, a queue of its
        stdout lines after the first, and the token of the first."""
        proc = subprocess.Popen([WINE_RUN, os.path.join(os.environ["MEM0_BIN_DIR"],
                                                        "mem0-hooks.exe"),
                                 "ui", "--no-open", "--port", str(port)],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, errors="replace",
                                env=self.env(), cwd=self.project)
        self.addCleanup(proc.stderr.close)
        self.addCleanup(proc.stdout.close)
        self.addCleanup(lambda: proc.poll() is None and (proc.kill(), proc.wait(30)))
        lines = queue.Queue()
        threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout],
                         daemon=True).start()
        try:
            first = lines.get(timeout=60).strip()
        except queue.Empty:
            proc.kill()
            self.fail("no address from mem0-hooks.exe ui: " + proc.stderr.read())
        match = re.fullmatch(r"mem0 console: http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]{64})",
                             first)
        self.assertIsNotNone(match, first)
        self.assertEqual(int(match.group(1)), port)
        return proc, lines, match.group(2)

    def assert_gone(self, proc, port):
        """`proc` ended, no wine process of its command line is left, and `port` is closed."""
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.fail("mem0-hooks.exe ui did not stop under wine")
        left = subprocess.run(["pgrep", "-f", f"mem0-hooks.exe ui --no-open --port {port}$"],
                              capture_output=True, text=True).stdout.split()
        self.assertEqual(left, [])
        with self.assertRaises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=5).close()

    def test_ui_answers_on_loopback_and_stops(self):
        port = free_port()
        proc, lines, token = self.start_ui(port)
        instance = os.path.join(self.mem0, "state", "console.json")
        self.assertTrue(os.path.exists(instance))

        # The token is traded for an HttpOnly cookie, and the page is served with it.
        res, _ = self.get(port, "/?token=" + token)
        self.assertEqual(res.status, 303)
        self.assertEqual(res.getheader("Location"), "/")
        cookie = res.getheader("Set-Cookie")
        self.assertIn("HttpOnly", cookie)
        self.assertIn("SameSite=Strict", cookie)
        crumb = cookie.split(";")[0]
        res, page = self.get(port, "/", {"Cookie": crumb})
        self.assertEqual(res.status, 200)
        self.assertIn("<html", page.lower())

        # The API lists the stand-in's memories, with the cookie or the bearer token.
        for auth in ({"Cookie": crumb}, {"Authorization": "Bearer " + token}):
            res, body = self.get(port, "/api/memories", auth)
            self.assertEqual(res.status, 200, body)
            self.assertEqual({m["id"] for m in json.loads(body)["memories"]},
                             {m["id"] for m in self.seed})
            self.assertNotIn(self.fake.api_key, body)

        # Without the token: 401; a foreign Host: 403.
        res, _ = self.get(port, "/api/memories")
        self.assertEqual(res.status, 401)
        res, _ = self.get(port, "/api/memories", {"Host": f"rebound.example:{port}",
                                                  "Authorization": "Bearer " + token})
        self.assertEqual(res.status, 403)

        # wine hands SIGINT to the program as Ctrl-C: the console's own stop, which removes
        # its console.json.
        proc.send_signal(signal.SIGINT)
        self.assert_gone(proc, port)
        self.assertEqual(proc.returncode, 0)
        rest = []
        while not lines.empty():
            rest.append(lines.get().strip())
        self.assertIn("mem0 console: stopped", rest)
        self.assertFalse(os.path.exists(instance))

        # SIGTERM: wine ends the process at once (no stop of its own, console.json left), and
        # the next ui finds that console.json unanswered and starts a console of its own.
        port = free_port()
        proc, _, token = self.start_ui(port)
        proc.terminate()
        self.assert_gone(proc, port)
        self.assertTrue(os.path.exists(instance))
        again = free_port()
        proc, _, fresh = self.start_ui(again)
        self.assertNotEqual(fresh, token)
        res, _ = self.get(again, "/api/memories", {"Authorization": "Bearer " + fresh})
        self.assertEqual(res.status, 200)
        proc.send_signal(signal.SIGINT)
        self.assert_gone(proc, again)


if __name__ == "__main__":
    testmain.main()
