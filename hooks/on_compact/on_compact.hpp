#pragma once
#include "common/hook_io.hpp"
#include "common/hook_runner.hpp"

namespace mem0::on_compact {

inline constexpr std::size_t k_min_chars = 100;

// Handle one PostCompact event: queue the compact summary (docs/capture.md#what-is-captured),
// deduplicated by content; the runner then starts the sender. No output.
HookOutput handle(const CompactInput &input, const HookContext &ctx);

} // namespace mem0::on_compact
