#pragma once
// Gemini CLI's hook input and output (docs/agents.md#gemini-cli).
#include "runtime/io.hpp"
#include "runtime/transcript.hpp"
#include "util/error.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace mem0::gemini_cli_shape {

// Each event's input: session_id, transcript_path, cwd, hook_event_name, then the event's own.
Result<PromptInput> parse_prompt(std::string_view json); // BeforeAgent
Result<ToolInput> parse_tool(std::string_view json);     // BeforeTool, AfterTool
Result<SessionStartInput> parse_session_start(std::string_view json);
Result<StopInput> parse_stop(std::string_view json);       // AfterAgent
Result<CompactInput> parse_compact(std::string_view json); // PreCompress
Result<SessionEndInput> parse_session_end(std::string_view json);

// The kind of Gemini CLI's tool `name`: read_file and read_many_files, run_shell_command, and
// write_file / replace.
ToolKind tool_kind(std::string_view name);

// The prompt as the user typed it: BeforeAgent's and AfterAgent's `prompt` carry the text of
// every file named with `@` after "\n--- Content from referenced files ---", and in a headless
// run SessionStart's context before it, as "<hook_context>…</hook_context>\n\n".
std::string_view typed_prompt(std::string_view prompt);

// What run_shell_command's `tool_response.llmContent` says: "Output: <text>" up to the
// "Exit Code: N" / "Error: …" / "Signal: …" / "Process Group PGID: …" lines, inside
// <untrusted_context> tags.
struct ShellResult {
  std::string output;
  std::optional<int> exit_code; // present only when the command failed
  std::string error;            // a process-level error (spawn failure)
};
ShellResult parse_shell_result(std::string_view llm_content);

// True when Gemini CLI reads `hookSpecificOutput.additionalContext` for `event`: SessionStart,
// BeforeAgent and AfterTool.
bool accepts_context(std::string_view event);

// {"hookSpecificOutput":{"hookEventName":<event>,"additionalContext":<context>},
//  "systemMessage":<message>}, with only the fields `event` accepts; "" when there is nothing to
// print. Never a decision: AfterAgent's `deny` would make the agent answer again.
std::string render(std::string_view event, const HookOutput &output);

// The session's transcript (`transcript_path`: JSONL records of type "user" and "gemini"; a
// record whose id was seen already replaces it), read as read_jsonl reads;
// files_touched from write_file / replace calls.
Transcript read_gemini_transcript(const std::filesystem::path &path, std::size_t window);

// The text of the turn's answer: the "gemini" messages after the last user message, joined by
// newlines; "" when there are none.
std::string last_answer(const Transcript &transcript);

} // namespace mem0::gemini_cli_shape
