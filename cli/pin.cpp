// `mem0-hooks pin <id…>` and `unpin <id…>` (docs/hygiene.md#pin).
#include "cli/commands.hpp"
#include "cli/memories.hpp"
#include "mem0/format.hpp"
#include "util/strings.hpp"

namespace mem0::cli {
namespace {

// Set the pin of each of `args.words`, saying so line by line; k_failure when any was not set.
int set_pins(const Args &args, const CliContext &ctx, bool pinned) {
  const std::string verb = pinned ? "pin" : "unpin";
  const auto api = target_or_explain(ctx);
  if (!api) return k_failure;
  const Identity identity = identity_for(ctx, session_in_env(ctx.env));
  const MemoryService memories = service(ctx);
  int status = k_ok;
  for (const auto &id : args.words) {
    const auto done = memories.set_pinned(*api, identity, id, pinned);
    if (!done) {
      ctx.err << "mem0-hooks " << verb << ": " << clean_text(id) << ": "
              << failure_line(done.error()) << "\n";
      status = k_failure;
      continue;
    }
    ctx.out << verb << "ned " << done->id << ": "
            << truncate_code_points(clean_text(done->text), 80) << "\n";
  }
  return status;
}

} // namespace

int pin(const Args &args, const CliContext &ctx) { return set_pins(args, ctx, true); }

int unpin(const Args &args, const CliContext &ctx) { return set_pins(args, ctx, false); }

} // namespace mem0::cli
