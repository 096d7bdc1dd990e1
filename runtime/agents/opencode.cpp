// OpenCode (docs/agents.md#opencode): its plugin hooks reach the executables through the shim
// (shims/opencode/mem0.js), which sends each hook's own objects as one JSON payload and applies
// the `{"context":…}` it gets back.
#include "runtime/agent.hpp"
#include "runtime/agents/adapter.hpp"

#include <rapidjson/document.h>

namespace mem0 {
namespace {

using adapter::object_member;
using adapter::parse_event;
using adapter::string_field;

// The fields every payload carries: hook_event_name (the plugin hook, or the bus event's type),
// sessionID, and directory (the plugin context's: OpenCode's project directory).
void read_common(const rapidjson::Value &doc, HookInput &in) {
  in.hook_event_name = string_field(doc, "hook_event_name");
  in.session_id = string_field(doc, "sessionID");
  in.cwd = string_field(doc, "directory");
}

// chat.message: the user message's parts; the prompt is their text, our own synthetic parts
// left out.
Result<PromptInput> parse_prompt(std::string_view json) {
  return parse_event<PromptInput>(
      json, read_common, [](const rapidjson::Value &doc, PromptInput &in) {
        const auto parts = doc.FindMember("parts");
        in.prompt = adapter::text_parts(parts == doc.MemberEnd() ? nullptr : &parts->value, true);
      });
}

// tool.execute.after: `tool`, `callID`, `args` (read's filePath, bash's command) and the tool's
// `output` ({title, output, metadata}; bash's metadata.exit is its exit code).
Result<ToolInput> parse_tool(std::string_view json) {
  return parse_event<ToolInput>(json, read_common, [](const rapidjson::Value &doc, ToolInput &in) {
    in.tool_name = string_field(doc, "tool");
    in.tool = adapter::js_tool_kind(in.tool_name);
    in.tool_use_id = string_field(doc, "callID");
    if (const auto *args = object_member(doc, "args")) {
      in.tool_input = adapter::to_json(*args);
      in.file_path = string_field(*args, "filePath");
      in.command = string_field(*args, "command");
    }
    const auto *result = object_member(doc, "output");
    if (!result) return;
    in.stdout_text = string_field(*result, "output");
    if (const auto *metadata = object_member(*result, "metadata")) {
      const auto exit = metadata->FindMember("exit");
      if (exit != metadata->MemberEnd() && exit->value.IsInt() && exit->value.GetInt() != 0)
        in.error = "Exit code " + std::to_string(exit->value.GetInt());
    }
  });
}

// OpenCode has no session-start hook that reaches the model: the shim sends the session's first
// chat.message here too, a startup as the core names it.
Result<SessionStartInput> parse_session_start(std::string_view json) {
  return parse_event<SessionStartInput>(
      json, read_common,
      [](const rapidjson::Value &, SessionStartInput &in) { in.source = "startup"; });
}

// The session's latest messages, as the shim fetched them at session.idle and
// session.compacted (`client.session.messages`: `[{info: {role, summary, …}, parts}]`, oldest
// first): the last assistant message, and whether it is a compaction's summary; nullptr when
// there is none.
const rapidjson::Value *last_assistant(const rapidjson::Value &doc, bool summary) {
  const auto messages = doc.FindMember("messages");
  if (messages == doc.MemberEnd() || !messages->value.IsArray()) return nullptr;
  const auto &list = messages->value;
  for (auto i = list.Size(); i-- > 0;) {
    const auto &m = list[i];
    const auto *info = m.IsObject() ? object_member(m, "info") : nullptr;
    if (!info || string_field(*info, "role") != "assistant") continue;
    const auto flag = info->FindMember("summary");
    const bool is_summary = flag != info->MemberEnd() && flag->value.IsTrue();
    if (!summary) return is_summary ? nullptr : &m; // a summary is no reply
    if (is_summary) return &m;
  }
  return nullptr;
}

// The text of a message's parts (ours, the synthetic ones, left out).
std::string message_text(const rapidjson::Value *message) {
  if (!message) return {};
  const auto parts = message->FindMember("parts");
  return adapter::text_parts(parts == message->MemberEnd() ? nullptr : &parts->value, true);
}

// session.idle: the turn is over; its reply is the text of the session's last assistant
// message (one message per step: a text before a tool call is an earlier one's). None when
// that message is a compaction's summary: on_compact captures that one.
Result<StopInput> parse_stop(std::string_view json) {
  return parse_event<StopInput>(json, read_common, [](const rapidjson::Value &doc, StopInput &in) {
    in.last_assistant_message = message_text(last_assistant(doc, false));
  });
}

// session.compacted: the summary is the text of the latest assistant message marked
// `summary: true`.
Result<CompactInput> parse_compact(std::string_view json) {
  return parse_event<CompactInput>(json, read_common,
                                   [](const rapidjson::Value &doc, CompactInput &in) {
                                     in.compact_summary = message_text(last_assistant(doc, true));
                                   });
}

// session.idle: the run is over (`opencode run` exits after it).
Result<SessionEndInput> parse_session_end(std::string_view json) {
  return parse_event<SessionEndInput>(
      json, read_common, [](const rapidjson::Value &, SessionEndInput &in) { in.reason = "idle"; });
}

} // namespace

const Agent &opencode() {
  static constexpr Agent agent{
      .name = "opencode",
      .display_name = "OpenCode",
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
      .files = {.dir = ".config/opencode",
                .dir_env = "",
                .user_file = "plugins/mem0.js",
                .project_file = ".opencode/plugins/mem0.js",
                .shim = "opencode",
                .mcp_file = "opencode.json",
                .mcp_format = McpFormat::opencode,
                .program = "opencode",
                .version_arg = "--version",
                .install_note = "OpenCode loads the plugin at its next start",
                .commands_in_mcp_file = true},
  };
  return agent;
}

} // namespace mem0
