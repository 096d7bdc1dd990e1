"""A loopback stand-in for the OpenAI Responses API, enough to drive a real `codex exec`.

    with FakeOpenAI(script=[shell("cat src/app.py"), text("Done.")]) as api:
        ... write $CODEX_HOME/config.toml with provider_config(api.url) ...
        bodies = [r["body"] for r in api.responses()]

Codex calls POST <base_url>/responses with `"stream": true` and reads server-sent events.
Each model call that offers tools takes the next step of the script; when the script is used
up, the reply is plain text (FALLBACK_TEXT). A call without tools is a side request (Codex's
compaction summary) and gets `summary` (SUMMARY_TEXT by default) without using a step. A step:
- text(t):        one assistant message with output text t;
- shell(cmd):     one `function_call` of the model's shell tool, `exec_command` with
                  {"cmd": cmd} (the name and argument Codex 0.171.0 offers in `tools`);
- patch(p):       one `custom_tool_call` of `apply_patch` with the patch text p (offered as a
                  freeform tool to some models only, e.g. "gpt-5.5", not "gpt-5-codex");
- call(name, a):  one `function_call` of any tool `name` with the arguments a (a dict), for a
                  client whose tools are not Codex's (Copilot CLI's `view`, `bash`, ...).
The events sent are those Codex needs: response.created, response.output_item.added,
response.output_text.delta (messages), response.output_item.done, response.completed (with
usage; `usage_tokens` sets its total, which drives Codex's automatic compaction).
Every request (any method, any path) is recorded with its headers and parsed JSON body;
other paths get 404 JSON.

Python standard library only. Runs in-process on a daemon thread (loopback.HttpStandIn).
"""

import itertools
import json
import os
import sys
import threading
import time
from urllib.parse import urlsplit

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from loopback import HttpStandIn, RecordingHandler  # noqa: E402

FALLBACK_TEXT = "Done."
SUMMARY_TEXT = "Summary: the user asked about a file; it was read and explained."
SHELL_TOOL = "exec_command"
PROVIDER_ID = "mem0fake"
API_KEY_ENV = "MEM0_FAKE_OPENAI_KEY"


def text(t):
    return {"kind": "text", "text": t}


def shell(cmd):
    return {"kind": "shell", "cmd": cmd}


def patch(text):
    return {"kind": "patch", "patch": text}


def call(name, arguments):
    return {"kind": "call", "name": name, "arguments": arguments}


def provider_config(url, model="gpt-5-codex"):
    """config.toml lines that point Codex at the stand-in (a custom `model_providers`
    entry; the key is read from API_KEY_ENV, which the caller sets to any value)."""
    return "\n".join([
        f'model = "{model}"',
        f'model_provider = "{PROVIDER_ID}"',
        "",
        f"[model_providers.{PROVIDER_ID}]",
        'name = "mem0 test stand-in"',
        f'base_url = "{url}/v1"',
        f'env_key = "{API_KEY_ENV}"',
        'wire_api = "responses"',
        "request_max_retries = 0",
        "stream_max_retries = 0",
        "stream_idle_timeout_ms = 60000",
        "",
    ])


def input_items(body):
    items = (body or {}).get("input")
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


def message_texts(body, role=None):
    """The text of each `message` input item (of `role` when given), in order."""
    out = []
    for item in input_items(body):
        if item.get("type") not in (None, "message") or (role and item.get("role") != role):
            continue
        content = item.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out.append("\n".join(c.get("text", "") for c in content
                                 if isinstance(c, dict) and isinstance(c.get("text"), str)))
    return out


def tool_names(body):
    names = []
    for tool in (body or {}).get("tools") or []:
        if isinstance(tool, dict):
            names.append(tool.get("name") or (tool.get("function") or {}).get("name"))
    return names


class _Handler(RecordingHandler):
    server_version = "fake-openai/1"

    def _handle(self):
        raw = self.read_body()
        entry = dict(self.entry(raw), reply=None)
        body = entry["body"]
        path = urlsplit(self.path).path
        owner = self.stand_in
        if self.command == "POST" and path.endswith("/responses") and isinstance(body, dict):
            step = owner.next_step() if tool_names(body) else text(owner.summary)
            entry["reply"] = step["kind"] if tool_names(body) else "summary"
            owner.record(entry)
            self._stream(body, step)
        else:
            entry["reply"] = "404"
            owner.record(entry)
            self.send_json(404, {"error": {"message": "not here", "type": "invalid_request_error",
                                           "code": "not_found"}})

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _handle

    def _stream(self, body, step):
        owner = self.stand_in
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        seq = itertools.count()

        def event(data):
            data = dict(data, sequence_number=next(seq))
            self.wfile.write(f"event: {data['type']}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()

        resp_id = owner.next_id("resp")
        response = {"id": resp_id, "object": "response", "created_at": int(time.time()),
                    "status": "in_progress", "model": body.get("model"), "output": []}
        event({"type": "response.created", "response": response})
        if step["kind"] in ("shell", "call"):
            name, arguments = ((SHELL_TOOL, {"cmd": step["cmd"]}) if step["kind"] == "shell"
                               else (step["name"], step["arguments"]))
            item = {"type": "function_call", "id": owner.next_id("fc"), "status": "completed",
                    "call_id": owner.next_id("call"), "name": name,
                    "arguments": json.dumps(arguments)}
            event({"type": "response.output_item.added", "output_index": 0,
                   "item": dict(item, status="in_progress", arguments="")})
        elif step["kind"] == "patch":
            item = {"type": "custom_tool_call", "id": owner.next_id("ctc"), "status": "completed",
                    "call_id": owner.next_id("call"), "name": "apply_patch",
                    "input": step["patch"]}
            event({"type": "response.output_item.added", "output_index": 0,
                   "item": dict(item, status="in_progress", input="")})
        else:
            item = {"type": "message", "id": owner.next_id("msg"), "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": step["text"],
                                 "annotations": []}]}
            event({"type": "response.output_item.added", "output_index": 0,
                   "item": dict(item, status="in_progress", content=[])})
            t = step["text"]
            for piece in (t[:len(t) // 2], t[len(t) // 2:]):
                event({"type": "response.output_text.delta", "item_id": item["id"],
                       "output_index": 0, "content_index": 0, "delta": piece})
        event({"type": "response.output_item.done", "output_index": 0, "item": item})
        total = owner.usage_tokens
        event({"type": "response.completed",
               "response": dict(response, status="completed", output=[item],
                                usage={"input_tokens": total - 20,
                                       "input_tokens_details": {"cached_tokens": 0},
                                       "output_tokens": 20,
                                       "output_tokens_details": {"reasoning_tokens": 0},
                                       "total_tokens": total})})


class FakeOpenAI(HttpStandIn):
    """The stand-in; requests() are dicts with ts, method, path, headers, body, reply."""

    handler = _Handler

    def __init__(self, script=(), usage_tokens=120, summary=SUMMARY_TEXT, host="127.0.0.1"):
        super().__init__(host=host)
        self.usage_tokens = usage_tokens
        self.summary = summary
        self._script = list(script)
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    def next_step(self):
        with self._lock:
            return self._script.pop(0) if self._script else text(FALLBACK_TEXT)

    def responses(self):
        """The POST .../responses requests (the model calls), oldest first."""
        return [r for r in self.requests()
                if r["method"] == "POST" and urlsplit(r["path"]).path.endswith("/responses")]

    def next_id(self, prefix):
        return f"{prefix}_fake{next(self._ids):06d}"


if __name__ == "__main__":  # manual use: python3 fake_openai.py ["shell command"]
    steps = [shell(sys.argv[1]), text("Done.")] if len(sys.argv) > 1 else [text("Hello.")]
    FakeOpenAI(script=steps).start().serve_until_interrupted()
