#pragma once
// Shared by the fuzz targets: invariant checks that abort (so libFuzzer keeps the input) and a
// UTF-8 validator written independently of common/format.cpp.
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

// Decode `text` as strict UTF-8 (RFC 3629: no overlongs, no surrogates, nothing past U+10FFFF).
// Calls `visit(code_point)` for each code point; returns false at the first invalid sequence.
template <class Visit> bool decode_utf8(std::string_view text, Visit visit) {
  std::size_t i = 0;
  while (i < text.size()) {
    const unsigned b0 = static_cast<unsigned char>(text[i]);
    unsigned need = 0;
    std::uint32_t cp = 0;
    std::uint32_t min = 0;
    if (b0 <= 0x7F) {
      cp = b0;
    } else if ((b0 & 0xE0) == 0xC0) {
      need = 1, cp = b0 & 0x1F, min = 0x80;
    } else if ((b0 & 0xF0) == 0xE0) {
      need = 2, cp = b0 & 0x0F, min = 0x800;
    } else if ((b0 & 0xF8) == 0xF0) {
      need = 3, cp = b0 & 0x07, min = 0x10000;
    } else {
      return false;
    }
    if (text.size() - i - 1 < need) return false;
    for (unsigned k = 1; k <= need; ++k) {
      const unsigned b = static_cast<unsigned char>(text[i + k]);
      if ((b & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (b & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    visit(cp);
    i += need + 1;
  }
  return true;
}

inline bool valid_utf8(std::string_view text) {
  return decode_utf8(text, [](std::uint32_t) {});
}

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
