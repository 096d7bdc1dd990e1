// `mem0-hooks forget <id…>` and `forget --query Q [--scope S] [--yes]` (docs/cli.md#forget).
#include "cli/commands.hpp"
#include "cli/memories.hpp"
#include "mem0/format.hpp"
#include "mem0/search.hpp"
#include "util/strings.hpp"

namespace mem0::cli {
namespace {

// Delete each of `ids`, saying so line by line; k_failure when any was not deleted.
int delete_each(const std::vector<std::string> &ids, const CliContext &ctx, const ApiTarget &api,
                const Identity &identity) {
  int status = k_ok;
  for (const auto &id : ids) {
    const auto deleted = service(ctx).remove(api, identity, id);
    if (!deleted) {
      ctx.err << "mem0-hooks forget: " << clean_text(id) << ": " << failure_line(deleted.error())
              << "\n";
      status = k_failure;
      continue;
    }
    ctx.out << "deleted " << deleted->id << ": "
            << truncate_code_points(clean_text(deleted->text), 80) << "\n";
  }
  return status;
}

} // namespace

int forget(const Args &args, const CliContext &ctx) {
  const auto usage = [&](std::string_view message) {
    ctx.err << "mem0-hooks forget: " << message << "\n";
    return k_usage;
  };
  const auto query_option = args.value("--query");
  if (query_option && !args.words.empty()) return usage("give ids or --query, not both");
  if (!query_option && args.words.empty()) return usage("which memories? give ids or --query Q");
  if (!query_option && (args.has("--scope") || args.has("--yes")))
    return usage("--scope and --yes go with --query");
  const auto scope = scope_named(args.value("--scope"), ctx.config);
  if (!scope) return usage("--scope must be project, session or global");
  const std::string session = session_in_env(ctx.env);
  if (*scope == Scope::session && session.empty())
    return usage("--scope session needs the agent's session (run it from a session)");
  const auto api = target_or_explain(ctx);
  if (!api) return k_failure;
  const Identity identity = identity_for(ctx, session);
  if (!query_option) return delete_each(args.words, ctx, *api, identity);

  const std::string query = make_query(*query_option, ctx.config.redact);
  if (query.empty()) return usage("--query is empty");
  const auto found = service(ctx).search(*api, identity, search_plan(query, 10, *scope));
  if (!found) {
    ctx.err << "mem0-hooks forget: " << failure_line(found.error()) << "\n";
    return k_failure;
  }
  if (found->empty()) {
    ctx.out << "No memories match \"" << query << "\"; nothing to delete.\n";
    return k_ok;
  }
  ctx.out << count_of(found->size(), "memory matches", "memories match") << " \"" << query
          << "\":\n";
  for (std::size_t i = 0; i < found->size(); ++i)
    ctx.out << peek_line(i + 1, (*found)[i]) << "\n";
  if (!args.has("--yes")) {
    ctx.out << "dry run: nothing deleted; add --yes to delete "
            << (found->size() == 1 ? "it" : "them") << "\n";
    return k_ok;
  }
  std::vector<std::string> ids;
  for (const auto &m : *found)
    ids.push_back(m.id);
  return delete_each(ids, ctx, *api, identity);
}

} // namespace mem0::cli
