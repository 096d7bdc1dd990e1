#include "cli/commands.hpp"
#include "cli/memories.hpp"
#include "mem0/format.hpp"
#include "mem0/search.hpp"
#include "util/detect.hpp"
#include "util/strings.hpp"

namespace mem0::cli {

int context(const Args &args, const CliContext &ctx) {
  const std::string task = make_query(args.joined_words(), ctx.config.redact);
  if (task.empty()) {
    ctx.err << "mem0-hooks context: what task should I load context for?\n";
    return k_usage;
  }
  const auto api = target_or_explain(ctx);
  if (!api) return k_failure;
  const std::string session = session_for(args, ctx);
  const Scope scope = ctx.config.global_search ? Scope::global : Scope::project;
  // The context-loader protocol: up to four angles, three results each except the broad one.
  std::vector<SearchSpec> plan{{task, std::string(memory_type::decision), 3, scope}};
  const auto paths = detect_paths(task);
  if (!paths.empty())
    plan.push_back({join(paths, " "), std::string(memory_type::convention), 3, scope});
  if (const std::string errors = error_keywords(task); !errors.empty())
    plan.push_back({errors, std::string(memory_type::anti_pattern), 3, scope});
  plan.push_back({task, std::nullopt, 5, scope});
  // --dir: the shared memory of that directory only (docs/cli.md#context).
  if (const auto dir = dir_named(args.value("--dir")))
    for (auto &spec : plan)
      spec.dir = dir;

  // A back-off pause answers at once, sending nothing (docs/cli.md#context).
  const auto outcome = service(ctx).run(*api, identity_for(ctx, session), plan);
  if (!outcome) {
    ctx.err << "mem0-hooks context: " << failure_line(outcome.error()) << "\n";
    return k_failure;
  }
  if (report_failures(*outcome, plan.size(), ctx)) return k_failure;
  const SessionState seen = session.empty() ? SessionState{} : ctx.state.sessions.load(session);
  std::vector<Memory> memories =
      merge_results(outcome->results, [&](std::string_view id) { return seen.was_injected(id); });
  if (memories.size() > 10) memories.resize(10);
  if (args.has("--json")) {
    write_json(ctx.out, memories);
    return k_ok;
  }
  if (memories.empty()) {
    ctx.out << "No memories found for \"" << task << "\".\n";
    return k_ok;
  }
  ctx.out << "context-loader: loaded " << count_of(memories.size(), "memory", "memories")
          << " for \"" << task << "\"\n";
  for (const auto &m : memories)
    ctx.out << context_line(m) << "\n";
  return k_ok;
}

} // namespace mem0::cli
