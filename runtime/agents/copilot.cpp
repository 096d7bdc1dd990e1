#include "runtime/agents/copilot.hpp"
#include "runtime/agent.hpp"
#include "runtime/agents/adapter.hpp"
#include "util/files.hpp"
#include "util/json.hpp"
#include "util/json_writer.hpp"
#include "util/strings.hpp"
#include "util/utf8.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

namespace mem0 {
namespace copilot_shape {

using adapter::object_member;
using adapter::parse_event;
using adapter::string_field;

namespace {

// The fields every event carries (docs/agents.md#github-copilot-cli); `timestamp` is not used.
void read_common(const rapidjson::Value &doc, HookInput &in) {
  in.session_id = string_field(doc, "sessionId");
  in.transcript_path = string_field(doc, "transcriptPath");
  in.cwd = string_field(doc, "cwd");
}

// One events.jsonl line as {type, data}; false when it is not such a line.
bool read_event(std::string_view line, rapidjson::Document &doc, std::string_view &type,
                const rapidjson::Value *&data) {
  if (!parse_json(doc, line) || !doc.IsObject()) return false;
  type = string_member(doc, "type").value_or("");
  data = object_member(doc, "data");
  return data != nullptr;
}

// True when an assistant.message asks for tools: its text then introduces the calls and is not
// the turn's reply.
bool requests_tools(const rapidjson::Value &data) {
  const auto requests = data.FindMember("toolRequests");
  return requests != data.MemberEnd() && requests->value.IsArray() && !requests->value.Empty();
}

void read_line(std::string_view line, Transcript &out, std::vector<std::string> &files) {
  rapidjson::Document doc;
  std::string_view type;
  const rapidjson::Value *data = nullptr;
  if (!read_event(line, doc, type, data)) return;
  if (type != "user.message" && type != "assistant.message") return;
  const bool assistant = type == "assistant.message";
  if (assistant && requests_tools(*data)) {
    for (const auto &call : (*data)["toolRequests"].GetArray()) {
      if (!call.IsObject() ||
          tool_kind(string_member(call, "name").value_or("")) != ToolKind::write)
        continue;
      if (const auto *args = object_member(call, "arguments"))
        if (auto path = string_field(*args, "path"); !path.empty() && is_valid_utf8(path))
          files.push_back(std::move(path));
    }
    return;
  }
  // `content` is what the user typed; `transformedContent` adds the hooks' context.
  std::string text = valid_utf8(string_field(*data, "content"));
  if (trim(text).empty()) return;
  out.messages.push_back({valid_utf8(string_field(*data, "messageId")),
                          assistant ? "assistant" : "user", std::move(text)});
}

// Each compaction's summary, as an assistant message (latest_compaction_summary).
void read_summary(std::string_view line, Transcript &out, std::vector<std::string> &) {
  rapidjson::Document doc;
  std::string_view type;
  const rapidjson::Value *data = nullptr;
  if (!read_event(line, doc, type, data) || type != "session.compaction_complete") return;
  if (std::string summary = valid_utf8(string_field(*data, "summaryContent"));
      !trim(summary).empty())
    out.messages.push_back({"", "assistant", std::move(summary)});
}

} // namespace

bool wait_for_line(const std::filesystem::path &events, std::string_view needle,
                   std::chrono::milliseconds patience) {
  const auto deadline = std::chrono::steady_clock::now() + patience;
  constexpr std::size_t tail = 64 * 1024;
  for (;;) {
    if (const auto seen = read_file_tail(events, tail);
        seen && seen->data.find(needle) != std::string::npos)
      return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

ToolKind tool_kind(std::string_view name) {
  if (name == "view") return ToolKind::read;
  if (name == "bash") return ToolKind::shell;
  if (name == "create" || name == "edit") return ToolKind::write;
  return ToolKind::other;
}

ShellResult parse_shell_result(std::string_view text) {
  ShellResult out;
  constexpr std::string_view open = "<shellId: ", marker = " completed with exit code ";
  const std::size_t start = text.rfind(open);
  const std::string_view last = start == std::string_view::npos ? "" : trim(text.substr(start));
  const std::size_t at = last.find(marker);
  if (at != std::string_view::npos && last.ends_with('>')) {
    const std::string_view code =
        last.substr(at + marker.size(), last.size() - 1 - at - marker.size());
    int value = 0;
    if (std::from_chars(code.data(), code.data() + code.size(), value).ec == std::errc{})
      out.exit_code = value;
    text = text.substr(0, start);
  }
  out.output = std::string(trim(text));
  return out;
}

Result<PromptInput> parse_prompt(std::string_view json) {
  return parse_event<PromptInput>(json, read_common,
                                  [](const rapidjson::Value &doc, PromptInput &in) {
                                    in.prompt = string_field(doc, "prompt");
                                  });
}

Result<ToolInput> parse_tool(std::string_view json) {
  return parse_event<ToolInput>(json, read_common, [](const rapidjson::Value &doc, ToolInput &in) {
    in.tool_name = string_field(doc, "toolName");
    in.tool = tool_kind(in.tool_name);
    if (const auto *args = object_member(doc, "toolArgs")) {
      in.tool_input = adapter::to_json(*args);
      // Only a read's path: with no matchers, the read recall runs after every tool.
      if (in.tool == ToolKind::read) in.file_path = string_field(*args, "path");
      if (in.tool == ToolKind::shell) in.command = string_field(*args, "command");
    }
    const auto *result = object_member(doc, "toolResult");
    if (!result || in.tool != ToolKind::shell) return;
    // A command that failed is still a successful tool call: its exit code is only in the text
    // the model is shown.
    ShellResult shell = parse_shell_result(string_field(*result, "textResultForLlm"));
    const bool failed = string_field(*result, "resultType") == "failure";
    if ((shell.exit_code && *shell.exit_code != 0) || failed)
      in.error = "Exit code " + std::to_string(shell.exit_code.value_or(1)) + "\n" + shell.output;
    else
      in.stdout_text = std::move(shell.output);
  });
}

Result<SessionStartInput> parse_session_start(std::string_view json) {
  return parse_event<SessionStartInput>(
      json, read_common, [](const rapidjson::Value &doc, SessionStartInput &in) {
        in.source = string_field(doc, "source");
        if (in.source == "new") in.source = "startup"; // a fresh session, in the core's words
      });
}

Result<StopInput> parse_stop(std::string_view json) {
  long long stamp = 0;
  auto in =
      parse_event<StopInput>(json, read_common, [&stamp](const rapidjson::Value &doc, StopInput &) {
        stamp = int64_member(doc, "timestamp").value_or(0);
      });
  // agentStop carries no text: the reply is the last assistant message of events.jsonl. Copilot
  // CLI writes that file behind its events, so the hook waits for this run's own hook.start line
  // (which follows the reply) first.
  if (in && !in->transcript_path.empty()) {
    if (stamp > 0) wait_for_line(in->transcript_path, "\"timestamp\":" + std::to_string(stamp));
    const Transcript t = read_events(in->transcript_path, k_transcript_window);
    if (!t.messages.empty() && t.messages.back().role == "assistant")
      in->last_assistant_message = t.messages.back().text;
  }
  return in;
}

Result<CompactInput> parse_compact(std::string_view json) {
  auto in =
      parse_event<CompactInput>(json, read_common, [](const rapidjson::Value &, CompactInput &) {});
  if (in && !in->transcript_path.empty())
    in->compact_summary = latest_compaction_summary(in->transcript_path);
  return in;
}

Result<SessionEndInput> parse_session_end(std::string_view json) {
  return parse_event<SessionEndInput>(json, read_common,
                                      [](const rapidjson::Value &doc, SessionEndInput &in) {
                                        in.reason = string_field(doc, "reason");
                                      });
}

std::string render(std::string_view event, const HookOutput &output) {
  constexpr std::array<std::string_view, 5> with_context{
      "sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse", "postToolUseFailure"};
  if (output.context.empty() ||
      std::find(with_context.begin(), with_context.end(), event) == with_context.end())
    return {};
  JsonWriter w;
  w.begin_object().member("additionalContext", output.context).end_object();
  return w.text() + "\n";
}

Transcript read_events(const std::filesystem::path &path, std::size_t window) {
  return read_jsonl_transcript(path, window, read_line);
}

std::string latest_compaction_summary(const std::filesystem::path &events) {
  const Transcript summaries = read_jsonl_transcript(events, k_transcript_window, read_summary);
  return summaries.messages.empty() ? std::string() : summaries.messages.back().text;
}

} // namespace copilot_shape

const Agent &copilot() {
  using namespace copilot_shape;
  static constexpr Agent agent{
      .name = "copilot",
      .display_name = "GitHub Copilot CLI",
      .session_env = "", // Copilot CLI gives its hooks no session variable
      .project_dir_env = "COPILOT_PROJECT_DIR",
      .prompt = parse_prompt,
      .tool = parse_tool,
      .session_start = parse_session_start,
      .stop = parse_stop,
      .compact = parse_compact,
      .session_end = parse_session_end,
      .render = render,
      .transcript = read_events,
      .native_memory_globs = {}, // the guard is not wired for Copilot CLI
      .files = {.dir = ".copilot",
                .dir_env = "COPILOT_HOME",
                .user_file = "hooks/mem0.json",
                .project_file = ".github/hooks/mem0.json",
                .format = k_copilot_hooks,
                .windows_shell = CommandShell::powershell,
                .mcp_file = "mcp-config.json",
                .program = "copilot",
                .version_arg = "--version",
                .install_note = "Copilot CLI runs a repository's .github/hooks only in a trusted "
                                "folder"},
      .server_session_env = "COPILOT_AGENT_SESSION_ID",
  };
  return agent;
}

} // namespace mem0
