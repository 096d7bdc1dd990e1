#pragma once
#include <string>
#include <string_view>

namespace mem0 {

// Return the SHA-256 of `data` as 64 lower-case hex digits.
std::string sha256_hex(std::string_view data);

} // namespace mem0
