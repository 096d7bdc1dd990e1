"""One result class for every finished run of an executable under test, and the check of a
hook's output (docs/failures.md#exit-status-and-output).

A hook prints nothing or exactly one JSON object:
    {"hookSpecificOutput": {"hookEventName": ..., "additionalContext": ...},
     "systemMessage": "..."}
(either key may be missing; the guard may put `updatedInput` in hookSpecificOutput).
"""

import json

TOP_LEVEL = frozenset({"hookSpecificOutput", "systemMessage"})
SPECIFIC = frozenset({"hookEventName", "additionalContext", "updatedInput"})


class RunResult:
    """returncode, stdout, stderr (bytes, or str when the run decoded them), elapsed (s),
    peak_kb (peak resident memory when measured, else None)."""

    def __init__(self, returncode, stdout, stderr, elapsed, peak_kb=None):
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.elapsed = elapsed
        self.peak_kb = peak_kb

    @classmethod
    def of(cls, proc, elapsed, text=False, peak_kb=None):
        """From a subprocess.CompletedProcess; text=True decodes stdout and stderr (UTF-8,
        strict: invalid output fails the test)."""
        out, err = proc.stdout, proc.stderr
        if text and isinstance(out, bytes):
            out, err = out.decode("utf-8"), err.decode("utf-8")
        return cls(proc.returncode, out, err, elapsed, peak_kb)

    def lines(self):
        out = self.stdout.decode("utf-8") if isinstance(self.stdout, bytes) else self.stdout
        return out.splitlines()

    def json(self):
        """stdout parsed as JSON; None when nothing was printed. Raises ValueError on
        anything else than JSON."""
        if not self.stdout or not self.stdout.strip():
            return None
        return json.loads(self.stdout)

    def specific(self):
        """The hookSpecificOutput object, or None."""
        obj = self.json()
        return obj.get("hookSpecificOutput") if obj is not None else None

    def context(self):
        """The additionalContext text, or None when the hook printed none."""
        specific = self.specific()
        return specific.get("additionalContext") if specific is not None else None

    def system_message(self):
        """The top-level systemMessage (what the user sees), or None."""
        obj = self.json()
        return obj.get("systemMessage") if obj is not None else None


def _check(condition, message):
    if not condition:
        raise AssertionError(message)


def assert_one_json_object(stdout, event=None):
    """stdout (bytes) is exactly one JSON object of the documented shape, with
    hookSpecificOutput.hookEventName == event when event is given; returns the object."""
    _check(stdout.startswith(b"{"), f"output does not start with '{{': {stdout[:80]!r}")
    text = stdout.decode("utf-8")  # raises on invalid UTF-8
    obj, end = json.JSONDecoder().raw_decode(text)
    _check(text[end:].strip() == "", f"trailing output after the JSON object: {text[end:][:80]!r}")
    _check(isinstance(obj, dict) and obj and set(obj) <= TOP_LEVEL,
           f"not an object with only {sorted(TOP_LEVEL)}: {text[:200]}")
    if "systemMessage" in obj:
        _check(isinstance(obj["systemMessage"], str) and obj["systemMessage"],
               f"systemMessage is not a non-empty string: {obj['systemMessage']!r}")
    if "hookSpecificOutput" in obj:
        specific = obj["hookSpecificOutput"]
        _check(isinstance(specific, dict) and set(specific) <= SPECIFIC,
               f"hookSpecificOutput is not an object with only {sorted(SPECIFIC)}: {specific!r}")
        _check(isinstance(specific.get("hookEventName"), str),
               f"hookSpecificOutput.hookEventName is not a string: {specific!r}")
        _check(event is None or specific["hookEventName"] == event,
               f"hookEventName {specific['hookEventName']!r}, expected {event!r}")
        _check(isinstance(specific.get("additionalContext", ""), str),
               f"additionalContext is not a string: {specific!r}")
    _check("permissionDecision" not in text, "a hook never emits permissionDecision")
    return obj
