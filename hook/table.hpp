#pragma once
#include "hook/agent.hpp"

#include <array>
#include <ranges>
#include <string_view>

namespace mem0 {

// One hook of the set: which executable an agent runs, for which of its events and tools.
struct HookSpec {
  std::string_view agent;          // Agent::name
  std::string_view executable;     // run as `<executable> --agent <agent>` (no flag: Claude Code)
  std::string_view event;          // the agent's own name of the event
  Event kind;                      // what the event is to the core
  std::string_view matcher;        // tool names (a regular expression); empty for none
  int timeout_seconds;             // the agent's limit; above the hook's own budget
  std::string_view status_message; // shown while the hook runs; empty for none
};

// The hook set of every agent. hooks.json, `mem0-hooks install`, `uninstall` and `doctor`
// follow this table (a unit test checks hooks.json against it): a new hook is its folder under
// hooks/ plus a row per agent; a new agent is an adapter plus its rows
// (docs/agents.md#adding-an-agent). Timeouts exceed the 5 s default budget by at least 2 s
// (docs/failures.md#time-budget). Hooks that return at once by design (capture, guard) have
// short timeouts.
inline constexpr std::array<HookSpec, 40> k_hooks{{
    {"claude-code", "on_user_prompt", "UserPromptSubmit", Event::prompt, "", 8,
     "Recalling memories from mem0"},
    {"claude-code", "on_file_read", "PreToolUse", Event::before_read, "Read", 7, ""},
    {"claude-code", "on_session_start", "SessionStart", Event::session_start,
     "startup|resume|clear|compact", 8, ""},
    {"claude-code", "on_tool_guard", "PreToolUse", Event::tool_guard,
     "Write|Edit|MultiEdit|mcp__mem0__.*|mcp__plugin_mem0_mem0__.*|mcp__plugin_mem0-native-hooks_"
     "mem0__.*",
     5, ""},
    {"claude-code", "on_bash_output", "PostToolUse", Event::after_shell, "Bash", 8, ""},
    {"claude-code", "on_bash_output", "PostToolUseFailure", Event::after_shell, "Bash", 8, ""},
    {"claude-code", "on_compact", "PostCompact", Event::compaction, "", 5, ""},
    {"claude-code", "on_stop", "Stop", Event::stop, "", 5, ""},
    {"claude-code", "on_session_end", "SessionEnd", Event::session_end, "", 2, ""},
    // Codex CLI (docs/agents.md#codex-cli): its shell tool is `Bash` to hooks, so the read
    // recall parses the command; the compaction summary comes from the rollout at PostCompact;
    // Codex clamps SessionEnd's timeout to 3 s.
    {"codex", "on_user_prompt", "UserPromptSubmit", Event::prompt, "", 8,
     "Recalling memories from mem0"},
    {"codex", "on_file_read", "PreToolUse", Event::before_read, "Bash", 7, ""},
    {"codex", "on_session_start", "SessionStart", Event::session_start,
     "startup|resume|clear|compact", 8, ""},
    {"codex", "on_bash_output", "PostToolUse", Event::after_shell, "Bash", 8, ""},
    {"codex", "on_compact", "PostCompact", Event::compaction, "", 5, ""},
    {"codex", "on_stop", "Stop", Event::stop, "", 5, ""},
    {"codex", "on_session_end", "SessionEnd", Event::session_end, "", 2, ""},
    // Cursor (docs/agents.md#cursor): context only where it documents additional_context
    // (sessionStart, postToolUse); the assistant's text arrives at afterAgentResponse; sessionEnd
    // is fire-and-forget. Its stop and preCompact carry no text to capture, and
    // beforeSubmitPrompt, beforeReadFile and preToolUse answer with a permission or fail closed:
    // not wired.
    {"cursor", "on_session_start", "sessionStart", Event::session_start, "", 8, ""},
    {"cursor", "on_file_read", "postToolUse", Event::after_read, "Read", 8, ""},
    {"cursor", "on_bash_output", "postToolUse", Event::after_shell, "Shell", 8, ""},
    {"cursor", "on_stop", "afterAgentResponse", Event::stop, "", 5, ""},
    {"cursor", "on_session_end", "sessionEnd", Event::session_end, "", 2, ""},
    // Gemini CLI (docs/agents.md#gemini-cli): tool matchers are unanchored regular expressions
    // there, lifecycle matchers exact strings ("" for all). PreCompress is not wired: it fires
    // before every model call and carries nothing to capture.
    {"gemini-cli", "on_session_start", "SessionStart", Event::session_start, "", 8, ""},
    {"gemini-cli", "on_user_prompt", "BeforeAgent", Event::prompt, "", 8, ""},
    {"gemini-cli", "on_file_read", "AfterTool", Event::after_read, "^(read_file|read_many_files)$",
     7, ""},
    {"gemini-cli", "on_bash_output", "AfterTool", Event::after_shell, "^run_shell_command$", 8, ""},
    {"gemini-cli", "on_stop", "AfterAgent", Event::stop, "", 5, ""},
    {"gemini-cli", "on_session_end", "SessionEnd", Event::session_end, "", 2, ""},
    // OpenCode (docs/agents.md#opencode), through its shim: the plugin hook names; the session's
    // first chat.message also runs on_session_start; each finished reply text is captured.
    {"opencode", "on_session_start", "chat.message", Event::session_start, "", 8, ""},
    {"opencode", "on_user_prompt", "chat.message", Event::prompt, "", 8, ""},
    {"opencode", "on_file_read", "tool.execute.after", Event::after_read, "^read$", 7, ""},
    {"opencode", "on_bash_output", "tool.execute.after", Event::after_shell, "^bash$", 8, ""},
    {"opencode", "on_stop", "experimental.text.complete", Event::stop, "", 5, ""},
    {"opencode", "on_session_end", "session.idle", Event::session_end, "", 2, ""},
    // Pi (docs/agents.md#pi), through its shim: the extension event names; the session's first
    // before_agent_start also runs on_session_start.
    {"pi", "on_session_start", "before_agent_start", Event::session_start, "", 8, ""},
    {"pi", "on_user_prompt", "before_agent_start", Event::prompt, "", 8, ""},
    {"pi", "on_file_read", "tool_result", Event::after_read, "^read$", 7, ""},
    {"pi", "on_bash_output", "tool_result", Event::after_shell, "^bash$", 8, ""},
    {"pi", "on_stop", "agent_end", Event::stop, "", 5, ""},
    {"pi", "on_compact", "session_compact", Event::compaction, "", 5, ""},
    {"pi", "on_session_end", "session_shutdown", Event::session_end, "", 2, ""},
}};

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
