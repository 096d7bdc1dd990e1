"""Hook stdin payloads as Claude Code sends them (docs/hooks.md#hook-input), built in one place.

Every builder returns a dict with the common fields
    session_id, transcript_path, cwd, hook_event_name, permission_mode
plus the event's own fields. `cwd` and `transcript_path` are left out when None (a test that
needs them passes them). Any other keyword becomes a field and overrides the default one, so a
test can send a field of the wrong type (`session_id={}`, `tool_name=5`) or leave one out
(`tool_use_id=OMIT`).

    prompt_event("Why does the webhook retry?", session_id="s1", cwd=project)
    read_event("/abs/src/app.py", cwd=project, offset=10, limit=20)
    post_tool_use_failure_event("Bash", {"command": "make"}, "Exit code 2\\nfatal: ...")
"""

OMIT = object()  # a field's value that leaves the field out of the payload
SESSION = "sess-1"


def event(hook_event_name, /, **fields):
    """The common fields of every hook input, then `fields` (which override them)."""
    payload = {"session_id": SESSION, "transcript_path": None, "cwd": None,
               "hook_event_name": hook_event_name, "permission_mode": "default"}
    payload.update(fields)
    for name in ("transcript_path", "cwd"):
        if payload[name] is None:
            del payload[name]
    return {key: value for key, value in payload.items() if value is not OMIT}


def prompt_event(prompt, /, **fields):
    """UserPromptSubmit."""
    return event("UserPromptSubmit", **{"prompt": prompt, **fields})


def pre_tool_use_event(tool_name, tool_input, /, **fields):
    """PreToolUse for any tool (tool_use_id "toolu_1" unless given)."""
    return event("PreToolUse", **{"tool_name": tool_name, "tool_input": tool_input,
                                  "tool_use_id": "toolu_1", **fields})


def read_event(file_path, /, offset=None, limit=None, **fields):
    """PreToolUse on Read; `file_path` is sent as given (None or a number: a wrong type)."""
    tool_input = {"file_path": file_path}
    if offset is not None:
        tool_input["offset"] = offset
    if limit is not None:
        tool_input["limit"] = limit
    return pre_tool_use_event("Read", tool_input, **fields)


def post_tool_use_event(tool_name, tool_input, tool_response, /, **fields):
    """PostToolUse: a tool that succeeded (Bash: tool_response has stdout, stderr,
    interrupted)."""
    return event("PostToolUse", **{"tool_name": tool_name, "tool_input": tool_input,
                                   "tool_response": tool_response, "tool_use_id": "toolu_1",
                                   **fields})


def post_tool_use_failure_event(tool_name, tool_input, error, /, **fields):
    """PostToolUseFailure: a tool that failed. Bash sends `"Exit code N\\n<output>"` as
    `error` and no tool_response (docs/hooks.md#bash-output-hook)."""
    return event("PostToolUseFailure", **{"tool_name": tool_name, "tool_input": tool_input,
                                          "error": error, "is_interrupt": False,
                                          "tool_use_id": "toolu_1", **fields})


def session_start_event(source, /, **fields):
    """SessionStart; source is startup, resume, clear or compact."""
    return event("SessionStart", **{"source": source, **fields})


def stop_event(last_assistant_message, /, **fields):
    """Stop (a subagent's also has `agent_id`: pass it as a field)."""
    return event("Stop", **{"stop_hook_active": False,
                            "last_assistant_message": last_assistant_message, **fields})


def post_compact_event(compact_summary, /, **fields):
    """PostCompact; trigger "auto" unless given ("manual")."""
    return event("PostCompact", **{"trigger": "auto", "compact_summary": compact_summary,
                                   **fields})


def session_end_event(reason, /, **fields):
    """SessionEnd; reason is clear, logout, prompt_input_exit or other."""
    return event("SessionEnd", **{"reason": reason, **fields})
