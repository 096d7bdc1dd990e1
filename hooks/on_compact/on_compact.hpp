#pragma once
#include "runtime/io.hpp"
#include "runtime/runner.hpp"

namespace mem0::on_compact {

inline constexpr std::size_t k_min_chars = 100;

// The summary of a compaction as Claude Code passes it (`<analysis>…</analysis>` then
// `<summary>…</summary>`): what the summary tags hold, or the whole text without them.
std::string_view summary_part(std::string_view text);

// Handle one PostCompact event: queue the compact summary (the scratchpad left out)
// (docs/capture.md#what-is-captured), deduplicated by content, and declare the sender start
// (`send`). No output.
HookOutput handle(const CompactInput &input, const HookContext &ctx);

} // namespace mem0::on_compact
