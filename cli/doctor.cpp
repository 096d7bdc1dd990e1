#include "cli/commands.hpp"
#include "cli/controls.hpp"
#include "cli/install.hpp"
#include "mem0/dialect.hpp"
#include "mem0/format.hpp"
#include "mem0/identity.hpp"
#include "mem0/search.hpp"
#include "runtime/agent.hpp"
#include "runtime/io.hpp"
#include "runtime/table.hpp"
#include "store/outbox.hpp"
#include "util/command_line.hpp"
#include "util/files.hpp"
#include "util/git.hpp"
#include "util/json.hpp"
#include "util/json_writer.hpp"
#include "util/platform.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <chrono>

namespace mem0::cli {
namespace fs = std::filesystem;
namespace {

// What doctor's checks share: the command's context, what earlier checks found, and the
// warnings and fixes so far.
struct Doctor {
  const CliContext &ctx;
  std::ostream *out;  // where each row is printed as it is found; nullptr for none
  bool reset_backoff; // --reset: every back-off pause ends first
  const Config &c = ctx.config;
  ProjectId project = {};    // the project id check's
  PreviousIds previous = {}; // the ids of the rules before the 0.3-compatible ones
  Identity identity = {};    // the shared memory check's
  DailyUsage today = {};     // the state dir check's
  std::vector<DoctorRow> rows = {};
  std::vector<std::string> warnings = {};
  std::vector<std::string> fixes = {};

  // Row `name` with `value`, padded to 12 columns when printed.
  void row(std::string_view name, const std::string &value) { add({std::string(name), value}); }
  // A row under the one before, its value at `column` (past the two spaces it is indented by).
  void sub(std::string_view name, const std::string &value, std::size_t column) {
    add({std::string(name), value, true, column});
  }
  void add(DoctorRow r) {
    if (out)
      *out << (r.sub ? "  " : "") << r.name
           << std::string(r.name.size() < r.column ? r.column - r.name.size() : 1, ' ') << r.value
           << "\n";
    rows.push_back(std::move(r));
  }
};

// One check: its rows, and its warnings and fixes in `d`.
using Check = void (*)(Doctor &d);

std::string status_line(const Result<HttpResponse> &r) {
  if (!r) return std::string(to_string(r.error().kind)) + ": " + r.error().message;
  return "HTTP " + std::to_string(r->status) + " in " + std::to_string(r->latency.count()) + " ms";
}

std::string fix_for(const Error &e, const Config &c) {
  if (e.kind == ErrorKind::unauthorized) return std::string(c.dialect->traits().key_rejected_fix);
  if (e.kind == ErrorKind::no_libcurl) return e.message;
  if (e.kind == ErrorKind::transport || e.kind == ErrorKind::timeout)
    return "cannot reach " + c.base_url + ": check MEM0_BASE_URL, the network or the proxy";
  return "Mem0 answered " + e.message + " (" + std::string(to_string(e.kind)) +
         "): check MEM0_BASE_URL, or retry later";
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
void pause_row(Doctor &d, const ApiTarget &api, bool was_paused) {
  const auto now = d.ctx.now();
  if (const auto pause = d.ctx.state.backoff.active_pause(now, api.server_key())) {
    if (pause->until_key_changes) {
      d.row("pause", "the server rejected this API key for a capture: recall and capture paused "
                     "until the key changes");
      d.fixes.push_back(std::string(api.dialect().traits().key_rejected_fix) +
                        "; then run `mem0-hooks doctor --reset`");
      return;
    }
    const std::string end =
        utc_time(unix_seconds(now) + pause->remaining.count(), "%Y-%m-%d %H:%M:%S UTC");
    d.row("pause", pause->reason + ": recall and capture paused until " + end + " (" +
                       std::to_string(pause->remaining.count()) + " s)");
    d.fixes.push_back("wait until " + end +
                      ", or run `mem0-hooks doctor --reset` to try again now");
  } else if (was_paused) {
    d.row("pause", "ended early: the server answered");
  }
}

// The live check: the ping (the platform's only) and one search, with their status, then the
// pause. Their outcome counts like a hook's: an answer ends a pause, a 429 starts one.
void live_check(Doctor &d, const ApiTarget &api) {
  const CliContext &ctx = d.ctx;
  const bool was_paused = ctx.state.backoff.active_pause(ctx.now(), api.server_key()).has_value();
  std::vector<HttpRequest> requests{
      search_request(api, {"mem0 doctor check", std::nullopt, 1}, d.identity)};
  if (auto ping = ping_request(api)) requests.push_back(std::move(*ping));
  const auto responses = ctx.http.run(requests, ctx.deadline);
  const auto parsed = responses[0] ? parse_search_response(*responses[0], api.dialect())
                                   : Result<std::vector<Memory>>(unexpected(responses[0].error()));
  std::vector<Error> failures;
  if (!parsed) failures.push_back(parsed.error());
  if (responses.size() > 1) {
    d.row("ping", status_line(responses[1]));
    if (!responses[1])
      failures.push_back(responses[1].error());
    else if (responses[1]->status < 200 || responses[1]->status >= 300)
      failures.push_back(classify_status(*responses[1]));
  } else {
    d.row("ping",
          "none on " + std::string(api.dialect().traits().place) + "; the search checks the key");
  }
  // What was searched, and that no match is no news (docs/cli.md#doctor).
  const auto matched = [](std::size_t n) {
    return n == 0 ? std::string("nothing, which is fine: it checks access, not your memories")
                  : count_of(n, "memory", "memories");
  };
  d.row("search",
        parsed ? status_line(responses[0]) +
                     ": key and filters accepted; the test query \"mem0 doctor check\" "
                     "matched " +
                     matched(parsed->size())
               : std::string(to_string(parsed.error().kind)) + ": " + parsed.error().message);
  if (!failures.empty()) d.fixes.push_back(fix_for(failures.front(), ctx.config));
  if (auto noted =
          ctx.state.backoff.record_run(ctx.now(), api.server_key(), failures, requests.size());
      !noted)
    ctx.log.warn("back-off state not saved: " + noted.error().message);
  pause_row(d, api, was_paused);
}

// The checks, in the order of their rows (docs/cli.md#doctor).

void reset(Doctor &d) {
  if (!d.reset_backoff) return;
  const auto cleared = d.ctx.state.backoff.reset(d.ctx.now());
  d.row("reset", cleared ? count_of(*cleared, "pause", "pauses") + " ended"
                         : "back-off state not cleared: " + cleared.error().message);
}

void api_key(Doctor &d) {
  const Config &c = d.c;
  d.row("api key", c.api_key ? mask_key(*c.api_key) + " (" + c.origin("api_key") + ")"
                   : !c.api_key_problem.empty() ? "refused: " + c.api_key_problem
                   : has_access(c) ? "none: requests go without X-API-Key (a server run with "
                                     "AUTH_DISABLED=true)"
                                   : "missing");
  if (!has_access(c))
    d.fixes.emplace_back(c.api_key_problem.empty()
                             ? "set MEM0_API_KEY (or a MEM0_API_KEY= line in ~/.bashrc)"
                             : "set MEM0_API_KEY to the key alone, without line breaks");
}

// ` (was: X before 0.3-compatible ids)` when the earlier rules gave `was` instead of `now`:
// memories filed under the old id exist (docs/configuration.md#project-id).
std::string was(const std::string &now, const std::string &was) {
  return now == was ? "" : " (was: " + was + " before 0.3-compatible ids)";
}

void user_and_project(Doctor &d) {
  d.previous = previous_ids(d.c, d.ctx.env, d.ctx.cwd);
  d.row("user id",
        d.c.user_id + " (" + d.c.origin("user_id") + ")" + was(d.c.user_id, d.previous.user_id));
  d.project = resolve_project_id(d.c, d.ctx.env, d.ctx.cwd, d.ctx.log);
  d.row("project id", d.project.id + " (" + d.project.source + ")" +
                          was(d.project.id, d.previous.project_id) +
                          (d.project.problem.empty() ? "" : "; " + d.project.problem));
  if (!d.project.problem.empty())
    d.fixes.emplace_back("fix or remove what the project id row names (until then: " +
                         d.project.id + ", from " + d.project.source + ")");
  const auto repo = find_repo(d.ctx.cwd);
  d.row("branch", repo ? current_branch(*repo).value_or("unknown") : "not a git repository");
}

void target(Doctor &d) {
  const Config &c = d.c;
  d.row("base url", c.base_url + " (" + c.origin("base_url") + ")");
  const DialectTraits &dialect = c.dialect->traits();
  d.row("backend", std::string(dialect.display_name) + " (" + c.origin("backend") + ")");
  d.identity = project_identity(c, d.project.id, d.ctx.cwd, "");
  d.row("shared", !d.identity.shared_agent_id.empty()
                      ? "project memory of agent " + d.identity.shared_agent_id + " and " +
                            d.identity.project_id + " searched too" +
                            was(d.identity.shared_agent_id, d.previous.shared_agent_id)
                  : !dialect.shared_memory ? "not on " + std::string(dialect.place)
                                           : "off (shared_memory)");
  const bool team = c.team_memory && dialect.shared_memory;
  d.row("team memory",
        std::string(team ? "on" : "off") + " (" +
            (c.team_memory && !team ? "not on " + std::string(dialect.place) + "; remember --team"
                                    : c.origin("team_memory")) +
            ")");
}

// The settings file, then every setting of the table with its value and where it came from,
// indented under it and aligned on the longest name (docs/configuration.md#precedence).
void settings(Doctor &d) {
  const std::string file = (d.c.mem0_dir / "settings.json").string();
  d.row("settings", file + " (" + d.c.settings_status + ")");
  if (d.c.settings_status == "invalid JSON" || d.c.settings_status == "not an object")
    d.fixes.push_back("make " + file + " a JSON object, or delete it (defaults are in use)");
  std::size_t width = 0;
  for (const Setting &s : settings_table())
    width = std::max(width, s.name.size());
  for (const Setting &s : settings_table())
    d.sub(s.name, s.parser.show(d.c) + " (" + d.c.origin(s.name) + ")", width + 2);
}

void state(Doctor &d) {
  const Config &c = d.c;
  d.today = d.ctx.state.usage.on(utc_day(d.ctx.now()));
  d.row("state dir",
        c.state_dir.string() + " (" +
            count_of(static_cast<std::size_t>(d.today.searches), "automatic search",
                     "automatic searches") +
            " today" +
            (c.daily_search_limit > 0 ? ", limit " + std::to_string(c.daily_search_limit) : "") +
            ")");
  const Outbox::Stats outbox = d.ctx.state.outbox.stats();
  d.row("outbox", outbox_line(outbox, d.today.adds, c));
  if (outbox.rejected > 0)
    d.fixes.push_back("look at the " +
                      count_of(outbox.rejected, "rejected capture", "rejected captures") + " in " +
                      (c.state_dir / "outbox" / "rejected").string() + ", then delete them");
}

// The user's own pause, as a row and a warning, and the last skip of the most recent session's
// run log (docs/cli.md#doctor).
void controls(Doctor &d) {
  const std::string project = d.project.id;
  if (const auto paused = d.ctx.state.pauses.active(d.ctx.now(), [&] { return project; })) {
    d.row("paused", pause_row_text(*paused));
    d.warnings.push_back("automatic recall and capture are paused by you (mem0-hooks resume" +
                         std::string(paused->project.empty() ? " --global" : "") + ")");
  }
  if (const auto skip = last_skip(d.ctx)) d.row("last skip", *skip);
}

void plan(Doctor &d) {
  const Config &c = d.c;
  d.row("plan", std::string(c.search_plan == SearchPlan::lean ? "lean" : "thorough") +
                    " plan, rerank " + (c.rerank ? "on" : "off") + ", threshold " +
                    std::to_string(c.confidence_threshold).substr(0, 4) + ", auto search " +
                    (c.auto_search ? "on" : "off"));
}

// Every install path that applies here, one row each (docs/cli.md#install-paths); a warning
// when they wire the hooks more than once, a fix when none does.
void hooks(Doctor &d) {
  std::vector<InstallPath> paths = find_install_paths(d.c, d.ctx.env, d.ctx.cwd);
  std::erase_if(paths, [](const InstallPath &p) { return !p.here; });
  const InstallPath *idle = nullptr; // a marketplace plugin that is disabled or not installed
  for (const auto &p : paths) {
    d.row("hooks", describe(p));
    if (!p.active) idle = &p;
  }
  if (paths.empty()) d.row("hooks", "not wired");
  if (const std::size_t n = times_wired(paths); n > 1) {
    std::string how;
    for (const auto &p : paths)
      if (p.active) how += (how.empty() ? "" : "; ") + removal(p);
    d.warnings.push_back("the hooks are wired " + std::to_string(n) +
                         " times, so each hook would run, and bill, " +
                         (n == 2 ? "twice" : std::to_string(n) + " times") +
                         ": keep one and remove the others (" + how + ")");
  } else if (n == 0) {
    d.fixes.push_back(!idle ? "run `mem0-hooks install` (or install the plugin, or start Claude "
                              "Code with --plugin-dir <checkout>)"
                      : idle->dir.empty()
                          ? "install the plugin: " + plugin_command("install", *idle)
                          : "enable the plugin: claude plugin enable " + user_word(idle->where));
  }
}

// The files of `agent` that wire our hooks, each with the count of its entries (an event and
// executable listed twice counts twice).
struct Wiring {
  fs::path file;
  bool twice = false; // some hook listed more than once
};
std::vector<Wiring> wirings(const Agent &agent, const Doctor &d) {
  std::vector<Wiring> out;
  const fs::path user = agent_dir(agent, d.c, d.ctx.env) / native_path(agent.files.user_file);
  const fs::path project = d.ctx.cwd / native_path(agent.files.project_file);
  std::error_code ec;
  for (const fs::path &file : {user, project}) {
    if (file == project && fs::equivalent(user, project, ec)) continue;
    const auto text = read_small_file(file);
    if (!text) continue;
    if (!agent.files.shim.empty()) { // the shim is the wiring
      if (is_our_shim(*text, agent)) out.push_back({file});
      continue;
    }
    std::set<std::pair<std::string, std::string>> seen;
    Wiring w{file};
    for (const auto &[event, command] : our_hooks(*text))
      w.twice |= !seen.emplace(event, command_executable(command)).second;
    if (!seen.empty()) out.push_back(std::move(w));
  }
  return out;
}

// One row per agent found here, with rows under it for what is not Claude Code's alone: where
// our hooks are wired, and whether the memory tools are registered (docs/cli.md#doctor).
// Warnings only: an agent a user does not use is no failure.
void agent_rows(Doctor &d) {
  for (const Agent *agent : agents()) {
    if (!agent_found(*agent, d.ctx)) continue;
    const AgentFiles &f = agent->files;
    const auto program = find_program(f.program, d.ctx.env);
    std::string version =
        program ? platform::first_line_of(*program, f.version_arg, std::chrono::milliseconds(2000))
                : "";
    d.row("agent", std::string(agent->display_name) + ": " +
                       (!program          ? std::string(f.program) + " not on PATH"
                        : version.empty() ? program->string() + " (no version)"
                                          : version + " (" + program->string() + ")"));
    auto sub = [&](std::string_view name, const std::string &value) { d.sub(name, value, 14); };
    if (!f.plugin_installs) { // such an agent's hooks have the install paths' rows above
      const auto wired = wirings(*agent, d);
      for (const auto &w : wired) {
        sub("hooks", "wired in " + w.file.string() + (w.twice ? " (some hooks twice)" : ""));
        if (w.twice)
          d.warnings.push_back(std::string(agent->display_name) + " runs some mem0 hooks twice (" +
                               w.file.string() + "): run `mem0-hooks install --agent " +
                               std::string(agent->name) + "` again to rewrite them once");
      }
      if (wired.empty())
        sub("hooks", "not wired (mem0-hooks install --agent " + std::string(agent->name) + ")");
      if (wired.size() > 1)
        d.warnings.push_back(std::string(agent->display_name) +
                             " runs the mem0 hooks twice, from " + wired[0].file.string() +
                             " and " + wired[1].file.string() +
                             ": keep one (mem0-hooks uninstall --agent " +
                             std::string(agent->name) + " [--project])");
      // An agent that runs another's hooks too (Cursor: docs/agents.md#cursor).
      const Agent *other = find_agent(f.also_runs_hooks_of);
      if (const auto theirs = other && !wired.empty() ? wirings(*other, d) : std::vector<Wiring>{};
          !theirs.empty())
        d.warnings.push_back(
            std::string(agent->display_name) + " also runs " + std::string(other->display_name) +
            "'s hooks (" + std::string(f.also_runs_called) + "): with " + theirs[0].file.string() +
            " wired too, each hook may run twice in " + std::string(agent->display_name) + "; " +
            std::string(f.also_runs_fix));
    }
    if (!f.mcp_file.empty()) {
      const fs::path file = agent_dir(*agent, d.c, d.ctx.env) / native_path(f.mcp_file);
      sub("memory tools", registers_memory_tools(file, f.mcp_format)
                              ? "registered in " + file.string()
                              : "not registered (no mem0 server in " + file.string() + ")");
    }
  }
}

// A fix for every wiring file whose hooks the agent cannot run: written for another shell than
// the one it runs them in here (a POSIX-quoted path under PowerShell, say: wired on another
// system, or by a version that wrote one form everywhere), or naming an executable that is gone
// (an update moved it, or the npm cache it lived in was cleaned). Install rewrites both
// (docs/install.md#updating, docs/windows.md#install-and-doctor).
void wired_executables(Doctor &d) {
  for (const Agent *agent : agents())
    for (const auto &w : wirings(*agent, d)) {
      if (!agent->files.shim.empty()) continue; // no command: the shim spawns them
      const auto text = read_small_file(w.file);
      const CommandShell shell = hook_shell(*agent);
      std::set<std::string> gone;
      std::vector<std::string> misformed;
      for (const auto &[event, command] : our_hooks(text.value_or(""))) {
        if (!runs_in(shell, command)) misformed.push_back(command);
        const fs::path exe = platform::input_path(command_program(command));
        std::error_code ec;
        if (exe.is_absolute() && !fs::exists(exe, ec)) gone.insert(exe.string());
      }
      if (!misformed.empty())
        d.fixes.push_back(
            w.file.string() + ": " + count_of(misformed.size(), "mem0 hook is", "mem0 hooks are") +
            " written for " + std::string(shell_name(written_for(misformed.front()))) + ", but " +
            std::string(agent->display_name) + " runs them with " + std::string(shell_name(shell)) +
            " here, which would not run `" + misformed.front() +
            "`: run `mem0-hooks install --agent " + std::string(agent->name) + "` to rewrite them");
      if (!gone.empty())
        d.fixes.push_back(
            w.file.string() + " runs " + *gone.begin() +
            (gone.size() > 1 ? " and " + std::to_string(gone.size() - 1) + " more" : "") +
            ", which no longer exists: run `mem0-hooks install --agent " +
            std::string(agent->name) + "` again from the install you use now (npm: " +
            "`npx mem0-native-hooks install --agent all`)");
    }
}

// With access only: a refused base URL, else the live check.
void live(Doctor &d) {
  if (!has_access(d.c)) return;
  if (const auto api = api_target(d.c); !api) {
    d.row("ping", api.error().message);
    d.fixes.emplace_back("use an https:// MEM0_BASE_URL");
  } else {
    live_check(d, *api);
  }
}

// Doctor is these checks, in this order: a later one may use what an earlier one found (the
// project id, the identity, today's usage).
constexpr Check k_checks[] = {reset,    api_key,    user_and_project,  target,
                              settings, state,      controls,          plan,
                              hooks,    agent_rows, wired_executables, live};

// Every check in order, each row printed on `out` as it is found when given.
DoctorReport run_checks(const CliContext &ctx, std::ostream *out, bool reset_backoff) {
  Doctor d{ctx, out, reset_backoff};
  for (const Check check : k_checks)
    check(d);
  return {std::move(d.rows), std::move(d.warnings), std::move(d.fixes)};
}

// Doctor's last line: "" when there are fixes.
std::string summary(const DoctorReport &report) {
  if (!report.fixes.empty()) return "";
  return report.warnings.empty()
             ? "all checks passed"
             : "checks passed, with " + count_of(report.warnings.size(), "warning", "warnings");
}

} // namespace

DoctorReport doctor_report(const CliContext &ctx) { return run_checks(ctx, nullptr, false); }

std::string doctor_json(const DoctorReport &report) {
  JsonWriter w;
  w.begin_object().key("rows").begin_array();
  for (const DoctorRow &r : report.rows)
    w.begin_object()
        .member("name", r.name)
        .member("value", r.value)
        .key("sub")
        .boolean(r.sub)
        .end_object();
  w.end_array().key("warnings").begin_array();
  for (const auto &x : report.warnings)
    w.str(x);
  w.end_array().key("fixes").begin_array();
  for (const auto &x : report.fixes)
    w.str(x);
  w.end_array().member("summary", summary(report)).end_object();
  return w.text();
}

int doctor(const Args &args, const CliContext &ctx) {
  const DoctorReport report = run_checks(ctx, &ctx.out, args.has("--reset"));
  for (const auto &warning : report.warnings)
    ctx.out << "warning: " << warning << "\n";
  for (const auto &fix : report.fixes)
    ctx.out << "fix: " << fix << "\n";
  if (const std::string last = summary(report); !last.empty()) ctx.out << last << "\n";
  return report.fixes.empty() ? k_ok : k_failure;
}

} // namespace mem0::cli
