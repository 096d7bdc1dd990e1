#pragma once
// Shared by the fuzz targets: invariant checks that abort (so libFuzzer keeps the input) and
// UTF-8 helpers over the project's decoder.
#include "util/utf8.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

namespace fuzz {

// Abort with `what` when `ok` is false; libFuzzer then saves the input as a crash.
inline void check(bool ok, const char *what, std::string_view detail = {}) {
  if (ok) return;
  std::fprintf(stderr, "invariant violated: %s\n", what);
  if (!detail.empty())
    std::fprintf(stderr, "  value (%zu bytes): %.*s\n", detail.size(),
                 static_cast<int>(detail.size() > 400 ? 400 : detail.size()), detail.data());
  std::abort();
}

// Decode `text` as strict UTF-8 with the project's one decoder (util/utf8.hpp, unit-tested on
// the RFC 3629 edge cases). Calls `visit(code_point)` for each code point; returns false at the
// first invalid sequence.
template <class Visit> bool decode_utf8(std::string_view text, Visit visit) {
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    const std::size_t len = mem0::decode_utf8(text, i, cp);
    if (len == 0) return false;
    visit(static_cast<std::uint32_t>(cp));
    i += len;
  }
  return true;
}

inline bool valid_utf8(std::string_view text) { return mem0::is_valid_utf8(text); }

// Number of code points of valid UTF-8 `text`; nullopt when invalid.
inline std::optional<std::size_t> code_points(std::string_view text) {
  std::size_t n = 0;
  if (!decode_utf8(text, [&n](std::uint32_t) { ++n; })) return std::nullopt;
  return n;
}

// C0 and C1 controls and DEL: never allowed in a displayed line.
inline bool has_control(std::string_view text) {
  bool found = false;
  decode_utf8(text, [&found](std::uint32_t cp) {
    if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0)) found = true;
  });
  return found;
}

// True when `text` has `<`, an optional `/`, optional spaces and then `system-reminder` (any
// case): text that could open or close the wrapper Claude Code puts around hook context.
inline bool has_reminder_tag(std::string_view text) {
  constexpr std::string_view tag = "system-reminder";
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '<') continue;
    std::size_t j = i + 1;
    if (j < text.size() && text[j] == '/') ++j;
    while (j < text.size() && text[j] == ' ')
      ++j;
    if (text.size() - j < tag.size()) continue;
    bool same = true;
    for (std::size_t k = 0; k < tag.size() && same; ++k) {
      char c = text[j + k];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      same = c == tag[k];
    }
    if (same) return true;
  }
  return false;
}

// A line shown to the model: valid UTF-8, one line, no controls, no reminder tag.
inline void check_display_line(std::string_view line, const char *what) {
  check(valid_utf8(line), what, line);
  check(!has_control(line), what, line);
  check(!has_reminder_tag(line), what, line);
}

} // namespace fuzz
