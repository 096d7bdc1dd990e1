#include "runtime/hook_context.hpp"

namespace mem0 {

HookContext make_context(const RunDeps &deps, Deadline deadline, const Agent &agent) {
  return HookContext{
      deps, deadline, &agent,
      std::make_shared<RunFacts>(deps.env, deps.config, deps.log, deps.state, deps.now, agent)};
}

} // namespace mem0
