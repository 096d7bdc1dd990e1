#pragma once
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
inline std::string join(const std::vector<std::string> &parts, std::string_view sep) {
  std::string out;
  for (const auto &p : parts) {
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

} // namespace mem0
