// `mem0-hooks stats [--json] [--days N] [--scope S]` (docs/hygiene.md#stats).
#include "cli/commands.hpp"
#include "cli/memories.hpp"
#include "hygiene/gather.hpp"

#include <charconv>

namespace mem0::cli {

// The days stats looks back at most: the daily counts keep about a month, the run logs a week.
inline constexpr int k_max_stats_days = 366;

int stats(const Args &args, const CliContext &ctx) {
  const auto usage = [&](std::string_view message) {
    ctx.err << "mem0-hooks stats: " << message << "\n";
    return k_usage;
  };
  // Plain words too, as a slash command passes them: `json`, `global`, `project`, a number.
  bool json = args.has("--json");
  std::optional<std::string> scope_name = args.value("--scope");
  std::optional<std::string> days_text = args.value("--days");
  for (const auto &word : args.words) {
    if (word == "json")
      json = true;
    else if (word == "global" || word == "project")
      scope_name = word;
    else if (!word.empty() && word.find_first_not_of("0123456789") == std::string::npos)
      days_text = word;
    else
      return usage("unknown word \"" + word + "\" (json, global, project or a number of days)");
  }
  int days = 30;
  if (days_text) {
    const auto [end, ec] =
        std::from_chars(days_text->data(), days_text->data() + days_text->size(), days);
    if (ec != std::errc() || end != days_text->data() + days_text->size() || days < 1 ||
        days > k_max_stats_days)
      return usage("--days must be a number from 1 to " + std::to_string(k_max_stats_days));
  }
  const auto scope = scope_named(scope_name, ctx.config);
  if (!scope || *scope == Scope::session) return usage("--scope must be project or global");
  const auto api = target_or_explain(ctx);
  if (!api) return k_failure;
  const Identity identity = identity_for(ctx, session_in_env(ctx.env));
  const hygiene::Stats stats =
      hygiene::gather_stats(ctx, service(ctx), *api, identity, *scope, days);
  if (json)
    ctx.out << hygiene::stats_json(stats) << "\n";
  else
    ctx.out << hygiene::stats_report(stats);
  return k_ok;
}

} // namespace mem0::cli
