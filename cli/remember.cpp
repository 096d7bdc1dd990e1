// `mem0-hooks remember <text…> [--type T]` (docs/cli.md#remember).
#include "cli/commands.hpp"
#include "cli/memories.hpp"
#include "mem0/memory.hpp"

namespace mem0::cli {

int remember(const Args &args, const CliContext &ctx) {
  const std::string text = args.joined_words();
  if (text.empty()) {
    ctx.err << "What should I remember?\n";
    return k_usage;
  }
  if (args.has("--team") && args.has("--personal")) {
    ctx.err << "mem0-hooks remember: --team or --personal, not both\n";
    return k_usage;
  }
  NewMemory memory{text, args.value("--type").value_or(std::string(memory_type::decision)), "cli"};
  if (args.has("--team") || args.has("--personal")) memory.team = args.has("--team");
  const auto stored = service(ctx).add(memory);
  if (!stored) {
    if (stored.error().kind == ErrorKind::duplicate) {
      ctx.out << failure_line(stored.error()) << "\n";
      return k_ok;
    }
    ctx.err << "mem0-hooks remember: " << failure_line(stored.error()) << "\n";
    return k_failure;
  }
  if (stored->rejected) {
    ctx.err << "mem0-hooks remember: " << stored_line(*stored) << "\n";
    return k_failure;
  }
  ctx.out << stored_line(*stored) << "\n";
  return k_ok;
}

} // namespace mem0::cli
