#include "common/hook_runner.hpp"
#include "common/atomic_file.hpp"

#include <csignal>
#include <cstdio>
#include <exception>
#include <unistd.h>

namespace mem0 {

std::string session_of(const HookInput &input, const Environment &env) {
  if (!input.session_id.empty()) return input.session_id;
  return env.get("CLAUDE_CODE_SESSION_ID").value_or("");
}

std::filesystem::path cwd_of(const HookInput &input, const Environment &env) {
  std::filesystem::path cwd;
  if (!input.cwd.empty())
    cwd = input.cwd;
  else if (auto dir = env.get("CLAUDE_PROJECT_DIR"); dir && !dir->empty())
    cwd = *dir;
  else {
    std::error_code ec;
    cwd = std::filesystem::current_path(ec);
  }
  cwd = cwd.lexically_normal();
  if (cwd.has_relative_path() && !cwd.has_filename())
    cwd = cwd.parent_path(); // drop a trailing '/'
  return cwd;
}

std::string daily_limit_line(long limit) {
  return "mem0: daily search limit (" + std::to_string(limit) +
         ") reached \xE2\x80\x94 recall paused until tomorrow (UTC)";
}

AutoSearch run_automatic(const HookContext &ctx, StateStore &store, const Identity &identity,
                         const std::vector<SearchSpec> &plan) {
  AutoSearch result;
  result.planned = plan.size();
  const auto now = ctx.now();
  if (const auto pause = store.active_pause(now)) {
    result.paused = "mem0: recall paused \xE2\x80\x94 " + pause->reason + ", retrying in " +
                    std::to_string(pause->remaining.count()) + " s";
    ctx.log.warn(pause->reason + "; no search sent for another " +
                 std::to_string(pause->remaining.count()) + " s");
    return result;
  }
  const std::string today = utc_day(now);
  if (ctx.config.daily_limit > 0 && store.searches_on(today) >= ctx.config.daily_limit) {
    ctx.log.warn("daily search limit (" + std::to_string(ctx.config.daily_limit) +
                 ") reached; no search sent");
    result.limit_reached = true;
    return result;
  }
  result.outcome =
      run_plan(ctx.http, api_target(ctx.config), identity, plan, ctx.deadline, ctx.log);
  const PlanOutcome &o = result.outcome;
  if (o.sent > 0)
    if (auto counted = store.add_searches(today, static_cast<long>(o.sent)); !counted)
      ctx.log.warn("search count not saved: " + counted.error().message);

  // Feed the shared back-off: a 429 pauses everyone; so do repeated invocations that reached
  // nothing at all, so that an outage does not cost every prompt the whole budget.
  std::optional<std::chrono::seconds> retry_after;
  std::size_t unreachable = 0;
  for (const auto &e : o.failures) {
    if (e.kind == ErrorKind::rate_limited)
      retry_after = std::max(retry_after.value_or(std::chrono::seconds(0)),
                             e.retry_after.value_or(StateStore::k_default_pause));
    if (e.kind == ErrorKind::transport || e.kind == ErrorKind::timeout) ++unreachable;
  }
  const auto outcome = retry_after                             ? StateStore::Outcome::rate_limited
                       : (o.sent > 0 && unreachable == o.sent) ? StateStore::Outcome::unreachable
                                                               : StateStore::Outcome::answered;
  if (o.sent > 0)
    if (auto noted =
            store.record_outcome(now, outcome, retry_after.value_or(StateStore::k_default_pause));
        !noted)
      ctx.log.warn("back-off state not saved: " + noted.error().message);
  return result;
}

Recall finish_recall(const HookContext &ctx, StateStore &store, std::string_view session,
                     const AutoSearch &run, const std::vector<Memory> &candidates, std::size_t cap,
                     const std::function<void(SessionState &)> &also) {
  Recall recall;
  bool show_limit = run.limit_reached;
  auto apply = [&](SessionState &s) {
    recall.memories = claim_new(s, candidates, cap);
    show_limit = run.limit_reached && !s.limit_notice_shown;
    s.limit_notice_shown = s.limit_notice_shown || run.limit_reached;
    if (also) also(s);
  };
  bool saved = false;
  if (!session.empty()) {
    auto stored = store.update(session, apply);
    saved = stored.has_value();
    if (!saved) ctx.log.warn("session state not saved: " + stored.error().message);
  }
  if (!saved) {
    SessionState scratch;
    apply(scratch);
  }
  if (run.paused) recall.notices.push_back(*run.paused);
  for (auto &line : recall_problem_lines(run.outcome, run.planned))
    recall.notices.push_back(std::move(line));
  if (show_limit) recall.notices.push_back(daily_limit_line(ctx.config.daily_limit));
  return recall;
}

int run_hook(std::string_view component, std::string_view event, const HookHandler &handler) {
  const auto started = SteadyClock::now();
  std::signal(SIGPIPE, SIG_IGN); // a reader that went away must not turn exit 0 into a signal
  Log log{std::string(component)};
  try {
    const Environment env = Environment::from_process();
    const Config config = load_config(env);
    if (config.api_key) log.hide(*config.api_key);
    if (config.debug && ensure_private_dir(config.mem0_dir))
      log.enable_file(config.mem0_dir / "hooks.log");
    const Deadline deadline = started + config.timeout;
    const std::string raw = read_bounded(STDIN_FILENO, deadline);
    auto input = parse_hook_input(raw);
    if (!input) {
      log.warn("ignoring input: " + input.error().message);
      return 0;
    }
    CurlHttpClient http(config.ca_bundle);
    const HookContext ctx{env, config, http, log, deadline};
    const std::string context = handler(*input, ctx);
    const auto elapsed =
        std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - started);
    log.debug("done in " + std::to_string(elapsed.count()) + " ms, " +
              std::to_string(context.size()) + " bytes of context");
    if (!context.empty()) {
      const std::string out = render_output(event, context);
      std::fwrite(out.data(), 1, out.size(), stdout);
      std::fflush(stdout);
    }
  } catch (const std::exception &e) {
    log.warn(std::string("internal error: ") + e.what());
  } catch (...) {
    log.warn("internal error");
  }
#ifndef __SANITIZE_ADDRESS__ // keep LeakSanitizer's exit-time check in sanitizer builds
  // Everything is written and closed: skip libcurl's and OpenSSL's teardown (about 0.5 ms).
  std::fflush(stdout);
  std::_Exit(0);
#endif
  return 0;
}

} // namespace mem0
