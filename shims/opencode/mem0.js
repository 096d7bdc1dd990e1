// mem0 for OpenCode (docs/agents.md#opencode): pipes each plugin hook to the mem0 executables
// and adds what they print where the model reads it. No dependencies; no memory logic here.
// `mem0-hooks install --agent opencode` writes the CONFIG line: the executables' directory and
// the hook table's rows for OpenCode. Every failure injects nothing and logs one line.
import { spawn } from "node:child_process";
import path from "node:path";

const CONFIG = { bin: "", hooks: [] };

function log(line) {
  try {
    process.stderr.write(`mem0: ${line}\n`);
  } catch {}
}

// Run `program` with `args`, `input` on stdin, until `ms`: its stdout (with `stderr`, its
// stdout and stderr, whatever its exit status), or null on any failure.
function run(program, args, input, ms, stderr = false) {
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
      child = spawn(program, args, { stdio: ["pipe", "pipe", stderr ? "pipe" : "ignore"] });
    } catch (e) {
      return finish(null, String(e && e.message));
    }
    timer = setTimeout(() => {
      child.kill("SIGKILL");
      child.stdout.destroy(); // a grandchild may hold the pipe open
      if (child.stderr) child.stderr.destroy();
      finish(null, `no answer in ${ms} ms`);
    }, ms);
    child.on("error", (e) => finish(null, e.message));
    child.stdout.on("data", (d) => (out += d));
    if (stderr) child.stderr.on("data", (d) => (out += d));
    child.on("close", (code) => (code === 0 || stderr ? finish(out) : finish(null, `exit ${code}`)));
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  });
}

// The output of the user command `name` (`mem0-hooks <subcommand> <words>`: the words typed,
// split at blanks, never read by a shell) and what the model is asked to do with it; null when
// `name` is not ours.
async function userCommand(name, words) {
  const subcommand = (CONFIG.commands || {})[name];
  if (!subcommand) return null;
  const argv = String(words || "").split(/\s+/).filter(Boolean);
  const out = await run(path.join(CONFIG.bin, "mem0-hooks"), [subcommand, ...argv], "", 15000, true);
  if (out === null) return null;
  return `${out.trim()}\n\nAbove is the output of \`mem0-hooks ${subcommand}\`, run for the ` +
         `user's /${name}. Show it to the user as it is, in a few words at most; do not run it again.`;
}

// The context one hook row prints for `payload`; "" for none.
async function hook(row, payload) {
  const out = await run(path.join(CONFIG.bin, row.executable), ["--agent", "opencode"],
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

export const Mem0 = async (ctx) => {
  const base = (name, sessionID) => ({ hook_event_name: name, sessionID,
                                       directory: ctx.directory, worktree: ctx.worktree });
  const guard = (fn) => async (...args) => {
    try {
      await fn(...args);
    } catch (e) {
      log(`hook failed: ${e && e.message}`);
    }
  };
  return {
    "chat.message": guard(async (input, output) => {
      const payload = { ...base("chat.message", input.sessionID), parts: output.parts };
      for (const text of await contexts("chat.message", "", payload, input.sessionID))
        output.parts.push({ id: `prt_mem0${Date.now()}${Math.random().toString(36).slice(2, 8)}`,
                            sessionID: input.sessionID, messageID: output.message.id,
                            type: "text", text, synthetic: true });
    }),
    "tool.execute.after": guard(async (input, output) => {
      const payload = { ...base("tool.execute.after", input.sessionID), tool: input.tool,
                        callID: input.callID, args: input.args, output };
      for (const text of await contexts("tool.execute.after", input.tool, payload, input.sessionID))
        output.output = `${output.output ?? ""}\n\n${text}`;
    }),
    "experimental.text.complete": guard(async (input, output) => {
      await contexts("experimental.text.complete", "",
                     { ...base("experimental.text.complete", input.sessionID),
                       messageID: input.messageID, text: output.text }, input.sessionID);
    }),
    // Our commands (opencode.json's `command`): the CLI's output replaces the command's text.
    "command.execute.before": guard(async (input, output) => {
      const text = await userCommand(input.command, input.arguments);
      if (text !== null) output.parts.splice(0, output.parts.length, { type: "text", text });
    }),
    event: guard(async ({ event }) => {
      const sessionID = event.properties && event.properties.sessionID;
      if (event.type === "session.idle")
        await contexts("session.idle", "", base("session.idle", sessionID), sessionID);
    }),
  };
};
