#include "mem0/search.hpp"
#include "mem0/format.hpp"
#include "util/redact.hpp"

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

std::vector<SearchSpec> resume_plan(Scope scope) {
  return {{"session state current task", std::string(memory_type::session_state), 3, scope},
          {"recent decisions and learnings", std::string(memory_type::decision), 3, scope}};
}

PlanOutcome run_plan(HttpClient &http, const ApiTarget &api, const Identity &identity,
                     const std::vector<SearchSpec> &plan, Deadline deadline, const Log &log) {
  PlanOutcome outcome;
  outcome.results.resize(plan.size());
  if (plan.empty()) return outcome;
  if (SteadyClock::now() >= deadline) { // none would leave: not sent, so neither counted nor fed
    log.warn("deadline passed; " + std::to_string(plan.size()) + " searches not sent");
    outcome.failures.assign(plan.size(), make_error(ErrorKind::timeout, "deadline passed"));
    return outcome;
  }
  std::vector<HttpRequest> requests;
  for (const auto &spec : plan)
    requests.push_back(search_request(api, spec, identity));
  outcome.sent = requests.size();
  auto responses = http.run(requests, deadline);
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const auto label = [&] {
      return "search " + std::to_string(i + 1) + "/" + std::to_string(plan.size()) +
             (plan[i].type ? " type=" + *plan[i].type : std::string(" broad"));
    };
    Result<std::vector<Memory>> parsed = responses[i]
                                             ? parse_search_response(*responses[i], api.dialect())
                                             : unexpected(responses[i].error());
    if (parsed) {
      log.debug([&] {
        return label() + ": HTTP " + std::to_string(responses[i]->status) + ", " +
               std::to_string(parsed->size()) + " results, " +
               std::to_string(responses[i]->latency.count()) + " ms";
      });
      outcome.results[i] = std::move(*parsed);
    } else {
      log.warn(label() + " failed: " + std::string(to_string(parsed.error().kind)) + ": " +
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

void put_types_first(std::vector<Memory> &memories, const std::vector<std::string_view> &types) {
  auto rank = [&](const Memory &m) {
    const auto it = std::find(types.begin(), types.end(), memory_category::ranked_type(m.type));
    return static_cast<std::size_t>(it - types.begin());
  };
  std::stable_sort(memories.begin(), memories.end(),
                   [&](const Memory &a, const Memory &b) { return rank(a) < rank(b); });
}

} // namespace mem0
