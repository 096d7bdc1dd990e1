#pragma once
#include "runtime/io.hpp"
#include "runtime/remember.hpp"
#include "runtime/runner.hpp"

#include <optional>

namespace mem0::on_stop {

inline constexpr std::size_t k_min_chars = 100;
inline constexpr std::size_t k_max_chars = 20000;

// The session summary a Stop captures (docs/capture.md#what-is-captured): Claude's last message
// (cut to 20,000 characters) and the files touched this session, newest first; nullopt for a
// subagent's Stop or a message under 100 characters once stripped.
std::optional<Capture> summary_capture(const StopInput &input, const Config &config, WallTime now,
                                       const Agent &agent = claude_code());

// The use signal (docs/hygiene.md#the-use-signal): check the reply against the memories injected
// in the session since its previous reply, forget those, and note the ones it used in the run's
// log entry. Nothing for a subagent's reply or an empty one.
void mark_used(const StopInput &input, const HookContext &ctx);

// Handle one Stop event: mark the memories the reply used; queue the summary and declare the sender
// start (`send`), unless there is nothing to capture. No output.
HookOutput handle(const StopInput &input, const HookContext &ctx);

} // namespace mem0::on_stop
