// What the JS hosts' shims share (docs/agents.md#opencode): install writes this, then the host's
// own part (shims/<agent>/mem0.js), as one file the host loads. It runs the hook rows of CONFIG
// for an event and returns their contexts; every failure injects nothing and logs one line.
import { spawn } from "node:child_process";
import path from "node:path";

const CONFIG = { agent: "", bin: "", hooks: [], commands: {} };

function log(line) {
  try {
    process.stderr.write(`mem0: ${line}\n`);
  } catch {}
}

// Our executable `name` in CONFIG.bin, which is spawned directly, without a shell: on Windows
// its file is `<name>.exe`.
function program(name) {
  return path.join(CONFIG.bin, process.platform === "win32" ? `${name}.exe` : name);
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
  const out = await run(program("mem0-hooks"), [subcommand, ...argv], "", 15000, true);
  if (out === null) return null;
  return `${out.trim()}\n\nAbove is the output of \`mem0-hooks ${subcommand}\`, run for the ` +
         `user's /${name}. Show it to the user as it is, in a few words at most; do not run it again.`;
}

// The context one hook row prints for `payload`; "" for none.
async function hook(row, payload) {
  const out = await run(program(row.executable), ["--agent", CONFIG.agent],
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
