"""A loopback stand-in for the OpenAI Chat Completions API, enough to drive the clients that
speak it to a custom provider (OpenCode through @ai-sdk/openai-compatible, Pi through its
`openai-completions` api).

    with FakeChat(script=[tool("read", {"filePath": "/p/src/app.py"}), text("Done.")]) as api:
        ... point the client's provider at api.url + "/v1" ...
        bodies = [r["body"] for r in api.completions()]

The client calls POST <base>/chat/completions, usually with `"stream": true` (then the answer
is server-sent `chat.completion.chunk` events ending `data: [DONE]`), else it gets one
`chat.completion` object. Each call that offers tools takes the next step of the script; when
the script is used up, the reply is plain text (FALLBACK_TEXT). A call without tools is a side
request (a title, a compaction summary) and gets `summary` without using a step. A step:
- text(t):           one assistant message with content t;
- tool(name, args):  one call of the client's tool `name` with the JSON arguments `args`
                     (`say=t`: after the text t, in the same message).
Each reports `usage_tokens` tokens used (the stand-in's, or the step's own `usage=N`: a large
number makes a client with a small context limit compact after that step).
GET <base>/models lists the one model MODEL. Every request (any method, any path) is recorded
with its headers and parsed JSON body; other paths get 404 JSON.

Python standard library only. Runs in-process on a daemon thread (fake_model.ScriptedStandIn).
"""

import json
import sys
import time
from urllib.parse import urlsplit

from fake_model import OpenAIHandler, ScriptedStandIn, content_text, text

MODEL = "fake-chat-1"


def tool(name, args, usage=None, say=None):
    return {"kind": "tool", "name": name, "args": args, "usage": usage, "say": say}


def messages(body):
    items = (body or {}).get("messages")
    return [m for m in items if isinstance(m, dict)] if isinstance(items, list) else []


def message_texts(body, role=None):
    """The text of each message (of `role` when given: system, user, assistant, tool)."""
    return [content_text(m) for m in messages(body) if not role or m.get("role") == role]


def tool_names(body):
    return [(t.get("function") or {}).get("name") for t in (body or {}).get("tools") or []
            if isinstance(t, dict)]


class _Handler(OpenAIHandler):
    server_version = "fake-chat/1"
    model_path = "/chat/completions"
    tool_names = staticmethod(tool_names)

    def reply(self, body, step):
        if body.get("stream"):
            self._stream(body, step)
        else:
            self.send_json(200, self._completion(body, step))

    def other(self, entry, path):
        if self.command != "GET" or not path.endswith("/models"):
            return super().other(entry, path)
        entry["reply"] = "models"
        self.stand_in.record(entry)
        self.send_json(200, {"object": "list", "data": [
            {"id": MODEL, "object": "model", "created": 0, "owned_by": "mem0-test"}]})

    def _call(self, step):
        return {"id": self.stand_in.next_id("call"), "type": "function",
                "function": {"name": step["name"], "arguments": json.dumps(step["args"])}}

    def _usage(self, step):
        total = step.get("usage") or self.stand_in.usage_tokens
        return {"prompt_tokens": total - 20, "completion_tokens": 20, "total_tokens": total}

    def _completion(self, body, step):
        if step["kind"] == "tool":
            message, finish = {"role": "assistant", "content": step.get("say"),
                               "tool_calls": [self._call(step)]}, "tool_calls"
        else:
            message, finish = {"role": "assistant", "content": step["text"]}, "stop"
        return {"id": self.stand_in.next_id("chatcmpl"), "object": "chat.completion",
                "created": int(time.time()), "model": body.get("model"),
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": self._usage(step)}

    def _stream(self, body, step):
        self.start_events()
        base = {"id": self.stand_in.next_id("chatcmpl"), "object": "chat.completion.chunk",
                "created": int(time.time()), "model": body.get("model")}

        def chunk(delta, finish=None, **extra):
            data = dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": finish}],
                        **extra)
            self.wfile.write(f"data: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()

        if step["kind"] == "tool":
            call = self._call(step)
            if step.get("say"):
                chunk({"role": "assistant", "content": step["say"]})
            chunk({"role": "assistant", "content": None,
                   "tool_calls": [dict(call, index=0, function=dict(call["function"],
                                                                    arguments=""))]})
            chunk({"tool_calls": [{"index": 0,
                                   "function": {"arguments": call["function"]["arguments"]}}]})
            finish = "tool_calls"
        else:
            t = step["text"]
            chunk({"role": "assistant", "content": ""})
            for piece in (t[:len(t) // 2], t[len(t) // 2:]):
                chunk({"content": piece})
            finish = "stop"
        chunk({}, finish)
        if (body.get("stream_options") or {}).get("include_usage"):
            usage = dict(base, choices=[], usage=self._usage(step))
            self.wfile.write(f"data: {json.dumps(usage)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


class FakeChat(ScriptedStandIn):
    """The stand-in; requests() are dicts with ts, method, path, headers, body, reply."""

    handler = _Handler

    def completions(self):
        """The POST .../chat/completions requests (the model calls), oldest first."""
        return [r for r in self.requests() if r["method"] == "POST"
                and urlsplit(r["path"]).path.endswith("/chat/completions")]

    def turns(self):
        """The model calls that offered tools (the agent's turns, not side requests)."""
        return [r for r in self.completions() if tool_names(r["body"])]


if __name__ == "__main__":  # manual use: python3 fake_chat.py [tool-name 'json-args']
    steps = ([tool(sys.argv[1], json.loads(sys.argv[2])), text("Done.")] if len(sys.argv) > 2
             else [text("Hello.")])
    FakeChat(script=steps).start().serve_until_interrupted()
