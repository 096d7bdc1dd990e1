#pragma once
// GitHub Copilot CLI's hook input and output (docs/agents.md#github-copilot-cli).
#include "runtime/io.hpp"
#include "runtime/transcript.hpp"
#include "util/error.hpp"

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace mem0::copilot_shape {

// Each event's input: sessionId, cwd, transcriptPath (agentStop, preCompact), then the event's
// own. No event carries its own name.
Result<PromptInput> parse_prompt(std::string_view json); // userPromptSubmitted
Result<ToolInput> parse_tool(std::string_view json);     // preToolUse, postToolUse
Result<SessionStartInput> parse_session_start(std::string_view json);
Result<StopInput> parse_stop(std::string_view json);       // agentStop
Result<CompactInput> parse_compact(std::string_view json); // agentStop, preCompact
Result<SessionEndInput> parse_session_end(std::string_view json);

// The kind of Copilot CLI's tool `name`: view, bash, and create / edit.
ToolKind tool_kind(std::string_view name);

// What bash's `toolResult.textResultForLlm` says: the output, then
// "<shellId: N completed with exit code K>" on its last line.
struct ShellResult {
  std::string output;
  std::optional<int> exit_code;
};
ShellResult parse_shell_result(std::string_view text);

// {"additionalContext":<context>} and a newline at the events whose context reaches the model
// (sessionStart, userPromptSubmitted, preToolUse, postToolUse, postToolUseFailure); "" otherwise
// or when there is no context. Copilot CLI shows the user nothing a hook prints.
std::string render(std::string_view event, const HookOutput &output);

// The session's events.jsonl (`transcriptPath`): the user's prompts (user.message) and the
// assistant's text (assistant.message), files_touched from create / edit requests, read as
// read_jsonl reads (runtime/transcript.hpp).
Transcript read_events(const std::filesystem::path &path, std::size_t window);

// True once the last 64 KB of `events` hold `needle`, looked for until `patience` has passed.
bool wait_for_line(const std::filesystem::path &events, std::string_view needle,
                   std::chrono::milliseconds patience = std::chrono::milliseconds(2000));

// The summary of the session's latest compaction (session.compaction_complete's summaryContent);
// "" when there was none.
std::string latest_compaction_summary(const std::filesystem::path &events);

} // namespace mem0::copilot_shape
