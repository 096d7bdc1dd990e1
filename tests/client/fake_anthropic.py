"""A loopback stand-in for the Anthropic Messages API, enough to drive a real Claude Code.

    with FakeAnthropic(read_path="/abs/src/billing/invoice.py") as api:
        env["ANTHROPIC_BASE_URL"] = api.url
        ... run claude -p ...
        bodies = [r["body"] for r in api.messages()]

Conversation logic for POST /v1/messages (streaming SSE or plain JSON, as the request asks):
- the last user message carries a tool_result  -> final_text, stop_reason "end_turn";
- the request offers a tool named "Read"       -> one tool_use block calling Read on read_path,
                                                  stop_reason "tool_use";
  (with read_path None, a request offering tools gets final_text at once)
- anything else (title / summary / side requests without tools) -> short plain text.
Every request (any method, any path) is recorded with its headers and parsed JSON body.
Other paths get a harmless answer: count_tokens -> a token count, everything else -> 404 JSON.

Python standard library only. Runs in-process on a daemon thread (fake_model.ModelStandIn).
"""

import json
import sys
from urllib.parse import urlsplit

from fake_model import ModelStandIn
from loopback import RecordingHandler

MODEL_FALLBACK = "claude-sonnet-4-5"
FINAL_TEXT = "Done: invoice.py computes invoice totals in integer cents."
SIDE_TEXT = "Invoice review"


def _text_of(content):
    """All text inside a message's content (string or list of blocks), tool results included."""
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if not isinstance(block, dict):
            continue
        if isinstance(block.get("text"), str):
            parts.append(block["text"])
        inner = block.get("content")
        if inner is not None and inner is not content:
            parts.append(_text_of(inner))
    return "\n".join(parts)


def last_user_message(body):
    for msg in reversed(body.get("messages") or []):
        if isinstance(msg, dict) and msg.get("role") == "user":
            return msg
    return None


def has_tool_result(msg):
    content = (msg or {}).get("content")
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


def offers_read(body):
    return any(isinstance(t, dict) and t.get("name") == "Read" for t in body.get("tools") or [])


class _Handler(RecordingHandler):
    server_version = "fake-anthropic/1"

    @property
    def owner(self):
        return self.stand_in

    def _handle(self):
        raw = self.read_body()
        entry = dict(self.entry(raw), raw=raw.decode("utf-8", "replace"), reply=None)
        body = entry["body"]
        self.owner.record(entry)
        path = urlsplit(self.path).path
        if self.command == "POST" and path == "/v1/messages" and isinstance(body, dict):
            entry["reply"] = self._messages(body)
        elif self.command == "POST" and path == "/v1/messages/count_tokens":
            entry["reply"] = "count_tokens"
            self._json(200, {"input_tokens": 100})
        elif self.command == "HEAD":
            entry["reply"] = "head"
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            entry["reply"] = "404"
            self._json(404, {"type": "error",
                             "error": {"type": "not_found_error", "message": "not here"}})

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _handle

    def _json(self, status, obj):
        self.send_json(status, obj, extra={"request-id": self.owner.next_id("req")})

    def _messages(self, body):
        """Answer with the model's message (the stand-in's answer(body)); its kind."""
        kind, blocks, stop = self.owner.answer(body)
        message = {"id": self.owner.next_id("msg"), "type": "message", "role": "assistant",
                   "model": body.get("model") or MODEL_FALLBACK, "content": blocks,
                   "stop_reason": stop, "stop_sequence": None,
                   "usage": {"input_tokens": 100, "output_tokens": 20,
                             "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}
        if body.get("stream"):
            self._stream(message)
        else:
            self._json(200, message)
        return kind

    def _stream(self, message):
        self.start_events("text/event-stream; charset=utf-8",
                          extra={"request-id": self.owner.next_id("req")})

        def event(name, data):
            self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()

        start = dict(message, content=[], stop_reason=None,
                     usage=dict(message["usage"], output_tokens=1))
        event("message_start", {"type": "message_start", "message": start})
        event("ping", {"type": "ping"})
        for index, block in enumerate(message["content"]):
            if block["type"] == "text":
                event("content_block_start", {"type": "content_block_start", "index": index,
                                              "content_block": {"type": "text", "text": ""}})
                text = block["text"]
                half = len(text) // 2
                for piece in (text[:half], text[half:]):
                    event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                  "delta": {"type": "text_delta", "text": piece}})
            else:  # tool_use: the input arrives as partial JSON pieces
                event("content_block_start", {"type": "content_block_start", "index": index,
                                              "content_block": {"type": "tool_use",
                                                                "id": block["id"],
                                                                "name": block["name"],
                                                                "input": {}}})
                partial = json.dumps(block["input"])
                cut = len(partial) // 2
                for piece in (partial[:cut], partial[cut:]):
                    event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                  "delta": {"type": "input_json_delta",
                                                            "partial_json": piece}})
            event("content_block_stop", {"type": "content_block_stop", "index": index})
        event("message_delta", {"type": "message_delta",
                                "delta": {"stop_reason": message["stop_reason"],
                                          "stop_sequence": None},
                                "usage": {"output_tokens": message["usage"]["output_tokens"]}})
        event("message_stop", {"type": "message_stop"})


class FakeAnthropic(ModelStandIn):
    """The stand-in; requests() are dicts with ts, method, path, headers, body, raw, reply.

    read_path: the file the first turn reads (None: no Read, the answer comes at once);
    final_text: the answer that ends the turn. A subclass answers otherwise by its answer()."""

    handler = _Handler

    def __init__(self, read_path, final_text=FINAL_TEXT, host="127.0.0.1"):
        super().__init__(host=host)
        self.read_path = read_path
        self.final_text = final_text

    def answer(self, body):
        """The model's answer to a /v1/messages request: (kind, content blocks, stop_reason)."""
        final = [{"type": "text", "text": self.final_text}]
        if has_tool_result(last_user_message(body)) or (self.read_path is None
                                                        and body.get("tools")):
            return "final", final, "end_turn"
        if offers_read(body):
            return "tool_use", [{"type": "text", "text": "Let me read the invoice module."},
                                {"type": "tool_use", "id": self.next_id("toolu"), "name": "Read",
                                 "input": {"file_path": self.read_path}}], "tool_use"
        return "side", [{"type": "text", "text": SIDE_TEXT}], "end_turn"

    def messages(self):
        """The POST /v1/messages requests (the model calls), oldest first."""
        return [r for r in self.requests()
                if r["method"] == "POST" and urlsplit(r["path"]).path == "/v1/messages"]


if __name__ == "__main__":  # manual use: python3 fake_anthropic.py /abs/file/to/read
    FakeAnthropic(sys.argv[1] if len(sys.argv) > 1 else "/etc/hostname").start() \
        .serve_until_interrupted()
