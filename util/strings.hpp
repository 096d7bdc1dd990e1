#pragma once
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace mem0 {

// `s` without leading and trailing ASCII whitespace.
inline std::string_view trim(std::string_view s) {
  constexpr std::string_view space = " \t\r\n\f\v";
  const auto first = s.find_first_not_of(space);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(space) - first + 1);
}

// Character classes (ASCII only: bytes of multi-byte UTF-8 sequences are never in them).
inline bool is_ascii_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
// A word character as regular expressions mean it: letters, digits and `_`.
inline bool is_word_char(char c) { return is_ascii_alnum(c) || c == '_'; }
// A character of ids and file names that needs no escaping: word characters and `-`.
inline bool is_id_char(char c) { return is_word_char(c) || c == '-'; }
// Lower-case hexadecimal digits, as in memory ids.
inline bool is_lower_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

// True when `s` is not empty and every character of it is in the class `is`.
template <class Class> bool all_of_class(std::string_view s, Class is) {
  return !s.empty() && std::all_of(s.begin(), s.end(), is);
}

inline char ascii_lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

// `s` with ASCII letters lower-cased; other bytes (UTF-8 included) unchanged.
inline std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char &c : out)
    c = ascii_lower(c);
  return out;
}

// `parts` joined by `sep`.
// `word` as one POSIX shell word, for every command line the project writes (settings files,
// text for the model): as it is when it holds only characters no shell treats specially
// (`A-Za-z0-9/._+:@%-`), else in single quotes, a `'` written as `'\''`.
inline std::string shell_quote(std::string_view word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' ||
           c == '.' || c == '_' || c == '+' || c == ':' || c == '@' || c == '%' || c == '-';
  });
  if (plain) return std::string(word);
  std::string out = "'";
  for (const char c : word)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// `1 result`, `2 results`.
inline std::string count_of(std::size_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

inline std::string join(const std::vector<std::string> &parts, std::string_view sep) {
  std::string out;
  for (const auto &p : parts) {
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

} // namespace mem0
