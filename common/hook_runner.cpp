#include "common/hook_runner.hpp"
#include "common/atomic_file.hpp"

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
  const std::string today = utc_day(ctx.now());
  if (ctx.config.daily_limit > 0 && store.searches_on(today) >= ctx.config.daily_limit) {
    ctx.log.warn("daily search limit (" + std::to_string(ctx.config.daily_limit) +
                 ") reached; no search sent");
    result.limit_reached = true;
    return result;
  }
  result.outcome =
      run_plan(ctx.http, api_target(ctx.config), identity, plan, ctx.deadline, ctx.log);
  if (result.outcome.sent > 0)
    if (auto counted = store.add_searches(today, static_cast<long>(result.outcome.sent)); !counted)
      ctx.log.warn("search count not saved: " + counted.error().message);
  return result;
}

int run_hook(std::string_view component, std::string_view event, const HookHandler &handler) {
  const auto started = SteadyClock::now();
  Log log{std::string(component)};
  try {
    const Environment env = Environment::from_process();
    const Config config = load_config(env);
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
  return 0;
}

} // namespace mem0
