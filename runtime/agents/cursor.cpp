// Cursor's hooks, from its documented schema (docs/agents.md#cursor): not proven in the client,
// which cannot run here.
#include "runtime/agent.hpp"
#include "runtime/agents/adapter.hpp"
#include "util/json_writer.hpp"

#include <rapidjson/document.h>

namespace mem0 {
namespace {

using adapter::object_member;
using adapter::parse_event;
using adapter::string_field;

// The fields every event carries: conversation_id (sessionStart and sessionEnd also name it
// session_id), hook_event_name, transcript_path, and workspace_roots, whose first is the project.
void read_common(const rapidjson::Value &doc, HookInput &in) {
  in.session_id = string_field(doc, "conversation_id");
  if (in.session_id.empty()) in.session_id = string_field(doc, "session_id");
  in.hook_event_name = string_field(doc, "hook_event_name");
  in.transcript_path = string_field(doc, "transcript_path");
  const auto roots = doc.FindMember("workspace_roots");
  if (roots != doc.MemberEnd() && roots->value.IsArray() && !roots->value.Empty() &&
      roots->value[0].IsString())
    in.cwd = roots->value[0].GetString();
  if (in.cwd.empty()) in.cwd = string_field(doc, "cwd");
}

Result<PromptInput> parse_prompt(std::string_view json) {
  return parse_event<PromptInput>(json, read_common,
                                  [](const rapidjson::Value &doc, PromptInput &in) {
                                    in.prompt = string_field(doc, "prompt");
                                  });
}

// The matcher values Cursor documents for its tools: Shell, Read, Write, Grep, Delete, Task and
// MCP:<name>.
ToolKind tool_kind(std::string_view name) {
  if (name == "Read") return ToolKind::read;
  if (name == "Shell") return ToolKind::shell;
  if (name == "Write") return ToolKind::write;
  return ToolKind::other;
}

// postToolUse's tool_output: the tool's result as JSON text; a shell's has exitCode and its
// output in stdout (documented) or output (as reported from the client), and stderr.
void read_tool_output(const rapidjson::Value &doc, ToolInput &in) {
  const auto member = doc.FindMember("tool_output");
  if (member == doc.MemberEnd()) return;
  rapidjson::Document parsed;
  const rapidjson::Value *result = &member->value;
  if (member->value.IsString()) {
    const std::string text = member->value.GetString();
    parse_json(parsed, text);
    if (parsed.HasParseError() || !parsed.IsObject()) {
      in.stdout_text = text;
      return;
    }
    result = &parsed;
  }
  if (!result->IsObject()) return;
  in.stdout_text = string_field(*result, "stdout");
  if (in.stdout_text.empty()) in.stdout_text = string_field(*result, "output");
  in.stderr_text = string_field(*result, "stderr");
  const auto code = result->FindMember("exitCode");
  if (code != result->MemberEnd() && code->value.IsInt() && code->value.GetInt() != 0)
    in.error = "Exit code " + std::to_string(code->value.GetInt());
}

Result<ToolInput> parse_tool(std::string_view json) {
  return parse_event<ToolInput>(json, read_common, [](const rapidjson::Value &doc, ToolInput &in) {
    in.tool_name = string_field(doc, "tool_name");
    in.tool = tool_kind(in.tool_name);
    in.tool_use_id = string_field(doc, "tool_use_id");
    if (const auto *tool_input = object_member(doc, "tool_input")) {
      in.tool_input = adapter::to_json(*tool_input);
      // Cursor does not document its Read tool's arguments: the names its tools are known by.
      for (const char *name : {"file_path", "path", "target_file"})
        if (in.file_path.empty()) in.file_path = string_field(*tool_input, name);
      in.command = string_field(*tool_input, "command");
    }
    read_tool_output(doc, in);
  });
}

// sessionStart comes when a conversation is created: a startup, as the core names it.
Result<SessionStartInput> parse_session_start(std::string_view json) {
  return parse_event<SessionStartInput>(
      json, read_common,
      [](const rapidjson::Value &, SessionStartInput &in) { in.source = "startup"; });
}

// afterAgentResponse's text is the assistant's message; stop carries none.
Result<StopInput> parse_stop(std::string_view json) {
  return parse_event<StopInput>(json, read_common, [](const rapidjson::Value &doc, StopInput &in) {
    in.last_assistant_message = string_field(doc, "text");
  });
}

// preCompact gives counts only (trigger, context_usage_percent, message_count, ...): no text.
Result<CompactInput> parse_compact(std::string_view json) {
  return parse_event<CompactInput>(json, read_common,
                                   [](const rapidjson::Value &, CompactInput &) {});
}

Result<SessionEndInput> parse_session_end(std::string_view json) {
  return parse_event<SessionEndInput>(json, read_common,
                                      [](const rapidjson::Value &doc, SessionEndInput &in) {
                                        in.reason = string_field(doc, "reason");
                                      });
}

// {"additional_context":…} on sessionStart and postToolUse, where Cursor documents it; nothing
// else anywhere: every other field can stop, block or re-prompt the agent.
std::string render(std::string_view event, const HookOutput &output) {
  if (output.context.empty() || (event != "sessionStart" && event != "postToolUse")) return {};
  JsonWriter w;
  w.begin_object().member("additional_context", output.context).end_object();
  return w.text() + "\n";
}

// Cursor's transcript format is not documented: capture uses the response text instead.
Transcript no_transcript(const std::filesystem::path &, std::size_t) { return {}; }

} // namespace

const Agent &cursor() {
  static constexpr Agent agent{
      .name = "cursor",
      .display_name = "Cursor",
      .session_env = "",
      .project_dir_env = "CURSOR_PROJECT_DIR",
      .prompt = parse_prompt,
      .tool = parse_tool,
      .session_start = parse_session_start,
      .stop = parse_stop,
      .compact = parse_compact,
      .session_end = parse_session_end,
      .render = render,
      .transcript = no_transcript,
      .native_memory_globs = {},
      .files = {.dir = ".cursor",
                .dir_env = "",
                .user_file = "hooks.json",
                .project_file = ".cursor/hooks.json",
                .format = k_cursor_hooks,
                .windows_shell = CommandShell::powershell,
                .mcp_file = "mcp.json",
                .program = "cursor-agent",
                .version_arg = "--version",
                .install_note = "Cursor reloads hooks.json by itself",
                .also_runs_hooks_of = "claude-code",
                .also_runs_called = "third-party hooks",
                .also_runs_fix = "turn third-party hooks off in Cursor's settings"},
  };
  return agent;
}

} // namespace mem0
