#pragma once
#include "runtime/io.hpp"
#include "runtime/runner.hpp"

namespace mem0::on_session_end {

// Handle one SessionEnd event. There is nothing to say or capture: declare the sender start
// (`send`; it starts when items are pending), so that the session's captures leave before the
// machine sleeps.
// Claude Code gives SessionEnd hooks 1.5 s in all; this returns in a few milliseconds.
HookOutput handle(const SessionEndInput &input, const HookContext &ctx);

} // namespace mem0::on_session_end
