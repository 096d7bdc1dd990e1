#pragma once
#include <array>
#include <string_view>

namespace mem0 {

// One hook of the set: which executable Claude Code runs, for which event and tools.
struct HookSpec {
  std::string_view executable;
  std::string_view event;
  std::string_view matcher;        // tool names (a regular expression); empty for none
  int timeout_seconds;             // Claude Code's limit; above the hook's own budget
  std::string_view status_message; // shown while the hook runs; empty for none
};

// The hook set. hooks.json, `mem0-hooks install`, `uninstall` and `doctor` follow this table
// (a unit test checks hooks.json against it): a new hook is its folder under hooks/ plus a row.
// Timeouts exceed the 5 s default budget by at least 2 s (docs/failures.md#time-budget).
// Hooks that return at once by design (capture, guard) have short timeouts.
inline constexpr std::array<HookSpec, 9> k_hooks{{
    {"on_user_prompt", "UserPromptSubmit", "", 8, "Recalling memories from mem0"},
    {"on_file_read", "PreToolUse", "Read", 7, ""},
    {"on_session_start", "SessionStart", "startup|resume|clear|compact", 8, ""},
    {"on_tool_guard", "PreToolUse", "Write|Edit|MultiEdit|mcp__mem0__.*|mcp__plugin_mem0_mem0__.*",
     5, ""},
    {"on_bash_output", "PostToolUse", "Bash", 8, ""},
    {"on_bash_output", "PostToolUseFailure", "Bash", 8, ""},
    {"on_compact", "PostCompact", "", 5, ""},
    {"on_stop", "Stop", "", 5, ""},
    {"on_session_end", "SessionEnd", "", 2, ""},
}};

// The first row of `executable`; nullptr for an executable that is not ours.
inline const HookSpec *find_hook(std::string_view executable) {
  for (const auto &h : k_hooks)
    if (h.executable == executable) return &h;
  return nullptr;
}

// True when `executable` is wired for `event` in the table.
inline bool hook_handles(std::string_view executable, std::string_view event) {
  for (const auto &h : k_hooks)
    if (h.executable == executable && h.event == event) return true;
  return false;
}

} // namespace mem0
