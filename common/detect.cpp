#include "common/detect.hpp"
#include "common/strings.hpp"
#include "common/utf8.hpp"

#include <algorithm>
#include <array>

namespace mem0 {
namespace {

constexpr std::string_view k_extensions[] = {
    "py",   "ts",   "tsx", "js",  "jsx", "rs",   "go", "rb", "java", "sh", "yaml", "yml",
    "json", "toml", "md",  "sql", "css", "html", "c",  "cc", "cpp",  "h",  "hpp"};

bool is_path_char(char c) { return is_id_char(c) || c == '.' || c == '/'; }

// Match `pattern` at `text[i]`, where `.` in the pattern stands for any one code point.
bool matches_at(std::string_view text, std::size_t i, std::string_view pattern) {
  for (char p : pattern) {
    if (i >= text.size()) return false;
    if (p == '.') {
      ++i;
      while (i < text.size() && is_continuation(text[i]))
        ++i;
    } else if (text[i++] != p) {
      return false;
    }
  }
  return true;
}

bool contains_any(std::string_view text, const std::vector<std::string> &variants) {
  const std::string lowered = ascii_lower(text);
  for (std::size_t i = 0; i < lowered.size(); ++i)
    for (const auto &v : variants)
      if (matches_at(lowered, i, v)) return true;
  return false;
}

std::vector<std::string> expand_all(std::initializer_list<std::string_view> patterns) {
  std::vector<std::string> out;
  for (auto p : patterns)
    for (auto &v : expand_pattern(p))
      out.push_back(std::move(v));
  return out;
}

} // namespace

std::vector<std::string> expand_pattern(std::string_view pattern) {
  std::vector<std::string> out{""};
  for (std::size_t i = 0; i < pattern.size();) {
    if (pattern[i] != '(') {
      for (auto &v : out)
        v += pattern[i];
      ++i;
      continue;
    }
    const std::size_t close = pattern.find(')', i);
    if (close == std::string_view::npos) { // an unclosed group is literal text
      for (auto &v : out)
        v += pattern.substr(i);
      break;
    }
    std::vector<std::string_view> alternatives;
    std::string_view group = pattern.substr(i + 1, close - i - 1);
    for (std::size_t start = 0;;) {
      const std::size_t bar = group.find('|', start);
      alternatives.push_back(group.substr(start, bar - start));
      if (bar == std::string_view::npos) break;
      start = bar + 1;
    }
    i = close + 1;
    if (i < pattern.size() && pattern[i] == '?') {
      alternatives.emplace_back();
      ++i;
    }
    std::vector<std::string> next;
    for (const auto &v : out)
      for (auto alt : alternatives)
        next.push_back(v + std::string(alt));
    out = std::move(next);
  }
  return out;
}

bool detect_error(std::string_view text) {
  if (text.find("Traceback") != std::string_view::npos ||
      text.find("panic:") != std::string_view::npos)
    return true;
  int error_lines = 0;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = text.substr(start, end - start);
    const std::size_t first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos && line.substr(first).starts_with("fatal: ")) return true;
    if (line.find("Error:") != std::string_view::npos ||
        line.find("Exception:") != std::string_view::npos ||
        line.find("FAIL:") != std::string_view::npos)
      ++error_lines;
    if (error_lines >= 2) return true;
    start = end + 1;
  }
  return false;
}

std::vector<std::string> detect_paths(std::string_view text, std::size_t max) {
  std::vector<std::string> found;
  // Like the regex `[A-Za-z0-9_./-]+\.(ext)\b`: the longest run prefix ending in `.ext` at a word
  // boundary; scanning resumes right after each match.
  for (std::size_t i = 0; i < text.size() && found.size() < max;) {
    if (!is_path_char(text[i])) {
      ++i;
      continue;
    }
    std::size_t run_end = i;
    while (run_end < text.size() && is_path_char(text[run_end]))
      ++run_end;
    std::size_t match_end = 0;
    for (std::size_t dot = run_end; dot-- > i + 1 && !match_end;) {
      if (text[dot] != '.') continue;
      for (auto ext : k_extensions) {
        const std::size_t end = dot + 1 + ext.size();
        if (end <= run_end && text.substr(dot + 1, ext.size()) == ext &&
            (end == text.size() || !is_word_char(text[end])) && end > match_end)
          match_end = end;
      }
    }
    if (!match_end) {
      i = run_end;
      continue;
    }
    std::string path(text.substr(i, match_end - i));
    if (std::find(found.begin(), found.end(), path) == found.end()) found.push_back(path);
    i = match_end;
  }
  return found;
}

std::string error_keywords(std::string_view text) {
  std::vector<std::string> found;
  for (std::size_t i = 0; i < text.size() && found.size() < 5;) {
    if (!is_word_char(text[i])) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && (is_word_char(text[end]) || text[end] == '.'))
      ++end;
    std::string_view word = text.substr(i, end - i);
    while (word.ends_with('.'))
      word.remove_suffix(1);
    if (word.ends_with("Error") || word.ends_with("Exception") || word == "panic" ||
        word == "Traceback")
      if (std::find(found.begin(), found.end(), word) == found.end()) found.emplace_back(word);
    i = end;
  }
  return join(found, " ");
}

bool detect_resume(std::string_view text) {
  static const std::vector<std::string> variants = expand_all({
      "where (did )?(we|i) (leave|left) off",
      "continue (from )?(where|last)",
      "what were we (working|doing)",
      "pick up where",
      "resume (from |where)",
      "what.s the (current|latest) (state|status)",
      "catch me up",
      "where are we",
  });
  return contains_any(text, variants);
}

bool detect_remember(std::string_view text) {
  static const std::vector<std::string> variants = expand_all({
      "remember (this|that)",
      "save (this|that) (fact|info|memory|note)",
      "store (this|that)",
      "don.t forget (this|that)",
      "keep (this|that) in (mind|memory)",
  });
  return contains_any(text, variants);
}

} // namespace mem0
