#pragma once
// Codex CLI's hook input and output (docs/agents.md#codex-cli): Claude Code's shapes, with
// Codex's tools, its rollout as the transcript, and its stricter output schemas.
#include "runtime/io.hpp"
#include "runtime/transcript.hpp"
#include "util/error.hpp"

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mem0::codex_shape {

// The kind of Codex's tool `name` as hooks see it: `Bash` (the model's exec_command) is the
// shell, `apply_patch` writes.
ToolKind tool_kind(std::string_view name);

// The files an apply_patch text adds or updates (`*** Add File: <path>` and
// `*** Update File: <path>` lines), in order.
std::vector<std::string> patched_files(std::string_view patch);

// The file a shell command reads for before-read recall: of the files it reads
// (files_read_by), the first that is a regular file (relative to `cwd`), else the first; "" for
// none.
std::string file_read_by(std::string_view command, const std::filesystem::path &cwd);

// A tool call: Claude Code's fields, with `file_path` the file a shell command reads or the
// first file a patch writes, and for a shell command's PostToolUse, `error` "Exit code N" when
// the rollout says it exited non-zero (Codex's input carries no exit code).
Result<ToolInput> parse_tool(std::string_view json);

// A compaction: the summary is not in Codex's input; at PostCompact it is read from the rollout.
Result<CompactInput> parse_compact(std::string_view json);

// True when Codex's output schema for `event` has `hookSpecificOutput.additionalContext`
// (SessionStart, UserPromptSubmit, PreToolUse, PostToolUse), or `systemMessage` (those and
// Stop, PreCompact, PostCompact).
bool accepts_context(std::string_view event);
bool accepts_message(std::string_view event);

// {"hookSpecificOutput":{"hookEventName":<event>,"additionalContext":<context>},
//  "systemMessage":<message>} with only the fields Codex's schema for `event` has (it rejects
// the whole output for any other); never updatedInput or a permission decision. "" when there
// is nothing to print.
std::string render(std::string_view event, const HookOutput &output);

// Codex CLI's rollout (the `transcript_path` Codex gives its hooks, a JSONL file of
// `{"type":…,"payload":…}` entries), read into the same shapes (docs/agents.md#codex-cli).
struct CodexCommand {
  std::string id; // the call id: `tool_use_id` of the hook input
  int exit_code = 0;
};

struct CodexRollout {
  // The user's prompts and the agent's messages (`item_completed` UserMessage / AgentMessage
  // events, their `id` as uuid); the files `apply_patch` added or updated (FileChange items).
  Transcript transcript;
  std::vector<CodexCommand> commands; // finished shell commands, in order (the newest 64)
  std::string compaction_summary;     // the latest compaction's summary, Codex's preface removed
};

inline constexpr std::size_t k_max_codex_commands = 64;

// Read at most the last `window` bytes of the rollout at `path` as read_jsonl reads: a line cut
// by the window and any malformed line are skipped; a missing file gives an empty rollout.
CodexRollout read_codex_rollout(const std::filesystem::path &path,
                                std::size_t window = k_transcript_window);

// The exit code of the command `id` in `rollout`; nullopt when it is not there.
std::optional<int> exit_code_of(const CodexRollout &rollout, std::string_view id);

} // namespace mem0::codex_shape
