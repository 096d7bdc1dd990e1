"""The slash commands' shell blocks (commands/*.md) with hostile arguments, filled in the way the
pinned Claude Code fills them: the typed text pasted as it is in place of $ARGUMENTS, but for a
`!` at the start of a line or after a blank, which it writes as `\\!` (so that no typed text can
open a shell block). Each block then runs in bash with a stand-in mem0-hooks that records its
arguments: whatever was typed arrives as plain words, and nothing of it runs.
(tests/client/test_tools_and_controls.py sends the same inputs through Claude Code itself.)"""

import glob
import os
import re
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
import sys  # noqa: E402
sys.path.insert(0, os.path.join(REPO, "tests", "lib"))
import testmain  # noqa: E402

BLOCK = re.compile(r"```!\s*\n?([\s\S]*?)\n?```")
# The options a command file gives before the typed words (`--args-on-stdin ui --no-open`).
FIXED = re.compile(r"--args-on-stdin \S+((?: --?[a-z-]+)*) <<")
OLD_DELIMITER = "MEM0_ARGUMENTS_END"

# What a user may type; every one must arrive as its words and run nothing.
HOSTILE = [
    "plain words only",
    "a $(touch PWNED) b",
    "a `touch PWNED` b",
    "a; touch PWNED; b",
    "a | touch PWNED && b || c &",
    "first line\nsecond line\n\nfourth",
    f"a\n{OLD_DELIMITER}\ntouch PWNED\nb",
    "a\n'!MEM0_ARGUMENTS_END'\ntouch PWNED",
    "a\nMEM0_ARGUMENTS_END\ntouch PWNED\nMEM0_ARGUMENTS_END",
    "a\n```\ntouch PWNED\n```!\ntouch PWNED\n```",
    "${HOME} $HOME ~ * ? [a] 'quoted' \"double\" \\ back\\slash",
    "a\n!MEM0_ARGUMENTS_END\ntouch PWNED",
    "a !MEM0_ARGUMENTS_END !`touch PWNED`",
]


def fill(template, typed):
    """$ARGUMENTS filled as the pinned Claude Code does it for a command."""
    escaped = re.sub(r"(^|\s)!", lambda m: m.group(1) + "\\!",
                     typed.replace("`!", "` !").replace("!`", "! `"), flags=re.M)
    return template.replace("$ARGUMENTS", escaped), escaped


class SlashCommandText(unittest.TestCase):

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="mem0_commands_")
        self.addCleanup(shutil.rmtree, self.root, True)
        os.makedirs(os.path.join(self.root, "scripts"))
        os.makedirs(os.path.join(self.root, "build", "bin"))
        shutil.copy(os.path.join(REPO, "scripts", "mem0-hooks.sh"),
                    os.path.join(self.root, "scripts"))
        self.seen = os.path.join(self.root, "argv")
        stand_in = os.path.join(self.root, "build", "bin", "mem0-hooks")
        with open(stand_in, "w") as f:
            f.write(f"#!/bin/sh\nfor a; do printf '%s\\0' \"$a\"; done > '{self.seen}'\n")
        os.chmod(stand_in, 0o755)
        self.cwd = os.path.join(self.root, "cwd")
        os.makedirs(self.cwd)

    def run_block(self, block):
        if os.path.exists(self.seen):
            os.remove(self.seen)
        subprocess.run(["bash", "-c", block], cwd=self.cwd, capture_output=True, timeout=20,
                       env={"PATH": os.environ["PATH"], "HOME": self.root,
                            "CLAUDE_PLUGIN_ROOT": self.root})
        with open(self.seen) as f:
            return f.read().split("\0")[:-1]

    def test_typed_text_arrives_as_words_and_never_runs(self):
        commands = sorted(glob.glob(os.path.join(REPO, "commands", "*.md")))
        self.assertEqual(len(commands), 11)
        for path in commands:
            with open(path) as f:
                blocks = BLOCK.findall(f.read())
            self.assertEqual(len(blocks), 1, path)
            name = os.path.basename(path)[:-3]
            command = {"recall": "peek"}.get(name, name)
            fixed = FIXED.search(blocks[0]).group(1).split()
            for typed in HOSTILE:
                with self.subTest(command=name, typed=typed):
                    filled, escaped = fill(blocks[0], typed)
                    argv = self.run_block(filled)
                    ran = os.listdir(self.cwd)
                    for leftover in ran:
                        os.remove(os.path.join(self.cwd, leftover))
                    self.assertEqual(ran, [], "typed text ran as a command")
                    self.assertEqual(argv, [command, *fixed, *escaped.split()])


if __name__ == "__main__":
    testmain.main()
