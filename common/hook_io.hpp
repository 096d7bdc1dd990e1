#pragma once
#include "common/error.hpp"
#include "common/http.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace mem0 {

inline constexpr std::size_t k_max_stdin_bytes = 8 * 1024 * 1024;

// The fields every Claude Code hook event carries (docs/hooks.md#hook-input). Missing fields,
// and fields of the wrong type, are empty.
struct HookInput {
  std::string session_id;
  std::string transcript_path;
  std::string cwd;
  std::string hook_event_name;
  std::string permission_mode;
  std::string prompt_id;
};

// UserPromptSubmit.
struct PromptInput : HookInput {
  std::string prompt;
};

// PreToolUse on Read.
struct ReadInput : HookInput {
  std::string tool_name;
  std::string tool_use_id;
  std::string file_path; // tool_input.file_path
};

// Read `fd` to EOF, keeping at most `cap` bytes and ignoring the rest; gives up at `deadline`.
std::string read_bounded(int fd, Deadline deadline, std::size_t cap = k_max_stdin_bytes);

// Parse an event's JSON: the common fields, then the event's own. An error when it is not a
// JSON object; unknown fields are ignored.
Result<HookInput> parse_hook_input(std::string_view json);
Result<PromptInput> parse_prompt_input(std::string_view json);
Result<ReadInput> parse_read_input(std::string_view json);

// What a handler gives back. Each part goes where Claude Code takes it for the event.
struct HookOutput {
  std::string context{};        // additionalContext, for the model
  std::string system_message{}; // systemMessage, shown to the user
  std::string block_reason{};   // non-empty: block the tool call (stderr, exit 2); guards only
};

// True when Claude Code reads `hookSpecificOutput.additionalContext` for `event`.
bool accepts_context(std::string_view event);

// The one JSON object a hook prints for `output`, with only the fields `event` accepts:
// {"hookSpecificOutput":{"hookEventName":<event>,"additionalContext":<context>},
//  "systemMessage":<message>}; "" when there is nothing to print.
std::string render_output(std::string_view event, const HookOutput &output);

} // namespace mem0
