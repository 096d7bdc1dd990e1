#include "mem0/format.hpp"
#include "util/json.hpp"
#include "util/json_writer.hpp"
#include "util/strings.hpp"
#include "util/utf8.hpp"

#include <rapidjson/document.h>

#include <cstdint>
#include <cstdio>

namespace mem0 {
namespace {

constexpr std::string_view k_replacement = "\xEF\xBF\xBD"; // U+FFFD
constexpr std::string_view k_ellipsis = "\xE2\x80\xA6";    // …

bool iequals_at(std::string_view text, std::size_t i, std::string_view word) {
  if (i + word.size() > text.size()) return false;
  for (std::size_t k = 0; k < word.size(); ++k)
    if (ascii_lower(text[i + k]) != word[k]) return false;
  return true;
}

// Replace the `<` of any `<system-reminder` or `</system-reminder` so stored text cannot open or
// close the wrapper Claude Code puts around hook context.
std::string defuse_reminder_tags(const std::string &text) {
  constexpr std::string_view tag = "system-reminder";
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<') {
      std::size_t j = i + 1;
      while (j < text.size() && (text[j] == ' ' || text[j] == '/'))
        ++j;
      if (iequals_at(text, j, tag)) {
        out += "\xEF\xBC\x9C"; // U+FF1C FULLWIDTH <
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

std::string shown_type(const Memory &memory) {
  const std::string type = truncate_code_points(clean_text(memory.type), 40);
  return type.empty() ? "unknown" : type;
}

std::string memory_text(const Memory &memory, std::size_t max_code_points) {
  return truncate_code_points(clean_text(memory.text), max_code_points);
}

} // namespace

std::string clean_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool pending_space = false;
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    const std::size_t len = decode_utf8(text, i, cp);
    if (len == 0) {
      if (pending_space && !out.empty()) out += ' ';
      pending_space = false;
      out += k_replacement;
      ++i;
      continue;
    }
    const bool space = cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == '\v' ||
                       cp == '\f' || cp == 0x85 || cp == 0xA0 || cp == 0x2028 || cp == 0x2029;
    const bool control = cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0);
    if (space) {
      pending_space = true;
    } else if (!control) {
      if (pending_space && !out.empty()) out += ' ';
      pending_space = false;
      out.append(text.substr(i, len));
    }
    i += len;
  }
  return defuse_reminder_tags(out);
}

std::string truncate_code_points(std::string_view text, std::size_t max_code_points) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (is_continuation(text[i])) continue;
    if (count == max_code_points) return std::string(text.substr(0, i)) + std::string(k_ellipsis);
    ++count;
  }
  return std::string(text);
}

std::string id8(std::string_view id) {
  std::string out(id.substr(0, 8));
  for (char &c : out)
    c = ascii_lower(c);
  return out;
}

std::optional<std::chrono::sys_seconds> parse_iso8601(std::string_view s) {
  auto digits = [&](std::size_t pos, std::size_t n) -> std::optional<int> {
    if (pos + n > s.size()) return std::nullopt;
    int v = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const char c = s[pos + k];
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + (c - '0');
    }
    return v;
  };
  const auto y = digits(0, 4), mo = digits(5, 2), d = digits(8, 2);
  const auto h = digits(11, 2), mi = digits(14, 2), se = digits(17, 2);
  if (!y || !mo || !d || !h || !mi || !se || s[4] != '-' || s[7] != '-' ||
      (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || s[13] != ':' || s[16] != ':')
    return std::nullopt;
  if (*mo < 1 || *mo > 12 || *d < 1 || *d > 31 || *h > 23 || *mi > 59 || *se > 60)
    return std::nullopt;
  std::size_t pos = 19;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    const std::size_t start = pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9')
      ++pos;
    if (pos == start) return std::nullopt; // fractions are dropped: ages need no sub-second
  }
  std::chrono::seconds offset{0};
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    const auto oh = digits(pos + 1, 2);
    const std::size_t colon = pos + 3 < s.size() && s[pos + 3] == ':' ? 1 : 0;
    const auto om = digits(pos + 3 + colon, 2);
    if (!oh || !om || *oh > 23 || *om > 59) return std::nullopt;
    offset = std::chrono::hours(*oh) + std::chrono::minutes(*om);
    if (s[pos] == '-') offset = -offset;
    pos += 5 + colon;
  } else {
    return std::nullopt; // no zone: refuse to guess local time
  }
  if (pos != s.size()) return std::nullopt;
  const std::chrono::year_month_day ymd{std::chrono::year(*y), std::chrono::month(*mo),
                                        std::chrono::day(*d)};
  if (!ymd.ok()) return std::nullopt;
  return std::chrono::sys_days(ymd) + std::chrono::hours(*h) + std::chrono::minutes(*mi) +
         std::chrono::seconds(*se) - offset;
}

std::string format_age(std::chrono::seconds age) {
  using namespace std::chrono;
  const long long s = age.count() < 0 ? 0 : age.count();
  if (s < 3600) return std::to_string(s / 60) + "m ago";
  if (s < 86400) return std::to_string(s / 3600) + "h ago";
  const long long days = s / 86400;
  if (days < 30) return std::to_string(days) + "d ago";
  return std::to_string(days / 30) + "mo ago";
}

std::string context_line(const Memory &memory) {
  return "- [" + shown_type(memory) + "] " + memory_text(memory, 200) + " [mem0:" + id8(memory.id) +
         "]";
}

std::string file_line(const Memory &memory, std::chrono::system_clock::time_point now) {
  std::string age;
  if (const auto created = parse_iso8601(memory.created_at))
    age = "(" + format_age(std::chrono::floor<std::chrono::seconds>(now) - *created) + ") ";
  return "- [" + shown_type(memory) + "] " + age + memory_text(memory, 150) +
         " [mem0:" + id8(memory.id) + "]";
}

std::string peek_line(std::size_t number, const Memory &memory) {
  std::string date;
  if (parse_iso8601(memory.created_at)) date = " (" + memory.created_at.substr(0, 10) + ")";
  return std::to_string(number) + ". [" + shown_type(memory) + "] " + memory_text(memory, 80) +
         date + " [mem0:" + id8(memory.id) + "]";
}

std::string fit_budget(const std::vector<std::string> &head,
                       const std::vector<std::string> &memory_lines,
                       const std::vector<std::string> &tail, std::size_t budget) {
  auto join = [&](std::size_t kept) {
    std::string out;
    auto add = [&out](const std::string &line) {
      if (!out.empty()) out += '\n';
      out += line;
    };
    for (const auto &line : head)
      add(line);
    for (std::size_t i = 0; i < kept; ++i)
      add(memory_lines[i]);
    if (kept < memory_lines.size())
      add("(\xE2\x80\xA6 " + std::to_string(memory_lines.size() - kept) +
          " more memories trimmed)");
    for (const auto &line : tail)
      add(line);
    return out;
  };
  for (std::size_t kept = memory_lines.size();; --kept) {
    std::string text = join(kept);
    if (text.size() <= budget) return text;
    if (kept == 0) {
      // Fixed lines alone are too long: cut at the last line break that fits.
      const std::string_view cut = utf8_prefix(text, budget);
      if (text[cut.size()] == '\n') return std::string(cut); // the last line fits exactly
      const std::size_t nl = cut.rfind('\n');
      return std::string(nl == std::string_view::npos ? cut : cut.substr(0, nl));
    }
  }
}

std::string export_line(const Memory &m) {
  JsonWriter w;
  w.begin_object().member("id", m.id).member("text", m.text).member("type", m.type);
  w.key("metadata");
  rapidjson::Document metadata;
  parse_json(metadata, m.metadata);
  if (!m.metadata.empty() && !metadata.HasParseError() && metadata.IsObject())
    w.value(metadata);
  else
    w.begin_object().end_object();
  w.member("created_at", m.created_at).end_object();
  return w.text() + "\n";
}

} // namespace mem0
