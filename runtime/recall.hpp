#pragma once
#include "mem0/api.hpp"
#include "mem0/search.hpp"
#include "runtime/hook_context.hpp"
#include "runtime/io.hpp"
#include "runtime/notices.hpp"
#include "store/session_state.hpp"

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
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
  // List instead of searching: the first `recent` of the memories, newest first, held, counted
  // and fed to the back-off like one search (MemoryService::lookup_recent); Recall::page holds it.
  int recent = 0;
  // The candidates to keep of what was found; every one when empty.
  std::function<bool(const Memory &)> keep;
  // How a memory is shown to the model (context_line when empty): Recall::lines, and the
  // characters the run log counts.
  std::function<std::string(const Memory &)> line;
};

// What a hook shows: the memories claimed for this session, for the model's context, and the
// lines for the user (systemMessage): the problems the user must act on, each kind at most once
// per session (every run without a session), and with `show_recall` on the recall summary.
struct Recall {
  std::vector<Memory> memories;
  std::vector<std::string> lines; // the memories as RecallRequest::line shows them
  std::vector<std::string> user_notices;
  std::optional<MemoryPage> page; // the listing's answer (RecallRequest::recent)
};

// The read pipeline (docs/hooks.md#the-recall-pipeline): the searches go through the memory
// service as the run's automatic caller (MemoryService::lookup), which skips them while the
// user's pause or the shared back-off holds recall or when the daily cap is reached, and
// otherwise runs the plan in parallel under the context's deadline, counts it for today (UTC)
// and feeds the back-off; merge in plan
// order, drop ids this session has seen, put `types_first` first; then claim up to `cap` under
// the session lock, so that no memory is injected twice in a session even by concurrent hooks.
// User notices (docs/failures.md#recall-notices): the pause, the recall problems, the daily
// limits and the outbox's state, each kind claimed under the same lock as the memories so that
// concurrent hooks of a session show it once. Without a session (or when its state cannot be
// saved) nothing is deduplicated. A request with no plan searches nothing but still claims its
// `also` changes and the notices about capture. What was injected, what was skipped and why go
// into the run's entry of the session's run log, which the runner stores (docs/cli.md#log).
Recall recall(const HookContext &ctx, const RecallRequest &request);

// What a hook prints after a recall: `head`, the memory `lines` and `tail` for the model, fitted
// to the context budget (nothing when head and tail are empty), and the recall's notices for the
// user.
HookOutput recall_output(const Recall &found, const std::vector<std::string> &head,
                         const std::vector<std::string> &lines,
                         const std::vector<std::string> &tail = {});

// Take up to `cap` of `candidates` that `state` has not injected yet and record them as injected.
std::vector<Memory> claim_new(SessionState &state, const std::vector<Memory> &candidates,
                              std::size_t cap);

// The recall-problem lines for a plan's failures (docs/failures.md#recall-notices), in a
// fixed order: key rejected, rate limited, then the other failures counted.
std::vector<std::string> recall_problem_lines(const PlanOutcome &outcome, std::size_t searches);

// The text around resumed memories (docs/hooks.md#prompt-output).
inline constexpr std::string_view k_resume_heading = "### Session context recovered from mem0";
inline constexpr std::string_view k_resume_footer =
    "These memories provide context for resuming work.";

} // namespace mem0
