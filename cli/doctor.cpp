#include "cli/cli.hpp"
#include "mem0/format.hpp"
#include "mem0/identity.hpp"
#include "store/outbox.hpp"
#include "util/git.hpp"

#include <ctime>

namespace mem0::cli {
namespace fs = std::filesystem;
namespace {

using Row = std::function<void(std::string_view name, const std::string &value)>;

std::string status_line(const Result<HttpResponse> &r) {
  if (!r) return std::string(to_string(r.error().kind)) + ": " + r.error().message;
  return "HTTP " + std::to_string(r->status) + " in " + std::to_string(r->latency.count()) + " ms";
}

std::string fix_for(const Error &e, const Config &c) {
  if (e.kind == ErrorKind::unauthorized)
    return c.backend == Backend::selfhosted
               ? "the server rejected the API key: create one in its dashboard and set "
                 "MEM0_API_KEY"
               : "the API key was rejected: create a new one at app.mem0.ai and set MEM0_API_KEY";
  if (e.kind == ErrorKind::transport || e.kind == ErrorKind::timeout)
    return "cannot reach " + c.base_url + ": check MEM0_BASE_URL, the network or the proxy";
  return "Mem0 answered " + e.message + " (" + std::string(to_string(e.kind)) +
         "): check MEM0_BASE_URL, or retry later";
}

// `unix_seconds` in UTC, as `format` (strftime) gives it.
std::string utc_time(long long unix_seconds, const char *format) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

// `3 pending (12 KB), 0 rejected, last delivery 2026-12-01 10:02 UTC, 5 adds today`
std::string outbox_line(const Outbox::Stats &s, long adds_today, const Config &c) {
  const std::string last =
      s.last_delivery > 0 ? utc_time(s.last_delivery, "%Y-%m-%d %H:%M UTC") : "never";
  return std::to_string(s.pending) + " pending (" + std::to_string((s.bytes + 1023) / 1024) +
         " KB), " + std::to_string(s.rejected) + " rejected, last delivery " + last + ", " +
         count_of(static_cast<std::size_t>(adds_today), "add", "adds") + " today" +
         (c.daily_add_limit > 0 ? " (limit " + std::to_string(c.daily_add_limit) + ")" : "") +
         (c.auto_save ? "" : "; capture is off (auto_save)");
}

// The pause of this server and key, if any, as a row and a fix.
void pause_row(const CliContext &ctx, const ApiTarget &api, const Row &row,
               std::vector<std::string> &fixes, bool was_paused) {
  const auto now = ctx.now();
  if (const auto pause = ctx.state.backoff.active_pause(now, api.server_key())) {
    const std::string end =
        utc_time(unix_seconds(now) + pause->remaining.count(), "%Y-%m-%d %H:%M:%S UTC");
    row("pause", pause->reason + ": recall and capture paused until " + end + " (" +
                     std::to_string(pause->remaining.count()) + " s)");
    fixes.push_back("wait until " + end + ", or run `mem0-hooks doctor --reset` to try again now");
  } else if (was_paused) {
    row("pause", "ended early: the server answered");
  }
}

// The live check: the ping (the platform's only) and one search, with their status, then the
// pause. Their outcome counts like a hook's: an answer ends a pause, a 429 starts one.
void live_check(const CliContext &ctx, const ApiTarget &api, const Identity &identity,
                const Row &row, std::vector<std::string> &fixes) {
  const bool was_paused = ctx.state.backoff.active_pause(ctx.now(), api.server_key()).has_value();
  std::vector<HttpRequest> requests{
      search_request(api, {"mem0 doctor check", std::nullopt, 1}, identity)};
  if (auto ping = ping_request(api)) requests.push_back(std::move(*ping));
  const auto responses = ctx.http.run(requests, ctx.deadline);
  const auto parsed = responses[0] ? parse_search_response(*responses[0])
                                   : Result<std::vector<Memory>>(unexpected(responses[0].error()));
  std::vector<Error> failures;
  if (!parsed) failures.push_back(parsed.error());
  if (responses.size() > 1) {
    row("ping", status_line(responses[1]));
    if (!responses[1])
      failures.push_back(responses[1].error());
    else if (responses[1]->status < 200 || responses[1]->status >= 300)
      failures.push_back(classify_status(*responses[1]));
  } else {
    row("ping", "none on a self-hosted server; the search checks the key");
  }
  row("search",
      parsed ? status_line(responses[0]) + ", " + count_of(parsed->size(), "result", "results")
             : std::string(to_string(parsed.error().kind)) + ": " + parsed.error().message);
  if (!failures.empty()) fixes.push_back(fix_for(failures.front(), ctx.config));
  if (auto noted =
          ctx.state.backoff.record_run(ctx.now(), api.server_key(), failures, requests.size());
      !noted)
    ctx.log.warn("back-off state not saved: " + noted.error().message);
  pause_row(ctx, api, row, fixes, was_paused);
}

} // namespace

int doctor(const Args &args, const CliContext &ctx) {
  const Config &c = ctx.config;
  std::vector<std::string> fixes;
  const Row row = [&](std::string_view name, const std::string &value) {
    ctx.out << name << std::string(name.size() < 12 ? 12 - name.size() : 1, ' ') << value << "\n";
  };
  if (args.has("--reset")) {
    const auto cleared = ctx.state.backoff.reset(ctx.now());
    row("reset", cleared ? count_of(*cleared, "pause", "pauses") + " ended"
                         : "back-off state not cleared: " + cleared.error().message);
  }

  row("api key", c.api_key ? mask_key(*c.api_key) + " (" + c.origin("api_key") + ")"
                 : !c.api_key_problem.empty() ? "refused: " + c.api_key_problem
                 : has_access(c) ? "none: requests go without X-API-Key (a server run with "
                                   "AUTH_DISABLED=true)"
                                 : "missing");
  if (!has_access(c))
    fixes.emplace_back(c.api_key_problem.empty()
                           ? "set MEM0_API_KEY (or a MEM0_API_KEY= line in ~/.bashrc)"
                           : "set MEM0_API_KEY to the key alone, without line breaks");
  row("user id", c.user_id + " (" + c.origin("user_id") + ")");
  const ProjectId project = resolve_project_id(c, ctx.env, ctx.cwd, ctx.log);
  row("project id", project.id + " (" + project.source + ")");
  const auto repo = find_repo(ctx.cwd);
  row("branch", repo ? current_branch(*repo).value_or("unknown") : "not a git repository");
  row("base url", c.base_url + " (" + c.origin("base_url") + ")");
  row("backend",
      std::string(c.backend == Backend::selfhosted ? "self-hosted Mem0 server" : "Mem0 Platform") +
          " (" + c.origin("backend") + ")");
  const Identity identity = project_identity(c, project.id, ctx.cwd, "");
  row("shared", !identity.shared_agent_id.empty()
                    ? "project memory of agent " + identity.shared_agent_id + " and " +
                          identity.project_id + " searched too"
                : c.backend == Backend::selfhosted ? "not on a self-hosted server"
                                                   : "off (shared_memory)");
  row("settings", (c.mem0_dir / "settings.json").string() + " (" + c.settings_status + ")");
  if (c.settings_status == "invalid JSON" || c.settings_status == "not an object")
    fixes.push_back("make " + (c.mem0_dir / "settings.json").string() +
                    " a JSON object, or delete it (defaults are in use)");
  const DailyUsage today = ctx.state.usage.on(utc_day(ctx.now()));
  row("state dir", c.state_dir.string() + " (" +
                       count_of(static_cast<std::size_t>(today.searches), "automatic search",
                                "automatic searches") +
                       " today" +
                       (c.daily_limit > 0 ? ", limit " + std::to_string(c.daily_limit) : "") + ")");
  const Outbox::Stats outbox = Outbox(c.state_dir).stats();
  row("outbox", outbox_line(outbox, today.adds, c));
  if (outbox.rejected > 0)
    fixes.push_back("look at the " +
                    count_of(outbox.rejected, "rejected capture", "rejected captures") + " in " +
                    (c.state_dir / "outbox" / "rejected").string() + ", then delete them");
  row("plan", std::string(c.plan == SearchPlan::lean ? "lean" : "thorough") + " plan, rerank " +
                  (c.rerank ? "on" : "off") + ", threshold " +
                  std::to_string(c.threshold).substr(0, 4) + ", auto search " +
                  (c.auto_search ? "on" : "off"));

  // Every install path that applies here, one row each (docs/cli.md#install-paths).
  std::vector<InstallPath> paths = find_install_paths(c, ctx.env, ctx.cwd);
  std::erase_if(paths, [](const InstallPath &p) { return !p.here; });
  const InstallPath *idle = nullptr; // a marketplace plugin that is disabled or not installed
  for (const auto &p : paths) {
    row("hooks", describe(p));
    if (!p.active) idle = &p;
  }
  if (paths.empty()) row("hooks", "not wired");
  std::vector<std::string> warnings;
  if (const std::size_t n = times_wired(paths); n > 1) {
    std::string how;
    for (const auto &p : paths)
      if (p.active) how += (how.empty() ? "" : "; ") + removal(p);
    warnings.push_back("the hooks are wired " + std::to_string(n) +
                       " times, so each hook would run, and bill, " +
                       (n == 2 ? "twice" : std::to_string(n) + " times") +
                       ": keep one and remove the others (" + how + ")");
  } else if (n == 0) {
    fixes.push_back(!idle ? "run `mem0-hooks install` (or install the plugin, or start Claude Code "
                            "with --plugin-dir <checkout>)"
                    : idle->dir.empty() ? "install the plugin: claude plugin install " +
                                              idle->where + " --scope " + idle->scope
                                        : "enable the plugin: claude plugin enable " + idle->where);
  }

  if (has_access(c)) {
    if (const auto api = api_target(c); !api) {
      row("ping", api.error().message);
      fixes.emplace_back("use an https:// MEM0_BASE_URL");
    } else {
      live_check(ctx, *api, identity, row, fixes);
    }
  }
  for (const auto &warning : warnings)
    ctx.out << "warning: " << warning << "\n";
  for (const auto &fix : fixes)
    ctx.out << "fix: " << fix << "\n";
  if (fixes.empty())
    ctx.out << (warnings.empty()
                    ? "all checks passed"
                    : "checks passed, with " + count_of(warnings.size(), "warning", "warnings"))
            << "\n";
  return fixes.empty() ? k_ok : k_failure;
}

} // namespace mem0::cli
