#!/usr/bin/env python3
"""Record the hook payloads a real Gemini CLI sends, as the unit tests' fixtures
(tests/unit/fixtures/gemini-cli/<name>.json).

    python3 tests/client/record_gemini_fixtures.py [OUT_DIR]

Runs the pinned `gemini -p` (gemini_cli.py) against fake_gemini.py in a scratch project, with
this script itself wired as every hook event (`--dump DIR EVENT` saves its stdin and answers
nothing). Scenarios: a plain prompt; a prompt naming a file with `@`; a read_file of a
relative path; a shell command that fails and one that succeeds. The scratch directory's path
is replaced by /home/dev (HOME) so the fixtures are the same on every machine; nothing else is
changed. The read scenario's transcript is kept too. Re-record after moving the pinned
version, and compare.
"""

import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import gemini_cli  # noqa: E402
from fake_gemini import FakeGemini  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(REPO, "tests", "unit", "fixtures", "gemini-cli")
EVENTS = ["SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent",
          "BeforeModel", "AfterModel", "BeforeToolSelection", "PreCompress", "Notification",
          "SessionEnd"]
STABLE_HOME = "/home/dev"
REL = "src/billing/invoice.py"
INVOICE = ('"""Invoices: line items, totals and rounding. Money is kept in integer cents."""\n\n'
           + "".join(f"def line_{i}(cents: int) -> int:\n    return cents * {i} // 100\n\n\n"
                     for i in range(1, 40)))

# name -> (prompt, tool call or None, {fixture name: (event, tool name or None)})
SCENARIOS = {
    "plain": ("Explain how partial refund rounding works", None,
              {"SessionStart": ("SessionStart", None), "BeforeAgent": ("BeforeAgent", None),
               "AfterAgent": ("AfterAgent", None), "PreCompress": ("PreCompress", None),
               "SessionEnd": ("SessionEnd", None)}),
    "at-file": (f"Explain @{REL} briefly", None,
                {"BeforeAgent-at-file": ("BeforeAgent", None),
                 "AfterAgent-at-file": ("AfterAgent", None)}),
    "read": ("How are invoice totals rounded?", ("read_file", {"file_path": REL}),
             {"BeforeTool-read_file": ("BeforeTool", "read_file"),
              "AfterTool-read_file": ("AfterTool", "read_file"),
              "AfterAgent-after-tool": ("AfterAgent", None)}),
    "shell-failed": ("Build the project", ("run_shell_command",
                                           {"command": "ls missing-dir",
                                            "description": "List a directory."}),
                     {"AfterTool-run_shell_command-failed": ("AfterTool", "run_shell_command")}),
    "shell-ok": ("Say hello from the shell", ("run_shell_command",
                                              {"command": "echo hello",
                                               "description": "Print hello."}),
                 {"AfterTool-run_shell_command": ("AfterTool", "run_shell_command")}),
}

TRANSCRIPTS = ("read",)  # scenarios whose transcript is kept as transcript-<name>.jsonl


def dump(directory, event):
    """The hook: save stdin as <directory>/<n>-<event>.json, print nothing, exit 0."""
    data = sys.stdin.buffer.read()
    os.makedirs(directory, exist_ok=True)
    n = len(os.listdir(directory))
    with open(os.path.join(directory, f"{n:04d}-{event}.json"), "wb") as fh:
        fh.write(data)


def hooks(dump_dir):
    me = os.path.abspath(__file__)
    return {ev: [{"matcher": "", "hooks": [{"type": "command", "name": f"dump-{ev}",
                                            "command": f"{sys.executable} {me} --dump "
                                                       f"{dump_dir} {ev}",
                                            "timeout": 10000}]}]
            for ev in EVENTS}


def stable(text, scratch):
    return text.replace(os.path.realpath(scratch), STABLE_HOME).replace(scratch, STABLE_HOME)


def record(exe, name, prompt, tool_call, scratch):
    home = os.path.join(scratch, name)
    project = os.path.join(home, "project")
    os.makedirs(os.path.join(project, os.path.dirname(REL)))
    with open(os.path.join(project, REL), "w", encoding="utf-8") as fh:
        fh.write(INVOICE)
    dumps = os.path.join(home, "dumps")
    gemini_cli.write_settings(home, hooks(dumps))
    with FakeGemini(tool_call=tool_call) as api:
        proc = gemini_cli.run(exe, prompt, project, gemini_cli.client_env(home, api.url),
                              args=["--yolo"] if tool_call else [])
    if proc.returncode != 0:
        raise SystemExit(f"{name}: gemini exited {proc.returncode}\n{proc.stderr[-3000:]}")
    out = []
    for entry in sorted(os.listdir(dumps)):
        with open(os.path.join(dumps, entry), encoding="utf-8") as fh:
            out.append(json.loads(stable(fh.read(), home)))
    # The session's transcript as the CLI left it (SessionStart names it).
    start = next(p for p in out if p.get("hook_event_name") == "SessionStart")
    with open(start["transcript_path"].replace(STABLE_HOME, home), encoding="utf-8") as fh:
        transcript = stable(fh.read(), home)
    return out, transcript


def main(argv):
    if len(argv) == 4 and argv[1] == "--dump":
        dump(argv[2], argv[3])
        return 0
    out = os.path.abspath(argv[1]) if len(argv) > 1 else OUT
    exe = gemini_cli.ensure_gemini_cli()
    scratch = tempfile.mkdtemp(prefix="gemini-record-")
    try:
        os.makedirs(out, exist_ok=True)
        for name, (prompt, tool_call, wanted) in SCENARIOS.items():
            payloads, transcript = record(exe, name, prompt, tool_call, scratch)
            if name in TRANSCRIPTS:
                with open(os.path.join(out, f"transcript-{name}.jsonl"), "w",
                          encoding="utf-8") as fh:
                    fh.write(transcript)
            print(f"{name}: {[p.get('hook_event_name') for p in payloads]}")
            for fixture, (event, tool) in wanted.items():
                match = [p for p in payloads if p.get("hook_event_name") == event
                         and (tool is None or p.get("tool_name") == tool)]
                if not match:
                    raise SystemExit(f"{name}: no {event} payload for {fixture}")
                with open(os.path.join(out, f"{fixture}.json"), "w", encoding="utf-8") as fh:
                    json.dump(match[0], fh, indent=2, ensure_ascii=False)
                    fh.write("\n")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"fixtures in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
