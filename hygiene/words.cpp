#include "hygiene/words.hpp"
#include "util/strings.hpp"
#include "util/utf8.hpp"

#include <algorithm>
#include <array>

namespace mem0::hygiene {
namespace {

bool is_word_byte(char c) { return is_ascii_alnum(c) || static_cast<unsigned char>(c) >= 0x80; }

// Sorted, for a binary search.
constexpr std::array k_stop_words{
    "a",     "about",  "above", "after", "again",   "against", "all",     "also",    "always",
    "am",    "an",     "and",   "any",   "are",     "as",      "at",      "be",      "because",
    "been",  "before", "being", "below", "both",    "but",     "by",      "can",     "could",
    "did",   "do",     "does",  "doing", "done",    "down",    "during",  "each",    "else",
    "every", "few",    "for",   "from",  "further", "had",     "has",     "have",    "having",
    "he",    "her",    "here",  "hers",  "him",     "his",     "how",     "however", "i",
    "if",    "in",     "into",  "is",    "it",      "its",     "itself",  "just",    "like",
    "make",  "makes",  "many",  "may",   "me",      "might",   "more",    "most",    "much",
    "must",  "my",     "need",  "needs", "never",   "no",      "nor",     "not",     "now",
    "of",    "off",    "on",    "once",  "one",     "only",    "or",      "other",   "our",
    "ours",  "out",    "over",  "own",   "same",    "shall",   "she",     "should",  "since",
    "so",    "some",   "such",  "than",  "that",    "the",     "their",   "theirs",  "them",
    "then",  "there",  "these", "they",  "this",    "those",   "through", "to",      "too",
    "under", "until",  "up",    "upon",  "us",      "use",     "used",    "uses",    "using",
    "very",  "was",    "we",    "were",  "what",    "when",    "where",   "whether", "which",
    "while", "who",    "whom",  "why",   "will",    "with",    "within",  "without", "would",
    "yet",   "you",    "your",  "yours"};

} // namespace

std::vector<std::string> words_of(std::string_view text) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && !is_word_byte(text[i]))
      ++i;
    const std::size_t start = i;
    while (i < text.size() && is_word_byte(text[i]))
      ++i;
    if (i > start) words.push_back(ascii_lower(text.substr(start, i - start)));
  }
  return words;
}

std::string normalised(std::string_view text) { return join(words_of(text), " "); }

bool is_stop_word(std::string_view word) {
  return std::binary_search(k_stop_words.begin(), k_stop_words.end(), word,
                            [](std::string_view a, std::string_view b) { return a < b; });
}

bool is_distinctive(std::string_view word) { return code_points(word) >= 4 && !is_stop_word(word); }

bool has_digit(std::string_view word) {
  return std::any_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::uint64_t word_hash(std::string_view word) {
  std::uint64_t h = 1469598103934665603ull;
  for (const char c : word) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

} // namespace mem0::hygiene
