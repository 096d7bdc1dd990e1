#pragma once
#include "store/session_state.hpp"

#include <string>
#include <string_view>
#include <vector>

// The use signal (docs/hygiene.md#the-use-signal): which of the memories injected since the
// model's last reply the reply used.

namespace mem0::hygiene {

// Words in a row that a reply must share with a memory to have used it.
inline constexpr std::size_t k_used_run = 6;
// The share of a memory's distinctive words (is_distinctive) a reply must hold to have used it.
inline constexpr double k_used_share = 0.4;

// A reply, read once for every memory it is checked against.
class Reply {
public:
  explicit Reply(std::string_view text);

  // True when this reply used `memory` (its full id and text): it cites `mem0:<id8>`, or shares
  // k_used_run words in a row with it, or holds k_used_share of its distinctive words.
  bool uses(std::string_view id, std::string_view memory) const;

private:
  std::string m_lower;                // the text, ASCII lower-cased, for citations
  std::vector<std::uint64_t> m_words; // its word hashes in order
  std::vector<std::uint64_t> m_set;   // the same, sorted and unique
  std::vector<std::uint64_t> m_runs;  // the hashes of its runs of k_used_run words, sorted
};

// The ids of `injected` that `reply` used, in their order, each once.
std::vector<std::string> used_ids(std::string_view reply,
                                  const std::vector<AwaitingReply> &injected);

} // namespace mem0::hygiene
