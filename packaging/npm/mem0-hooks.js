#!/usr/bin/env node
// The mem0-hooks command of the npm package: runs the native mem0-hooks of this platform's
// package (mem0-native-hooks-<os>-<cpu>, an optional dependency) with the same arguments, so
// `mem0-hooks install` wires the hooks to that package's executables and no hook runs node
// (docs/install.md#npm).
"use strict";
const { spawnSync } = require("child_process");
const path = require("path");

const platform = `${process.platform}-${process.arch}`;
const name = `mem0-native-hooks-${platform}`;
let exe;
try {
  const root = path.dirname(require.resolve(`${name}/package.json`));
  exe = path.join(root, "bin", process.platform === "win32" ? "mem0-hooks.exe" : "mem0-hooks");
} catch {
  console.error(`mem0-hooks: no prebuilt executables for ${platform} here (${name} is not ` +
    "installed): install again without --omit=optional, or build from a checkout (README)");
  process.exit(1);
}
const run = spawnSync(exe, process.argv.slice(2), { stdio: "inherit" });
if (run.error) {
  console.error(`mem0-hooks: cannot run ${exe}: ${run.error.message}`);
  process.exit(1);
}
process.exit(run.status ?? 1);
