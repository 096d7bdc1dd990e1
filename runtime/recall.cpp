#include "runtime/recall.hpp"
#include "mem0/format.hpp"
#include "runtime/memory_service.hpp"
#include "store/outbox.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"
#include "util/utf8.hpp"

#include <algorithm>
#include <optional>
#include <set>

namespace mem0 {
namespace {

// A line for the user and the kinds it stands for: shown when any of them is new to the session,
// and then all of them are claimed.
struct Notice {
  std::vector<std::string> kinds;
  std::string line;
};

// The searches of one invocation, or why they were skipped.
struct Searches {
  PlanOutcome outcome;
  bool limit_reached = false;     // the daily cap stopped the searches
  std::optional<Notice> paused;   // the shared back-off stopped them: the line to show
  std::optional<MemoryPage> page; // the listing's answer
};

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
  if (config.daily_add_limit > 0 && !notice_shown(seen, notice_kind::add_limit) &&
      ctx.facts->usage_today().adds >= config.daily_add_limit)
    notices.push_back(
        {{std::string(notice_kind::add_limit)}, add_limit_line(config.daily_add_limit)});
  if (!notice_shown(seen, notice_kind::no_space) && ctx.state.disk->nearly_full(ctx.state.dir))
    notices.push_back(
        {{std::string(notice_kind::no_space)},
         "mem0: captures cannot be stored \xE2\x80\x94 no space left on the disk of " +
             ctx.state.dir.string() + "; what was queued is kept"});
  if (notice_shown(seen, notice_kind::outbox_full) &&
      notice_shown(seen, notice_kind::outbox_rejected))
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
  return request.recent > 0 ? 1 : request.plan.size();
}

// The line that says why the memory service held the searches, with its kinds; nullopt for the
// daily cap (notices_of says it).
std::optional<Notice> held_notice(const Hold &hold) {
  switch (hold.kind) {
  case Hold::Kind::user_pause:
    return Notice{{std::string(notice_kind::user_paused)}, user_pause_line(*hold.user_pause)};
  case Hold::Kind::key_rejected:
    return Notice{{std::string(notice_kind::key_rejected)}, std::string(k_key_paused_line)};
  case Hold::Kind::backoff: {
    const auto &pause = *hold.backoff;
    const bool rate_limited = pause.reason.starts_with("rate limited");
    return Notice{
        {std::string(rate_limited ? notice_kind::rate_limited : notice_kind::unreachable)},
        "mem0: recall paused \xE2\x80\x94 " + pause.reason + ", retrying in " +
            std::to_string(pause.remaining.count()) + " s"};
  }
  case Hold::Kind::daily_limit: break;
  }
  return std::nullopt;
}

// The searches (or the listing) through the memory service, as the run's automatic caller: held
// by its pause rules or the daily cap, or run, counted and fed to the back-off there; what the
// request does not `keep` dropped; their failures noted for the run log.
Searches search(const HookContext &ctx, const RecallRequest &request) {
  const MemoryService service(ctx, ctx.facts, ctx.deadline);
  Lookup found = request.recent > 0 ? service.lookup_recent(request.identity, request.recent)
                                    : service.lookup(request.identity, request.plan);
  Searches result;
  result.outcome = std::move(found.outcome);
  result.page = std::move(found.page);
  if (found.hold) {
    result.limit_reached = found.hold->kind == Hold::Kind::daily_limit;
    result.paused = held_notice(*found.hold);
  }
  if (request.keep)
    for (auto &memories : result.outcome.results)
      std::erase_if(memories, [&](const Memory &m) { return !request.keep(m); });
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
  found.page = run.page;
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
