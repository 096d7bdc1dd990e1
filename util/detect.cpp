#include "util/detect.hpp"
#include "util/strings.hpp"
#include "util/utf8.hpp"

#include <algorithm>
#include <array>
#include <optional>

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

// The lines of `text`, split at `\n`, each without a trailing `\r`.
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    if (line.ends_with('\r')) line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// True when `text` holds a Rust error code: `error[E` then digits then `]`.
bool has_rust_error_code(std::string_view text) {
  constexpr std::string_view k_marker = "error[E";
  for (auto at = text.find(k_marker); at != std::string_view::npos;
       at = text.find(k_marker, at + 1)) {
    std::size_t i = at + k_marker.size();
    const std::size_t digits_start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9')
      ++i;
    if (i > digits_start && i < text.size() && text[i] == ']') return true;
  }
  return false;
}

// The exception of a line that reports one (`ValueError: bad`, `E   KeyError: 'id'`,
// `KeyboardInterrupt`), without pytest's `E` marker; nullopt for any other line.
std::optional<std::string_view> exception_of(std::string_view line) {
  std::string_view t = line;
  if (t.size() > 1 && t[0] == 'E' && (t[1] == ' ' || t[1] == '\t')) {
    t = trim(t.substr(1)); // pytest marks the exception lines of its own tracebacks with `E`
  } else if (t.empty() || t[0] == ' ' || t[0] == '\t') {
    return std::nullopt; // the frames of a Python traceback are indented
  }
  std::size_t i = 0, part = 0; // `part`: where the last dotted part starts
  while (i < t.size() && (is_word_char(t[i]) || t[i] == '.')) {
    if (t[i] == '.') part = i + 1;
    ++i;
  }
  if (i == 0 || part >= i || !(t[part] >= 'A' && t[part] <= 'Z')) return std::nullopt;
  if (i < t.size() && t[i] != ':') return std::nullopt;
  return trim(t);
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

bool detect_output_error(std::string_view text) {
  return detect_error(text) || contains(text, "FATAL:") || has_rust_error_code(text);
}

std::string_view telling_error_line(std::string_view text) {
  const std::vector<std::string_view> lines = split_lines(text);
  // 1. The exception a Python traceback ends with (the last traceback: chained ones come first).
  std::size_t traceback = lines.size();
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (contains(lines[i], "Traceback")) traceback = i;
  for (std::size_t i = traceback + 1; i < lines.size(); ++i)
    if (const auto exception = exception_of(lines[i])) return *exception;
  // 2. The first compiler error, panic or fatal message: later ones tend to follow from it.
  for (const auto line : lines) {
    const std::string_view t = trim(line);
    if (has_rust_error_code(t) || contains(t, "panic:") || contains(t, "FATAL:") ||
        t.starts_with("fatal: "))
      return t;
  }
  // 3. The last error line: the root cause of a chain (`Caused by: ...`), or a test summary.
  for (auto it = lines.rbegin(); it != lines.rend(); ++it)
    if (contains(*it, "Error:") || contains(*it, "Exception:") || contains(*it, "FAIL:"))
      return trim(*it);
  for (auto it = lines.rbegin(); it != lines.rend(); ++it)
    if (!trim(*it).empty()) return trim(*it);
  return {};
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
