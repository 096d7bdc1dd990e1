#!/usr/bin/env bash
# Show what Claude would receive: build if needed, start the bundled Mem0 stand-in with a sample
# project's memories, and run the hooks on sample prompts and a file read. No account needed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup.sh
BUILD_DIR=build scripts/build.sh >/dev/null # builds if needed; cheap when up to date

work=$(mktemp -d)
fake_pid=
cleanup() { [ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

# Start the stand-in on a free port and wait for its "PORT n" line.
python3 tests/fake_mem0/fake_mem0.py --port 0 --seed tests/fake_mem0/sample_memories.json \
  --api-key m0-demo-key >"$work/port" &
fake_pid=$!
for _ in $(seq 100); do grep -q '^PORT ' "$work/port" 2>/dev/null && break; sleep 0.05; done
port=$(awk '/^PORT /{print $2}' "$work/port")
[ -n "$port" ] || { echo "demo: the Mem0 stand-in did not start" >&2; exit 1; }

# A sample checkout: the project id comes from its origin remote (acme/billing → acme-billing).
project="$work/billing"
mkdir -p "$project/.git" "$project/src/billing"
printf 'ref: refs/heads/main\n' >"$project/.git/HEAD"
printf '[remote "origin"]\n\turl = git@github.com:acme/billing.git\n' >"$project/.git/config"
for i in $(seq 80); do echo "def line_total_$i(qty: int, unit_cents: int) -> int: return qty * unit_cents"; done \
  >"$project/src/billing/invoice.py"

export HOME="$work/home" MEM0_API_KEY=m0-demo-key MEM0_BASE_URL="http://127.0.0.1:$port" \
  MEM0_USER_ID=demo
mkdir -p "$HOME"

show() { # show TITLE HOOK JSON
  local start end out
  start=$(date +%s%N)
  out=$(printf '%s' "$3" | "build/bin/$2" 2>"$work/stderr")
  end=$(date +%s%N)
  printf '\n\033[1m== %s\033[0m  (%s, %d ms)\n' "$1" "$2" $(((end - start) / 1000000))
  if [ -n "$out" ]; then
    printf '%s' "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["hookSpecificOutput"]["additionalContext"])'
  else
    echo "(no output: nothing to add)"
  fi
  [ -s "$work/stderr" ] && sed 's/^/stderr: /' "$work/stderr"
  return 0
}

prompt() { python3 -c 'import json,sys; print(json.dumps({"session_id":"demo-session","cwd":sys.argv[1],"hook_event_name":"UserPromptSubmit","prompt":sys.argv[2]}))' "$project" "$1"; }
read_event() { python3 -c 'import json,sys; print(json.dumps({"session_id":"demo-session","cwd":sys.argv[1],"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":sys.argv[2]}}))' "$project" "$1"; }

echo "Mem0 stand-in on 127.0.0.1:$port with $(python3 -c 'import json;print(len(json.load(open("tests/fake_mem0/sample_memories.json"))))' ) sample memories; project $project"
show "Prompt: a bug report" on_user_prompt \
  "$(prompt "The Stripe webhook handler crashes with KeyError 'customer' when retrying invoice events. Why?")"
show "Prompt: resuming work" on_user_prompt "$(prompt "Where did we leave off with the invoice PDF migration?")"
show "Prompt: the same bug again (session dedupe: nothing repeated)" on_user_prompt \
  "$(prompt "The Stripe webhook handler crashes with KeyError 'customer' when retrying invoice events. Why?")"
show "Read src/billing/invoice.py" on_file_read "$(read_event "$project/src/billing/invoice.py")"
show "Read src/billing/invoice.py again (once per file version)" on_file_read \
  "$(read_event "$project/src/billing/invoice.py")"
show "Prompt: a slash command (gated: no request)" on_user_prompt "$(prompt "/compact")"
echo
echo "Requests the stand-in received: $(python3 -c 'import json,sys,urllib.request; print(len(json.load(urllib.request.urlopen(sys.argv[1]+"/_requests"))))' "$MEM0_BASE_URL")"
