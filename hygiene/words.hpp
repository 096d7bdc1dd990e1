#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

// Words as hygiene compares them (docs/hygiene.md): what the use signal, the duplicate and
// conflict rules and retention read of a text.

namespace mem0::hygiene {

// The words of `text`, lower-cased: runs of ASCII letters and digits and of non-ASCII bytes (so a
// word in another script stays whole); every other character separates words.
std::vector<std::string> words_of(std::string_view text);

// `text` with case, punctuation and whitespace normalised: its words joined by one space.
std::string normalised(std::string_view text);

// True for a common English word that says nothing of a memory's topic ("the", "with", ...).
bool is_stop_word(std::string_view word);

// A word that tells a memory apart: 4 letters or more (code points) and not a stop word.
bool is_distinctive(std::string_view word);

// True when `word` holds a digit: a number or a version ("15", "v2.3", "py312").
bool has_digit(std::string_view word);

// A 64-bit hash of `word` (FNV-1a), for sets of words.
std::uint64_t word_hash(std::string_view word);

// The ceiling of `x` (0 below 0), and `x` rounded to thousandths (x ≥ 0), in plain arithmetic:
// libm's would be a library the executables do not link (docs/install.md#release-binaries).
inline std::size_t ceil_of(double x) {
  if (x <= 0) return 0;
  const auto whole = static_cast<std::size_t>(x);
  return whole + (static_cast<double>(whole) < x ? 1 : 0);
}
inline double thousandths(double x) {
  return static_cast<double>(static_cast<long long>(x * 1000 + 0.5)) / 1000;
}

} // namespace mem0::hygiene
