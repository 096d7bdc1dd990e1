// `mem0-hooks remember <text…> [--type T]` (docs/cli.md#remember).
#include "cli/cli.hpp"
#include "mem0/format.hpp"

namespace mem0::cli {

int remember(const Args &args, const CliContext &ctx) {
  const std::string text = args.joined_words();
  if (text.empty()) {
    ctx.err << "What should I remember?\n";
    return k_usage;
  }
  const auto stored = store_memory(ctx, text, args.value("--type").value_or("decision"), "cli");
  if (!stored) {
    if (stored.error().kind == ErrorKind::duplicate) {
      ctx.out << failure_line(stored.error()) << "\n";
      return k_ok;
    }
    ctx.err << "mem0-hooks remember: " << failure_line(stored.error()) << "\n";
    return k_failure;
  }
  if (!stored->delivered) {
    ctx.out << "queued: the memory waits in the outbox; the hooks' sender delivers it"
            << (stored->reason.empty() ? "" : " (" + stored->reason + ")") << "\n";
    return k_ok;
  }
  if (stored->id.empty()) {
    ctx.out << "stored\n";
    return k_ok;
  }
  register_ids(ctx, tool_session(ctx), {memory_with_id(stored->id)});
  ctx.out << "stored as " << stored->id << " [mem0:" << id8(stored->id) << "]\n";
  return k_ok;
}

} // namespace mem0::cli
