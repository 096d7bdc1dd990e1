#!/usr/bin/env python3
"""A tiny stdio MCP server named like Mem0's, for the real-client tests.

    fake_mcp.py RECORD_FILE

JSON-RPC 2.0 over stdio, one JSON message per line (the MCP stdio transport). It answers
`initialize` (echoing the client's protocol version), `ping`, `tools/list` and `tools/call`,
ignores notifications, and answers any other request with -32601 (method not found).

One tool, `add_memory`, input schema {text: string, user_id?: string, app_id?: string,
metadata?: object}. Every `tools/call` appends one JSON line
{"name": <tool name>, "arguments": <arguments exactly as received>} to RECORD_FILE (flushed at
once), then answers with a short text result that echoes the arguments.

Python standard library only; it talks to nobody but its parent through stdin and stdout.
"""

import json
import sys

SERVER_INFO = {"name": "fake-mem0-mcp", "version": "1.0.0"}
DEFAULT_PROTOCOL = "2025-06-18"
TOOLS = [{
    "name": "add_memory",
    "description": "Store one memory in Mem0.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "The memory text"},
            "user_id": {"type": "string"},
            "app_id": {"type": "string"},
            "metadata": {"type": "object"},
        },
        "required": ["text"],
    },
}]


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def record(path, entry):
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry) + "\n")
        fh.flush()


def answer(msg, record_path):
    """The response to one request (None for a notification or an unknown message)."""
    if not isinstance(msg, dict) or "method" not in msg:
        return None
    method, rid, params = msg["method"], msg.get("id"), msg.get("params") or {}
    if rid is None:  # a notification (notifications/initialized, cancelled, ...)
        return None
    if method == "initialize":
        result = {"protocolVersion": params.get("protocolVersion") or DEFAULT_PROTOCOL,
                  "capabilities": {"tools": {"listChanged": False}},
                  "serverInfo": SERVER_INFO}
    elif method == "ping":
        result = {}
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        name, arguments = params.get("name"), params.get("arguments")
        record(record_path, {"name": name, "arguments": arguments})
        if name != "add_memory":
            return {"jsonrpc": "2.0", "id": rid,
                    "error": {"code": -32602, "message": f"unknown tool {name}"}}
        result = {"content": [{"type": "text",
                               "text": "stored: " + json.dumps(arguments, sort_keys=True)}],
                  "isError": False}
    else:
        return {"jsonrpc": "2.0", "id": rid,
                "error": {"code": -32601, "message": f"method not found: {method}"}}
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def main(argv):
    if len(argv) != 2:
        print("usage: fake_mcp.py RECORD_FILE", file=sys.stderr)
        return 2
    record_path = argv[1]
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            send({"jsonrpc": "2.0", "id": None,
                  "error": {"code": -32700, "message": "parse error"}})
            continue
        for one in msg if isinstance(msg, list) else [msg]:  # a batch is answered one by one
            reply = answer(one, record_path)
            if reply is not None:
                send(reply)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
