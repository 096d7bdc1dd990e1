#include "common/recall.hpp"

#include <algorithm>
#include <optional>

namespace mem0 {
namespace {

// Under this much time left no search is sent: it could not be answered, yet would be counted,
// feed the back-off and may still cost the server's quota.
constexpr std::chrono::milliseconds k_min_search_time{50};
// The daily count and the back-off are not worth the budget: a short wait, which other hooks
// (each holding the lock for about a millisecond) do not outlast, never past the deadline.
constexpr std::chrono::milliseconds k_side_wait{100};
// The session claim is (without it dedupe is lost): it waits what the deadline leaves, and at
// least this long, so that a run whose searches took the whole budget can still claim while
// another hook holds the lock for a moment (docs/failures.md#time-budget: budget + 100 ms).
constexpr std::chrono::milliseconds k_claim_grace{50};

// The searches of one invocation, or why they were skipped.
struct Searches {
  PlanOutcome outcome;
  bool limit_reached = false;        // the daily cap stopped the searches
  std::optional<std::string> paused; // the shared back-off stopped them: the line to show
};

// The number of requests `request` makes.
std::size_t planned(const RecallRequest &request) {
  return request.fetch ? request.fetch_requests : request.plan.size();
}

Searches run_searches(const HookContext &ctx, const RecallRequest &request) {
  Searches result;
  const auto now = ctx.now();
  if (const auto pause = ctx.state.backoff.active_pause(now)) {
    result.paused = "mem0: recall paused \xE2\x80\x94 " + pause->reason + ", retrying in " +
                    std::to_string(pause->remaining.count()) + " s";
    ctx.log.warn(pause->reason + "; no search sent for another " +
                 std::to_string(pause->remaining.count()) + " s");
    return result;
  }
  const std::string today = utc_day(now);
  if (ctx.config.daily_limit > 0 && ctx.state.usage.on(today).searches >= ctx.config.daily_limit) {
    ctx.log.warn("daily search limit (" + std::to_string(ctx.config.daily_limit) +
                 ") reached; no search sent");
    result.limit_reached = true;
    return result;
  }
  const auto api = api_target(ctx.config);
  if (!api) {
    ctx.log.warn(std::string(to_string(api.error().kind)) + ": " + api.error().message);
    result.outcome.results.resize(request.plan.size());
    result.outcome.failures.assign(planned(request), api.error());
    return result;
  }
  if (const auto left = time_left(ctx.deadline); left < k_min_search_time) {
    ctx.log.warn("only " + std::to_string(left.count()) + " ms left; no search sent");
    result.outcome.results.resize(request.plan.size());
    result.outcome.failures.assign(planned(request),
                                   make_error(ErrorKind::timeout, "too little time left"));
    return result;
  }
  result.outcome = request.fetch ? request.fetch(*api)
                                 : run_plan(ctx.http, *api, request.identity, request.plan,
                                            ctx.deadline, ctx.log);
  const PlanOutcome &o = result.outcome;
  if (o.sent > 0)
    if (auto counted = ctx.state.usage.add(today, {static_cast<long>(o.sent), 0},
                                           std::min(time_left(ctx.deadline), k_side_wait));
        !counted)
      ctx.log.warn("search count not saved: " + counted.error().message);
  // A 429 pauses every hook; so do repeated runs that reached nothing at all, so that an outage
  // does not cost every prompt the whole budget.
  const auto wait = std::min(time_left(ctx.deadline), k_side_wait);
  if (auto noted = ctx.state.backoff.record_run(now, o.failures, o.sent, wait); !noted)
    ctx.log.warn("back-off state not saved: " + noted.error().message);
  return result;
}

} // namespace

std::string daily_limit_line(long limit) {
  return "mem0: daily search limit (" + std::to_string(limit) +
         ") reached \xE2\x80\x94 recall paused until tomorrow (UTC)";
}

Recall recall(const HookContext &ctx, const RecallRequest &request) {
  const std::string &session = request.identity.session_id;
  Searches run;
  std::vector<Memory> candidates;
  if (planned(request) > 0) {
    const SessionState seen = session.empty() ? SessionState{} : ctx.state.sessions.load(session);
    run = run_searches(ctx, request);
    candidates = merge_results(run.outcome.results,
                               [&](std::string_view id) { return seen.was_injected(id); });
    put_types_first(candidates, request.types_first);
  }
  const bool answered = run.outcome.failures.size() < run.outcome.sent;

  Recall recall;
  bool show_limit = false;
  auto apply = [&](SessionState &s) {
    recall.memories = claim_new(s, candidates, request.cap);
    show_limit = run.limit_reached && !s.limit_notice_shown;
    s.limit_notice_shown = s.limit_notice_shown || run.limit_reached;
    if (request.also) request.also(s, answered);
  };
  bool saved = false;
  if (!session.empty()) {
    const auto wait = std::max(time_left(ctx.deadline), k_claim_grace);
    auto stored = ctx.state.sessions.update(session, apply, wait);
    saved = stored.has_value();
    if (!saved) ctx.log.warn("session state not saved: " + stored.error().message);
  }
  if (!saved) {
    SessionState scratch;
    apply(scratch);
  }
  if (run.paused) recall.notices.push_back(*run.paused);
  for (auto &line : recall_problem_lines(run.outcome, planned(request)))
    recall.notices.push_back(std::move(line));
  if (show_limit) recall.notices.push_back(daily_limit_line(ctx.config.daily_limit));
  return recall;
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
