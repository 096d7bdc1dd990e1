#!/usr/bin/env python3
"""Write the wiring files the repository ships from the hook table (runtime/table.hpp), or with
--check say which committed file differs from what the table gives (exit 1).

    scripts/wiring.py           # rewrite hooks.json, hooks/codex-hooks.json, ...
    scripts/wiring.py --check   # exit 0 when every committed file is what the table gives

Each file is one agent's rows, in table order, grouped by event (in order of first appearance),
in that agent's hooks-file shape (docs/agents.md#adding-an-agent). Python standard library only.
"""

import json
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# One row of k_hooks: {"<agent>", "<executable>", "<event>", "<matcher>" (maybe split into
# adjacent literals), <timeout>, "<status message>"}.
ROW = re.compile(r'\{\s*"([\w-]+)",\s*"(\w+)",\s*"(\w+)",\s*((?:"[^"]*"\s*)+),\s*(\d+),\s*'
                 r'"([^"]*)"\s*\}')


def table_rows():
    """(agent, executable, event, matcher, timeout, status) of each row of the hook table."""
    with open(os.path.join(REPO, "runtime", "table.hpp"), encoding="utf-8") as fh:
        text = fh.read()
    body = text[text.index("k_hooks"):]
    rows = []
    for agent, exe, event, matcher, timeout, status in ROW.findall(body):
        rows.append((agent, exe, event, "".join(re.findall(r'"([^"]*)"', matcher)),
                     int(timeout), status))
    if not rows:
        raise SystemExit("wiring.py: no rows found in runtime/table.hpp")
    return rows


def plugin_command(root, agent_flag):
    """A plugin's command: build/bin/<hook> under `root`, scripts/first-run.sh until it is
    built (docs/hooks.md)."""
    def command(exe):
        return (f'h="{root}"/build/bin/{exe} && [ -x "$h" ] || exec sh "{root}"/scripts/'
                f'first-run.sh {exe}; exec "{root}"/build/bin/{exe}{agent_flag}')
    return command


def claude_shaped(rows, command, description=None, gemini=False):
    hooks = {}
    for _, exe, event, matcher, timeout, status in rows:
        hook = {"name": f"mem0-{exe}"} if gemini else {}
        hook.update({"type": "command", "command": command(exe),
                     "timeout": timeout * 1000 if gemini else timeout})
        if status and not gemini:
            hook["statusMessage"] = status
        group = {"matcher": matcher} if matcher else {}
        group["hooks"] = [hook]
        hooks.setdefault(event, []).append(group)
    doc = {"description": description} if description else {}
    doc["hooks"] = hooks
    return doc


# The files, each: path, agent, how its rows become the file.
FILES = [
    ("hooks.json", "claude-code", lambda rows: claude_shaped(
        rows, plugin_command("${CLAUDE_PLUGIN_ROOT}", ""),
        "mem0 native hooks: recall, capture and guards for Claude Code sessions")),
    ("hooks/codex-hooks.json", "codex", lambda rows: claude_shaped(
        rows, plugin_command("${PLUGIN_ROOT}", " --agent codex"),
        "mem0 native hooks: recall and capture for Codex CLI sessions")),
    ("gemini-extension/hooks/hooks.json", "gemini-cli", lambda rows: claude_shaped(
        rows, lambda exe: f'node "${{extensionPath}}/hooks/run.cjs" {exe} --agent gemini-cli',
        gemini=True)),
]


def render(agent, make):
    rows = [r for r in table_rows() if r[0] == agent]
    return json.dumps(make(rows), indent=2, ensure_ascii=False) + "\n"


def main(argv):
    check = "--check" in argv
    stale = []
    for path, agent, make in FILES:
        want = render(agent, make)
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
