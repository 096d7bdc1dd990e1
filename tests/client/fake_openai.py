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

Python standard library only. Runs in-process on a daemon thread (fake_model.ScriptedStandIn).
"""

import itertools
import json
import sys
import time
from urllib.parse import urlsplit

from fake_model import OpenAIHandler, ScriptedStandIn, content_text, text

SHELL_TOOL = "exec_command"
PROVIDER_ID = "mem0fake"
API_KEY_ENV = "MEM0_FAKE_OPENAI_KEY"


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
    return [content_text(item) for item in input_items(body)
            if item.get("type") in (None, "message") and (not role or item.get("role") == role)]


def tool_names(body):
    names = []
    for tool in (body or {}).get("tools") or []:
        if isinstance(tool, dict):
            names.append(tool.get("name") or (tool.get("function") or {}).get("name"))
    return names


class _Handler(OpenAIHandler):
    server_version = "fake-openai/1"
    model_path = "/responses"
    tool_names = staticmethod(tool_names)

    def reply(self, body, step):
        owner = self.stand_in
        self.start_events()
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


class FakeOpenAI(ScriptedStandIn):
    """The stand-in; requests() are dicts with ts, method, path, headers, body, reply."""

    handler = _Handler

    def responses(self):
        """The POST .../responses requests (the model calls), oldest first."""
        return [r for r in self.requests()
                if r["method"] == "POST" and urlsplit(r["path"]).path.endswith("/responses")]


if __name__ == "__main__":  # manual use: python3 fake_openai.py ["shell command"]
    steps = [shell(sys.argv[1]), text("Done.")] if len(sys.argv) > 1 else [text("Hello.")]
    FakeOpenAI(script=steps).start().serve_until_interrupted()
