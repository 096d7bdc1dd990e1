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

// The neutral input (docs/agents.md#the-seam): what every event carries, filled by the agent's
// adapter from its stdin (runtime/agent.hpp). Missing fields, and fields of the wrong type, are
// empty; hook_event_name is the agent's own name of the event.
struct HookInput {
  std::string session_id;
  std::string transcript_path;
  std::string cwd;
  std::string hook_event_name;
  std::string permission_mode;
  std::string prompt_id;
};

// The user's prompt.
struct PromptInput : HookInput {
  std::string prompt;
};

// What an agent's tool does, whatever its name.
enum class ToolKind { other, read, shell, write };

// A tool call, before or after it ran.
struct ToolInput : HookInput {
  std::string tool_name; // the agent's own name
  ToolKind tool = ToolKind::other;
  std::string tool_use_id;
  std::string tool_input;  // the JSON text of tool_input; "" when it is not an object
  std::string file_path;   // the file read or written (the first, when several)
  std::string command;     // a shell tool's command line
  std::string stdout_text; // a shell tool's output
  std::string stderr_text; // a shell tool's error output
  std::string error;       // a failed call: "Exit code N\n<output>"
};

// A session began.
struct SessionStartInput : HookInput {
  std::string source; // startup, resume, clear, compact
};

// The agent finished its turn.
struct StopInput : HookInput {
  std::string last_assistant_message;
  std::string agent_id; // set for a subagent's Stop
};

// A compaction.
struct CompactInput : HookInput {
  std::string compact_summary;
};

// The session ended.
struct SessionEndInput : HookInput {
  std::string reason;
};

// Read `fd` to EOF, keeping at most `cap` bytes and ignoring the rest; gives up at `deadline`.
std::string read_bounded(int fd, Deadline deadline, std::size_t cap = k_max_stdin_bytes);

// What a handler gives back. The agent's adapter puts each part where the agent takes it.
struct HookOutput {
  std::string context{};        // additionalContext, for the model
  std::string system_message{}; // systemMessage, shown to the user
  std::string block_reason{};   // non-empty: block the tool call (stderr, exit 2); guards only
  std::string updated_input{};  // PreToolUse: a JSON object replacing the tool's input
  // Work too slow for the hook itself (reading a transcript, importing files): run in the
  // detached sender's process, after the output is written and before it sends.
  std::function<void()> detached{};
};

} // namespace mem0
