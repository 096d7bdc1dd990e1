// mem0 for the Pi coding agent (docs/agents.md#pi): pipes each extension event to the mem0
// executables and returns what they print where the model reads it. No dependencies; no memory
// logic here. `mem0-hooks install --agent pi` writes the CONFIG line: the executables' directory
// and the hook table's rows for Pi. Every failure injects nothing and logs one line.
import { spawn } from "node:child_process";
import path from "node:path";

const CONFIG = { bin: "", hooks: [] };

function log(line) {
  try {
    process.stderr.write(`mem0: ${line}\n`);
  } catch {}
}

// Run `program` with `args`, `input` on stdin, until `ms`; its stdout, or null on any failure.
function run(program, args, input, ms) {
  return new Promise((resolve) => {
    let out = "";
    let timer = null;
    let done = false;
    const finish = (value, why) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (why) log(`${path.basename(program)}: ${why}`);
      resolve(value);
    };
    let child;
    try {
      child = spawn(program, args, { stdio: ["pipe", "pipe", "ignore"] });
    } catch (e) {
      return finish(null, String(e && e.message));
    }
    timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish(null, `no answer in ${ms} ms`);
    }, ms);
    child.on("error", (e) => finish(null, e.message));
    child.stdout.on("data", (d) => (out += d));
    child.on("close", (code) => finish(code === 0 ? out : null, code === 0 ? "" : `exit ${code}`));
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  });
}

// The context one hook row prints for `payload`; "" for none.
async function hook(row, payload) {
  const out = await run(path.join(CONFIG.bin, row.executable), ["--agent", "pi"],
                        JSON.stringify(payload), row.timeout_ms);
  if (!out || !out.trim()) return "";
  try {
    const parsed = JSON.parse(out);
    return typeof parsed.context === "string" ? parsed.context : "";
  } catch {
    log(`${row.executable}: output is not JSON`);
    return "";
  }
}

// The contexts of the rows wired for `event` (and `tool`), run side by side.
async function contexts(event, tool, payload, sessionID) {
  const rows = CONFIG.hooks.filter((h) => h.event === event &&
      (!h.matcher || new RegExp(h.matcher).test(tool || "")) &&
      (!h.once || !started.has(sessionID)));
  if (rows.some((h) => h.once)) started.add(sessionID);
  const all = await Promise.all(rows.map((row) => hook(row, payload)));
  return all.filter(Boolean);
}

const started = new Set(); // sessions whose first message ran the session-start rows

export default function mem0(pi) {
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
  on("before_agent_start", () => "", (texts) => ({
    message: { customType: "mem0", content: texts.join("\n\n"), display: false },
  }));
  on("tool_result", (event) => event.toolName, (texts, event) => ({
    content: [...(event.content || []), ...texts.map((text) => ({ type: "text", text }))],
  }));
  on("agent_end", () => "");
  on("session_compact", () => "");
  on("session_shutdown", () => "");
}
