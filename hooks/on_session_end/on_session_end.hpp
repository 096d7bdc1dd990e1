#pragma once
#include "runtime/io.hpp"
#include "runtime/runner.hpp"

namespace mem0::on_session_end {

// Handle one SessionEnd event. There is nothing to say or capture: declare the sender start
// (`send`; it starts when items are pending), so that the session's captures leave before the
// machine sleeps.
// With the auto_dream setting on, the detached sender first runs dream --auto over the project
// (auto_dream_work, docs/hygiene.md#dream).
// Claude Code gives SessionEnd hooks 1.5 s in all; this returns in a few milliseconds.
HookOutput handle(const SessionEndInput &input, const HookContext &ctx);

// What the detached process runs for dream --auto over the project of `ctx`'s facts: read, plan
// and apply within k_auto_dream_budget; its outcome goes to the log.
void auto_dream_work(const HookContext &ctx);
inline constexpr std::chrono::seconds k_auto_dream_budget{60};

} // namespace mem0::on_session_end
