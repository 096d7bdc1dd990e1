#pragma once
#include "common/error.hpp"
#include "common/http.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace mem0 {

inline constexpr std::size_t k_max_stdin_bytes = 8 * 1024 * 1024;

// The fields of a Claude Code hook event that the hooks use (SPEC §2). Missing fields, and
// fields of the wrong type, are empty.
struct HookInput {
  std::string session_id;
  std::string cwd;
  std::string hook_event_name;
  std::string prompt;    // UserPromptSubmit
  std::string tool_name; // PreToolUse
  std::string file_path; // PreToolUse: tool_input.file_path
};

// Read `fd` to EOF, keeping at most `cap` bytes and ignoring the rest; gives up at `deadline`.
std::string read_bounded(int fd, Deadline deadline, std::size_t cap = k_max_stdin_bytes);

// Parse hook input JSON; an error when it is not a JSON object.
Result<HookInput> parse_hook_input(std::string_view json);

// The one JSON object a hook prints:
// {"hookSpecificOutput":{"hookEventName":<event>,"additionalContext":<context>}}
std::string render_output(std::string_view event, std::string_view context);

} // namespace mem0
