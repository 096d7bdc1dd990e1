#pragma once
#include "runtime/agent.hpp"

#include <array>
#include <ranges>
#include <string_view>

namespace mem0 {

// One hook of the set: which executable an agent runs, for which of its events and tools.
struct HookSpec {
  std::string_view agent;          // Agent::name
  std::string_view executable;     // run as `<executable> --agent <agent>` (no flag: Claude Code)
  std::string_view event;          // the agent's own name of the event
  std::string_view matcher;        // tool names (a regular expression); empty for none
  int timeout_seconds;             // the agent's limit; above the hook's own budget
  std::string_view status_message; // shown while the hook runs; empty for none
};

// The hook set of every agent. The wiring files the repository ships (scripts/wiring.py writes
// them), `mem0-hooks install`, `uninstall` and `doctor` follow this table: a new hook is its
// folder under hooks/ plus a row per agent; a new agent is an adapter plus its rows
// (docs/agents.md#adding-an-agent). Timeouts exceed the 5 s default budget by at least 2 s
// (docs/failures.md#time-budget). Hooks that return at once by design (capture, guard) have
// short timeouts.
inline constexpr auto k_hooks = std::to_array<HookSpec>({
    {"claude-code", "on_user_prompt", "UserPromptSubmit", "", 8, "Recalling memories from mem0"},
    {"claude-code", "on_file_read", "PreToolUse", "Read", 7, ""},
    {"claude-code", "on_session_start", "SessionStart", "startup|resume|clear|compact", 8, ""},
    {"claude-code", "on_tool_guard", "PreToolUse",
     "Write|Edit|MultiEdit|mcp__mem0__.*|mcp__plugin_mem0_mem0__.*|mcp__plugin_mem0-native-hooks_"
     "mem0__.*",
     5, ""},
    {"claude-code", "on_bash_output", "PostToolUse", "Bash", 8, ""},
    {"claude-code", "on_bash_output", "PostToolUseFailure", "Bash", 8, ""},
    {"claude-code", "on_compact", "PostCompact", "", 5, ""},
    {"claude-code", "on_stop", "Stop", "", 5, ""},
    {"claude-code", "on_session_end", "SessionEnd", "", 2, ""},
    // Codex CLI (docs/agents.md#codex-cli): its shell tool is `Bash` to hooks, so the read
    // recall parses the command; the compaction summary comes from the rollout at PostCompact;
    // Codex clamps SessionEnd's timeout to 3 s.
    {"codex", "on_user_prompt", "UserPromptSubmit", "", 8, "Recalling memories from mem0"},
    {"codex", "on_file_read", "PreToolUse", "Bash", 7, ""},
    {"codex", "on_session_start", "SessionStart", "startup|resume|clear|compact", 8, ""},
    {"codex", "on_bash_output", "PostToolUse", "Bash", 8, ""},
    {"codex", "on_compact", "PostCompact", "", 5, ""},
    {"codex", "on_stop", "Stop", "", 5, ""},
    {"codex", "on_session_end", "SessionEnd", "", 2, ""},
    // Cursor (docs/agents.md#cursor): context only where it documents additional_context
    // (sessionStart, postToolUse); the assistant's text arrives at afterAgentResponse; sessionEnd
    // is fire-and-forget. Its stop and preCompact carry no text to capture, and
    // beforeSubmitPrompt, beforeReadFile and preToolUse answer with a permission or fail closed:
    // not wired.
    {"cursor", "on_session_start", "sessionStart", "", 8, ""},
    {"cursor", "on_file_read", "postToolUse", "Read", 8, ""},
    {"cursor", "on_bash_output", "postToolUse", "Shell", 8, ""},
    {"cursor", "on_stop", "afterAgentResponse", "", 5, ""},
    {"cursor", "on_session_end", "sessionEnd", "", 2, ""},
    // Gemini CLI (docs/agents.md#gemini-cli): tool matchers are unanchored regular expressions
    // there, lifecycle matchers exact strings ("" for all). PreCompress is not wired: it fires
    // before every model call and carries nothing to capture.
    {"gemini-cli", "on_session_start", "SessionStart", "", 8, ""},
    {"gemini-cli", "on_user_prompt", "BeforeAgent", "", 8, ""},
    {"gemini-cli", "on_file_read", "AfterTool", "^(read_file|read_many_files)$", 7, ""},
    {"gemini-cli", "on_bash_output", "AfterTool", "^run_shell_command$", 8, ""},
    {"gemini-cli", "on_stop", "AfterAgent", "", 5, ""},
    {"gemini-cli", "on_session_end", "SessionEnd", "", 2, ""},
    // GitHub Copilot CLI (docs/agents.md#github-copilot-cli): no matchers, so the read and error
    // recalls run after every tool and keep to `view` and `bash`; agentStop's reply and the
    // latest compaction's summary come from events.jsonl (preCompact runs before the summary
    // exists).
    {"copilot", "on_session_start", "sessionStart", "", 8, ""},
    {"copilot", "on_user_prompt", "userPromptSubmitted", "", 8, ""},
    {"copilot", "on_file_read", "postToolUse", "", 8, ""},
    {"copilot", "on_bash_output", "postToolUse", "", 8, ""},
    {"copilot", "on_stop", "agentStop", "", 5, ""},
    {"copilot", "on_compact", "agentStop", "", 5, ""},
    {"copilot", "on_session_end", "sessionEnd", "", 2, ""},
    // OpenCode (docs/agents.md#opencode), through its shim: the plugin hook names, or the bus
    // event's type for `event`; the session's first chat.message also runs on_session_start; at
    // session.idle and session.compacted the shim adds the session's latest messages, whence the
    // turn's reply and the compaction's summary.
    {"opencode", "on_session_start", "chat.message", "", 8, ""},
    {"opencode", "on_user_prompt", "chat.message", "", 8, ""},
    {"opencode", "on_file_read", "tool.execute.after", "^read$", 7, ""},
    {"opencode", "on_bash_output", "tool.execute.after", "^bash$", 8, ""},
    {"opencode", "on_stop", "session.idle", "", 5, ""},
    {"opencode", "on_compact", "session.compacted", "", 5, ""},
    {"opencode", "on_session_end", "session.idle", "", 2, ""},
    // Pi (docs/agents.md#pi), through its shim: the extension event names; the session's first
    // before_agent_start also runs on_session_start.
    {"pi", "on_session_start", "before_agent_start", "", 8, ""},
    {"pi", "on_user_prompt", "before_agent_start", "", 8, ""},
    {"pi", "on_file_read", "tool_result", "^read$", 7, ""},
    {"pi", "on_bash_output", "tool_result", "^bash$", 8, ""},
    {"pi", "on_stop", "agent_end", "", 5, ""},
    {"pi", "on_compact", "session_compact", "", 5, ""},
    {"pi", "on_session_end", "session_shutdown", "", 2, ""},
});

// The rows of `agent` (an Agent::name), in table order.
inline auto hooks_of(std::string_view agent) {
  return k_hooks | std::views::filter([agent](const HookSpec &h) { return h.agent == agent; });
}

// The first row of `executable` for `agent`; nullptr when the agent does not run it.
inline const HookSpec *find_hook(std::string_view agent, std::string_view executable) {
  for (const auto &h : hooks_of(agent))
    if (h.executable == executable) return &h;
  return nullptr;
}

// True when `executable` is one of ours, for any agent.
inline bool is_hook_executable(std::string_view executable) {
  for (const auto &h : k_hooks)
    if (h.executable == executable) return true;
  return false;
}

// True when `agent` runs `executable` for `event`.
inline bool hook_handles(std::string_view agent, std::string_view executable,
                         std::string_view event) {
  for (const auto &h : hooks_of(agent))
    if (h.executable == executable && h.event == event) return true;
  return false;
}

} // namespace mem0
