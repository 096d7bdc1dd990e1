#include "hooks/on_session_end/on_session_end.hpp"

namespace mem0::on_session_end {

HookOutput handle(const SessionEndInput &input, const HookContext &ctx) {
  ctx.log.debug([&] {
    return "session end (" + (input.reason.empty() ? std::string("no reason") : input.reason) + ")";
  });
  // The runner starts the sender for what the session's runs left queued (offline, paused).
  return {};
}

} // namespace mem0::on_session_end
