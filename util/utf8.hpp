#pragma once
#include <cstddef>
#include <string_view>

namespace mem0 {

// UTF-8, strictly (RFC 3629): no overlong forms, no surrogates, nothing past U+10FFFF.

// Decode the sequence at `text[i]` into `cp`; return its length, or 0 when it is invalid.
std::size_t decode_utf8(std::string_view text, std::size_t i, char32_t &cp);

// True when `text` is valid UTF-8.
bool is_valid_utf8(std::string_view text);

// True for a continuation byte (10xxxxxx).
inline bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The number of code points of `text`, counting each lead or ASCII byte once.
std::size_t code_points(std::string_view text);

// Return the longest prefix of `text` of at most `max_bytes` that ends on a UTF-8 boundary.
std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes);

} // namespace mem0
