// Runs one hook of the checkout's build for the Gemini CLI extension (docs/agents.md#gemini-cli):
// `node run.cjs <hook> [arguments]`, or its memory tools' server: `node run.cjs mem0-hooks mcp`.
// Gemini CLI hands a hook command to bash on Linux and macOS and to PowerShell on Windows, and an
// extension has one command for both: a quoted path first is a string to PowerShell, no program,
// so the commands start with `node` (which runs Gemini CLI itself), and this file starts
// `../../build/bin/<hook>` (`<hook>.exe` on Windows) with the same standard streams. A hook always
// exits 0: a hook that cannot start says so on stderr. The server exits with mem0-hooks' status.
"use strict";
const { spawnSync } = require("node:child_process");
const path = require("node:path");

const [hook, ...args] = process.argv.slice(2);
if (!/^([a-z_]+|mem0-hooks)$/.test(hook || "")) {
  process.stderr.write(`mem0: not a hook: ${JSON.stringify(hook || "")}\n`);
  process.exit(0);
}
const program = path.join(__dirname, "..", "..", "build", "bin",
                          process.platform === "win32" ? `${hook}.exe` : hook);
const run = spawnSync(program, args, { stdio: "inherit", windowsHide: true });
if (run.error) process.stderr.write(`mem0: cannot run ${program}: ${run.error.message}\n`);
process.exit(hook === "mem0-hooks" ? (run.error ? 1 : run.status ?? 1) : 0);
