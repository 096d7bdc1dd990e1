#include "hooks/on_session_end/on_session_end.hpp"
#include "hygiene/apply.hpp"

namespace mem0::on_session_end {

void auto_dream_work(const HookContext &ctx) {
  RunFacts &facts = *ctx.facts;
  const auto &api = facts.api();
  if (!api) return;
  const MemoryService service(ctx, facts.cwd(), SteadyClock::now() + k_auto_dream_budget, {},
                              Caller::automatic);
  const Identity identity = facts.identity();
  if (!hygiene::auto_due(ctx.state, identity.project_id, ctx.now(), false)) return;
  const hygiene::Dream dream =
      hygiene::gather_dream(ctx, service, *api, identity, Scope::project, facts.project_root());
  std::string skipped;
  const auto applied = hygiene::auto_dream(ctx, service, dream, identity.project_id, skipped);
  if (!applied)
    ctx.log.warn("dream --auto: " + applied.error().message);
  else if (!*applied)
    ctx.log.debug("dream --auto: nothing applied (" + skipped + ")");
  else
    ctx.log.debug("dream --auto: deleted " + std::to_string((*applied)->deleted.size()) +
                  ", queued " + std::to_string((*applied)->queued.size()) + "; undo file " +
                  (*applied)->undo.string());
}

HookOutput handle(const SessionEndInput &input, const HookContext &ctx) {
  ctx.log.debug([&] {
    return "session end (" + (input.reason.empty() ? std::string("no reason") : input.reason) + ")";
  });
  // The runner starts the sender for what the session's runs left queued (offline, paused).
  HookOutput output;
  if (ctx.config.auto_dream) {
    ctx.facts->bind(input);
    output.detached = [ctx] { auto_dream_work(ctx); };
  }
  return output;
}

} // namespace mem0::on_session_end
