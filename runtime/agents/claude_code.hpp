#pragma once
// Claude Code's hook input and output (docs/hooks.md#hook-input). Codex takes the same shapes.
#include "runtime/io.hpp"
#include "runtime/transcript.hpp"
#include "util/error.hpp"

#include <rapidjson/document.h>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace mem0::claude_code_shape {

// The fields every event carries: session_id, transcript_path, cwd, hook_event_name,
// permission_mode, prompt_id.
void read_common(const rapidjson::Value &doc, HookInput &in);

// Each event's input: the common fields, then the event's own.
Result<PromptInput> parse_prompt(std::string_view json);
Result<ToolInput> parse_tool(std::string_view json);
Result<SessionStartInput> parse_session_start(std::string_view json);
Result<StopInput> parse_stop(std::string_view json);
Result<CompactInput> parse_compact(std::string_view json);
Result<SessionEndInput> parse_session_end(std::string_view json);

// The kind of Claude Code's tool `name`: Read, Bash, and Write / Edit / MultiEdit.
ToolKind tool_kind(std::string_view name);

// True when Claude Code reads `hookSpecificOutput.additionalContext` for `event`.
bool accepts_context(std::string_view event);

// {"hookSpecificOutput":{"hookEventName":<event>,"additionalContext":<context>,
//  "updatedInput":<object>},"systemMessage":<message>}, with only the fields `event` accepts;
// "" when there is nothing to print.
std::string render(std::string_view event, const HookOutput &output);

// Claude Code's session transcript (`transcript_path`, a JSONL file), read for capture
// (docs/capture.md#the-transcript): at most its last `window` bytes, line by line (a line cut by
// the window is skipped), tolerating any malformed line. Skips sidechain (subagent) entries,
// compact summaries, meta entries, tool results and assistant text that starts with `{`;
// collects the `file_path` of Write, Edit, MultiEdit and NotebookEdit tool calls. A missing or
// unreadable file gives an empty transcript.
Transcript read_transcript(const std::filesystem::path &path,
                           std::size_t window = k_transcript_window);

} // namespace mem0::claude_code_shape
