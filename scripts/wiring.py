#!/usr/bin/env python3
"""Write the wiring files the repository ships from the hook table (runtime/table.hpp), or with
--check say which committed file differs from what the table gives (exit 1).

    scripts/wiring.py           # rewrite hooks.json, hooks/codex-hooks.json, ...
    scripts/wiring.py --check   # exit 0 when every committed file is what the table gives

Each file is written by hook_wiring (scripts/hook_wiring.cpp, built into build/tools/), which
runs install's own code over the agent's rows and its hooks-file format; this script names the
files, their commands and descriptions. --wiring PATH names another build's hook_wiring.
table_rows() gives the tests the table's rows the same way.
Python standard library only.
"""

import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def plugin_command(root, agent_flag):
    """A plugin's command: build/bin/<hook> under `root`, scripts/first-run.sh until it is
    built (docs/hooks.md). {exe} stands for the executable."""
    return (f'h="{root}"/build/bin/{{exe}} && [ -x "$h" ] || exec sh "{root}"/scripts/'
            f'first-run.sh {{exe}}; exec "{root}"/build/bin/{{exe}}{agent_flag}')


# The files, each: path, agent, command, description ("" for none).
FILES = [
    ("hooks.json", "claude-code", plugin_command("${CLAUDE_PLUGIN_ROOT}", ""),
     "mem0 native hooks: recall, capture and guards for Claude Code sessions"),
    ("hooks/codex-hooks.json", "codex", plugin_command("${PLUGIN_ROOT}", " --agent codex"),
     "mem0 native hooks: recall and capture for Codex CLI sessions"),
    ("gemini-extension/hooks/hooks.json", "gemini-cli",
     'node "${extensionPath}/hooks/run.cjs" {exe} --agent gemini-cli', ""),
]


def built(wiring=None):
    """The path of hook_wiring: `wiring`, else this checkout's build/tools/hook_wiring."""
    wiring = wiring or os.path.join(REPO, "build", "tools", "hook_wiring")
    if not os.access(wiring, os.X_OK):
        raise SystemExit(f"wiring.py: {wiring} is not built (scripts/build.sh builds it)")
    return wiring


def run(wiring, *args):
    """hook_wiring's output for `args`, read as JSON."""
    made = subprocess.run([wiring, *args], capture_output=True, text=True, check=False)
    if made.returncode != 0:
        raise SystemExit(f"wiring.py: {wiring} failed: {made.stderr.strip()}")
    return json.loads(made.stdout)


def table_rows(wiring=None):
    """(agent, executable, event, matcher, timeout, status) of each row of the hook table."""
    return [(r["agent"], r["executable"], r["event"], r["matcher"], r["timeout"], r["status"])
            for r in run(built(wiring), "--rows")]


def render(wiring, agent, command, description):
    doc = run(wiring, agent, command)
    if description:
        doc = {"description": description, **doc}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def main(argv):
    check = "--check" in argv
    wiring = built(argv[argv.index("--wiring") + 1] if "--wiring" in argv else None)
    stale = []
    for path, agent, command, description in FILES:
        want = render(wiring, agent, command, description)
        full = os.path.join(REPO, path)
        try:
            with open(full, encoding="utf-8") as fh:
                have = fh.read()
        except OSError:
            have = None
        if have == want:
            continue
        if check:
            stale.append(path)
        else:
            with open(full, "w", encoding="utf-8") as fh:
                fh.write(want)
            print(f"wrote {path}")
    for path in stale:
        print(f"wiring.py: {path} differs from the hook table (run scripts/wiring.py)")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
