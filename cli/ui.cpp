// `mem0-hooks ui [--port N] [--no-open] [--scope project|global] [--background]`: the memory
// console (docs/console.md).
#include "cli/commands.hpp"
#include "cli/memories.hpp"
#include "console/server.hpp"
#include "util/json_writer.hpp"

#include <sstream>

namespace mem0::cli {
namespace {

// `ctx` with the streams `out` and `err` and a deadline of its own.
CliContext renewed(const CliContext &ctx, std::ostream &out, std::ostream &err) {
  return {static_cast<const RunDeps &>(ctx),       out,       err, ctx.cwd, ctx.exe_dir,
          SteadyClock::now() + ctx.config.timeout, ctx.detach};
}

// What `command` prints on stdout, run with `args` and a deadline of its own; an error with its
// stderr when it fails (k_failure without output).
Result<std::string> captured(Handler command, const Args &args, const CliContext &ctx) {
  std::ostringstream out, err;
  const int status = command(args, renewed(ctx, out, err));
  if (status != k_ok && out.str().empty()) {
    std::string line = err.str();
    while (!line.empty() && line.back() == '\n')
      line.pop_back();
    return unexpected(make_error(status == k_usage ? ErrorKind::client : ErrorKind::server,
                                 line.empty() ? "failed" : line));
  }
  return out.str();
}

} // namespace

int ui(const Args &args, const CliContext &ctx) {
  const auto usage = [&](std::string_view message) {
    ctx.err << "mem0-hooks ui: " << message << "\n";
    return k_usage;
  };
  console::ServeOptions serve;
  if (const auto port = args.value("--port")) {
    try {
      serve.port = std::stoi(*port);
    } catch (...) {
      serve.port = -1;
    }
    if (serve.port < 1 || serve.port > 65535) return usage("--port takes 1 to 65535");
  }
  const auto scope_name = args.value("--scope").value_or("project");
  if (scope_name != "project" && scope_name != "global")
    return usage("--scope must be project or global");
  serve.open = !args.has("--no-open");
  serve.background = args.has("--background");
  // One console per state directory: another ui points at it.
  if (const std::string running = console::running_console(ctx); !running.empty()) {
    ctx.out << "mem0 console: " << running << "\n"
            << "(already running for " << ctx.state.dir.string() << ")\n";
    if (serve.open && !console::open_browser(running))
      ctx.err << "mem0-hooks ui: could not open a browser; open the address above\n";
    return k_ok;
  }
  console::Sources sources;
  // Doctor's checks, run anew for each look, with a deadline of their own.
  sources.health = [&ctx]() -> Result<std::string> {
    std::ostringstream out, err;
    return doctor_json(doctor_report(renewed(ctx, out, err)));
  };
  // Stats, the dream report and its apply are the commands' own JSON (docs/hygiene.md), and a
  // pin is the memory service's, as `pin` sends it.
  const std::pair<std::string, std::string> scope_option{"--scope", scope_name};
  sources.stats = [&ctx, scope_option](int days) {
    return captured(
        stats, Args{{}, {{"--json", ""}, {"--days", std::to_string(days)}, scope_option}}, ctx);
  };
  sources.dream = [&ctx, scope_option] {
    return captured(dream, Args{{}, {{"--json", ""}, scope_option}}, ctx);
  };
  sources.dream_apply = [&ctx, scope_option] {
    return captured(dream, Args{{}, {{"--json", ""}, {"--apply", ""}, scope_option}}, ctx);
  };
  sources.pin = [&ctx](const std::string &id, bool pinned) -> Result<void> {
    const MemoryService memories(ctx, ctx.cwd, SteadyClock::now() + ctx.config.timeout, ctx.detach);
    const auto api = memories.api();
    if (!api) return unexpected(api.error());
    if (auto done = memories.set_pinned(*api, memories.identity(""), id, pinned); !done)
      return unexpected(done.error());
    return {};
  };
  console::Console console(
      ctx,
      {ctx.cwd, scope_name == "global" ? Scope::global : Scope::project, console::new_token(), 0},
      std::move(sources));
  return console::serve(console, ctx, serve, ctx.out, ctx.err) == 0 ? k_ok : k_failure;
}

} // namespace mem0::cli
