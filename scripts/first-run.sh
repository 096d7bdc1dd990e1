#!/bin/sh
# What a hook runs while the plugin has no build yet. Each hooks.json command runs
# build/bin/<hook> when it exists and this script otherwise, so a fresh marketplace install
# never fails every prompt with "not found" (exit 127) and is never silent: the first hook of a
# session prints one line the user sees, later ones print nothing, and every run exits 0 (no
# prompt, read or tool call is held up). It never builds anything by itself: a build takes
# minutes of CPU, needs the build dependencies, and a half-linked executable must not be run.
#
#   sh scripts/first-run.sh <hook>      (stdin, the hook's input, is not read)
#
# "Once per session" is an empty directory per session in the plugin's data directory (or the
# mem0 state directory), created with mkdir, which succeeds for exactly one of the session's
# hooks. Only shell built-ins run once the session has been told.

case $0 in
*/*) here=${0%/*} ;;
*) here=. ;;
esac
case $here in
/*) ;;
*) here=$(cd "$here" && pwd) || exit 0 ;;
esac
root=${here%/scripts}

session=${CLAUDE_CODE_SESSION_ID:-pid-$PPID} # the session, else the Claude Code process
case $session in
'' | *[!A-Za-z0-9_.-]*) session=unknown ;;
esac
if [ -n "${CLAUDE_PLUGIN_DATA:-}" ]; then
  dir=$CLAUDE_PLUGIN_DATA
elif [ -n "${MEM0_STATE_DIR:-}" ]; then
  dir=$MEM0_STATE_DIR
elif [ -n "${HOME:-}" ]; then
  dir=$HOME/.mem0/state
else
  dir=
fi
marker=$dir/first-run-notice.$session

say() {
  # The commands to run: the build dependencies, then the build. Quoted when the path needs it
  # for copy and paste; a path that JSON or the quotes would need escaping for is left out.
  case $root in
  *[\"\\\']* | *[[:cntrl:]]*) steps="scripts/setup.sh, then scripts/build.sh, in the plugin directory" ;;
  *[!A-Za-z0-9_./+,:@%=-]*) steps="'$root/scripts/setup.sh', then '$root/scripts/build.sh'" ;;
  *) steps="$root/scripts/setup.sh, then $root/scripts/build.sh" ;;
  esac
  printf '{"systemMessage":"%s"}\n' \
    "mem0: the hooks are not built yet — run $steps (or see README)"
}

if [ -z "$dir" ]; then
  # Nowhere to remember that the session was told: say it at session start only.
  [ "${1:-}" = on_session_start ] && say
  exit 0
fi
[ -d "$marker" ] && exit 0
umask 077
[ -d "$dir" ] || mkdir -p "$dir" 2>/dev/null
if mkdir "$marker" 2>/dev/null; then
  say
  # Forget sessions older than a day.
  find "$dir" -maxdepth 1 -type d -name 'first-run-notice.*' -mtime +0 \
    -exec rmdir {} + 2>/dev/null
elif [ ! -d "$marker" ] && [ "${1:-}" = on_session_start ]; then
  say
fi
exit 0
