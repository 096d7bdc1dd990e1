"""What the model stand-ins share (fake_anthropic.py, fake_gemini.py, fake_openai.py,
fake_chat.py): ids in the APIs' style, and for the two OpenAI APIs the handling of a model call
(the script of steps the agent's turns take one at a time, the summary a side request gets) and
the 404.

Python standard library only.
"""

import itertools
import os
import sys
import threading
from urllib.parse import urlsplit

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from loopback import HttpStandIn, RecordingHandler  # noqa: E402

FALLBACK_TEXT = "Done."
SUMMARY_TEXT = "Summary: the user asked about a file; it was read and explained."


def text(t, usage=None):
    """A step: one assistant message with the text t (`usage`: the tokens it reports used,
    where the stand-in reports a step's own)."""
    return {"kind": "text", "text": t, "usage": usage}


def content_text(item):
    """The text of a message (a Chat Completions message, a Responses API input item): its
    string content, or the text of its parts joined by newlines."""
    content = item.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(c.get("text", "") for c in content
                         if isinstance(c, dict) and isinstance(c.get("text"), str))
    return ""


class ModelStandIn(HttpStandIn):
    """A model API stand-in on a daemon thread; next_id() makes its ids."""

    def __init__(self, host="127.0.0.1"):
        super().__init__(host=host)
        self._ids = itertools.count(1)

    def next_id(self, prefix):
        return f"{prefix}_fake{next(self._ids):06d}"


class ScriptedStandIn(ModelStandIn):
    """A model stand-in that answers each call offering tools (a turn of the agent) with the
    next step of `script`, text(FALLBACK_TEXT) once it is used up, and a call offering none (a
    side request: a title, a compaction) with text(summary) without using a step. Each
    reports `usage_tokens` tokens used."""

    def __init__(self, script=(), usage_tokens=120, summary=SUMMARY_TEXT, host="127.0.0.1"):
        super().__init__(host=host)
        self.usage_tokens = usage_tokens
        self.summary = summary
        self._script = list(script)
        self._lock = threading.Lock()

    def answer(self, offers_tools):
        """(the step, the request's `reply`: the step's kind, or "summary")."""
        if not offers_tools:
            return text(self.summary), "summary"
        with self._lock:
            step = self._script.pop(0) if self._script else text(FALLBACK_TEXT)
        return step, step["kind"]


class OpenAIHandler(RecordingHandler):
    """The OpenAI APIs' handlers. A POST of a JSON object to a path ending `model_path` is a
    model call: the stand-in's answer() gives the step (a call offering tools, as tool_names(body)
    reads them, takes the next) and reply(body, step) sends it. Any other request goes to
    other(entry, path), which answers 404 in the APIs' error shape. Every request is recorded
    with its `reply`."""

    model_path = None

    def _handle(self):
        entry = dict(self.entry(self.read_body()), reply=None)
        body, path = entry["body"], urlsplit(self.path).path
        if self.command == "POST" and path.endswith(self.model_path) and isinstance(body, dict):
            step, entry["reply"] = self.stand_in.answer(bool(self.tool_names(body)))
            self.stand_in.record(entry)
            self.reply(body, step)
        else:
            self.other(entry, path)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _handle

    def other(self, entry, path):
        entry["reply"] = "404"
        self.stand_in.record(entry)
        self.send_json(404, {"error": {"message": "not here", "type": "invalid_request_error",
                                       "code": "not_found"}})
