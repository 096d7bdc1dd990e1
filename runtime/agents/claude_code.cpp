#include "runtime/agents/claude_code.hpp"
#include "runtime/agent.hpp"
#include "runtime/agents/adapter.hpp"
#include "util/json.hpp"
#include "util/strings.hpp"
#include "util/utf8.hpp"

#include <array>

namespace mem0 {
namespace claude_code_shape {

using adapter::object_member;
using adapter::parse_event;
using adapter::string_field;

void read_common(const rapidjson::Value &doc, HookInput &in) {
  in.session_id = string_field(doc, "session_id");
  in.transcript_path = string_field(doc, "transcript_path");
  in.cwd = string_field(doc, "cwd");
  in.hook_event_name = string_field(doc, "hook_event_name");
  in.permission_mode = string_field(doc, "permission_mode");
  in.prompt_id = string_field(doc, "prompt_id");
}

Result<PromptInput> parse_prompt(std::string_view json) {
  return parse_event<PromptInput>(json, read_common,
                                  [](const rapidjson::Value &doc, PromptInput &in) {
                                    in.prompt = string_field(doc, "prompt");
                                  });
}

ToolKind tool_kind(std::string_view name) {
  if (name == "Read") return ToolKind::read;
  if (name == "Bash") return ToolKind::shell;
  if (name == "Write" || name == "Edit" || name == "MultiEdit") return ToolKind::write;
  return ToolKind::other;
}

Result<ToolInput> parse_tool(std::string_view json) {
  return parse_event<ToolInput>(json, read_common, [](const rapidjson::Value &doc, ToolInput &in) {
    in.tool_name = string_field(doc, "tool_name");
    in.tool = tool_kind(in.tool_name);
    in.tool_use_id = string_field(doc, "tool_use_id");
    in.error = string_field(doc, "error");
    if (const auto *tool_input = object_member(doc, "tool_input")) {
      in.tool_input = adapter::to_json(*tool_input);
      in.file_path = string_field(*tool_input, "file_path");
      in.command = string_field(*tool_input, "command");
    }
    if (const auto *response = object_member(doc, "tool_response")) {
      in.stdout_text = string_field(*response, "stdout");
      in.stderr_text = string_field(*response, "stderr");
    } else {
      in.stdout_text = string_field(doc, "tool_response");
    }
  });
}

Result<SessionStartInput> parse_session_start(std::string_view json) {
  return parse_event<SessionStartInput>(json, read_common,
                                        [](const rapidjson::Value &doc, SessionStartInput &in) {
                                          in.source = string_field(doc, "source");
                                        });
}

Result<StopInput> parse_stop(std::string_view json) {
  return parse_event<StopInput>(json, read_common, [](const rapidjson::Value &doc, StopInput &in) {
    in.last_assistant_message = string_field(doc, "last_assistant_message");
    in.agent_id = string_field(doc, "agent_id");
  });
}

Result<CompactInput> parse_compact(std::string_view json) {
  return parse_event<CompactInput>(json, read_common,
                                   [](const rapidjson::Value &doc, CompactInput &in) {
                                     in.compact_summary = string_field(doc, "compact_summary");
                                   });
}

Result<SessionEndInput> parse_session_end(std::string_view json) {
  return parse_event<SessionEndInput>(json, read_common,
                                      [](const rapidjson::Value &doc, SessionEndInput &in) {
                                        in.reason = string_field(doc, "reason");
                                      });
}

bool accepts_context(std::string_view event) {
  for (std::string_view e :
       {"UserPromptSubmit", "SessionStart", "PreToolUse", "PostToolUse", "PostToolUseFailure"})
    if (e == event) return true;
  return false;
}

std::string render(std::string_view event, const HookOutput &output) {
  return adapter::hook_specific_output(
      event, accepts_context(event) ? output.context : std::string_view(), output.system_message,
      event == "PreToolUse" ? output.updated_input : std::string_view());
}

namespace {

// True when the member `name` of `object` is the boolean true (a string "true" is not).
bool flag(const rapidjson::Value &object, const char *name) {
  const auto it = object.FindMember(name);
  return it != object.MemberEnd() && it->value.IsBool() && it->value.GetBool();
}

// The tools whose calls write a file.
bool is_file_tool(std::string_view name) {
  return name == "Write" || name == "Edit" || name == "MultiEdit" || name == "NotebookEdit";
}

// The file a Write/Edit/MultiEdit/NotebookEdit `tool_use` block writes; nullopt for any other.
std::optional<std::string> touched_file(const rapidjson::Value &block) {
  if (string_member(block, "type") != "tool_use" ||
      !is_file_tool(string_member(block, "name").value_or("")))
    return std::nullopt;
  const auto input = block.FindMember("input");
  if (input == block.MemberEnd() || !input->value.IsObject()) return std::nullopt;
  auto path = string_member(input->value, "file_path");
  if (!path) path = string_member(input->value, "notebook_path");
  // A path that is empty or not UTF-8 names no file we could report faithfully.
  if (!path || path->empty() || !is_valid_utf8(*path)) return std::nullopt;
  return std::string(*path);
}

// Text that is prose for the conversation: not empty, and for Claude not a JSON blob.
bool is_prose(std::string_view text, bool assistant) {
  return !text.empty() && !(assistant && trim(text).starts_with('{'));
}

// Add one transcript line to `out` (messages) and `files` (touched, oldest first); any line that
// is not a user or assistant entry of the main conversation is ignored.
void read_line(std::string_view line, Transcript &out, std::vector<std::string> &files) {
  rapidjson::Document doc;
  if (!parse_json(doc, line) || !doc.IsObject()) return;
  const auto type = string_member(doc, "type");
  if (type != "user" && type != "assistant") return;
  if (flag(doc, "isSidechain") || flag(doc, "isCompactSummary") || flag(doc, "isMeta")) return;
  const auto message = doc.FindMember("message");
  if (message == doc.MemberEnd() || !message->value.IsObject()) return;
  const auto content = message->value.FindMember("content");
  if (content == message->value.MemberEnd()) return;

  const bool assistant = type == "assistant";
  std::vector<std::string> parts;
  if (content->value.IsString()) {
    const std::string_view text(content->value.GetString(), content->value.GetStringLength());
    if (is_prose(text, assistant)) parts.emplace_back(text);
  } else if (content->value.IsArray()) {
    for (const auto &block : content->value.GetArray()) {
      if (!block.IsObject()) continue;
      if (assistant)
        if (auto file = touched_file(block)) files.push_back(std::move(*file));
      if (string_member(block, "type") != "text") continue; // tool_use, tool_result, images...
      const auto text = string_member(block, "text");
      if (text && is_prose(*text, assistant)) parts.emplace_back(*text);
    }
  }
  std::string text = valid_utf8(join(parts, "\n"));
  if (trim(text).empty()) return;
  out.messages.push_back(
      {valid_utf8(string_member(doc, "uuid").value_or("")), std::string(*type), std::move(text)});
}

} // namespace

Transcript read_transcript(const std::filesystem::path &path, std::size_t window) {
  return read_jsonl_transcript(path, window, read_line);
}

} // namespace claude_code_shape

namespace {

// Claude Code's own memory: CLAUDE.md's auto-memory files.
constexpr std::array<std::string_view, 2> k_native_memory{"*/.claude/*/MEMORY.md",
                                                          "*/.claude/memory/*"};

} // namespace

const Agent &claude_code() {
  using namespace claude_code_shape;
  static constexpr Agent agent{
      .name = "claude-code",
      .display_name = "Claude Code",
      .session_env = "CLAUDE_CODE_SESSION_ID",
      .project_dir_env = "CLAUDE_PROJECT_DIR",
      .prompt = parse_prompt,
      .tool = parse_tool,
      .session_start = parse_session_start,
      .stop = parse_stop,
      .compact = parse_compact,
      .session_end = parse_session_end,
      .render = render,
      .transcript = read_transcript,
      .native_memory_globs = k_native_memory,
      .files = {.dir = ".claude",
                .dir_env = "CLAUDE_CONFIG_DIR",
                .user_file = "settings.json",
                .project_file = ".claude/settings.json",
                .format = HooksFormat::claude,
                .windows_shell = CommandShell::git_bash,
                .mcp_file = "",
                .program = "claude",
                .version_arg = "--version",
                .install_note = "start a new Claude Code session (running ones keep their hooks)",
                .plugin_installs = true},
      .server_session_env = "CLAUDE_CODE_SESSION_ID",
  };
  return agent;
}

} // namespace mem0
