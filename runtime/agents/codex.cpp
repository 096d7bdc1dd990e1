#include "runtime/agents/codex.hpp"
#include "runtime/agent.hpp"
#include "runtime/agents/adapter.hpp"
#include "runtime/agents/claude_code.hpp"
#include "runtime/transcript.hpp"
#include "util/json.hpp"
#include "util/shell_read.hpp"
#include "util/strings.hpp"
#include "util/utf8.hpp"

namespace mem0 {
namespace codex_shape {
namespace {

// The rollout's tail read for a command's exit code: its entry was written just before the
// PostToolUse hook runs (tests/unit/fixtures/codex/README.md).
constexpr std::size_t k_exit_code_window = 256 * 1024;

// Codex's preface to a compaction summary, which ends with this line.
constexpr std::string_view k_codex_summary_preface =
    "use the information in this summary to assist with your own analysis:\n";

// The text parts (`{"type":…,"text":…}`) of an item's `content` array, joined by newlines.
std::string content_text(const rapidjson::Value &item) {
  std::vector<std::string> parts;
  const auto content = item.FindMember("content");
  if (content == item.MemberEnd() || !content->value.IsArray()) return {};
  for (const auto &part : content->value.GetArray())
    if (part.IsObject())
      if (const auto text = string_member(part, "text")) parts.emplace_back(*text);
  return valid_utf8(join(parts, "\n"));
}

// Add one rollout line to `out`; `files` collects the files patched, oldest first.
void read_codex_line(std::string_view line, CodexRollout &out, std::vector<std::string> &files) {
  rapidjson::Document doc;
  if (!parse_json(doc, line) || !doc.IsObject()) return;
  const auto payload = doc.FindMember("payload");
  if (payload == doc.MemberEnd() || !payload->value.IsObject()) return;
  const rapidjson::Value &p = payload->value;
  const auto type = string_member(doc, "type");
  if (type == "compacted") {
    std::string_view message = string_member(p, "message").value_or("");
    if (const auto at = message.find(k_codex_summary_preface); at != std::string_view::npos)
      message.remove_prefix(at + k_codex_summary_preface.size());
    out.compaction_summary = valid_utf8(trim(message));
    return;
  }
  if (type != "event_msg" || string_member(p, "type") != "item_completed") return;
  const auto item = p.FindMember("item");
  if (item == p.MemberEnd() || !item->value.IsObject()) return;
  const rapidjson::Value &it = item->value;
  const auto kind = string_member(it, "type");
  const std::string id = valid_utf8(string_member(it, "id").value_or(""));
  if (kind == "UserMessage" || kind == "AgentMessage") {
    std::string text = content_text(it);
    if (trim(text).empty()) return;
    out.transcript.messages.push_back(
        {id, kind == "UserMessage" ? "user" : "assistant", std::move(text)});
  } else if (kind == "CommandExecution") {
    const auto code = int64_member(it, "exit_code");
    if (!code || id.empty()) return;
    out.commands.push_back({id, static_cast<int>(*code)});
    if (out.commands.size() > k_max_codex_commands) out.commands.erase(out.commands.begin());
  } else if (kind == "FileChange") {
    const auto changes = it.FindMember("changes");
    if (changes == it.MemberEnd() || !changes->value.IsObject()) return;
    for (const auto &change : changes->value.GetObject()) {
      const std::string_view path(change.name.GetString(), change.name.GetStringLength());
      const auto what =
          change.value.IsObject() ? string_member(change.value, "type") : std::nullopt;
      if ((what == "add" || what == "update") && !path.empty() && is_valid_utf8(path))
        files.emplace_back(path);
    }
  }
}

bool regular_file(const std::filesystem::path &path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

} // namespace

ToolKind tool_kind(std::string_view name) {
  if (name == "Bash") return ToolKind::shell;
  if (name == "apply_patch") return ToolKind::write;
  return ToolKind::other;
}

std::vector<std::string> patched_files(std::string_view patch) {
  std::vector<std::string> files;
  for (std::size_t start = 0; start < patch.size();) {
    const std::size_t end = std::min(patch.find('\n', start), patch.size());
    const std::string_view line = trim(patch.substr(start, end - start));
    for (const std::string_view marker : {"*** Add File: ", "*** Update File: "})
      if (line.starts_with(marker))
        if (const auto path = trim(line.substr(marker.size())); !path.empty())
          files.emplace_back(path);
    start = end + 1;
  }
  return files;
}

std::string file_read_by(std::string_view command, const std::filesystem::path &cwd) {
  const auto files = files_read_by(command);
  for (const auto &f : files) {
    const std::filesystem::path p(f);
    if (regular_file(p.is_relative() ? cwd / p : p)) return f;
  }
  return files.empty() ? std::string() : files.front();
}

Result<ToolInput> parse_tool(std::string_view json) {
  auto in = claude_code_shape::parse_tool(json);
  if (!in) return in;
  in->tool = tool_kind(in->tool_name);
  in->file_path.clear(); // Codex's tools have no file_path
  if (in->tool == ToolKind::write) {
    const auto files = patched_files(in->command); // apply_patch's text is tool_input.command
    in->file_path = files.empty() ? std::string() : files.front();
    in->command.clear();
  } else if (in->tool == ToolKind::shell) {
    const std::filesystem::path cwd = in->cwd.empty() ? "." : in->cwd;
    in->file_path = file_read_by(in->command, cwd);
    if (in->hook_event_name == "PostToolUse" && !in->transcript_path.empty() &&
        !in->tool_use_id.empty()) {
      const auto rollout = read_codex_rollout(in->transcript_path, k_exit_code_window);
      if (const auto code = exit_code_of(rollout, in->tool_use_id); code && *code != 0)
        in->error = "Exit code " + std::to_string(*code);
    }
  } else {
    in->command.clear();
  }
  return in;
}

Result<CompactInput> parse_compact(std::string_view json) {
  auto in = claude_code_shape::parse_compact(json);
  if (in && in->compact_summary.empty() && in->hook_event_name == "PostCompact" &&
      !in->transcript_path.empty())
    in->compact_summary = read_codex_rollout(in->transcript_path).compaction_summary;
  return in;
}

bool accepts_context(std::string_view event) {
  for (std::string_view e : {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse"})
    if (e == event) return true;
  return false;
}

bool accepts_message(std::string_view event) {
  if (accepts_context(event)) return true;
  for (std::string_view e : {"Stop", "PreCompact", "PostCompact"})
    if (e == event) return true;
  return false;
}

std::string render(std::string_view event, const HookOutput &output) {
  return adapter::hook_specific_output(
      event, accepts_context(event) ? output.context : std::string_view(),
      accepts_message(event) ? output.system_message : std::string_view());
}

CodexRollout read_codex_rollout(const std::filesystem::path &path, std::size_t window) {
  CodexRollout out;
  out.transcript.files_touched = read_jsonl(
      path, window, [&](std::string_view line, auto &files) { read_codex_line(line, out, files); });
  return out;
}

std::optional<int> exit_code_of(const CodexRollout &rollout, std::string_view id) {
  for (auto it = rollout.commands.rbegin(); it != rollout.commands.rend(); ++it)
    if (it->id == id) return it->exit_code;
  return std::nullopt;
}

} // namespace codex_shape

namespace {

Transcript codex_transcript(const std::filesystem::path &path, std::size_t window) {
  return codex_shape::read_codex_rollout(path, window).transcript;
}

} // namespace

const Agent &codex() {
  using namespace codex_shape;
  static constexpr Agent agent{
      .name = "codex",
      .display_name = "Codex CLI",
      .session_env = "", // Codex gives its hooks no session or project variable
      .project_dir_env = "",
      .prompt = claude_code_shape::parse_prompt,
      .tool = parse_tool,
      .session_start = claude_code_shape::parse_session_start,
      .stop = claude_code_shape::parse_stop,
      .compact = parse_compact,
      .session_end = claude_code_shape::parse_session_end,
      .render = render,
      .transcript = codex_transcript,
      .native_memory_globs = {}, // the guard is not wired for Codex
      .files = {.dir = ".codex",
                .dir_env = "CODEX_HOME",
                .user_file = "hooks.json",
                .project_file = ".codex/hooks.json",
                .format = HooksFormat::claude,
                .windows_shell = CommandShell::cmd,
                .mcp_file = "config.toml",
                .program = "codex",
                .version_arg = "--version",
                .install_note = "Codex runs new or changed hooks only once you trust them: start "
                                "codex and accept them when it asks (codex exec skips them "
                                "until then)"},
  };
  return agent;
}

} // namespace mem0
