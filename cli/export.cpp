// `mem0-hooks export [--output FILE [--force]] [--scope S]` (docs/cli.md#export-and-import).
#include "cli/commands.hpp"
#include "cli/memories.hpp"
#include "mem0/format.hpp"
#include "util/files.hpp"
#include "util/json.hpp"
#include "util/json_writer.hpp"
#include "util/strings.hpp"

#include <rapidjson/document.h>

namespace mem0::cli {
namespace {

// The most memories one export lists.
constexpr std::size_t k_export_limit = 10000;

} // namespace

int export_memories(const Args &args, const CliContext &ctx) {
  const auto scope = scope_named(args.value("--scope"), ctx.config);
  if (!scope) {
    ctx.err << "mem0-hooks export: --scope must be project, session or global\n";
    return k_usage;
  }
  const std::string session = session_in_env(ctx.env);
  if (*scope == Scope::session && session.empty()) {
    ctx.err << "mem0-hooks export: --scope session needs the agent's session (run it from a "
               "session)\n";
    return k_usage;
  }
  const auto output = args.value("--output");
  if (output && output->empty()) {
    ctx.err << "mem0-hooks export: --output needs a file name\n";
    return k_usage;
  }
  const bool force = args.has("--force");
  // Refused before the server is asked; the write itself refuses again what appears meanwhile.
  if (output) {
    std::error_code ec;
    const auto status = std::filesystem::symlink_status(ctx.cwd / *output, ec);
    if (std::filesystem::is_symlink(status)) {
      ctx.err << "mem0-hooks export: " << *output
              << " is a symbolic link; not written through it\n";
      return k_failure;
    }
    if (std::filesystem::exists(status) && !force) {
      ctx.err << "mem0-hooks export: " << *output << " exists; --force replaces it\n";
      return k_failure;
    }
  }
  const auto api = target_or_explain(ctx);
  if (!api) return k_failure;
  const Identity identity = identity_for(ctx, session);
  // A back-off pause answers at once, sending nothing.
  const auto all = service(ctx).list_all(*api, identity, *scope, k_export_limit);
  if (!all) {
    ctx.err << "mem0-hooks export: " << failure_line(all.error()) << "\n";
    return k_failure;
  }
  std::string lines;
  for (const auto &m : *all)
    lines += export_line(m);
  const std::string where =
      *scope == Scope::global ? std::string("every project") : "project " + identity.project_id;
  if (!output) {
    ctx.out << lines;
  } else if (auto written = write_new_file(ctx.cwd / *output, lines, force); !written) {
    ctx.err << "mem0-hooks export: " << *output << ": " << written.error().message << "\n";
    return k_failure;
  }
  ctx.err << "mem0: exported " << count_of(all->size(), "memory", "memories") << " of " << where
          << (output ? " to " + *output : std::string()) << "\n";
  if (all->size() >= k_export_limit)
    ctx.err << "mem0: stopped at " << k_export_limit << " memories\n";
  return k_ok;
}

} // namespace mem0::cli
