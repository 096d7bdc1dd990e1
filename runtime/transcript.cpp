#include "runtime/transcript.hpp"
#include "mem0/format.hpp"
#include "util/files.hpp"
#include "util/json.hpp"
#include "util/strings.hpp"
#include "util/utf8.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <optional>
#include <set>

namespace mem0 {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view k_replacement = "\xEF\xBF\xBD"; // U+FFFD

// The last `window` bytes of the regular file at `path`, without the line the window cuts;
// nullopt when it is missing, not a regular file (a FIFO is never waited on) or unreadable.
std::optional<std::string> read_tail(const fs::path &path, std::size_t window) {
  // Read from one byte before the window: when that byte ends a line, no line is cut.
  auto tail = read_file_tail(path, window + 1);
  if (!tail) return std::nullopt;
  std::string data = std::move(tail->data);
  if (tail->size > window) {
    const std::size_t nl = data.find('\n');
    data.erase(0, nl == std::string::npos ? data.size() : nl + 1);
  }
  return data;
}

} // namespace

std::string valid_utf8(std::string_view text) {
  if (is_valid_utf8(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 8);
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    const std::size_t len = decode_utf8(text, i, cp);
    out += len == 0 ? k_replacement : text.substr(i, len);
    i += len == 0 ? 1 : len;
  }
  return out;
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

// Each line of the last `window` bytes of `path` given to `read(line, files)`; the files it
// collected (oldest first, repeats included), returned newest first, distinct, at most
// k_max_files_touched. Nothing when the file cannot be read.
template <class Read>
std::vector<std::string> read_jsonl(const fs::path &path, std::size_t window, Read read) {
  const auto data = read_tail(path, window);
  if (!data) return {};
  std::vector<std::string> files;
  for (std::string_view rest = *data; !rest.empty();) {
    const std::size_t nl = std::min(rest.find('\n'), rest.size());
    read(rest.substr(0, nl), files); // the `\r` of a CRLF is JSON whitespace
    rest.remove_prefix(std::min(nl + 1, rest.size()));
  }
  std::vector<std::string> newest;
  std::set<std::string_view> seen;
  for (auto it = files.rbegin(); it != files.rend() && newest.size() < k_max_files_touched; ++it)
    if (seen.insert(*it).second) newest.push_back(*it);
  return newest;
}

} // namespace

Transcript read_transcript(const fs::path &path, std::size_t window) {
  return read_jsonl_transcript(path, window, read_line);
}

Transcript read_jsonl_transcript(const fs::path &path, std::size_t window,
                                 TranscriptLineReader read) {
  Transcript out;
  out.files_touched =
      read_jsonl(path, window, [&](std::string_view line, auto &files) { read(line, out, files); });
  return out;
}

CodexRollout read_codex_rollout(const fs::path &path, std::size_t window) {
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

std::vector<TranscriptMessage> messages_after(const Transcript &transcript, std::string_view after,
                                              std::size_t max_messages, std::size_t max_chars) {
  const auto &all = transcript.messages;
  auto first = all.begin();
  if (!after.empty()) {
    const auto found = std::find_if(all.rbegin(), all.rend(),
                                    [&](const TranscriptMessage &m) { return m.uuid == after; });
    if (found != all.rend()) first = found.base(); // the one after the match
  }
  const auto count = static_cast<std::size_t>(all.end() - first);
  if (count > max_messages) first += static_cast<std::ptrdiff_t>(count - max_messages);
  std::vector<TranscriptMessage> out(first, all.end());
  for (auto &m : out)
    m.text = truncate_code_points(m.text, max_chars);
  return out;
}

} // namespace mem0
