#include "hooks/on_compact/on_compact.hpp"
#include "mem0/memory.hpp"
#include "runtime/remember.hpp"
#include "util/utf8.hpp"

namespace mem0::on_compact {

std::string_view summary_part(std::string_view text) {
  constexpr std::string_view open = "<summary>", close = "</summary>";
  const auto start = text.find(open);
  if (start == std::string_view::npos) return text;
  text.remove_prefix(start + open.size());
  return text.substr(0, text.find(close));
}

HookOutput handle(const CompactInput &input, const HookContext &ctx) {
  const std::string summary =
      prepare_capture_text(summary_part(input.compact_summary), ctx.config.redact);
  if (code_points(summary) < k_min_chars) {
    ctx.log.debug("compact: no summary of 100 characters to capture");
    ctx.facts->note_skip("gated", "a compact summary under " + std::to_string(k_min_chars) +
                                      " characters: nothing captured");
    return {};
  }
  Capture c;
  c.messages = {{"assistant", summary}};
  c.type = memory_type::compact_summary;
  c.source = memory_source::compact;
  c.prepared = true;
  // Best effort: remember logs why a capture was not queued, and the hook has nothing to add.
  (void)remember(ctx, *ctx.facts, std::move(c));
  return {};
}

} // namespace mem0::on_compact
