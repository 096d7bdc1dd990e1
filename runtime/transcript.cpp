#include "runtime/transcript.hpp"
#include "mem0/format.hpp"
#include "util/files.hpp"
#include "util/utf8.hpp"

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

std::vector<std::string> read_jsonl(const fs::path &path, std::size_t window,
                                    const JsonlReader &read) {
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

Transcript read_jsonl_transcript(const fs::path &path, std::size_t window,
                                 TranscriptLineReader read) {
  Transcript out;
  out.files_touched =
      read_jsonl(path, window, [&](std::string_view line, auto &files) { read(line, out, files); });
  return out;
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
