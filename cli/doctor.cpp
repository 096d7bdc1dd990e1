#include "cli/cli.hpp"
#include "common/format.hpp"
#include "common/git.hpp"
#include "common/identity.hpp"
#include "common/outbox.hpp"

#include <ctime>

namespace mem0::cli {
namespace fs = std::filesystem;
namespace {

std::string status_line(const Result<HttpResponse> &r) {
  if (!r) return std::string(to_string(r.error().kind)) + ": " + r.error().message;
  return "HTTP " + std::to_string(r->status) + " in " + std::to_string(r->latency.count()) + " ms";
}

std::string fix_for(const Error &e, const std::string &base_url) {
  if (e.kind == ErrorKind::unauthorized)
    return "the API key was rejected: create a new one at app.mem0.ai and set MEM0_API_KEY";
  if (e.kind == ErrorKind::transport || e.kind == ErrorKind::timeout)
    return "cannot reach " + base_url + ": check MEM0_BASE_URL, the network or the proxy";
  return "Mem0 answered " + e.message + " (" + std::string(to_string(e.kind)) +
         "): check MEM0_BASE_URL, or retry later";
}

// `3 pending (12 KB), 0 rejected, last delivery 2026-12-01 10:02 UTC, 5 adds today`
std::string outbox_line(const Outbox::Stats &s, long adds_today, const Config &c) {
  std::string last = "never";
  if (s.last_delivery > 0) {
    const std::time_t t = static_cast<std::time_t>(s.last_delivery);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
    last = buf;
  }
  return std::to_string(s.pending) + " pending (" + std::to_string((s.bytes + 1023) / 1024) +
         " KB), " + std::to_string(s.rejected) + " rejected, last delivery " + last + ", " +
         count_of(static_cast<std::size_t>(adds_today), "add", "adds") + " today" +
         (c.daily_add_limit > 0 ? " (limit " + std::to_string(c.daily_add_limit) + ")" : "") +
         (c.auto_save ? "" : "; capture is off (auto_save)");
}

} // namespace

std::string mask_key(std::string_view key) {
  if (key.size() < 12) return "…";
  return std::string(key.substr(0, 3)) + "…" + std::string(key.substr(key.size() - 4));
}

int doctor(const Args &, const CliContext &ctx) {
  const Config &c = ctx.config;
  std::vector<std::string> fixes;
  auto row = [&](std::string_view name, const std::string &value) {
    ctx.out << name << std::string(name.size() < 12 ? 12 - name.size() : 1, ' ') << value << "\n";
  };

  row("api key", c.api_key                    ? mask_key(*c.api_key) + " (" + c.api_key_source + ")"
                 : !c.api_key_problem.empty() ? "refused: " + c.api_key_problem
                                              : "missing");
  if (!c.api_key)
    fixes.emplace_back(c.api_key_problem.empty()
                           ? "set MEM0_API_KEY (or a MEM0_API_KEY= line in ~/.bashrc)"
                           : "set MEM0_API_KEY to the key alone, without line breaks");
  row("user id", c.user_id + " (" + c.user_id_source + ")");
  const ProjectId project = resolve_project_id(c, ctx.env, ctx.cwd, ctx.log);
  row("project id", project.id + " (" + project.source + ")");
  const auto repo = find_repo(ctx.cwd);
  row("branch", repo ? current_branch(*repo).value_or("unknown") : "not a git repository");
  row("base url", c.base_url + " (" + c.base_url_source + ")");
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

  if (c.api_key) {
    if (const auto api = api_target(c); !api) {
      row("ping", api.error().message);
      fixes.emplace_back("use an https:// MEM0_BASE_URL");
    } else {
      const Identity identity{c.user_id, project.id, ""};
      auto responses =
          ctx.http.run({ping_request(*api),
                        search_request(*api, {"mem0 doctor check", std::nullopt, 1}, identity)},
                       ctx.deadline);
      row("ping", status_line(responses[0]));
      const auto parsed = responses[1]
                              ? parse_search_response(*responses[1])
                              : Result<std::vector<Memory>>(unexpected(responses[1].error()));
      row("search",
          parsed ? status_line(responses[1]) + ", " + count_of(parsed->size(), "result", "results")
                 : std::string(to_string(parsed.error().kind)) + ": " + parsed.error().message);
      std::optional<Error> failure;
      if (!parsed)
        failure = parsed.error();
      else if (!responses[0])
        failure = responses[0].error();
      else if (responses[0]->status < 200 || responses[0]->status >= 300)
        failure = classify_status(*responses[0]);
      if (failure) fixes.push_back(fix_for(*failure, c.base_url));
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
