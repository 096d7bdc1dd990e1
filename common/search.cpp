#include "common/search.hpp"
#include "common/format.hpp"
#include "common/redact.hpp"

#include <algorithm>
#include <set>

namespace mem0 {

std::string make_query(std::string_view text, bool redact) {
  // Only the start of a huge prompt can reach the query: work on a bounded window, minus the
  // word the cut may have split, so that no secret is cut short of its redaction pattern.
  constexpr std::size_t k_window = 64 * 1024;
  if (text.size() > k_window) {
    text = utf8_prefix(text, k_window);
    // (With no space at all, the cut lies 64 KiB into one word: far past the 2,000 bytes sent.)
    if (const auto space = text.find_last_of(" \t\r\n"); space != std::string_view::npos)
      text = text.substr(0, space);
  }
  const std::string cleaned = clean_text(redact ? redact_secrets(text) : std::string(text));
  return std::string(utf8_prefix(cleaned, k_max_query_bytes));
}

PlanOutcome run_plan(HttpClient &http, const ApiTarget &api, const Identity &identity,
                     const std::vector<SearchSpec> &plan, Deadline deadline, const Log &log) {
  PlanOutcome outcome;
  outcome.results.resize(plan.size());
  if (plan.empty()) return outcome;
  if (const auto refused = refuse_base_url(api.base_url)) {
    log.warn("transport: " + *refused);
    outcome.failures.assign(plan.size(), make_error(ErrorKind::transport, *refused));
    return outcome;
  }
  std::vector<HttpRequest> requests;
  for (const auto &spec : plan)
    requests.push_back(search_request(api, spec, identity));
  outcome.sent = requests.size();
  auto responses = http.run(requests, deadline);
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const std::string label = "search " + std::to_string(i + 1) + "/" +
                              std::to_string(plan.size()) +
                              (plan[i].type ? " type=" + *plan[i].type : std::string(" broad"));
    Result<std::vector<Memory>> parsed =
        responses[i] ? parse_search_response(*responses[i]) : unexpected(responses[i].error());
    if (parsed) {
      log.debug(label + ": HTTP " + std::to_string(responses[i]->status) + ", " +
                std::to_string(parsed->size()) + " results, " +
                std::to_string(responses[i]->latency.count()) + " ms");
      outcome.results[i] = std::move(*parsed);
    } else {
      log.warn(label + " failed: " + std::string(to_string(parsed.error().kind)) + ": " +
               parsed.error().message);
      outcome.failures.push_back(parsed.error());
    }
  }
  return outcome;
}

std::vector<Memory> merge_results(const std::vector<std::vector<Memory>> &results,
                                  const std::function<bool(std::string_view)> &skip) {
  std::vector<Memory> merged;
  std::set<std::string, std::less<>> seen;
  for (const auto &list : results)
    for (const auto &m : list) {
      if (!seen.insert(m.id).second || (skip && skip(m.id))) continue;
      merged.push_back(m);
    }
  return merged;
}

void put_types_first(std::vector<Memory> &memories, std::initializer_list<std::string_view> types) {
  auto rank = [&](const Memory &m) {
    const auto it = std::find(types.begin(), types.end(), m.type);
    return static_cast<std::size_t>(it - types.begin());
  };
  std::stable_sort(memories.begin(), memories.end(),
                   [&](const Memory &a, const Memory &b) { return rank(a) < rank(b); });
}

std::vector<Memory> claim_new(SessionState &state, const std::vector<Memory> &candidates,
                              std::size_t cap) {
  std::vector<Memory> claimed;
  for (const auto &m : candidates) {
    if (claimed.size() >= cap) break;
    if (state.was_injected(m.id)) continue;
    state.injected.push_back(m.id);
    claimed.push_back(m);
  }
  return claimed;
}

std::vector<std::string> recall_problem_lines(const PlanOutcome &outcome, std::size_t searches) {
  std::vector<std::string> lines;
  std::size_t other = 0;
  std::string other_kinds;
  bool unauthorized = false, rate_limited = false;
  std::optional<std::chrono::seconds> retry_after;
  for (const auto &e : outcome.failures) {
    if (e.kind == ErrorKind::unauthorized) {
      unauthorized = true;
    } else if (e.kind == ErrorKind::rate_limited) {
      rate_limited = true;
      if (e.retry_after)
        retry_after = std::max(retry_after.value_or(std::chrono::seconds(0)), *e.retry_after);
    } else {
      ++other;
      const std::string kind(to_string(e.kind));
      if (other_kinds.find(kind) == std::string::npos)
        other_kinds += (other_kinds.empty() ? "" : ", ") + kind;
    }
  }
  if (unauthorized) lines.emplace_back("mem0: recall skipped \xE2\x80\x94 API key rejected");
  if (rate_limited)
    lines.push_back("mem0: recall skipped \xE2\x80\x94 rate limited" +
                    (retry_after ? " (retry after " + std::to_string(retry_after->count()) + " s)"
                                 : std::string()));
  if (other)
    lines.push_back("mem0: recall incomplete \xE2\x80\x94 " + std::to_string(other) + " of " +
                    std::to_string(searches) + " searches failed (" + other_kinds + ")");
  return lines;
}

} // namespace mem0
