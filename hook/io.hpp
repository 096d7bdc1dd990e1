#pragma once
#include "mem0/http.hpp"
#include "util/error.hpp"

#include <cstddef>
#include <functional>
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

// PreToolUse, PostToolUse and PostToolUseFailure.
struct ToolInput : HookInput {
  std::string tool_name;
  std::string tool_use_id;
  std::string tool_input;  // the JSON text of tool_input; "" when it is not an object
  std::string file_path;   // tool_input.file_path
  std::string command;     // tool_input.command (Bash)
  std::string stdout_text; // tool_response.stdout, or tool_response itself when a string
  std::string stderr_text; // tool_response.stderr
  std::string error;       // PostToolUseFailure: "Exit code N\n<output>"
};

// SessionStart.
struct SessionStartInput : HookInput {
  std::string source; // startup, resume, clear, compact
};

// Stop.
struct StopInput : HookInput {
  std::string last_assistant_message;
  std::string agent_id; // set for a subagent's Stop
};

// PostCompact.
struct CompactInput : HookInput {
  std::string compact_summary;
};

// SessionEnd.
struct SessionEndInput : HookInput {
  std::string reason;
};

// Read `fd` to EOF, keeping at most `cap` bytes and ignoring the rest; gives up at `deadline`.
std::string read_bounded(int fd, Deadline deadline, std::size_t cap = k_max_stdin_bytes);

// Parse an event's JSON: the common fields, then the event's own. An error when it is not a
// JSON object; unknown fields are ignored.
Result<HookInput> parse_hook_input(std::string_view json);
Result<PromptInput> parse_prompt_input(std::string_view json);
Result<ToolInput> parse_tool_input(std::string_view json);
Result<SessionStartInput> parse_session_start_input(std::string_view json);
Result<StopInput> parse_stop_input(std::string_view json);
Result<CompactInput> parse_compact_input(std::string_view json);
Result<SessionEndInput> parse_session_end_input(std::string_view json);

// What a handler gives back. Each part goes where Claude Code takes it for the event.
struct HookOutput {
  std::string context{};        // additionalContext, for the model
  std::string system_message{}; // systemMessage, shown to the user
  std::string block_reason{};   // non-empty: block the tool call (stderr, exit 2); guards only
  std::string updated_input{};  // PreToolUse: a JSON object replacing the tool's input
  // Work too slow for the hook itself (reading a transcript, importing files): run in the
  // detached sender's process, after the output is written and before it sends.
  std::function<void()> detached{};
};

// True when Claude Code reads `hookSpecificOutput.additionalContext` for `event`.
bool accepts_context(std::string_view event);

// The one JSON object a hook prints for `output`, with only the fields `event` accepts:
// {"hookSpecificOutput":{"hookEventName":<event>,"additionalContext":<context>,
//  "updatedInput":<object>},"systemMessage":<message>}; "" when there is nothing to print.
std::string render_output(std::string_view event, const HookOutput &output);

} // namespace mem0
