#include "util/json.hpp"

#include <string>

namespace mem0 {
namespace {

bool too_deep(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > k_max_json_depth) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

int hex4(std::string_view s, std::size_t at) {
  if (at + 4 > s.size()) return -1;
  int v = 0;
  for (std::size_t k = at; k < at + 4; ++k) {
    const char c = s[k];
    const int d = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

// Rewrite escapes of unpaired surrogates as \ufffd (same length), leaving valid pairs alone.
std::string replace_lone_surrogates(std::string text) {
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!in_string) {
      in_string = text[i] == '"';
      continue;
    }
    if (text[i] == '"') {
      in_string = false;
    } else if (text[i] == '\\' && i + 1 < text.size()) {
      if (text[i + 1] != 'u') {
        ++i;
        continue;
      }
      const int unit = hex4(text, i + 2);
      const bool high = unit >= 0xD800 && unit <= 0xDBFF;
      const bool low = unit >= 0xDC00 && unit <= 0xDFFF;
      if (high && i + 8 <= text.size() && text.compare(i + 6, 2, "\\u") == 0) {
        const int next = hex4(text, i + 8);
        if (next >= 0xDC00 && next <= 0xDFFF) {
          i += 11; // a valid pair
          continue;
        }
      }
      if (high || low) text.replace(i + 2, 4, "fffd");
      i += 5;
    }
  }
  return text;
}

} // namespace

bool parse_json(rapidjson::Document &doc, std::string_view text) {
  if (too_deep(text)) {
    doc.Parse("");
    return false;
  }
  doc.Parse(text.data(), text.size());
  if (doc.GetParseError() == rapidjson::kParseErrorStringUnicodeSurrogateInvalid) {
    const std::string fixed = replace_lone_surrogates(std::string(text));
    doc.Parse(fixed.data(), fixed.size());
  }
  return !doc.HasParseError();
}

} // namespace mem0
