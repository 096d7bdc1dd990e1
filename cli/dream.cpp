// `mem0-hooks dream [--apply] [--auto] [--json] [--scope S]` (docs/hygiene.md#dream).
#include "cli/commands.hpp"
#include "cli/memories.hpp"
#include "hygiene/apply.hpp"
#include "util/git.hpp"
#include "util/json_writer.hpp"
#include "util/strings.hpp"

namespace mem0::cli {
namespace {

// The applied part of a JSON answer: the undo file and what was deleted and left queued.
void write_applied(JsonWriter &w, const hygiene::Applied &applied) {
  w.key("applied").begin_object().member("undo", applied.undo.string());
  for (const auto &[key, ids] :
       {std::pair{"deleted", &applied.deleted}, std::pair{"queued", &applied.queued}}) {
    w.key(key).begin_array();
    for (const auto &id : *ids)
      w.str(id);
    w.end_array();
  }
  w.end_object();
}

} // namespace

int dream(const Args &args, const CliContext &ctx) {
  const auto usage = [&](std::string_view message) {
    ctx.err << "mem0-hooks dream: " << message << "\n";
    return k_usage;
  };
  // Plain words too, as a slash command passes them: `apply`, `auto`, `json`, `global`.
  bool apply = args.has("--apply"), automatic = args.has("--auto"), json = args.has("--json");
  std::optional<std::string> scope_name = args.value("--scope");
  for (const auto &word : args.words) {
    if (word == "apply")
      apply = true;
    else if (word == "auto")
      automatic = true;
    else if (word == "json")
      json = true;
    else if (word == "global" || word == "project")
      scope_name = word;
    else
      return usage("unknown word \"" + word + "\" (apply, auto, json, global or project)");
  }
  if (apply && automatic) return usage("--apply or --auto, not both");
  const auto scope = scope_named(scope_name, ctx.config);
  if (!scope || *scope == Scope::session) return usage("--scope must be project or global");
  const auto api = target_or_explain(ctx);
  if (!api) return k_failure;
  const Identity identity = identity_for(ctx, session_in_env(ctx.env));
  const auto repo = find_repo(ctx.cwd);
  const MemoryService memories = service(ctx);
  const hygiene::Dream dream =
      hygiene::gather_dream(ctx, memories, *api, identity, *scope, repo ? repo->top : ctx.cwd);

  std::optional<hygiene::Applied> applied;
  std::string skipped, failed;
  if (apply || automatic) {
    if (automatic) {
      auto done = hygiene::auto_dream(ctx, memories, dream, identity.project_id, skipped);
      if (done)
        applied = std::move(*done);
      else
        failed = done.error().message;
    } else if (auto done = hygiene::apply_dream(ctx, memories, dream); done) {
      applied = std::move(*done);
    } else {
      failed = done.error().message;
    }
  }
  if (json) {
    JsonWriter w;
    w.begin_object().key("plan");
    hygiene::write_dream_json(w, dream.plan);
    if (applied) write_applied(w, *applied);
    if (!skipped.empty()) w.member("skipped", skipped);
    if (!failed.empty()) w.member("error", failed);
    ctx.out << w.end_object().text() << "\n";
    return failed.empty() ? k_ok : k_failure;
  }
  ctx.out << hygiene::dream_report(dream.plan, dream.memories);
  const std::size_t planned = dream.plan.deletions().size();
  if (!apply && !automatic) {
    ctx.out << "dry run: nothing changed"
            << (planned > 0 && dream.plan.complete
                    ? "; `mem0-hooks dream --apply` deletes the " +
                          count_of(planned, "memory", "memories") + " above"
                    : std::string())
            << "\n";
    return k_ok;
  }
  if (!failed.empty()) {
    ctx.err << "mem0-hooks dream: " << failed << "\n";
    return k_failure;
  }
  if (!skipped.empty()) {
    ctx.out << "dream --auto: nothing applied (" << skipped << ")\n";
    return k_ok;
  }
  if (!applied || applied->undo.empty()) {
    ctx.out << "nothing to delete\n";
    return k_ok;
  }
  ctx.out << "deleted " << applied->deleted.size();
  if (!applied->queued.empty())
    ctx.out << "; " << applied->queued.size() << " queued for the sender";
  ctx.out << "\nundo file: " << applied->undo.string() << " (mem0-hooks import "
          << applied->undo.string() << " restores them)\n";
  return k_ok;
}

} // namespace mem0::cli
