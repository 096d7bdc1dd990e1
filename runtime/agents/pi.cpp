// The Pi coding agent (docs/agents.md#pi): its extension events reach the executables through
// the shim (shims/pi/mem0.js), which sends each event's own object, with the session id and the
// working directory, and applies the `{"context":…}` it gets back.
#include "runtime/agent.hpp"
#include "runtime/agents/adapter.hpp"
#include "util/strings.hpp"

#include <rapidjson/document.h>

namespace mem0 {
namespace {

using adapter::object_member;
using adapter::parse_event;
using adapter::string_field;

// The fields every payload carries: hook_event_name (Pi's event type), sessionId
// (ctx.sessionManager.getSessionId()) and cwd (ctx.cwd).
void read_common(const rapidjson::Value &doc, HookInput &in) {
  in.hook_event_name = string_field(doc, "hook_event_name");
  in.session_id = string_field(doc, "sessionId");
  in.cwd = string_field(doc, "cwd");
}

// The content blocks of `doc` (`member`: an array of {"type":"text","text":…}), their text.
std::string content_text(const rapidjson::Value &doc, const char *member) {
  const auto content = doc.FindMember(member);
  if (content == doc.MemberEnd()) return {};
  if (content->value.IsString()) return content->value.GetString();
  return adapter::text_parts(&content->value);
}

// before_agent_start: the user's `prompt`.
Result<PromptInput> parse_prompt(std::string_view json) {
  return parse_event<PromptInput>(json, read_common,
                                  [](const rapidjson::Value &doc, PromptInput &in) {
                                    in.prompt = string_field(doc, "prompt");
                                  });
}

// The exit code of a failed bash result, whose text ends "Command exited with code N".
std::string exit_error(std::string_view text) {
  constexpr std::string_view marker = "Command exited with code ";
  const auto at = text.rfind(marker);
  if (at == std::string_view::npos) return {};
  const std::string_view code = trim(text.substr(at + marker.size()));
  if (code.empty() || code.find_first_not_of("0123456789") != std::string_view::npos) return {};
  return "Exit code " + std::string(code);
}

// tool_result: toolName, toolCallId, input (read's path, relative to cwd; bash's command),
// content and isError.
Result<ToolInput> parse_tool(std::string_view json) {
  return parse_event<ToolInput>(json, read_common, [](const rapidjson::Value &doc, ToolInput &in) {
    in.tool_name = string_field(doc, "toolName");
    in.tool = adapter::js_tool_kind(in.tool_name);
    in.tool_use_id = string_field(doc, "toolCallId");
    if (const auto *input = object_member(doc, "input")) {
      in.tool_input = adapter::to_json(*input);
      in.file_path = string_field(*input, "path");
      in.command = string_field(*input, "command");
    }
    in.stdout_text = content_text(doc, "content");
    const auto failed = doc.FindMember("isError");
    if (failed != doc.MemberEnd() && failed->value.IsTrue()) {
      in.error = exit_error(in.stdout_text);
      if (in.error.empty()) in.error = "Exit code 1";
    }
  });
}

// Pi's session_start cannot add to the conversation: the shim sends the session's first
// before_agent_start here too, a startup as the core names it.
Result<SessionStartInput> parse_session_start(std::string_view json) {
  return parse_event<SessionStartInput>(
      json, read_common,
      [](const rapidjson::Value &, SessionStartInput &in) { in.source = "startup"; });
}

// agent_end: the run's `messages`; the reply is the last assistant message with text.
Result<StopInput> parse_stop(std::string_view json) {
  return parse_event<StopInput>(json, read_common, [](const rapidjson::Value &doc, StopInput &in) {
    const auto messages = doc.FindMember("messages");
    if (messages == doc.MemberEnd() || !messages->value.IsArray()) return;
    for (const auto &m : messages->value.GetArray()) {
      if (!m.IsObject() || string_field(m, "role") != "assistant") continue;
      if (std::string text = content_text(m, "content"); !text.empty())
        in.last_assistant_message = std::move(text);
    }
  });
}

// session_compact: compactionEntry.summary.
Result<CompactInput> parse_compact(std::string_view json) {
  return parse_event<CompactInput>(json, read_common,
                                   [](const rapidjson::Value &doc, CompactInput &in) {
                                     if (const auto *entry = object_member(doc, "compactionEntry"))
                                       in.compact_summary = string_field(*entry, "summary");
                                   });
}

// session_shutdown.
Result<SessionEndInput> parse_session_end(std::string_view json) {
  return parse_event<SessionEndInput>(
      json, read_common,
      [](const rapidjson::Value &, SessionEndInput &in) { in.reason = "shutdown"; });
}

} // namespace

const Agent &pi() {
  static constexpr Agent agent{
      .name = "pi",
      .display_name = "Pi",
      .session_env = "",
      .project_dir_env = "",
      .prompt = parse_prompt,
      .tool = parse_tool,
      .session_start = parse_session_start,
      .stop = parse_stop,
      .compact = parse_compact,
      .session_end = parse_session_end,
      .render = adapter::shim_output,
      .transcript = adapter::no_transcript,
      .native_memory_globs = {},
      .files = {.dir = ".pi/agent",
                .dir_env = "PI_CODING_AGENT_DIR",
                .user_file = "extensions/mem0.js",
                .project_file = ".pi/extensions/mem0.js",
                .shim = "pi",
                .mcp_file = "",
                .program = "pi",
                .version_arg = "--version",
                .install_note = "Pi loads the extension at its next start"},
  };
  return agent;
}

} // namespace mem0
