#pragma once
#include "runtime/agent.hpp"
#include "runtime/facts.hpp"
#include "runtime/runtime.hpp"
#include "util/clock.hpp"

#include <memory>

namespace mem0 {

// Everything a hook handler may touch, passed in so tests can substitute fakes: the run's
// dependencies, its deadline, the agent that ran it and its facts. Copies share the facts.
struct HookContext : RunDeps {
  Deadline deadline;
  const Agent *agent;
  std::shared_ptr<RunFacts> facts; // computed once per run, on first use
};

// The context of one run of `agent` over `deps`, with facts of its own (unbound: the runner binds
// them to the event's input).
HookContext make_context(const RunDeps &deps, Deadline deadline,
                         const Agent &agent = claude_code());

} // namespace mem0
