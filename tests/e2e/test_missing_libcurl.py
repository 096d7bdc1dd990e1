"""End-to-end: a machine without libcurl (docs/failures.md#error-classes). The prebuilt executables
load libcurl at run time; where it is missing, the hooks exit 0, the user is told once per
session which package to install, nothing is taken for a Mem0 outage (no back-off pause), a
capture stays queued, and doctor names the package.

The test hides libcurl from the executables: it runs itself again in a private mount namespace
(`unshare --mount --map-root-user`) where /dev/null is bind-mounted over each file the dynamic
loader would open for libcurl.so.4 and libcurl.so. Skipped where that namespace cannot be had."""

import json
import os
import subprocess
import sys

from hooklib import SenderTest
from waiting import wait_until
import testmain  # noqa: E402
from hookevents import prompt_event, stop_event

INSIDE = "MEM0_TEST_NO_LIBCURL"
LINE = ("mem0: recall off \u2014 cannot load libcurl: install the libcurl4 package "
        "(Debian/Ubuntu: apt install libcurl4")
PROMPT = "How are invoices rounded in the billing service?"
REPLY = " ".join(["We moved the retry logic of the sync worker into one helper."] * 3)


def libcurl_files():
    """The real files behind the names the executables dlopen (util/platform.hpp)."""
    found = set()
    for line in subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout.split("\n"):
        name, _, path = line.strip().partition(" => ")
        if name.split(" ")[0] in ("libcurl.so.4", "libcurl.so") and os.path.exists(path):
            found.add(os.path.realpath(path))
    return sorted(found)


def run_inside():
    """Run this program again with libcurl hidden; its exit status, or 77 when it cannot be."""
    files = libcurl_files()
    if not files:
        print("SKIPPED: no libcurl to hide (ldconfig -p lists none)", file=sys.stderr)
        return testmain.SKIPPED
    mounts = " && ".join(f"mount --bind /dev/null '{f}'" for f in files)
    probe = subprocess.run(["unshare", "--mount", "--map-root-user", "sh", "-c", mounts],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        print(f"SKIPPED: cannot hide libcurl here ({probe.stderr.strip()})", file=sys.stderr)
        return testmain.SKIPPED
    command = f"{mounts} && exec \"$0\" \"$@\""
    return subprocess.run(["unshare", "--mount", "--map-root-user", "sh", "-c", command,
                           sys.executable, *sys.argv], env={**os.environ, INSIDE: "1"}).returncode


class MissingLibcurl(SenderTest):
    def system_message(self, result):
        return json.loads(result.stdout or b"{}").get("systemMessage", "")

    def test_prompts_say_once_what_to_install_and_nothing_pauses(self):
        common = {"session_id": "no-curl-1", "cwd": self.project}
        first = self.run_hook("on_user_prompt", prompt_event(PROMPT, **common))
        self.assertIn(LINE, self.system_message(first))
        context = json.loads(first.stdout)["hookSpecificOutput"]["additionalContext"]
        self.assertNotIn("libcurl", context)  # the model is not told: it cannot install it
        self.assertIn("cannot load libcurl", first.stderr.decode())
        second = self.run_hook("on_user_prompt", prompt_event(PROMPT + " Again.", **common))
        self.assertNotIn("libcurl", self.system_message(second))  # once per session
        self.assertEqual(self.fake.requests(), [])
        backoff = os.path.join(self.state, "backoff.json")
        if os.path.exists(backoff):
            with open(backoff) as f:
                self.assertNotIn("until", f.read(), "a missing library was taken for an outage")

    def test_a_capture_waits_in_the_outbox(self):
        self.run_hook("on_stop", stop_event(REPLY, session_id="no-curl-2", cwd=self.project))
        self.wait_for_senders()
        items = [n for n in os.listdir(os.path.join(self.state, "outbox")) if n[0].isdigit()]
        self.assertEqual(len(items), 1, "the capture was lost or sent")

    def test_doctor_names_the_package(self):
        doctor = self.run_bin("mem0-hooks", args=("doctor",), text=True)
        self.assertEqual(doctor.returncode, 1)
        self.assertIn("fix: cannot load libcurl: install the libcurl4 package", doctor.stdout)
        self.assertNotIn("cannot reach", doctor.stdout)

    def wait_for_senders(self):
        wait_until(lambda: not self.senders(), 10)


if __name__ == "__main__":
    if os.environ.get(INSIDE) != "1":
        sys.exit(run_inside())
    testmain.main()
