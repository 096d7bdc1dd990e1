#include "hooks/on_compact/on_compact.hpp"
#include "common/remember.hpp"
#include "common/utf8.hpp"

namespace mem0::on_compact {

HookOutput handle(const CompactInput &input, const HookContext &ctx) {
  const std::string summary = prepare_capture_text(input.compact_summary, ctx.config.redact);
  if (code_points(summary) < k_min_chars) {
    ctx.log.debug("compact: no summary of 100 characters to capture");
    return {};
  }
  Capture c;
  c.messages = {{"assistant", summary}};
  c.type = "compact_summary";
  c.source = "compact";
  remember(ctx, input, std::move(c));
  return {};
}

} // namespace mem0::on_compact
