#include "runtime/agents/gemini_cli.hpp"
#include "runtime/agent.hpp"
#include "runtime/agents/adapter.hpp"
#include "util/json.hpp"
#include "util/strings.hpp"
#include "util/utf8.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <vector>

namespace mem0 {
namespace gemini_cli_shape {

using adapter::object_member;
using adapter::parse_event;
using adapter::string_field;

namespace {

// The fields every event carries (docs/agents.md#gemini-cli); `timestamp` is not used.
void read_common(const rapidjson::Value &doc, HookInput &in) {
  in.session_id = string_field(doc, "session_id");
  in.transcript_path = string_field(doc, "transcript_path");
  in.cwd = string_field(doc, "cwd");
  in.hook_event_name = string_field(doc, "hook_event_name");
}

// The first entry of read_many_files' `include` that names one file (no glob characters).
std::string first_plain_include(const rapidjson::Value &tool_input) {
  for (const auto &entry : strings_member(tool_input, "include"))
    if (!entry.empty() && entry.find_first_of("*?[{") == std::string::npos) return entry;
  return {};
}

// `text` without `prefix` when it starts with it; nullopt otherwise.
std::optional<std::string_view> after_prefix(std::string_view text, std::string_view prefix) {
  if (!text.starts_with(prefix)) return std::nullopt;
  return text.substr(prefix.size());
}

// The error message of a tool_response: `error` as a string, or its `message`.
std::string response_error(const rapidjson::Value &response) {
  if (auto text = string_field(response, "error"); !text.empty()) return text;
  if (const auto *error = object_member(response, "error")) return string_field(*error, "message");
  return {};
}

} // namespace

std::string_view typed_prompt(std::string_view prompt) {
  constexpr std::string_view marker = "\n--- Content from referenced files ---";
  constexpr std::string_view open = "<hook_context>", close = "</hook_context>";
  prompt = prompt.substr(0, prompt.find(marker));
  // SessionStart's context, put before the first prompt of a headless run (its `<` and `>` are
  // escaped, so the first close tag ends it).
  while (prompt.starts_with(open)) {
    const std::size_t end = prompt.find(close);
    if (end == std::string_view::npos) break;
    prompt.remove_prefix(end + close.size());
    prompt.remove_prefix(std::min(prompt.size(), prompt.find_first_not_of(" \t\r\n")));
  }
  return prompt;
}

ShellResult parse_shell_result(std::string_view text) {
  ShellResult out;
  text = trim(text);
  if (auto inner = after_prefix(text, "<untrusted_context>")) {
    text = *inner;
    if (text.ends_with("</untrusted_context>"))
      text.remove_suffix(std::string_view("</untrusted_context>").size());
    text = trim(text);
  }
  // The trailer lines, last first, in the reverse of the order the tool writes them.
  constexpr std::array<std::string_view, 5> trailers{
      "Process Group PGID: ", "Background PIDs: ", "Signal: ", "Exit Code: ", "Error: "};
  std::size_t next = 0;
  while (next < trailers.size()) {
    const std::size_t nl = text.rfind('\n');
    const std::string_view last = nl == std::string_view::npos ? text : text.substr(nl + 1);
    std::size_t found = next;
    while (found < trailers.size() && !last.starts_with(trailers[found]))
      ++found;
    if (found == trailers.size()) break;
    const std::string_view value = last.substr(trailers[found].size());
    if (trailers[found] == "Exit Code: ") {
      int code = 0;
      if (std::from_chars(value.data(), value.data() + value.size(), code).ec == std::errc{})
        out.exit_code = code;
    } else if (trailers[found] == "Error: ") {
      out.error = std::string(value);
    }
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(0, nl);
    next = found + 1;
  }
  if (auto output = after_prefix(text, "Output: ")) text = *output;
  out.output = text == "(empty)" ? std::string{} : std::string(text);
  return out;
}

Result<PromptInput> parse_prompt(std::string_view json) {
  return parse_event<PromptInput>(
      json, read_common, [](const rapidjson::Value &doc, PromptInput &in) {
        in.prompt = std::string(typed_prompt(string_field(doc, "prompt")));
      });
}

ToolKind tool_kind(std::string_view name) {
  if (name == "read_file" || name == "read_many_files") return ToolKind::read;
  if (name == "run_shell_command") return ToolKind::shell;
  if (name == "write_file" || name == "replace") return ToolKind::write;
  return ToolKind::other;
}

Result<ToolInput> parse_tool(std::string_view json) {
  return parse_event<ToolInput>(json, read_common, [](const rapidjson::Value &doc, ToolInput &in) {
    in.tool_name = string_field(doc, "tool_name");
    in.tool = tool_kind(in.tool_name);
    if (const auto *tool_input = object_member(doc, "tool_input")) {
      in.tool_input = adapter::to_json(*tool_input);
      in.file_path = string_field(*tool_input, "file_path");
      if (in.file_path.empty() && in.tool_name == "read_many_files")
        in.file_path = first_plain_include(*tool_input);
      in.command = string_field(*tool_input, "command");
    }
    const auto *response = object_member(doc, "tool_response");
    if (!response || in.tool != ToolKind::shell) return;
    // The output and exit code are only in the text the model is shown (llmContent); the
    // display text is the output alone.
    ShellResult result = parse_shell_result(string_field(*response, "llmContent"));
    if (result.output.empty()) result.output = string_field(*response, "returnDisplay");
    if (result.exit_code && *result.exit_code != 0)
      in.error = "Exit code " + std::to_string(*result.exit_code) + "\n" + result.output;
    else
      in.stdout_text = std::move(result.output);
    in.stderr_text = result.error.empty() ? response_error(*response) : result.error;
  });
}

Result<SessionStartInput> parse_session_start(std::string_view json) {
  return parse_event<SessionStartInput>(json, read_common,
                                        [](const rapidjson::Value &doc, SessionStartInput &in) {
                                          in.source = string_field(doc, "source");
                                        });
}

Result<StopInput> parse_stop(std::string_view json) {
  auto in =
      parse_event<StopInput>(json, read_common, [](const rapidjson::Value &doc, StopInput &stop) {
        stop.last_assistant_message = string_field(doc, "prompt_response");
      });
  // prompt_response repeats the streamed pieces after the whole answer; the transcript, written
  // before AfterAgent runs, holds the answer once (docs/agents.md#gemini-cli).
  if (in && !in->transcript_path.empty())
    if (std::string answer =
            last_answer(read_gemini_transcript(in->transcript_path, k_transcript_window));
        !answer.empty())
      in->last_assistant_message = std::move(answer);
  return in;
}

Result<CompactInput> parse_compact(std::string_view json) {
  // PreCompress carries only `trigger`: no summary to capture.
  return parse_event<CompactInput>(json, read_common,
                                   [](const rapidjson::Value &, CompactInput &) {});
}

Result<SessionEndInput> parse_session_end(std::string_view json) {
  return parse_event<SessionEndInput>(json, read_common,
                                      [](const rapidjson::Value &doc, SessionEndInput &in) {
                                        in.reason = string_field(doc, "reason");
                                      });
}

bool accepts_context(std::string_view event) {
  return event == "SessionStart" || event == "BeforeAgent" || event == "AfterTool";
}

std::string render(std::string_view event, const HookOutput &output) {
  return adapter::hook_specific_output(
      event, accepts_context(event) ? output.context : std::string_view(), output.system_message);
}

namespace {

// The text parts of a user record's content (an array of parts, or a string); function
// responses (tool results) are not the user's words.
std::string user_text(const rapidjson::Value &content) {
  if (content.IsString()) return {content.GetString(), content.GetStringLength()};
  std::vector<std::string> parts;
  if (content.IsArray())
    for (const auto &part : content.GetArray())
      if (part.IsObject())
        if (auto text = string_member(part, "text"); text && !text->empty())
          parts.emplace_back(*text);
  return join(parts, "\n");
}

void read_line(std::string_view line, Transcript &out, std::vector<std::string> &files) {
  rapidjson::Document doc;
  if (!parse_json(doc, line) || !doc.IsObject()) return;
  const auto type = string_member(doc, "type");
  if (type != "user" && type != "gemini") return;
  const auto content = doc.FindMember("content");
  if (content == doc.MemberEnd()) return;
  const bool assistant = type == "gemini";
  if (assistant)
    if (const auto calls = doc.FindMember("toolCalls");
        calls != doc.MemberEnd() && calls->value.IsArray())
      for (const auto &call : calls->value.GetArray()) {
        if (!call.IsObject() ||
            tool_kind(string_member(call, "name").value_or("")) != ToolKind::write)
          continue;
        if (const auto *args = object_member(call, "args"))
          if (auto path = string_field(*args, "file_path"); !path.empty() && is_valid_utf8(path))
            files.push_back(std::move(path));
      }
  std::string text = valid_utf8(
      assistant ? (content->value.IsString()
                       ? std::string(content->value.GetString(), content->value.GetStringLength())
                       : std::string{})
                : user_text(content->value));
  const std::string id = valid_utf8(string_member(doc, "id").value_or(""));
  // A record written again (the answer, then the answer with its tool calls) replaces the first.
  if (!id.empty() && !out.messages.empty() && out.messages.back().uuid == id)
    out.messages.pop_back();
  if (trim(text).empty()) return; // a tool's result, or tool calls without text
  out.messages.push_back({id, assistant ? "assistant" : "user", std::move(text)});
}

} // namespace

Transcript read_gemini_transcript(const std::filesystem::path &path, std::size_t window) {
  return read_jsonl_transcript(path, window, read_line);
}

std::string last_answer(const Transcript &transcript) {
  std::vector<std::string> parts; // from the last message back to the last user message
  for (auto it = transcript.messages.rbegin(); it != transcript.messages.rend(); ++it) {
    if (it->role == "user") break;
    parts.push_back(it->text);
  }
  std::reverse(parts.begin(), parts.end());
  return join(parts, "\n");
}

} // namespace gemini_cli_shape

const Agent &gemini_cli() {
  using namespace gemini_cli_shape;
  static constexpr Agent agent{
      .name = "gemini-cli",
      .display_name = "Gemini CLI",
      .session_env = "GEMINI_SESSION_ID",
      .project_dir_env = "GEMINI_PROJECT_DIR",
      .prompt = parse_prompt,
      .tool = parse_tool,
      .session_start = parse_session_start,
      .stop = parse_stop,
      .compact = parse_compact,
      .session_end = parse_session_end,
      .render = render,
      .transcript = read_gemini_transcript,
      .native_memory_globs = {}, // no memory tool is offered in 0.61.0; the guard is not wired
      // GEMINI_CLI_HOME moves the home directory ~/.gemini is in, not .gemini itself: no dir_env.
      .files = {.dir = ".gemini",
                .dir_env = "",
                .user_file = "settings.json",
                .project_file = ".gemini/settings.json",
                .format = k_gemini_hooks,
                .windows_shell = CommandShell::powershell,
                .mcp_file = "settings.json",
                .program = "gemini",
                .version_arg = "--version",
                .install_note = ""},
  };
  return agent;
}

} // namespace mem0
