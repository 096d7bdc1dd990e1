"""A loopback stand-in for the Gemini API as `gemini -p` calls it, enough to drive a real
Gemini CLI (docs/agents.md#gemini-cli).

    with FakeGemini(tool_call=("read_file", {"file_path": "src/billing/invoice.py"})) as api:
        env["GOOGLE_GEMINI_BASE_URL"] = api.url
        ... run gemini -p ...
        bodies = [r["body"] for r in api.turns()]

Gemini CLI 0.61.0 makes two kinds of model call:
- POST /v1beta/models/<model>:generateContent with `generationConfig.responseJsonSchema`: side
  calls that want JSON (the model router's choice, the next-speaker check). The answer is one
  candidate whose text is a JSON instance of that schema (the first enum value of each enum, so
  the router picks the first model it names; `next_speaker` is always "user").
- POST /v1beta/models/<model>:streamGenerateContent?alt=sse: the turns. Server-sent events,
  each `data: <GenerateContentResponse>`. The scripted conversation:
    the last content carries a functionResponse      -> final_text;
    a tool_call is scripted and the request offers it -> one functionCall part
                                                         (once per FakeGemini);
    anything else                                     -> final_text.
Every request (any method, any path) is recorded with its headers and parsed JSON body; paths
that are neither answer 404 in the API's error shape.

Python standard library only. Runs in-process on a daemon thread (fake_model.ModelStandIn).
"""

import json
import sys
import threading
from urllib.parse import urlsplit

from fake_model import ModelStandIn
from loopback import RecordingHandler

FINAL_TEXT = "Done: invoice.py computes invoice totals in integer cents."
MODEL_FALLBACK = "gemini-2.5-flash"


def schema_instance(schema, name=""):
    """A JSON value that satisfies a (simple) JSON schema: objects with every property,
    the first enum value, "user" for a next_speaker, short strings, the minimum (else 1) for
    numbers, one-item arrays."""
    if not isinstance(schema, dict):
        return None
    if name == "next_speaker":
        return "user"
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    kind = (kind or "").lower()
    if kind == "object" or "properties" in schema:
        return {key: schema_instance(sub, key)
                for key, sub in (schema.get("properties") or {}).items()}
    if kind == "array":
        return [schema_instance(schema.get("items") or {"type": "string"})]
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)  # the router's complexity score is 1-100
    if kind == "boolean":
        return False
    return "fake reasoning"


def contents(body):
    return [c for c in (body or {}).get("contents") or [] if isinstance(c, dict)]


def parts_of(content):
    return [p for p in (content or {}).get("parts") or [] if isinstance(p, dict)]


def has_function_response(body):
    """Whether the request's last content answers a function call."""
    last = contents(body)[-1:] or [{}]
    return any("functionResponse" in p for p in parts_of(last[0]))


def offered_tools(body):
    names = set()
    for tool in (body or {}).get("tools") or []:
        for decl in (tool or {}).get("functionDeclarations") or []:
            if isinstance(decl, dict) and isinstance(decl.get("name"), str):
                names.add(decl["name"])
    return names


def text_of(body):
    """Every text and functionResponse in a request's contents and system instruction, joined:
    what the model was shown."""
    out = []
    blocks = contents(body)
    system = (body or {}).get("systemInstruction")
    if isinstance(system, dict):
        blocks = [system] + blocks
    for content in blocks:
        for part in parts_of(content):
            if isinstance(part.get("text"), str):
                out.append(part["text"])
            if "functionResponse" in part:
                out.append(json.dumps(part["functionResponse"]))
    return "\n".join(out)


def model_of(path):
    """The model named in /v1beta/models/<model>:<method>."""
    tail = urlsplit(path).path.rsplit("/", 1)[-1]
    return tail.split(":", 1)[0] or MODEL_FALLBACK


class _Handler(RecordingHandler):
    server_version = "fake-gemini/1"

    def _handle(self):
        raw = self.read_body()
        entry = dict(self.entry(raw), reply=None)
        owner = self.stand_in
        owner.record(entry)
        path = urlsplit(self.path).path
        body = entry["body"] if isinstance(entry["body"], dict) else {}
        if self.command == "POST" and path.endswith(":streamGenerateContent"):
            entry["reply"] = owner.turn_reply(body)
            self._stream(path, entry["reply"])
        elif self.command == "POST" and path.endswith(":generateContent"):
            schema = (body.get("generationConfig") or {}).get("responseJsonSchema")
            answer = schema_instance(schema) if schema else None
            text = json.dumps(answer) if answer is not None else "ok"
            entry["reply"] = {"text": text}
            self.send_json(200, self._response(path, [{"text": text}]))
        elif self.command == "POST" and path.endswith(":countTokens"):
            entry["reply"] = "countTokens"
            self.send_json(200, {"totalTokens": 100})
        else:
            entry["reply"] = "404"
            self.send_json(404, {"error": {"code": 404, "message": "not here",
                                           "status": "NOT_FOUND"}})

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle

    @staticmethod
    def _response(path, parts, finish="STOP"):
        return {"candidates": [{"content": {"role": "model", "parts": parts},
                                "finishReason": finish, "index": 0}],
                "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 20,
                                  "totalTokenCount": 120},
                "modelVersion": model_of(path)}

    def _stream(self, path, reply):
        self.start_events()

        def event(obj):
            self.wfile.write(f"data: {json.dumps(obj)}\r\n\r\n".encode())
            self.wfile.flush()

        if "functionCall" in reply:
            event(self._response(path, [{"text": "Let me look."}], finish=None))
            event(self._response(path, [{"functionCall": reply["functionCall"]}]))
        else:
            text, n = reply["text"], max(1, self.stand_in.text_chunks)
            cuts = [len(text) * i // n for i in range(n + 1)]
            for i in range(n):
                event(self._response(path, [{"text": text[cuts[i]:cuts[i + 1]]}],
                                     finish="STOP" if i == n - 1 else None))


class FakeGemini(ModelStandIn):
    """The stand-in; requests() are dicts with ts, method, path, headers, body, reply.

    tool_call: None, or (name, args) for one function call the first turn makes when the
    request offers that tool; final_text: the answer of every other turn, streamed in
    text_chunks pieces."""

    handler = _Handler

    def __init__(self, tool_call=None, final_text=FINAL_TEXT, text_chunks=2, host="127.0.0.1"):
        super().__init__(host=host)
        self.text_chunks = text_chunks
        self.tool_call = tool_call
        self.final_text = final_text
        self._called = False
        self._lock = threading.Lock()

    def turn_reply(self, body):
        with self._lock:
            if (not has_function_response(body) and self.tool_call and not self._called
                    and self.tool_call[0] in offered_tools(body)):
                self._called = True
                name, args = self.tool_call
                return {"functionCall": {"name": name, "args": args,
                                         "id": self.next_id("call")}}
        return {"text": self.final_text}

    def turns(self):
        """The :streamGenerateContent requests (the conversation's turns), oldest first."""
        return [r for r in self.requests()
                if r["method"] == "POST"
                and urlsplit(r["path"]).path.endswith(":streamGenerateContent")]

    def side_calls(self):
        """The :generateContent requests (router, next-speaker check), oldest first."""
        return [r for r in self.requests()
                if r["method"] == "POST"
                and urlsplit(r["path"]).path.endswith(":generateContent")]


if __name__ == "__main__":  # manual use: python3 fake_gemini.py [read_file path]
    call = ("read_file", {"file_path": sys.argv[1]}) if len(sys.argv) > 1 else None
    FakeGemini(tool_call=call).start().serve_until_interrupted()
