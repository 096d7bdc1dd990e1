// mem0 for the Pi coding agent (docs/agents.md#pi): pipes each extension event to the mem0
// executables and returns what they print where the model reads it. No dependencies; no memory
// logic here. `mem0-hooks install --agent pi` writes shims/core.js (with its CONFIG line filled
// in: the executables' directory and the hook table's rows for Pi) and then this, as one file.

// The memory tools' server: one `mem0-hooks mcp` child, spoken to in MCP (JSON-RPC, one message
// a line) over its stdio. request() resolves to the answer, or null on any failure.
function memoryServer() {
  let child;
  try {
    child = spawn(program("mem0-hooks"), ["mcp"], { stdio: ["pipe", "pipe", "ignore"] });
  } catch (e) {
    log(`mem0-hooks mcp: ${e && e.message}`);
    return null;
  }
  const waiting = new Map();
  let buffer = "";
  let next = 1;
  const fail = (why) => {
    if (why) log(`mem0-hooks mcp: ${why}`);
    for (const resolve of waiting.values()) resolve(null);
    waiting.clear();
  };
  child.on("error", (e) => fail(e.message));
  child.on("close", (code) => fail(waiting.size ? `exit ${code}` : ""));
  child.stdin.on("error", () => {});
  child.stdout.on("data", (data) => {
    buffer += data;
    for (let nl; (nl = buffer.indexOf("\n")) >= 0; buffer = buffer.slice(nl + 1)) {
      try {
        const message = JSON.parse(buffer.slice(0, nl));
        const resolve = waiting.get(message.id);
        waiting.delete(message.id);
        if (resolve) resolve(message);
      } catch {
        log("mem0-hooks mcp: an answer that is not JSON");
      }
    }
  });
  // Pi exits when its work is done, the server still running.
  child.unref();
  child.stdin.unref?.();
  child.stdout.unref?.();
  const send = (message) => child.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
  return {
    request: (method, params, ms) => new Promise((resolve) => {
      const id = next++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        log(`mem0-hooks mcp: no answer to ${method} in ${ms} ms`);
        resolve(null);
      }, ms);
      waiting.set(id, (message) => {
        clearTimeout(timer);
        resolve(message);
      });
      send({ id, method, params });
    }),
    notify: (method) => send({ method }),
    close: () => child.kill(),
  };
}

// Register each tool the server lists as `mem0_<name>`, answered by the server.
async function registerMemoryTools(pi) {
  const server = memoryServer();
  if (!server) return null;
  const init = await server.request("initialize", {
    protocolVersion: "2025-06-18", capabilities: {},
    clientInfo: { name: "pi-coding-agent", version: "mem0-shim" } }, 5000);
  const list = init && init.result ? (server.notify("notifications/initialized"),
                                      await server.request("tools/list", {}, 5000)) : null;
  const tools = list && list.result && Array.isArray(list.result.tools) ? list.result.tools : [];
  if (list && !tools.length) log("mem0-hooks mcp: no memory tools listed");
  for (const t of tools)
    pi.registerTool({
      name: `mem0_${t.name}`, label: t.title || t.name, description: t.description || t.name,
      parameters: t.inputSchema || { type: "object", properties: {} },
      async execute(_id, params) {
        const answer = await server.request("tools/call", { name: t.name, arguments: params },
                                            30000);
        const result = answer && answer.result;
        const text = result ? (result.content || []).filter((c) => c.type === "text")
                                  .map((c) => c.text).join("\n")
                            : `mem0: ${answer && answer.error ? answer.error.message : "no answer"}`;
        return { content: [{ type: "text", text }], details: {} };
      },
    });
  return server;
}

export default async function mem0(pi) {
  const server = await registerMemoryTools(pi).catch((e) => {
    log(`memory tools: ${e && e.message}`);
    return null;
  });
  const base = (name, ctx) => {
    let sessionId = "";
    try {
      sessionId = ctx.sessionManager.getSessionId();
    } catch {}
    return { hook_event_name: name, sessionId, cwd: ctx.cwd };
  };
  // Pass `event` to the rows wired for it; `apply(texts)` turns their contexts into the
  // handler's result. Never throws into Pi.
  const on = (name, tool, apply) =>
    pi.on(name, async (event, ctx) => {
      try {
        const payload = { ...event, ...base(name, ctx) };
        const texts = await contexts(name, tool(event), payload, payload.sessionId);
        return texts.length && apply ? apply(texts, event) : undefined;
      } catch (e) {
        log(`hook failed: ${e && e.message}`);
        return undefined;
      }
    });
  // Our commands: the CLI's output, sent to the model as the user's message.
  for (const name of Object.keys(CONFIG.commands || {}))
    pi.registerCommand(name, {
      description: `mem0-hooks ${CONFIG.commands[name]}`,
      handler: async (args) => {
        try {
          const text = await userCommand(name, args);
          if (text !== null) pi.sendUserMessage(text);
        } catch (e) {
          log(`/${name} failed: ${e && e.message}`);
        }
      },
    });
  on("before_agent_start", () => "", (texts) => ({
    message: { customType: "mem0", content: texts.join("\n\n"), display: false },
  }));
  on("tool_result", (event) => event.toolName, (texts, event) => ({
    content: [...(event.content || []), ...texts.map((text) => ({ type: "text", text }))],
  }));
  on("agent_end", () => "");
  on("session_compact", () => "");
  on("session_shutdown", () => "");
  if (server) pi.on("session_shutdown", () => server.close());
}
