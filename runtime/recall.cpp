#include "runtime/recall.hpp"
#include "mem0/format.hpp"
#include "runtime/memory_service.hpp"
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
  if (!was_shown(seen, notice_kind::no_space) && ctx.state.disk->nearly_full(ctx.state.dir))
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
                       outbox_rejected_line(stats.rejected, ctx.state.outbox.dir())});
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

// The gate in front of the searches: the user's pause, the back-off, the daily cap, a missing
// target or too little time left each stop them, with the reason noted for the run log; nullopt
// when the searches may go.
std::optional<Searches> gate(const HookContext &ctx, const RecallRequest &request) {
  Searches stopped;
  // The service's pause rules (runtime/memory_service.hpp), as an automatic caller.
  const auto &user_pause = ctx.facts->user_pause();
  const std::optional<BackoffStore::Pause> unread; // the back-off is read only when needed
  const auto hold =
      hold_for(Caller::automatic, user_pause, user_pause ? unread : ctx.facts->backoff());
  if (hold && hold->kind == Hold::Kind::user_pause) {
    ctx.facts->note_paused_work();
    stopped.paused =
        Notice{{std::string(notice_kind::user_paused)}, user_pause_line(*hold->user_pause)};
    ctx.facts->note_skip("paused", "recall paused by you (mem0-hooks resume)");
    ctx.log.debug("paused by the user; no search sent");
    return stopped;
  }
  if (hold && hold->kind == Hold::Kind::key_rejected) {
    stopped.paused =
        Notice{{std::string(notice_kind::key_rejected)}, std::string(k_key_paused_line)};
    ctx.facts->note_skip("backoff", "the API key was rejected; no search until it changes");
    ctx.log.warn("the API key was rejected; no search sent until it changes");
    return stopped;
  }
  if (hold) {
    const auto &pause = *hold->backoff;
    const bool rate_limited = pause.reason.starts_with("rate limited");
    stopped.paused =
        Notice{{std::string(rate_limited ? notice_kind::rate_limited : notice_kind::unreachable)},
               "mem0: recall paused \xE2\x80\x94 " + pause.reason + ", retrying in " +
                   std::to_string(pause.remaining.count()) + " s"};
    ctx.log.warn(pause.reason + "; no search sent for another " +
                 std::to_string(pause.remaining.count()) + " s");
    ctx.facts->note_skip("backoff", pause.reason + "; no search for another " +
                                        std::to_string(pause.remaining.count()) + " s");
    return stopped;
  }
  if (ctx.config.daily_search_limit > 0 &&
      ctx.facts->usage_today().searches >= ctx.config.daily_search_limit) {
    ctx.log.warn("daily search limit (" + std::to_string(ctx.config.daily_search_limit) +
                 ") reached; no search sent");
    stopped.limit_reached = true;
    ctx.facts->note_skip("daily_limit", "daily search limit (" +
                                            std::to_string(ctx.config.daily_search_limit) +
                                            ") reached");
    return stopped;
  }
  const Result<ApiTarget> &api = ctx.facts->api();
  if (!api) {
    ctx.log.warn(std::string(to_string(api.error().kind)) + ": " + api.error().message);
    stopped.outcome.results.resize(request.plan.size());
    stopped.outcome.failures.assign(planned(request), api.error());
    return stopped;
  }
  if (const auto left = time_left(ctx.deadline); left < k_min_search_time) {
    ctx.log.warn("only " + std::to_string(left.count()) + " ms left; no search sent");
    ctx.facts->note_skip("budget", "only " + std::to_string(left.count()) +
                                       " ms left of the time budget; no search sent");
    stopped.outcome.results.resize(request.plan.size());
    stopped.outcome.failures.assign(planned(request),
                                    make_error(ErrorKind::timeout, "too little time left"));
    return stopped;
  }
  return std::nullopt;
}

// The searches: stopped by the gate, or the plan (or the fetch) run under the deadline, counted
// for today (UTC) and fed to the back-off; their failures noted for the run log.
Searches search(const HookContext &ctx, const RecallRequest &request) {
  const std::string today = utc_day(ctx.now());
  Searches result;
  if (auto stopped = gate(ctx, request)) {
    result = std::move(*stopped);
  } else {
    const ApiTarget &api = *ctx.facts->api();
    result.outcome = request.fetch ? request.fetch(api)
                                   : run_plan(ctx.http, api, request.identity, request.plan,
                                              ctx.deadline, ctx.log);
    const PlanOutcome &o = result.outcome;
    if (o.sent > 0)
      if (auto counted = ctx.state.usage.add(today, {static_cast<long>(o.sent), 0},
                                             std::min(time_left(ctx.deadline), k_side_wait));
          !counted)
        ctx.log.warn("search count not saved: " + counted.error().message);
    // A 429 pauses every hook talking to this server with this key; so do repeated runs that
    // reached nothing at all, so that an outage does not cost every prompt the whole budget.
    feed_backoff(ctx, api, o, std::min(time_left(ctx.deadline), k_side_wait));
  }
  note_outcome_skips(*ctx.facts, result.outcome);
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
  return notice_once(ctx, ctx.facts->session(), notice_kind::user_paused, user_pause_line(pause));
}

std::string mem0_hooks_command(const Agent &agent) {
  static const auto exe = platform::executable_path();
  if (!exe) return "mem0-hooks";
  const bool windows = platform::windows_commands();
  std::string program = (exe->parent_path() / "mem0-hooks").string();
  if (windows) program += ".exe";
  return render_command(hook_shell(agent, windows), program, "");
}

namespace {

// The candidates of a run's results: merged in plan order without what the session has shown,
// `types_first` first; and how many were found but shown before.
struct Selection {
  std::vector<Memory> candidates;
  std::size_t deduped = 0;
};

Selection select(const SessionState &seen, const PlanOutcome &outcome,
                 const std::vector<std::string_view> &types_first) {
  Selection selected;
  std::set<std::string, std::less<>> deduped;
  selected.candidates = merge_results(outcome.results, [&](std::string_view id) {
    const bool shown = seen.was_injected(id);
    if (shown) deduped.emplace(id);
    return shown;
  });
  put_types_first(selected.candidates, types_first);
  selected.deduped = deduped.size();
  return selected;
}

// Every line the user may need from this run, in the order shown: why the searches stopped,
// their problems, the daily limit, then capture's. Each is claimed with the memories.
std::vector<Notice> notices_of(const HookContext &ctx, const Searches &run, std::size_t searches,
                               const SessionState &seen) {
  std::vector<Notice> notices;
  if (run.paused) notices.push_back(*run.paused);
  for (auto &n : problem_notices(run.outcome, searches))
    notices.push_back(std::move(n));
  if (run.limit_reached)
    notices.push_back(
        {{std::string(notice_kind::daily_limit)}, daily_limit_line(ctx.config.daily_search_limit)});
  for (auto &n : capture_notices(ctx, seen))
    notices.push_back(std::move(n));
  return notices;
}

// What a claim took: the memories, and which of the notices are new to the session.
struct Claim {
  std::vector<Memory> memories;
  std::vector<bool> show;
};

// Claim up to the request's cap of `candidates` and the `notices`, with the request's `also`,
// under the session lock; without a session, or when its state cannot be saved, against what
// `seen` said, so that nothing it records as shown is shown again.
Claim claim(const HookContext &ctx, const RecallRequest &request, const SessionState &seen,
            const std::vector<Memory> &candidates, const std::vector<Notice> &notices,
            bool answered) {
  const std::string &session = request.identity.session_id;
  Claim claimed;
  const auto apply = [&](SessionState &s) {
    claimed.memories = claim_new(s, candidates, request.cap);
    claimed.show.assign(notices.size(), false);
    for (std::size_t i = 0; i < notices.size(); ++i)
      for (const auto &kind : notices[i].kinds)
        claimed.show[i] = claim_notice(s, kind) || claimed.show[i];
    if (request.also) request.also(s, answered);
    if (ctx.facts->user_pause()) s.capture_resync = true;
  };
  if (!session.empty()) {
    const auto wait = std::max(time_left(ctx.deadline), k_claim_grace);
    auto stored = ctx.state.sessions.update(session, apply, wait);
    if (stored) return claimed;
    ctx.log.warn("session state not saved: " + stored.error().message);
  }
  SessionState scratch = seen;
  apply(scratch);
  // A full disk keeps the session from recording the no-space line: an empty marker file,
  // which needs no data block, records it instead (docs/failures.md#a-full-disk).
  for (std::size_t i = 0; i < notices.size(); ++i)
    if (claimed.show[i] && notices[i].kinds.front() == notice_kind::no_space && !session.empty())
      claimed.show[i] = ctx.state.disk->create_marker(
          ctx.state.dir / (".no-space-told-" + sha256_hex(session).substr(0, 16)));
  return claimed;
}

// The run log's notes of a recall (docs/cli.md#log), in the run's entry the runner stores: what
// was found but shown before, or that nothing matched (noted before the claim, whose `also` may
// note more)...
void note_selection(RunFacts &facts, const Selection &selected, bool answered) {
  if (selected.deduped > 0)
    facts.note_skip("deduped", count_of(selected.deduped, "memory", "memories") +
                                   " already shown in this session");
  if (answered && selected.candidates.empty() && selected.deduped == 0)
    facts.note_skip("none", "no memory matched");
}

// ...and what was injected, with the code points of its lines, and what the cap left out.
void note_injected(RunFacts &facts, const Selection &selected, const Recall &found,
                   std::size_t cap) {
  RunRecord &record = facts.run_record();
  for (std::size_t i = 0; i < found.memories.size(); ++i) {
    record.chars += code_points(found.lines[i]);
    record.memories.emplace_back(found.memories[i].id, found.memories[i].type);
  }
  if (const std::size_t left = selected.candidates.size() - found.memories.size();
      left > 0 && found.memories.size() == cap)
    facts.note_skip("budget", count_of(left, "more memory", "more memories") + " over the cap of " +
                                  std::to_string(cap));
}

} // namespace

Recall recall(const HookContext &ctx, const RecallRequest &request) {
  const std::string &session = request.identity.session_id;
  const SessionState seen = session.empty() ? SessionState{} : ctx.state.sessions.load(session);
  const bool searches = planned(request) > 0;
  const Searches run = searches ? search(ctx, request) : Searches{};
  const Selection selected =
      searches ? select(seen, run.outcome, request.types_first) : Selection{};
  const bool answered = run.outcome.failures.size() < run.outcome.sent;
  note_selection(*ctx.facts, selected, answered);
  std::vector<Notice> notices = notices_of(ctx, run, planned(request), seen);
  Claim claimed = claim(ctx, request, seen, selected.candidates, notices, answered);

  Recall found;
  found.memories = std::move(claimed.memories);
  for (const auto &m : found.memories)
    found.lines.push_back(request.line ? request.line(m) : context_line(m));
  note_injected(*ctx.facts, selected, found, request.cap);
  if (ctx.config.show_recall && !found.memories.empty())
    found.user_notices.push_back(recalled_line(found.memories.size()));
  for (std::size_t i = 0; i < notices.size(); ++i)
    if (claimed.show[i]) found.user_notices.push_back(std::move(notices[i].line));
  return found;
}

std::vector<Memory> claim_new(SessionState &state, const std::vector<Memory> &candidates,
                              std::size_t cap) {
  std::vector<Memory> claimed;
  for (const auto &m : candidates) {
    if (claimed.size() >= cap) break;
    if (state.was_injected(m.id)) continue;
    state.injected.push_back(m.id);
    state.await_reply(m.id, m.text); // for the use signal at the next reply
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
