#include "store/pause.hpp"
#include "cli/commands.hpp"
#include "cli/controls.hpp"
#include "cli/memories.hpp"

namespace mem0::cli {
namespace {

// `for project <id>` or `everywhere`.
std::string place(const std::string &project) {
  return project.empty() ? "everywhere" : "for project " + project;
}

// `until <local time>` or `until you resume`.
std::string until_text(long long until) {
  return until == 0 ? "until you resume" : "until " + local_time(until) + " (local time)";
}

} // namespace

std::string pause_row_text(const PauseStore::UserPause &pause) {
  return "by you " + place(pause.project) + " " + until_text(pause.until) +
         ": no automatic recall or capture (mem0-hooks resume" +
         (pause.project.empty() ? " --global" : "") + ")";
}

int pause(const Args &args, const CliContext &ctx) {
  long long until = 0;
  if (const auto length = args.value("--for")) {
    const auto duration = parse_duration(*length);
    if (!duration) {
      ctx.err << "mem0-hooks pause: --for takes a duration such as 30m, 2h or 1d (at most 365d), "
                 "not '"
              << *length << "'\n";
      return k_usage;
    }
    until = unix_seconds(ctx.now()) + duration->count();
  }
  const std::string project = args.has("--global") ? "" : identity_for(ctx, "").project_id;
  if (auto saved = ctx.state.pauses.pause(ctx.now(), project, until); !saved) {
    ctx.err << "mem0-hooks pause: not saved: " << saved.error().message << "\n";
    return k_failure;
  }
  ctx.out << "mem0: automatic recall and capture paused " << place(project) << " "
          << until_text(until) << "; mem0-hooks resume" << (project.empty() ? " --global" : "")
          << " ends it\n";
  return k_ok;
}

int resume(const Args &args, const CliContext &ctx) {
  const std::string project = identity_for(ctx, "").project_id;
  std::vector<std::string> scopes{project};
  if (args.has("--global")) scopes.emplace_back();
  bool any = false;
  for (const auto &scope : scopes) {
    const auto ended = ctx.state.pauses.resume(ctx.now(), scope);
    if (!ended) {
      ctx.err << "mem0-hooks resume: not saved: " << ended.error().message << "\n";
      return k_failure;
    }
    if (*ended) ctx.out << "mem0: resumed " << place(scope) << "\n";
    any = any || *ended;
  }
  if (!any)
    ctx.out << "mem0: nothing was paused " << place(args.has("--global") ? "" : project) << "\n";
  // A pause that still holds this project (the global one, without --global).
  if (const auto left = ctx.state.pauses.active(ctx.now(), [&] { return project; }))
    ctx.out << "mem0: still paused " << pause_row_text(*left) << "\n";
  return k_ok;
}

} // namespace mem0::cli
