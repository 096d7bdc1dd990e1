#include "hygiene/use_signal.hpp"
#include "hygiene/words.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <set>

namespace mem0::hygiene {
namespace {

// One hash for the k_used_run words from `at`.
std::uint64_t run_hash(const std::vector<std::uint64_t> &words, std::size_t at) {
  std::uint64_t h = 0;
  for (std::size_t i = at; i < at + k_used_run; ++i)
    h = (h ^ words[i]) * 0x9E3779B97F4A7C15ull + (h >> 29);
  return h;
}

std::vector<std::uint64_t> hashes(const std::vector<std::string> &words) {
  std::vector<std::uint64_t> out;
  out.reserve(words.size());
  for (const auto &w : words)
    out.push_back(word_hash(w));
  return out;
}

bool holds(const std::vector<std::uint64_t> &sorted, std::uint64_t h) {
  return std::binary_search(sorted.begin(), sorted.end(), h);
}

} // namespace

Reply::Reply(std::string_view text) : m_lower(ascii_lower(text)), m_words(hashes(words_of(text))) {
  m_set = m_words;
  std::sort(m_set.begin(), m_set.end());
  m_set.erase(std::unique(m_set.begin(), m_set.end()), m_set.end());
  if (m_words.size() >= k_used_run)
    for (std::size_t i = 0; i + k_used_run <= m_words.size(); ++i)
      m_runs.push_back(run_hash(m_words, i));
  std::sort(m_runs.begin(), m_runs.end());
}

bool Reply::uses(std::string_view id, std::string_view memory) const {
  if (id.size() >= 8 && m_lower.find("mem0:" + ascii_lower(id.substr(0, 8))) != std::string::npos)
    return true;
  const std::vector<std::string> words = words_of(memory);
  const std::vector<std::uint64_t> memory_words = hashes(words);
  if (!m_runs.empty() && memory_words.size() >= k_used_run)
    for (std::size_t i = 0; i + k_used_run <= memory_words.size(); ++i)
      if (holds(m_runs, run_hash(memory_words, i))) return true;
  std::set<std::uint64_t> distinctive;
  for (std::size_t i = 0; i < words.size(); ++i)
    if (is_distinctive(words[i])) distinctive.insert(memory_words[i]);
  if (distinctive.empty()) return false;
  const auto held = static_cast<double>(std::count_if(
      distinctive.begin(), distinctive.end(), [&](std::uint64_t h) { return holds(m_set, h); }));
  return held >= k_used_share * static_cast<double>(distinctive.size()) - 1e-9;
}

std::vector<std::string> used_ids(std::string_view reply,
                                  const std::vector<AwaitingReply> &injected) {
  std::vector<std::string> used;
  if (injected.empty() || trim(reply).empty()) return used;
  const Reply read(reply);
  for (const auto &m : injected)
    if (std::find(used.begin(), used.end(), m.id) == used.end() && read.uses(m.id, m.text))
      used.push_back(m.id);
  return used;
}

} // namespace mem0::hygiene
