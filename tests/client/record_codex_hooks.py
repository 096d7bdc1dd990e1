#!/usr/bin/env python3
"""Record what a real Codex CLI gives its hooks, as fixtures for the unit tests.

    python3 tests/client/record_codex_hooks.py [--out tests/unit/fixtures/codex]

Runs the pinned `codex exec` (codex_cli.py) headless against fake_openai.py with this very
script wired as every hook event in `$CODEX_HOME/hooks.json`: each run saves the JSON it got on
stdin and answers with a marker in `additionalContext` (where the event's output schema has
it) and in `systemMessage`, so that the recording also shows which markers reach the model.
Two sessions:
- "read": a prompt, the model's shell call `cat notes.txt` (a 1,600-byte file), a final
  answer, with automatic compaction forced (a tiny `model_auto_compact_token_limit` and large
  reported usage): SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PreCompact,
  PostCompact, SessionStart (source "compact"), Stop, SessionEnd;
- "edit" (model "gpt-5.5", which is offered `apply_patch`): the model's shell call
  `cat missing.txt` fails (PostToolUse of a failed command), then it calls `apply_patch` to add
  one file and update another.

It writes, with the scratch directory's path replaced by /tmp/mem0-codex so that a new
recording differs only where the client does:
- <event>.json for each event (session_start_compact.json, post_tool_use_failed.json,
  pre_tool_use_apply_patch.json, post_tool_use_apply_patch.json);
- rollout.jsonl, rollout_edit.jsonl: each session's rollout (Codex's transcript) at
  SessionEnd, every string longer than 2,000 characters cut (Codex's own instructions and
  skill list);
- output_fields.json: per event, the fields its output schema allows at the top level and in
  hookSpecificOutput (read from the schemas embedded in the client binary);
- and prints where each marker reached the model's requests.
Exit status: 0 recorded, 1 failed, 77 Codex CLI not available.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))

import codex_cli  # noqa: E402
from fake_openai import API_KEY_ENV, FakeOpenAI, patch, provider_config, shell, text  # noqa: E402

EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreCompact",
          "PostCompact", "Stop", "SessionEnd"]
CONTEXT_EVENTS = {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse"}
STABLE_ROOT = "/tmp/mem0-codex"
MAX_STRING = 2000
PATCH = """*** Begin Patch
*** Add File: docs/added.md
+# Added by the model
*** Update File: notes.txt
@@
-notes: invoices are kept in integer cents.
+notes: invoices are kept in integer cents (updated).
*** End Patch
"""


def dump(event):
    """The hook: save stdin as <DUMP_DIR>/<event>-<n>.json, answer with markers."""
    raw = sys.stdin.read()
    folder = os.environ["MEM0_RECORD_DIR"]
    n = len([f for f in os.listdir(folder) if f.startswith(event + "-")])
    with open(os.path.join(folder, f"{event}-{n}.json"), "w", encoding="utf-8") as fh:
        fh.write(raw)
    out = {"systemMessage": f"SYSTEM-MESSAGE-{event}"}
    if event in CONTEXT_EVENTS:
        out["hookSpecificOutput"] = {"hookEventName": event,
                                     "additionalContext": f"CONTEXT-MARKER-{event}"}
    print(json.dumps(out))
    return 0


def snake(event):
    return re.sub(r"(?<!^)([A-Z])", r"_\1", event).lower()


def run_session(exe, root, name, script, compact, model="gpt-5-codex"):
    base = os.path.join(root, name)
    home, proj, dumps = (os.path.join(base, d) for d in ("codex-home", "proj", "dump"))
    for d in (home, proj, dumps):
        os.makedirs(d)
    with open(os.path.join(proj, "notes.txt"), "w") as fh:
        fh.write("notes: invoices are kept in integer cents.\n" * 37)  # 1,628 bytes
    hook = f"{sys.executable} {os.path.abspath(__file__)} --dump"
    hooks = {"hooks": {e: [{"matcher": "Bash|apply_patch" if e.endswith("ToolUse") else "",
                            "hooks": [{"type": "command", "command": f"{hook} {e}",
                                       "timeout": 10}]}]
                       for e in EVENTS}}
    with open(os.path.join(home, "hooks.json"), "w") as fh:
        json.dump(hooks, fh, indent=2)
    with FakeOpenAI(script=script, usage_tokens=5000 if compact else 120) as api:
        config = provider_config(api.url, model=model)
        if compact:
            config = "model_auto_compact_token_limit = 1000\nmodel_context_window = 8000\n" + \
                config
        with open(os.path.join(home, "config.toml"), "w") as fh:
            fh.write(config)
        env = codex_cli.quiet_env(home)
        env.update({API_KEY_ENV: "sk-test", "MEM0_RECORD_DIR": dumps, "HOME": base})
        proc = subprocess.run([exe, "exec", "--dangerously-bypass-hook-trust",
                               "--skip-git-repo-check", "-s", "danger-full-access",
                               "Explain the notes file"],
                              cwd=proj, env=env, capture_output=True, text=True, timeout=180,
                              stdin=subprocess.DEVNULL)
        requests = api.responses()
    if proc.returncode != 0:
        raise RuntimeError(f"codex exec exited {proc.returncode}:\n{proc.stderr[-3000:]}")
    return base, dumps, requests


def stable(obj, root):
    if isinstance(obj, str):
        obj = obj.replace(root, STABLE_ROOT)
        return obj if len(obj) <= MAX_STRING else obj[:200] + " [cut by the recorder]"
    if isinstance(obj, list):
        return [stable(v, root) for v in obj]
    if isinstance(obj, dict):
        return {stable(k, root): stable(v, root) for k, v in obj.items()}
    return obj


def load(path):
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def output_fields(exe):
    """{event: {"top": [...], "hookSpecificOutput": [...]}} from the binary's schemas."""
    with open(exe, "rb") as fh:
        data = fh.read()
    decoder = json.JSONDecoder()
    fields = {}
    for m in re.finditer(rb'\{\s*"\$schema": "http://json-schema.org/draft-07/schema#"', data):
        try:
            schema, _ = decoder.raw_decode(data[m.start():m.start() + 200000].decode(
                "utf-8", "replace"))
        except ValueError:
            continue
        title = schema.get("title") or ""
        if not title.endswith(".command.output"):
            continue
        entry = {"top": sorted(schema.get("properties", {}))}
        for name, d in schema.get("definitions", {}).items():
            if name.endswith("HookSpecificOutputWire"):
                entry["hookSpecificOutput"] = sorted(d.get("properties", {}))
        fields[title.split(".")[0]] = entry
    return dict(sorted(fields.items()))


def markers(requests):
    """Where each marker first reached a model request: (request index, input role)."""
    seen = {}
    for i, req in enumerate(requests):
        for item in (req["body"] or {}).get("input") or []:
            blob = json.dumps(item)
            for m in re.findall(r"(CONTEXT-MARKER-\w+|SYSTEM-MESSAGE-\w+)", blob):
                seen.setdefault(m, (i, item.get("role") or item.get("type")))
    return seen


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dump", metavar="EVENT")
    parser.add_argument("--out", default=os.path.join(HERE, "..", "unit", "fixtures", "codex"))
    args = parser.parse_args()
    if args.dump:
        return dump(args.dump)
    try:
        exe = codex_cli.ensure_codex()
    except codex_cli.Unavailable as exc:
        print(f"SKIPPED: {exc}")
        return 77
    root = tempfile.mkdtemp(prefix="codex-record-")
    try:
        base, dumps, requests = run_session(
            exe, root, "read", [shell("cat notes.txt"), text("The notes say: integer cents.")],
            compact=True)
        _, edit_dumps, _ = run_session(
            exe, root, "edit", [shell("cat missing.txt"), patch(PATCH), text("Patched.")],
            compact=False, model="gpt-5.5")
        os.makedirs(args.out, exist_ok=True)
        names = {f"{e}-0.json": f"{snake(e)}.json" for e in EVENTS}
        names["SessionStart-1.json"] = "session_start_compact.json"
        for src, dst in names.items():
            path = os.path.join(dumps, src)
            if not os.path.exists(path):
                raise RuntimeError(f"no {src}: the event did not fire")
            with open(os.path.join(args.out, dst), "w", encoding="utf-8") as fh:
                json.dump(stable(load(path), root), fh, indent=2)
                fh.write("\n")
        for src, dst in (("PostToolUse-0.json", "post_tool_use_failed.json"),
                         ("PreToolUse-1.json", "pre_tool_use_apply_patch.json"),
                         ("PostToolUse-1.json", "post_tool_use_apply_patch.json")):
            with open(os.path.join(args.out, dst), "w", encoding="utf-8") as fh:
                json.dump(stable(load(os.path.join(edit_dumps, src)), root), fh, indent=2)
                fh.write("\n")
        for folder, name in ((dumps, "rollout.jsonl"), (edit_dumps, "rollout_edit.jsonl")):
            transcript = load(os.path.join(folder, "SessionEnd-0.json"))["transcript_path"]
            with open(transcript, encoding="utf-8") as src, \
                    open(os.path.join(args.out, name), "w", encoding="utf-8") as dst:
                for line in src:
                    if line.strip():
                        dst.write(json.dumps(stable(json.loads(line), root)) + "\n")
        with open(os.path.join(args.out, "output_fields.json"), "w") as fh:
            json.dump(output_fields(exe), fh, indent=2)
            fh.write("\n")
        print(f"recorded Codex CLI {codex_cli.version()} into {os.path.abspath(args.out)}")
        for marker, (i, role) in sorted(markers(requests).items()):
            print(f"  {marker}: model request {i}, as a {role} item")
        return 0
    except (RuntimeError, OSError, ValueError, subprocess.SubprocessError) as exc:
        print(f"FAILED: {exc}")
        return 1
    finally:
        if os.environ.get("MEM0_CLIENT_KEEP"):
            print(f"(keeping {root})")
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
