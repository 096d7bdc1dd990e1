#include "hook/recall.hpp"
#include "hook/memory_service.hpp"
#include "mem0/format.hpp"
#include "store/outbox.hpp"
#include "util/files.hpp"
#include "util/platform.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"
#include "util/utf8.hpp"

#include <algorithm>
#include <optional>
#include <set>

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

// A line for the user and the kinds it stands for: shown when any of them is new to the session,
// and then all of them are claimed.
struct Notice {
  std::vector<std::string> kinds;
  std::string line;
};

// The searches of one invocation, or why they were skipped.
struct Searches {
  PlanOutcome outcome;
  bool limit_reached = false;   // the daily cap stopped the searches
  std::optional<Notice> paused; // the shared back-off stopped them: the line to show
};

bool was_shown(const SessionState &s, std::string_view kind) {
  if (kind == notice_kind::daily_limit) return s.limit_notice_shown;
  return std::find(s.notices_shown.begin(), s.notices_shown.end(), kind) != s.notices_shown.end();
}

// The lines of a plan's failures with their kinds, in the order of recall_problem_lines.
std::vector<Notice> problem_notices(const PlanOutcome &outcome, std::size_t searches) {
  std::vector<Notice> notices;
  std::size_t other = 0;
  std::vector<std::string> other_kinds;
  bool unauthorized = false, rate_limited = false;
  std::optional<std::chrono::seconds> retry_after;
  std::string no_libcurl; // what to install
  for (const auto &e : outcome.failures) {
    if (e.kind == ErrorKind::no_libcurl) {
      no_libcurl = e.message;
    } else if (e.kind == ErrorKind::unauthorized) {
      unauthorized = true;
    } else if (e.kind == ErrorKind::rate_limited) {
      rate_limited = true;
      if (e.retry_after)
        retry_after = std::max(retry_after.value_or(std::chrono::seconds(0)), *e.retry_after);
    } else {
      ++other;
      const std::string kind(to_string(e.kind));
      if (std::find(other_kinds.begin(), other_kinds.end(), kind) == other_kinds.end())
        other_kinds.push_back(kind);
    }
  }
  if (!no_libcurl.empty())
    notices.push_back({{std::string(notice_kind::no_libcurl)},
                       "mem0: recall off \xE2\x80\x94 " + clean_text(no_libcurl)});
  if (unauthorized)
    notices.push_back({{std::string(notice_kind::key_rejected)},
                       "mem0: recall skipped \xE2\x80\x94 API key rejected"});
  if (rate_limited)
    notices.push_back(
        {{std::string(notice_kind::rate_limited)},
         "mem0: recall skipped \xE2\x80\x94 rate limited" +
             (retry_after ? " (retry after " + std::to_string(retry_after->count()) + " s)"
                          : std::string())});
  if (other) {
    Notice n;
    std::string classes;
    for (const auto &kind : other_kinds) {
      n.kinds.push_back("failed:" + kind);
      classes += (classes.empty() ? "" : ", ") + kind;
    }
    n.line = "mem0: recall incomplete \xE2\x80\x94 " + std::to_string(other) + " of " +
             std::to_string(searches) + " searches failed (" + classes + ")";
    notices.push_back(std::move(n));
  }
  return notices;
}

// What the user must know about capture: the daily add cap, a full outbox, rejected items. Reads
// the outbox only while `seen` has not shown both of its kinds (a directory listing per run).
std::vector<Notice> capture_notices(const HookContext &ctx, const SessionState &seen) {
  std::vector<Notice> notices;
  const Config &config = ctx.config;
  if (!config.auto_save || !has_access(config)) return notices;
  if (config.daily_add_limit > 0 && !was_shown(seen, notice_kind::add_limit) &&
      ctx.facts->usage_today().adds >= config.daily_add_limit)
    notices.push_back(
        {{std::string(notice_kind::add_limit)}, add_limit_line(config.daily_add_limit)});
  if (!was_shown(seen, notice_kind::no_space) && nearly_full(ctx.state.dir))
    notices.push_back(
        {{std::string(notice_kind::no_space)},
         "mem0: captures cannot be stored \xE2\x80\x94 no space left on the disk of " +
             ctx.state.dir.string() + "; what was queued is kept"});
  if (was_shown(seen, notice_kind::outbox_full) && was_shown(seen, notice_kind::outbox_rejected))
    return notices;
  const Outbox::Stats &stats = ctx.facts->outbox_stats();
  if (stats.pending >= Outbox::k_max_items || stats.bytes >= Outbox::k_max_bytes) {
    ctx.log.warn("outbox full: new captures are refused; see mem0-hooks doctor");
    notices.push_back({{std::string(notice_kind::outbox_full)}, outbox_full_line()});
  }
  if (stats.rejected > 0)
    notices.push_back({{std::string(notice_kind::outbox_rejected)},
                       outbox_rejected_line(stats.rejected, Outbox(ctx.state.dir).dir())});
  return notices;
}

// The run-log skips of a plan's failures: timeouts spent the budget, the rest failed.
void note_outcome_skips(RunFacts &facts, const PlanOutcome &outcome) {
  for (const auto &e : outcome.failures)
    if (e.kind == ErrorKind::timeout)
      facts.note_skip("budget", "a search ran out of the time budget");
    else
      // The class and status only: a server's message may quote the query (docs/state.md).
      facts.note_skip("failed", "a search failed: " + std::string(to_string(e.kind)) +
                                    (e.status ? " (HTTP " + std::to_string(e.status) + ")" : ""));
}

// The number of requests `request` makes.
std::size_t planned(const RecallRequest &request) {
  return request.fetch ? request.fetch_requests : request.plan.size();
}

Searches run_searches(const HookContext &ctx, const RecallRequest &request) {
  Searches result;
  const auto now = ctx.now();
  // The service's pause rules (hook/memory_service.hpp), as an automatic caller.
  const auto &user_pause = ctx.facts->user_pause();
  const std::optional<BackoffStore::Pause> unread; // the back-off is read only when needed
  const auto hold =
      hold_for(Caller::automatic, user_pause, user_pause ? unread : ctx.facts->pause());
  if (hold && hold->kind == Hold::Kind::user_pause) {
    ctx.facts->note_paused_work();
    ctx.facts->note_pause_told(); // claimed with the memories below
    result.paused =
        Notice{{std::string(notice_kind::user_paused)}, user_pause_line(*hold->user_pause)};
    ctx.facts->note_skip("paused", "recall paused by you (mem0-hooks resume)");
    ctx.log.debug("paused by the user; no search sent");
    return result;
  }
  const Result<ApiTarget> &api = ctx.facts->api();
  if (hold && hold->kind == Hold::Kind::key_rejected) {
    result.paused =
        Notice{{std::string(notice_kind::key_rejected)}, std::string(k_key_paused_line)};
    ctx.facts->note_skip("backoff", "the API key was rejected; no search until it changes");
    ctx.log.warn("the API key was rejected; no search sent until it changes");
    return result;
  }
  if (hold) {
    const auto &pause = *hold->backoff;
    const bool rate_limited = pause.reason.starts_with("rate limited");
    result.paused =
        Notice{{std::string(rate_limited ? notice_kind::rate_limited : notice_kind::unreachable)},
               "mem0: recall paused \xE2\x80\x94 " + pause.reason + ", retrying in " +
                   std::to_string(pause.remaining.count()) + " s"};
    ctx.log.warn(pause.reason + "; no search sent for another " +
                 std::to_string(pause.remaining.count()) + " s");
    ctx.facts->note_skip("backoff", pause.reason + "; no search for another " +
                                        std::to_string(pause.remaining.count()) + " s");
    return result;
  }
  const std::string today = utc_day(now);
  if (ctx.config.daily_limit > 0 && ctx.facts->usage_today().searches >= ctx.config.daily_limit) {
    ctx.log.warn("daily search limit (" + std::to_string(ctx.config.daily_limit) +
                 ") reached; no search sent");
    result.limit_reached = true;
    ctx.facts->note_skip("daily_limit", "daily search limit (" +
                                            std::to_string(ctx.config.daily_limit) + ") reached");
    return result;
  }
  if (!api) {
    ctx.log.warn(std::string(to_string(api.error().kind)) + ": " + api.error().message);
    result.outcome.results.resize(request.plan.size());
    result.outcome.failures.assign(planned(request), api.error());
    return result;
  }
  if (const auto left = time_left(ctx.deadline); left < k_min_search_time) {
    ctx.log.warn("only " + std::to_string(left.count()) + " ms left; no search sent");
    ctx.facts->note_skip("budget", "only " + std::to_string(left.count()) +
                                       " ms left of the time budget; no search sent");
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
  // A 429 pauses every hook talking to this server with this key; so do repeated runs that
  // reached nothing at all, so that an outage does not cost every prompt the whole budget.
  feed_backoff(ctx, *api, o, std::min(time_left(ctx.deadline), k_side_wait));
  return result;
}

} // namespace

HookOutput recall_output(const Recall &found, const std::vector<std::string> &head,
                         const std::vector<std::string> &lines,
                         const std::vector<std::string> &tail) {
  HookOutput out;
  if (!head.empty() || !tail.empty()) out.context = fit_budget(head, lines, tail);
  out.system_message = join(found.user_notices, "\n");
  return out;
}

std::string daily_limit_line(long limit) {
  return "mem0: daily search limit (" + std::to_string(limit) +
         ") reached \xE2\x80\x94 recall paused until tomorrow (UTC)";
}

std::string add_limit_line(long limit) {
  return "mem0: daily add limit (" + std::to_string(limit) +
         ") reached \xE2\x80\x94 captures wait until tomorrow (UTC)";
}

std::string outbox_full_line() {
  return "mem0: capture outbox full (" + std::to_string(Outbox::k_max_items) + " items or " +
         std::to_string(Outbox::k_max_bytes / (1024 * 1024)) +
         " MB) \xE2\x80\x94 new memories are not saved until it drains (run mem0-hooks doctor)";
}

std::string outbox_rejected_line(std::size_t count, const std::filesystem::path &outbox_dir) {
  return "mem0: " + count_of(count, "capture", "captures") + " rejected by Mem0, kept in " +
         (outbox_dir / "rejected").string() + " (run mem0-hooks doctor)";
}

std::string recalled_line(std::size_t count) {
  return "mem0: " + count_of(count, "memory", "memories") + " recalled";
}

bool claim_notice(SessionState &s, std::string_view kind) {
  if (was_shown(s, kind)) return false;
  if (kind == notice_kind::daily_limit)
    s.limit_notice_shown = true;
  else
    s.notices_shown.emplace_back(kind);
  return true;
}

namespace {

// `line` when `session` has not shown `kind` yet (claimed now), else ""; always `line` without a
// session or when the claim cannot be saved.
std::string notice_once(const HookContext &ctx, const std::string &session, std::string_view kind,
                        std::string line) {
  if (session.empty()) return line;
  if (was_shown(ctx.state.sessions.load(session), kind)) return {};
  bool claimed = false;
  auto stored = ctx.state.sessions.update(
      session, [&](SessionState &s) { claimed = claim_notice(s, kind); },
      std::max(time_left(ctx.deadline), k_claim_grace));
  if (!stored) {
    ctx.log.warn("session state not saved: " + stored.error().message);
    return line;
  }
  return claimed ? line : std::string();
}

} // namespace

std::string no_key_notice(const HookContext &ctx, const std::string &session) {
  return notice_once(ctx, session, notice_kind::no_key, std::string(k_no_key_notice));
}

std::string user_pause_line(const PauseStore::UserPause &pause) {
  return "mem0: paused by you until " +
         (pause.until == 0 ? std::string("you resume") : local_time(pause.until)) +
         " \xE2\x80\x94 mem0-hooks resume";
}

std::string user_pause_notice(const HookContext &ctx, const PauseStore::UserPause &pause) {
  ctx.facts->note_pause_told();
  return notice_once(ctx, ctx.facts->session(), notice_kind::user_paused, user_pause_line(pause));
}

const std::string &mem0_hooks_command() {
  static const std::string command = [] {
    const auto exe = platform::executable_path();
    return exe ? shell_quote((exe->parent_path() / "mem0-hooks").string())
               : std::string("mem0-hooks");
  }();
  return command;
}

Recall recall(const HookContext &ctx, const RecallRequest &request) {
  const std::string &session = request.identity.session_id;
  const SessionState seen = session.empty() ? SessionState{} : ctx.state.sessions.load(session);
  Searches run;
  std::vector<Memory> candidates;
  std::set<std::string, std::less<>> deduped; // found, but shown earlier in the session
  if (planned(request) > 0) {
    run = run_searches(ctx, request);
    candidates = merge_results(run.outcome.results, [&](std::string_view id) {
      const bool shown = seen.was_injected(id);
      if (shown) deduped.emplace(id);
      return shown;
    });
    put_types_first(candidates, request.types_first);
    note_outcome_skips(*ctx.facts, run.outcome);
  }
  const bool answered = run.outcome.failures.size() < run.outcome.sent;
  if (!deduped.empty())
    ctx.facts->note_skip("deduped", count_of(deduped.size(), "memory", "memories") +
                                        " already shown in this session");
  if (answered && candidates.empty() && deduped.empty())
    ctx.facts->note_skip("none", "no memory matched");
  const auto line_of = [&](const Memory &m) {
    return request.line ? request.line(m) : context_line(m);
  };

  // Every line the user may need from this run, in the order shown; each is claimed below.
  std::vector<Notice> notices;
  if (run.paused) notices.push_back(*run.paused);
  for (auto &n : problem_notices(run.outcome, planned(request)))
    notices.push_back(std::move(n));
  if (run.limit_reached)
    notices.push_back(
        {{std::string(notice_kind::daily_limit)}, daily_limit_line(ctx.config.daily_limit)});
  for (auto &n : capture_notices(ctx, seen))
    notices.push_back(std::move(n));

  Recall recall;
  std::vector<bool> show(notices.size(), false);
  auto apply = [&](SessionState &s) {
    recall.memories = claim_new(s, candidates, request.cap);
    for (std::size_t i = 0; i < notices.size(); ++i) {
      bool fresh = false;
      for (const auto &kind : notices[i].kinds)
        fresh = claim_notice(s, kind) || fresh;
      show[i] = fresh;
    }
    if (request.also) request.also(s, answered);
    if (ctx.facts->user_pause()) s.capture_resync = true;
    recall.lines.clear();
    RunRecord record = ctx.facts->run_record();
    record.chars = 0;
    for (const auto &m : recall.memories) {
      recall.lines.push_back(line_of(m));
      record.chars += code_points(recall.lines.back());
      record.memories.emplace_back(m.id, m.type);
    }
    if (const std::size_t left = candidates.size() - recall.memories.size();
        left > 0 && recall.memories.size() == request.cap)
      record.skipped.push_back({"budget", count_of(left, "more memory", "more memories") +
                                              " over the cap of " + std::to_string(request.cap)});
    if (!record.empty()) s.log_run(std::move(record));
  };
  bool saved = false;
  if (!session.empty()) {
    const auto wait = std::max(time_left(ctx.deadline), k_claim_grace);
    auto stored = ctx.state.sessions.update(session, apply, wait);
    saved = stored.has_value();
    if (saved) ctx.facts->note_run_logged();
    if (!saved) ctx.log.warn("session state not saved: " + stored.error().message);
  }
  if (!saved) {
    // Unrecorded, so claimed against what the session file said before the run: nothing it
    // records as shown is shown again.
    SessionState scratch = seen;
    apply(scratch);
    // A full disk keeps the session from recording the no-space line: an empty marker file,
    // which needs no data block, records it instead (docs/failures.md#a-full-disk).
    for (std::size_t i = 0; i < notices.size(); ++i)
      if (show[i] && notices[i].kinds.front() == notice_kind::no_space && !session.empty())
        show[i] =
            create_marker(ctx.state.dir / (".no-space-told-" + sha256_hex(session).substr(0, 16)));
  }
  if (ctx.config.show_recall && !recall.memories.empty())
    recall.user_notices.push_back(recalled_line(recall.memories.size()));
  for (std::size_t i = 0; i < notices.size(); ++i)
    if (show[i]) recall.user_notices.push_back(std::move(notices[i].line));
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
  for (auto &n : problem_notices(outcome, searches))
    lines.push_back(std::move(n.line));
  return lines;
}

} // namespace mem0
