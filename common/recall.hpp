#pragma once
#include "common/hook_runner.hpp"
#include "common/mem0_api.hpp"
#include "common/search.hpp"
#include "common/session_state.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace mem0 {

// What a hook wants recalled: a plan of searches and how to select among the results.
struct RecallRequest {
  std::vector<SearchSpec> plan;              // may be empty: then only `also` runs
  Identity identity;                         // its session_id keys the session dedupe
  std::size_t cap = 0;                       // memories to show at most
  std::vector<std::string_view> types_first; // memory types moved to the front, in this order
  // Further changes to the session state, made under the same lock as the claim; `answered`
  // says whether any search got an answer.
  std::function<void(SessionState &, bool answered)> also;
  // Fetch the candidates another way than the plan's searches (one listing, say): the outcome
  // is gated, counted and fed to the back-off like a plan of `fetch_requests` searches.
  std::function<PlanOutcome(const ApiTarget &)> fetch;
  std::size_t fetch_requests = 1;
};

// What a hook shows: the memories claimed for this session and the notice lines.
struct Recall {
  std::vector<Memory> memories;
  std::vector<std::string> notices;
};

// The read pipeline (docs/hooks.md#the-recall-pipeline): skip the searches while the shared
// back-off pauses recall or when the daily cap is reached; otherwise run the plan in parallel
// under the context's deadline, count it for today (UTC) and feed the back-off; merge in plan
// order, drop ids this session has seen, put `types_first` first; then claim up to `cap` under
// the session lock, so that no memory is injected twice in a session even by concurrent hooks.
// Notices: recall problems, the pause, and the daily-limit line once per session. Without a
// session (or when its state cannot be saved) nothing is deduplicated.
Recall recall(const HookContext &ctx, const RecallRequest &request);

// Take up to `cap` of `candidates` that `state` has not injected yet and record them as injected.
std::vector<Memory> claim_new(SessionState &state, const std::vector<Memory> &candidates,
                              std::size_t cap);

// The recall-problem lines for a plan's failures (docs/failures.md#recall-notices), in a
// fixed order: key rejected, rate limited, then the other failures counted.
std::vector<std::string> recall_problem_lines(const PlanOutcome &outcome, std::size_t searches);

// `mem0: daily search limit (N) reached — recall paused until tomorrow (UTC)`
std::string daily_limit_line(long limit);

// The text around resumed memories (docs/hooks.md#prompt-output).
inline constexpr std::string_view k_resume_heading = "### Session context recovered from mem0";
inline constexpr std::string_view k_resume_footer =
    "These memories provide context for resuming work.";

} // namespace mem0
