#pragma once
#include "mem0/api.hpp"
#include "mem0/http.hpp"
#include "util/log.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace mem0 {

inline constexpr std::size_t k_max_query_bytes = 2000;

// The text to send as a query: secrets redacted (unless `redact` is off), whitespace collapsed,
// invalid UTF-8 replaced, cut to 2,000 bytes on a character boundary.
std::string make_query(std::string_view text, bool redact);

// The resume plan (docs/hooks.md#prompt-plans): "session state current task" type
// session_state top 3 and "recent decisions and learnings" type decision top 3.
std::vector<SearchSpec> resume_plan(Scope scope);

// What a plan's searches returned.
struct PlanOutcome {
  std::vector<std::vector<Memory>> results; // per search, in plan order; empty when it failed
  std::vector<Error> failures;              // one per failed search
  std::size_t sent = 0;                     // searches sent to the server
};

// Run every search of `plan` in parallel under `deadline`; failed or timed-out searches
// contribute nothing. Once the deadline has passed nothing is sent: `sent` is 0 and each search
// fails as a timeout. Logs each search's status and latency.
PlanOutcome run_plan(HttpClient &http, const ApiTarget &api, const Identity &identity,
                     const std::vector<SearchSpec> &plan, Deadline deadline, const Log &log);

// Merge per-search results in plan order (first search's ranks first), dropping duplicate ids
// and ids for which `skip` returns true.
std::vector<Memory> merge_results(const std::vector<std::vector<Memory>> &results,
                                  const std::function<bool(std::string_view id)> &skip = {});

// Move memories whose type is in `types` to the front, grouped in the order of `types`, keeping
// rank order within each group and among the rest; a 0.3 category counts as the type it pairs with
// (memory_category::ranked_type).
void put_types_first(std::vector<Memory> &memories, const std::vector<std::string_view> &types);

} // namespace mem0
