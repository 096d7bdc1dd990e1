#!/bin/sh
# Runs the plugin's mem0-hooks for Claude Code: the MCP server (.mcp.json) and the slash
# commands (commands/*.md), from the build (build/bin) or a package (libexec, or the npm plugin's
# libexec/<uname -sm>: docs/install.md#npm). Without either,
# one line on stderr naming the scripts to run, and exit 1: no retry storm, no hang.
#
#   sh scripts/mem0-hooks.sh mcp
#   sh scripts/mem0-hooks.sh --args-on-stdin <command> [<option>...]   (a slash command;
#                                                    docs/cli.md#slash-commands)
#
# With --args-on-stdin the arguments are the text on stdin (what the user typed after the slash
# command, which Claude Code pastes into a quoted here-document whose delimiter no typed line can
# be: docs/cli.md#slash-commands), split into words at blanks with no other shell processing: no
# quotes, no $ or backquote expansion, no globbing. Options after the command are the command
# file's own (`ui --no-open`), words without blanks, given before the typed ones.

root=$(cd -- "$(dirname -- "$0")/.." && pwd) || exit 1

exe=
for candidate in "$root/build/bin/mem0-hooks" "$root/libexec/mem0-hooks" \
  "$root/libexec/$(uname -sm)/mem0-hooks"; do
  if [ -x "$candidate" ]; then
    exe=$candidate
    break
  fi
done
if [ -z "$exe" ]; then
  printf '%s\n' "mem0: mem0-hooks is not built yet — run '$root/scripts/setup.sh', then '$root/scripts/build.sh' (or see README)" >&2
  exit 1
fi

if [ "${1:-}" = --args-on-stdin ]; then
  command=${2:?usage: mem0-hooks.sh --args-on-stdin <command> [<option>...]}
  shift 2
  fixed=$*
  args=$(cat)
  set -f
  # shellcheck disable=SC2086 # split into words on purpose; globbing is off
  set -- $fixed $args
  set +f
  exec "$exe" "$command" "$@"
fi
exec "$exe" "$@"
